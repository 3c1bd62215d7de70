//! `cable bench`: measure the solver on a synthetic workload, one layout or
//! all of them in one run (with ratios), as a table and optionally JSON.

use cable::workload::{BenchScene, Measurement, Workload};
use cable_systems::Layout;
use cable_systems::simd::Simd;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::BenchArgs;
use super::error::CliError;
use super::setup::thread_pool;
use super::staged::Staged;

/// Most cables × (segments + 1) particles a bench may build.
const MAX_PARTICLES: usize = cable::scene::SCENE_PARTICLE_BUDGET;

/// Runs `cable bench`.
pub fn bench(a: &BenchArgs) -> Result<(), CliError> {
    let d = Workload::default();
    let substeps = a.substeps.unwrap_or(d.substeps);
    let scene = match &a.scene {
        Some(name) => name
            .parse::<BenchScene>()
            .map_err(|e| CliError::Usage(format!("--scene: {e}")))?,
        None => BenchScene::Free,
    };
    let simd = match a.simd.as_deref() {
        None | Some("auto") => None,
        Some(name) => Some(Simd::from_name(name).ok_or_else(|| {
            CliError::Usage(format!(
                "--simd: unknown path `{name}`; available: auto, baseline, avx2, avx512"
            ))
        })?),
    };
    if let Some(path) = simd.filter(|p| !p.supported()) {
        let what = match path {
            Simd::Avx512 => "AVX-512 (F and VL)",
            _ => "AVX2",
        };
        return Err(CliError::Usage(format!(
            "--simd {}: this CPU has no {what}; it runs: {}",
            path.name(),
            cable_systems::simd::available()
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    cable_systems::simd::force(simd);
    let default_cables = match scene {
        BenchScene::Free => d.cables,
        BenchScene::Contact | BenchScene::Ground | BenchScene::Pile => 2_000,
    };
    let w = Workload {
        scene,
        cables: a.cables.unwrap_or(default_cables),
        segments: a.segments.unwrap_or(d.segments),
        iterations: a.iterations.unwrap_or(d.iterations),
        substeps,
        // Default: every substep in one frame (the solver's throughput).
        frame_substeps: a.frame_substeps.unwrap_or(substeps),
        tethers: a.tethers,
        read_every_frame: a.read_every_frame,
        cable_collision: a.cable_collision,
    };
    check(&w)?;
    let layouts: Vec<Layout> = match &a.layout {
        Some(name) => vec![parse_layout(name)?],
        None => Layout::ALL.to_vec(),
    };
    let workers = thread_pool(a.threads)?;
    let threads = workers.current_num_threads();
    let mut results = Vec::new();
    let repeat = a.repeat.unwrap_or(1);
    if !(1..=100).contains(&repeat) {
        return Err(CliError::Usage(format!(
            "--repeat: must be between 1 and 100, got {repeat}"
        )));
    }
    // Staged like every output (whole or not at all, devices written in
    // place), before measuring: an unwritable path fails at once.
    let chart = match &a.svg {
        Some(path) => Some(Staged::create("--svg", path)?),
        None => None,
    };
    // Progress on standard error, drawn only when it is a terminal (so the
    // table and the JSON on standard output stay clean): one tick per run.
    let bar = ProgressBar::with_draw_target(
        Some(layouts.len() as u64 * u64::from(repeat)),
        ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {msg} ({elapsed})")
    {
        bar.set_style(style);
    }
    for &layout in &layouts {
        // The fastest of `repeat` runs: the least disturbed on a shared machine.
        let mut best: Option<Measurement> = None;
        for _ in 0..repeat {
            bar.set_message(format!("{layout}"));
            // Caught (with --svg) so that its staged file is dropped.
            if super::signal::interrupted() {
                return Err(CliError::Interrupted);
            }
            let m = workers
                .install(|| w.measure(layout))
                .map_err(|e| CliError::Usage(e.to_string()))?;
            if best.is_none_or(|b| m.seconds < b.seconds) {
                best = Some(m);
            }
            bar.inc(1);
        }
        results.extend(best);
    }
    bar.finish_and_clear();
    print_table(&w, threads, repeat, &results);
    if let Some(mut staged) = chart {
        use std::io::Write;
        staged
            .file()
            .write_all(svg_chart(&w, threads, &results).as_bytes())
            .map_err(|e| staged.io_err(&e))?;
        staged.commit()?;
    }
    if a.json {
        let mut v = json(&w, threads, &results);
        v["repeat"] = serde_json::json!(repeat);
        println!("{v}");
    }
    Ok(())
}

/// Parses `--layout`.
pub fn parse_layout(name: &str) -> Result<Layout, CliError> {
    name.parse::<Layout>()
        .map_err(|e| CliError::Usage(format!("--layout: {e}")))
}

fn check(w: &Workload) -> Result<(), CliError> {
    let bad = |flag: &str, what: &str, got: u64| {
        Err(CliError::Usage(format!(
            "{flag}: must be {what}, got {got}"
        )))
    };
    if w.cables == 0 {
        return bad("--cables", "at least 1", 0);
    }
    if !(1..=cable_core::MAX_SEGMENTS).contains(&w.segments) {
        return bad(
            "--segments",
            "between 1 and 16777216",
            u64::from(w.segments),
        );
    }
    if !(1..=cable_systems::params::MAX_ITERATIONS).contains(&w.iterations) {
        return bad(
            "--iterations",
            "between 1 and 1024",
            u64::from(w.iterations),
        );
    }
    if !(1..=1_000_000).contains(&w.substeps) {
        return bad("--substeps", "between 1 and 1000000", u64::from(w.substeps));
    }
    if !(1..=cable_systems::params::MAX_SUBSTEPS).contains(&w.frame_substeps) {
        return bad(
            "--frame-substeps",
            "between 1 and 10000",
            u64::from(w.frame_substeps),
        );
    }
    let particles = (w.segments as usize + 1).saturating_mul(w.cables);
    if particles > MAX_PARTICLES {
        return Err(CliError::Usage(format!(
            "--cables: {} cables of {} segments need {particles} particles, more than the {MAX_PARTICLES} a bench may hold",
            w.cables, w.segments
        )));
    }
    Ok(())
}

fn print_table(w: &Workload, threads: usize, repeat: u32, results: &[Measurement]) {
    println!(
        "scene {}{}{}: {} cables x {} segments, {} iterations, {} substeps ({} per frame{}), {threads} threads, simd {}, best of {repeat}",
        w.scene.name(),
        if w.tethers { " with tethers" } else { "" },
        if w.cable_collision {
            " with contact between cables"
        } else {
            ""
        },
        w.cables,
        w.segments,
        w.iterations,
        w.substeps,
        w.frame_substeps,
        if w.read_every_frame {
            ", every particle read after each"
        } else {
            ""
        },
        cable_systems::simd::active().name()
    );
    let base = results
        .iter()
        .find(|m| m.layout == Layout::Aos)
        .map(Measurement::segment_iterations_per_sec);
    println!(
        "{:<8} {:>10} {:>22} {:>22} {:>9}",
        "layout", "seconds", "segment-iterations/s", "particle-substeps/s", "vs aos"
    );
    for m in results {
        let ratio = base.map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}x", m.segment_iterations_per_sec() / b),
        );
        println!(
            "{:<8} {:>10.4} {:>22.4e} {:>22.4e} {:>9}",
            m.layout.name(),
            m.seconds,
            m.segment_iterations_per_sec(),
            m.particle_substeps_per_sec(),
            ratio
        );
    }
}

/// One JSON object: the fastest layout's numbers at the top level (the
/// spec's keys), every layout under `results`, and ratios to `aos` when it ran.
fn json(w: &Workload, threads: usize, results: &[Measurement]) -> serde_json::Value {
    let best = results
        .iter()
        .max_by(|a, b| {
            a.segment_iterations_per_sec()
                .total_cmp(&b.segment_iterations_per_sec())
        })
        .copied();
    let base = results
        .iter()
        .find(|m| m.layout == Layout::Aos)
        .map(Measurement::segment_iterations_per_sec);
    let entry = |m: &Measurement| {
        let mut v = serde_json::json!({
            "layout": m.layout.name(),
            "seconds": m.seconds,
            "segment_iterations_per_sec": m.segment_iterations_per_sec(),
            "particle_substeps_per_sec": m.particle_substeps_per_sec(),
        });
        if let Some(b) = base {
            v["ratio_vs_aos"] = serde_json::json!(m.segment_iterations_per_sec() / b);
        }
        v
    };
    let mut top = serde_json::json!({
        "threads": threads,
        "cables": w.cables,
        "segments": w.segments,
        "iterations": w.iterations,
        "substeps": w.substeps,
        "frame_substeps": w.frame_substeps,
        "scene": w.scene.name(),
        "tethers": w.tethers,
        "read_every_frame": w.read_every_frame,
        "cable_collision": w.cable_collision,
        "simd": cable_systems::simd::active().name(),
        "results": results.iter().map(entry).collect::<Vec<_>>(),
    });
    if let Some(m) = best {
        for (k, v) in entry(&m).as_object().into_iter().flatten() {
            top[k] = v.clone();
        }
    }
    top
}

/// A horizontal bar chart of segment-iterations per second, one bar per
/// layout, as a standalone SVG (the chart of `docs/guide/performance.md`).
fn svg_chart(w: &Workload, threads: usize, results: &[Measurement]) -> String {
    use std::fmt::Write;
    let (left, bar_h, gap, width) = (90.0, 28.0, 12.0, 640.0);
    let plot = width - left - 150.0;
    let top = 48.0;
    let height = top + results.len() as f64 * (bar_h + gap) + 16.0;
    let max = results
        .iter()
        .map(Measurement::segment_iterations_per_sec)
        .fold(1.0, f64::max);
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="{left}" y="20" font-size="14" font-weight="bold">segment-iterations per second (higher is better)</text>
<text x="{left}" y="38" fill="#555">{} cables x {} segments, {} iterations, {} substeps, {threads} threads</text>
"##,
        w.cables, w.segments, w.iterations, w.substeps
    );
    for (i, m) in results.iter().enumerate() {
        let y = top + i as f64 * (bar_h + gap);
        let rate = m.segment_iterations_per_sec();
        let len = (rate / max * plot).max(1.0);
        let _ = write!(
            out,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text>
<rect x="{left}" y="{y}" width="{len:.1}" height="{bar_h}" fill="#3b6ea5"/>
<text x="{:.1}" y="{}">{rate:.3e}</text>
"##,
            left - 8.0,
            y + bar_h * 0.65,
            m.layout.name(),
            left + len + 6.0,
            y + bar_h * 0.65,
        );
    }
    out.push_str("</svg>\n");
    out
}
