//! `cable run SCENE`: simulate a scene file and write its results.

use std::io::Read;
use std::time::Instant;

use cable::Scene;
use cable_systems::Stepper;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::anim::{self, Animation};
use super::out::OutWriter;
use super::svg_out::{self, SvgOut};
use super::{CliError, RunArgs, check_seconds, thread_pool};
use cable_debug::{Frame, Recorder, render_frame_ascii};

/// Runs `cable run`.
pub fn run(a: &RunArgs) -> Result<(), CliError> {
    let layout = match &a.layout {
        Some(name) => super::bench::parse_layout(name)?,
        None => cable_systems::Layout::default(),
    };
    let seconds = check_seconds(a.seconds)?;
    let dt = a.frame_dt;
    if !(dt.is_finite() && dt > 0.0 && dt <= 10.0) {
        return Err(CliError::Usage(format!(
            "--frame-dt: must be greater than 0 and at most 10, got {dt}"
        )));
    }
    if a.every == 0 {
        return Err(CliError::Usage("--every: must be at least 1, got 0".into()));
    }
    let text = read_scene(&a.scene)?;
    let scene = Scene::from_json(&text).map_err(|e| CliError::Usage(e.to_string()))?;
    let (mut pool, handles) = scene
        .build_pool()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let mut stepper = Stepper::with_layout(scene.params, layout)
        .map_err(|e| CliError::Usage(format!("scene.{e}")))?;
    let frames = frame_count(seconds, dt);
    let workers = thread_pool(a.threads)?;
    let mut out = match &a.out {
        Some(p) => Some(OutWriter::create(p, scene.params.substep)?),
        None => None,
    };
    let obj = match &a.obj {
        Some(p) => Some(super::obj::ObjWriter::create(p)?),
        None => None,
    };
    let svg = match &a.svg {
        Some(p) => Some(SvgOut::create(
            p,
            &format!("cable run {}", a.scene),
            a.svg_still,
            a.views.view,
        )?),
        None => None,
    };
    // Frames carry the pool's colliders at their current poses.
    let mut recorder = Recorder::new(svg_out::capacity(pool.particle_count()));
    recorder.offer(&pool, stepper.time());
    let mut animation = if a.ascii {
        Animation::start(&a.views.ascii())
    } else {
        None
    };
    let work = frames as f64 * scene.particle_count() as f64 * f64::from(scene.params.iterations);
    let bar = if work > 2.0e8 && animation.is_none() {
        let bar = ProgressBar::with_draw_target(Some(frames), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} frames, {eta} left") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    workers.install(|| -> Result<(), CliError> {
        for f in 1..=frames {
            stepper
                .advance(&mut pool, dt)
                .map_err(|e| CliError::Other(format!("internal: {e}")))?;
            if let Some(w) = out.as_mut() {
                if f % a.every == 0 || f == frames {
                    w.frame(f, stepper.time(), &pool, &handles)?;
                }
            }
            if svg.is_some() {
                recorder.offer(&pool, stepper.time());
            }
            if let Some(an) = animation.as_mut() {
                if anim::interrupted() {
                    return Err(CliError::Interrupted);
                }
                let status = format!(
                    "cable run {}  t = {:.2} s of {seconds:.2} s  Ctrl-C stops",
                    a.scene,
                    stepper.time()
                );
                an.tick(
                    f as f64 * f64::from(dt),
                    || Frame::capture(&pool, stepper.time()),
                    &status,
                )
                .map_err(|e| CliError::Other(format!("internal: {e}")))?;
            }
            bar.inc(1);
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    // Leave the alternate screen before printing anything else.
    drop(animation);
    if let Some(s) = svg {
        recorder.finish(&pool, stepper.time());
        s.write(&recorder)?;
    }
    if a.ascii {
        let picture = render_frame_ascii(&Frame::capture(&pool, stepper.time()), &a.views.ascii())
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        print!("{picture}");
    }
    if let Some(w) = out {
        w.finish()?;
    }
    if !pool.all_finite() {
        return Err(CliError::Other(
            "the simulation produced non-finite positions; lower the substep or raise the iterations".into(),
        ));
    }
    if let Some(w) = obj {
        workers.install(|| w.write(&pool))?;
    }
    println!(
        "{} cables, {} particles: {} frames, {} substeps, {:.3} s simulated in {:.3} s on {} threads",
        handles.len(),
        pool.particle_count(),
        frames,
        stepper.substeps_run(),
        stepper.time(),
        wall,
        workers.current_num_threads()
    );
    Ok(())
}

/// Frames in `seconds` of frames of `dt`: the nearest whole number when
/// within rounding of one, else rounded up.
pub fn frame_count(seconds: f64, dt: f32) -> u64 {
    let x = seconds / f64::from(dt);
    let r = x.round();
    if (x - r).abs() <= 1.0e-6 * x.max(1.0) {
        r as u64
    } else {
        x.ceil() as u64
    }
}

fn read_scene(path: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let res = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    let name = if path == "-" { "standard input" } else { path };
    res.map_err(|e| CliError::Usage(format!("scene {name}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::Usage(format!(
            "scene {name}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}
