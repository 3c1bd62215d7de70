//! `cable run SCENE`: simulate a scene file and write its results.

use std::io::Read;
use std::time::Instant;

use cable::Scene;
use cable::scene::MAX_SCENE_BYTES;
use cable_core::{CableError, CableHandle, ParticlePool};
use cable_systems::{Stepper, tension};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::anim::Animation;
use super::args::RunArgs;
use super::error::CliError;
use super::out::OutWriter;
use super::save_file;
use super::setup::{check_seconds, checked_frames, thread_pool};
use super::staged::{self, Staged, check_distinct};
use super::svg_out::{SvgFrames, SvgOut};
use cable_debug::{Frame, render_frame_ascii};

/// Runs `cable run`.
///
/// Every input is checked and every output staged before the first step;
/// the outputs are handed to their targets only after the whole run
/// succeeded (see [`super::staged`]).
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
    if a.tension && a.out.is_none() {
        return Err(CliError::Usage(
            "--tension: needs --out FILE (the tensions are written into its frames)".into(),
        ));
    }
    if a.forces && a.out.is_none() {
        return Err(CliError::Usage(
            "--forces: needs --out FILE (the forces are written into its frames)".into(),
        ));
    }
    let frames = checked_frames(seconds, dt)?;
    let save_at = match a.save_at {
        Some(s) => {
            let s = check_seconds(s).map_err(|_| {
                CliError::Usage(format!(
                    "--save-at: must be a number between 0 and 1e6, got {s}"
                ))
            })?;
            let at = checked_frames(s, dt)?;
            if at > frames {
                return Err(CliError::Usage(format!(
                    "--save-at: {s} s is after the end of the run (--seconds {seconds})"
                )));
            }
            at
        }
        None => frames,
    };
    // The scene and the saved state are read before any output is
    // written, but an output naming either would destroy it.
    check_distinct(
        &[
            (
                "the scene",
                (a.scene != "-").then_some(std::path::Path::new(&a.scene)),
            ),
            ("--restore", a.restore.as_deref()),
        ],
        &[
            ("--out", a.out.as_deref()),
            ("--svg", a.svg.as_deref()),
            ("--obj", a.obj.as_deref()),
            ("--save", a.save.as_deref()),
        ],
    )?;
    let bytes = read_scene(&a.scene)?;
    let scene = Scene::from_slice(&bytes).map_err(|e| CliError::Usage(e.to_string()))?;
    drop(bytes);
    let (mut pool, mut handles) = scene
        .build_pool()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let direct = scene.params.solver == cable::systems::Solver::Direct;
    let mut stepper = Stepper::with_layout(scene.params, layout)
        .map_err(|e| CliError::Usage(format!("scene.{e}")))?;
    // Frames already run: those of a restored state.
    let mut first = 0;
    if let Some(path) = &a.restore {
        let saved = save_file::read(path)?;
        let name = path.display();
        if saved.frame_dt.to_bits() != dt.to_bits() {
            return Err(CliError::Usage(format!(
                "--restore {name}: was saved with --frame-dt {}, this run has {dt} (frames of another length give other results)",
                saved.frame_dt
            )));
        }
        // The same cables, parameters, masses and colliders as the scene's
        // pool, fresh from the scene: else a save of another scene.
        save_file::check_scene(&saved, &pool, &scene.params, dt)
            .map_err(|e| CliError::Usage(format!("--restore {name}: {e}")))?;
        let (p, s) = saved.simulation.into_parts();
        if saved.frame > frames {
            return Err(CliError::Usage(format!(
                "--seconds: the restored state is at frame {} (t = {:.4} s), after the end of this run at frame {frames}",
                saved.frame,
                s.time()
            )));
        }
        if save_at < saved.frame {
            return Err(CliError::Usage(format!(
                "--save-at: is before the restored state (frame {}, t = {:.4} s)",
                saved.frame,
                s.time()
            )));
        }
        (pool, stepper, first) = (p, s, saved.frame);
        // Scene order: a pool keeps its cables in the order they were added.
        handles = pool.handles().collect();
        stepper.set_layout(layout);
    }
    // Tension needs the solver's multipliers, accumulated only on request.
    stepper.set_track_tension(a.tension);
    // Contact forces are summed by the contact passes only on request.
    pool.colliders_mut().set_measure_forces(a.forces);
    // Scene order: a pool's colliders are in the order they were added.
    let colliders: Vec<_> = pool.colliders().handles().collect();
    let mut forces = Vec::with_capacity(colliders.len());
    let mut save = match &a.save {
        Some(p) => Some(Staged::create("--save", p)?),
        None => None,
    };
    let mut tensions = Tensions::new(a.tension, handles.len());
    let workers = thread_pool(a.threads)?;
    // Every output path is checked (and staged) before
    // anything is run or written.
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
    // Memory budgets, before anything big is allocated.
    if let Some(o) = &obj {
        o.check_budget(&pool)?;
    }
    if let Some(s) = &svg {
        s.check_budget(pool.particle_count())?;
    }
    // Frames carry the pool's colliders at their current poses; the
    // recording stays within its budget as the particle count changes.
    let mut recording = svg.as_ref().map(|s| SvgFrames::new(s.label()));
    if let Some(r) = recording.as_mut() {
        r.offer(&pool, stepper.time())?;
    }
    super::signal::catch_interrupts();
    let mut animation = if a.ascii {
        Animation::start(&a.views.ascii())
    } else {
        None
    };
    let work = (frames - first) as f64
        * scene.particle_count() as f64
        * f64::from(scene.params.iterations);
    let bar = if work > 2.0e8 && animation.is_none() {
        let bar = ProgressBar::with_draw_target(Some(frames - first), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} frames, {eta} left") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    if save_at == first
        && let Some(staged) = save.as_mut()
    {
        save_file::write(staged, first, dt, &pool, &stepper)?;
    }
    workers.install(|| -> Result<(), CliError> {
        for f in first + 1..=frames {
            if super::signal::interrupted() {
                return Err(CliError::Interrupted);
            }
            stepper.advance(&mut pool, dt).map_err(|e| match e {
                // The scene's winch check should make this impossible.
                e @ CableError::WinchBudget { .. } => {
                    CliError::Other(format!("at t = {:.4} s: {e}", stepper.time()))
                }
                e => CliError::Other(format!("internal: {e}")),
            })?;
            check_finite(&pool, &handles, stepper.time(), direct)?;
            if let Some(w) = out.as_mut()
                && (f % a.every == 0 || f == frames)
            {
                let t = tensions.measure(&pool, &handles, scene.params.substep)?;
                let fc = if a.forces {
                    forces.clear();
                    for &h in &colliders {
                        let c = pool.colliders().contact_force(h);
                        forces.push(
                            c.map_err(|e| CliError::Other(format!("internal: {e}")))?
                                .force,
                        );
                    }
                    Some(forces.as_slice())
                } else {
                    None
                };
                w.frame(f, stepper.time(), &pool, &handles, t, fc)?;
            }
            if let Some(r) = recording.as_mut() {
                r.offer(&pool, stepper.time())?;
            }
            if f == save_at
                && let Some(staged) = save.as_mut()
            {
                save_file::write(staged, f, dt, &pool, &stepper)?;
            }
            if let Some(an) = animation.as_mut() {
                let status = format!(
                    "cable run {}  t = {:.2} s of {seconds:.2} s  Ctrl-C stops",
                    a.scene,
                    stepper.time()
                );
                an.tick(
                    (f - first) as f64 * f64::from(dt),
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
    check_finite(&pool, &handles, stepper.time(), direct)?;
    // Render every output into its staged file, then hand them over.
    let mut staged = Vec::new();
    if let (Some(s), Some(r)) = (svg, recording) {
        let mut recorder = r.finish(&pool, stepper.time())?;
        // With --tension the still is coloured by the final tensions.
        if let Some(t) = tensions.measure(&pool, &handles, scene.params.substep)?
            && let Some(f) = recorder.last_frame_mut()
        {
            for (c, t) in f.cables.iter_mut().zip(t) {
                c.tension.clone_from(t);
            }
        }
        staged.push(s.write(&recorder)?);
    }
    if let Some(w) = obj {
        staged.push(workers.install(|| w.write(&pool))?);
    }
    if let Some(w) = out {
        staged.push(w.finish()?);
    }
    staged.extend(save);
    if super::signal::interrupted() {
        return Err(CliError::Interrupted);
    }
    staged::commit_all(staged)?;
    if a.ascii {
        let picture = render_frame_ascii(&Frame::capture(&pool, stepper.time()), &a.views.ascii())
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        print!("{picture}");
    }
    println!(
        "{} cables, {} particles: {} frames, {} substeps, {:.3} s simulated in {:.3} s on {} threads",
        handles.len(),
        pool.particle_count(),
        frames - first,
        stepper.substeps_run(),
        stepper.time(),
        wall,
        workers.current_num_threads()
    );
    Ok(())
}

/// Exit 1 naming the first cable whose state is not finite: nothing is
/// written for such a run.
fn check_finite(
    pool: &ParticlePool,
    handles: &[CableHandle],
    time: f64,
    direct: bool,
) -> Result<(), CliError> {
    if pool.all_finite() {
        return Ok(());
    }
    let i = handles
        .iter()
        .position(|&h| {
            pool.positions(h)
                .map_or(true, |p| p.iter().any(|v| !v.is_finite()))
        })
        .unwrap_or(0);
    // A stiff rod of fine segments on the direct solver: more iterations
    // make it fail sooner; what helps is below (docs/guide/rod-features.md).
    let rod = handles
        .get(i)
        .and_then(|&h| pool.params(h).ok())
        .is_some_and(|p| p.bend_stiffness > 0.0 && direct);
    let advice = if rod {
        "a stiff rod of fine segments on the direct solver loses its masses in the solve's f32 \
         arithmetic: keep bend_stiffness · substep² / (mass_per_length · segment length⁴) below \
         about 1e7 (a smaller substep, longer segments or a lower bend_stiffness; see the rod \
         guide's Known limits)"
    } else {
        "try more iterations, a smaller substep or gentler forces"
    };
    Err(CliError::Other(format!(
        "scene.cables[{i}]: the simulation went non-finite (NaN or infinite positions) at t = {time:.4} s, so nothing was written; {advice}"
    )))
}

/// The `--tension` buffers: one per cable, reused frame after frame.
struct Tensions {
    on: bool,
    per_cable: Vec<Vec<f32>>,
}

impl Tensions {
    fn new(on: bool, cables: usize) -> Self {
        Self {
            on,
            per_cable: if on {
                vec![Vec::new(); cables]
            } else {
                Vec::new()
            },
        }
    }

    /// Each cable's segment tensions from the last substep (newtons, scene
    /// order), or `None` without `--tension`. Exit 1 naming the cable when
    /// a tension is not finite (JSON has no number for it).
    fn measure(
        &mut self,
        pool: &ParticlePool,
        handles: &[CableHandle],
        substep: f32,
    ) -> Result<Option<&[Vec<f32>]>, CliError> {
        if !self.on {
            return Ok(None);
        }
        for (i, (&h, t)) in handles.iter().zip(&mut self.per_cable).enumerate() {
            tension::segment_tensions(pool, h, substep, t)
                .map_err(|e| CliError::Other(format!("internal: {e}")))?;
            if let Some(j) = t.iter().position(|x| !x.is_finite()) {
                return Err(CliError::Other(format!(
                    "scene.cables[{i}]: the tension of segment {j} went non-finite ({}), so nothing was written; try more iterations, a smaller substep or gentler masses and forces",
                    t[j]
                )));
            }
        }
        Ok(Some(&self.per_cable))
    }
}

/// Reads the scene's bytes, at most [`MAX_SCENE_BYTES`] (exit 2 beyond:
/// `cable run /dev/zero` stops there instead of exhausting memory).
fn read_scene(path: &str) -> Result<Vec<u8>, CliError> {
    let name = if path == "-" { "standard input" } else { path };
    let limit = MAX_SCENE_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    let res = if path == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    res.map_err(|e| CliError::Usage(format!("scene {name}: cannot read: {e}")))?;
    if bytes.len() > MAX_SCENE_BYTES {
        return Err(CliError::Usage(format!(
            "scene {name}: longer than the limit of {} MiB",
            MAX_SCENE_BYTES >> 20
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_state_is_an_error_naming_the_cable() {
        let scene = Scene::from_json(
            r#"{"cables": [{"start": [0,0,0], "end": [1,0,0]}, {"start": [0,1,0], "end": [1,1,0]}]}"#,
        )
        .unwrap();
        let (mut pool, handles) = scene.build_pool().unwrap();
        assert!(check_finite(&pool, &handles, 0.0, false).is_ok());
        pool.positions_mut(handles[1]).unwrap()[3].y = f32::NAN;
        let Err(CliError::Other(msg)) = check_finite(&pool, &handles, 1.5, false) else {
            panic!("a NaN position was accepted");
        };
        assert!(msg.starts_with("scene.cables[1]: "), "{msg}");
        assert!(msg.contains("nothing was written"), "{msg}");
    }

    #[test]
    fn frame_counts_are_bounded() {
        assert_eq!(super::super::setup::checked_frames(1.0, 0.5).ok(), Some(2));
        assert!(super::super::setup::checked_frames(1.0e6, 0.1).is_ok());
        assert!(super::super::setup::checked_frames(1.0e6, 0.09).is_err());
        assert!(super::super::setup::checked_frames(1.0, 1.0e-30).is_err());
    }
}
