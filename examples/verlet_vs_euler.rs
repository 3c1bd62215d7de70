//! Why the Unity Verlet-rope write-ups use Verlet rather than Euler: the
//! same 2D rope (`scenes/unity-rope-2d.json`: 20 sticks, 4 m, pinned at
//! one end, released horizontally, 8 iterations at 1/60 s), run for 10 s
//! by `cable` (Verlet: no velocity stored, `p' = p + (p − p_old) + h²·a`)
//! and by explicit Euler with a stored velocity and the same sticks
//! (`cable_testkit::euler`, written out independently).
//!
//! Every 0.5 s it prints each run's energy (kinetic + potential, 1 kg
//! particles, joules) and its most stretched stick. With Verlet the
//! sticks' corrections are changes of velocity too, so the energy never
//! grows (position-based sticks only take energy out); with a stored
//! velocity they are invisible to it, the velocity grows by g every
//! second, and so does the energy, without bound, while the positions look
//! like a rope.
//!
//! Run with `cargo run --release --example verlet_vs_euler [-- --svg FILE]`
//! (with `--svg`, a plot of both energies over time).

use cable::Stepper;
use cable::scene::Scene;
use cable_testkit::euler::{EulerRope, verlet_energy};

/// The scene, built into the example (the file in `scenes/`).
const SCENE: &str = include_str!("../scenes/unity-rope-2d.json");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut svg = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--svg" => svg = Some(args.next().ok_or("--svg needs a file name")?),
            other => return Err(format!("unknown argument {other:?} (only --svg FILE)").into()),
        }
    }

    let scene = Scene::from_json(SCENE)?;
    let desc = &scene.cables[0];
    let h = scene.params.substep;
    let accel = scene.params.gravity * desc.params.gravity_scale + desc.params.force;
    let (mut pool, handles) = scene.build_pool()?;
    let mut stepper = Stepper::new(scene.params)?;
    let free: Vec<bool> = (0..desc.particle_count())
        .map(|i| {
            !(i == 0 && desc.attach_start
                || i + 1 == desc.particle_count() && desc.attach_end
                || desc.pins.contains(&(i as u32)))
        })
        .collect();
    let mut euler = EulerRope::new(desc.points(), accel);
    for (p, f) in euler.pinned.iter_mut().zip(&free) {
        *p = !f;
    }

    let substeps = (10.0 / h).round() as usize;
    let every = (0.5 / h).round() as usize;
    let mut rows = Vec::new();
    println!("   t s   Verlet E J  stretch %     Euler E J  stretch %");
    for n in 0..=substeps {
        if n > 0 {
            stepper.advance(&mut pool, h)?;
            euler.substep(f64::from(h), scene.params.iterations);
        }
        if n % every == 0 {
            let (p, q) = (
                pool.positions(handles[0])?,
                pool.prev_positions(handles[0])?,
            );
            let e_verlet = verlet_energy(p, q, &free, f64::from(h), accel);
            let stretch = p
                .windows(2)
                .zip(pool.rest_lengths(handles[0])?)
                .map(|(w, r)| w[0].distance(w[1]) / r - 1.0)
                .fold(0.0f32, f32::max);
            let t = n as f64 * f64::from(h);
            println!(
                "{t:6.1} {e_verlet:11.2} {:10.3} {:13.2} {:10.3}",
                stretch * 100.0,
                euler.energy(),
                euler.worst_stretch() * 100.0
            );
            rows.push((t, e_verlet, euler.energy()));
        }
    }
    if let Some(path) = svg {
        std::fs::write(&path, plot(&rows))?;
        println!("wrote {path}");
    }
    Ok(())
}

/// A line plot of both energies over time, on a symmetric log scale
/// (`sign(E)·log10(1 + |E|)`), so a few joules and 10⁵ J both show.
fn plot(rows: &[(f64, f64, f64)]) -> String {
    let (w, ht, m) = (640.0, 360.0, 50.0);
    let f = |e: f64| e.signum() * (1.0 + e.abs()).log10();
    let t_max = rows.last().map_or(1.0, |r| r.0).max(1e-9);
    let ys: Vec<f64> = rows.iter().flat_map(|r| [f(r.1), f(r.2)]).collect();
    let (lo, hi) = ys
        .iter()
        .fold((0.0f64, 0.0f64), |(a, b), &y| (a.min(y), b.max(y)));
    let span = (hi - lo).max(1e-9);
    let x = |t: f64| m + (w - 2.0 * m) * t / t_max;
    let y = |v: f64| ht - m - (ht - 2.0 * m) * (f(v) - lo) / span;
    let line = |k: usize| {
        rows.iter()
            .map(|r| {
                let v = if k == 1 { r.1 } else { r.2 };
                format!("{:.1},{:.1}", x(r.0), y(v))
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let zero = y(0.0);
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{ht}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<line x1="{m}" y1="{zero:.1}" x2="{x2}" y2="{zero:.1}" stroke="#999"/>
<text x="{m}" y="20">Energy of a 20-stick rope, 10 s (symmetric log scale; the grey line is 0 J)</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{v}"/>
<polyline fill="none" stroke="#d62728" stroke-width="2" points="{e}"/>
<text x="{lx}" y="{ly1}" fill="#1f77b4">Verlet (cable): never above its start</text>
<text x="{lx}" y="{ly2}" fill="#d62728">explicit Euler, stored velocity: grows without bound</text>
<text x="{m}" y="{bt}">0 s</text><text x="{x2}" y="{bt}" text-anchor="end">{t_max:.0} s</text>
</svg>
"##,
        x2 = w - m,
        v = line(1),
        e = line(2),
        lx = m + 10.0,
        ly1 = ht - m - 30.0,
        ly2 = ht - m - 12.0,
        bt = ht - m + 18.0,
    )
}
