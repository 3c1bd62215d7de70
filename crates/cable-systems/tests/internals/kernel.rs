use cable_core::{CableDesc, Collider, ParticlePool};
use glam::Vec3;

use cable_core::MIN_SEGMENT_LENGTH;

use cable_systems::kernel::lane::{Lane, V3};
use cable_systems::kernel::{Block, Rigid, Scratch, Shared, Soft, Stages, Store, substep};
use cable_systems::params::SolverParams;

/// Segments of the cables of [`run`]: cable `k` has `SEGS[k]`.
const SEGS: [u32; 6] = [1, 2, 5, 13, 32, 3];

/// Cables draped over `planes` (and tethers, pins, friction, tension
/// tracking as asked) after 150 substeps, run with or without the
/// wavefront: every particle's bits, then every multiplier's. Cable 5
/// has one iteration and a free end; with `soft` it is both compliant
/// and tracked.
fn run(
    planes: &[Collider],
    tethers: bool,
    friction: f32,
    track: bool,
    soft: bool,
    wavefront: bool,
) -> Vec<[u32; 3]> {
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for (k, segs) in SEGS.into_iter().enumerate() {
        let y = 0.1 * k as f32;
        let z = 0.5 * k as f32;
        let (a, b) = (Vec3::new(0.0, y, z), Vec3::new(4.0, y + 0.5, z));
        let mut desc = CableDesc::line(a, b, 6.0, segs).expect("a valid cable");
        desc.attach_end = k % 2 == 0;
        desc.params.tethers = tethers;
        desc.params.radius = 0.05;
        if track && k % 2 == 1 {
            // Far above what the scene pulls: tracked, never broken.
            desc.params.break_tension = Some(1e9);
        }
        if soft && (k % 2 == 0 || k == 5) {
            desc.params.compliance = 1e-4;
        }
        desc.params.iterations = Some(if k == 5 { 1 } else { 1 + (k as u32 * 3) % 8 });
        if segs > 4 {
            desc.pins = vec![segs / 2];
        }
        handles.push(pool.add_cable(&desc).expect("room for the cable"));
    }
    for c in planes {
        pool.colliders_mut().add(*c);
    }
    let params = SolverParams {
        friction,
        ..SolverParams::default()
    };
    let stages = Stages::default();
    let mut scratch = Scratch::<f32>::default();
    for _ in 0..150 {
        pool.colliders_mut().prepare();
        let cols = pool.columns_mut();
        let set = cols.colliders();
        let mut sh = Shared::new(&params, set, stages);
        sh.wavefront = wavefront;
        for mut c in cols.into_cables() {
            let b = Block::of_cable(c.params, c.attach, c.clamp, c.slip, c.pos.len(), &params);
            substep(&mut c, &b, &sh, &mut scratch);
        }
    }
    let mut bits: Vec<[u32; 3]> = handles
        .iter()
        .flat_map(|&h| pool.positions(h).expect("a live cable").to_vec())
        .map(|p| p.to_array().map(f32::to_bits))
        .collect();
    for &h in &handles {
        let (lambda, lambda_row) = pool.multipliers(h).expect("a live cable");
        bits.extend(lambda.iter().map(|l| [l.to_bits(), 0, 0]));
        bits.extend(lambda_row.iter().map(|l| l.map(f32::to_bits)));
    }
    bits
}

/// The wavefront with planes (each particle meets the planes as soon
/// as its sweep is done with it) is bitwise the sweeps and contact
/// passes in turn: an axis plane, an oblique one, two planes, with and
/// without tethers (whose last pass is not fused), friction, tension
/// tracking (each segment's multiplier summed over the iterations in
/// their order) and compliance (each segment's XPBD multiplier read by
/// the next iteration).
#[test]
fn the_wavefront_is_the_sweeps_and_passes_in_turn() {
    let ground = Collider::plane(Vec3::Y, -0.5).expect("a plane");
    let tilted = Collider::plane(Vec3::new(0.3, 1.0, -0.2), -0.4).expect("a plane");
    let wall = Collider::plane(Vec3::NEG_X, -3.5).expect("a plane");
    let scenes: [&[Collider]; 4] = [&[], &[ground], &[tilted], &[ground, wall]];
    for (n, planes) in scenes.iter().enumerate() {
        for tethers in [false, true] {
            for friction in [0.0, 0.4] {
                for (track, soft) in [(false, false), (true, false), (false, true), (true, true)] {
                    let want = run(planes, tethers, friction, track, soft, false);
                    let got = run(planes, tethers, friction, track, soft, true);
                    assert_eq!(got.len(), want.len());
                    if n == 1 {
                        // Not vacuous: every cable that can move lies on the
                        // ground (y = −0.5, radius 0.05).
                        let mut at = 0;
                        for (k, segs) in SEGS.into_iter().enumerate() {
                            let n = segs as usize + 1;
                            let low = got[at..at + n]
                                .iter()
                                .map(|p| f32::from_bits(p[1]))
                                .fold(f32::INFINITY, f32::min);
                            at += n;
                            assert!(k == 0 || low < -0.44, "cable {k} is not down: {low}");
                        }
                    }
                    let first = got.iter().zip(&want).position(|(g, w)| g != w);
                    assert_eq!(
                        first, None,
                        "scene {n}, tethers {tethers}, friction {friction}, tension {track}, \
                             compliance {soft}: \
                             bits differ (particles, then multipliers)"
                    );
                }
            }
        }
    }
}

/// Counts [`Store::ahead`] calls, forwarding everything else.
struct Counting<'s, S> {
    s: &'s mut S,
    calls: usize,
}

impl<S: Store<f32>> Store<f32> for Counting<'_, S> {
    fn rows(&self) -> usize {
        self.s.rows()
    }
    fn pos(&self, i: usize) -> V3<f32> {
        self.s.pos(i)
    }
    fn set_pos(&mut self, i: usize, p: V3<f32>) {
        self.s.set_pos(i, p);
    }
    fn prev(&self, i: usize) -> V3<f32> {
        self.s.prev(i)
    }
    fn set_prev(&mut self, i: usize, p: V3<f32>) {
        self.s.set_prev(i, p);
    }
    fn carry(&self, i: usize) -> V3<f32> {
        self.s.carry(i)
    }
    fn set_carry(&mut self, i: usize, c: V3<f32>) {
        self.s.set_carry(i, c);
    }
    fn carry_prev(&self, i: usize) -> V3<f32> {
        self.s.carry_prev(i)
    }
    fn set_carry_prev(&mut self, i: usize, c: V3<f32>) {
        self.s.set_carry_prev(i, c);
    }
    fn w(&self, i: usize) -> f32 {
        self.s.w(i)
    }
    fn free(&self, i: usize) -> bool {
        self.s.free(i)
    }
    fn rigid(&self, i: usize, span: usize) -> Rigid<f32> {
        self.s.rigid(i, span)
    }
    fn soft(&self, i: usize, span: usize, alpha_t: f32) -> Soft<f32> {
        self.s.soft(i, span, alpha_t)
    }
    fn lambda(&self, span: usize, i: usize) -> f32 {
        self.s.lambda(span, i)
    }
    fn set_lambda(&mut self, span: usize, i: usize, l: f32) {
        self.s.set_lambda(span, i, l);
    }
    fn reset_lambda(&mut self) {
        self.s.reset_lambda();
    }
    fn tether(&self, i: usize, side: usize) -> (V3<f32>, f32, bool) {
        self.s.tether(i, side)
    }
    fn curv(&self, i: usize) -> (f32, f32, bool) {
        self.s.curv(i)
    }
    fn lambda_row(&self, i: usize, k: usize) -> f32 {
        self.s.lambda_row(i, k)
    }
    fn set_lambda_row(&mut self, i: usize, k: usize, l: f32) {
        self.s.set_lambda_row(i, k, l);
    }
    fn reset_lambda_row(&mut self) {
        self.s.reset_lambda_row();
    }
    fn ahead(&mut self) {
        self.calls += 1;
    }
}

/// Every way a substep can solve calls [`Store::ahead`] at least
/// `iterations × segments` times, the budget `lanes8` spreads the next
/// bundle's rows over (`lanes::Ahead`): rigid, bending, compliant (with
/// compliant bending), curvature, tethers, tracked tension, the direct
/// solver, each in free air, on the ground (the wavefront with planes)
/// and by a ball (no wavefront), with the wavefront allowed or not. A
/// sweep that stopped calling it would leave lines unasked for: speed
/// lost, no value changed, so only this test sees it.
#[test]
fn every_solver_calls_the_hook_once_per_distance_projection() {
    let ground = Collider::plane(Vec3::Y, -0.5).expect("a plane");
    let ball = Collider::sphere(Vec3::new(2.0, 0.2, 1.0), 0.6).expect("a ball");
    let scenes: [&[Collider]; 3] = [&[], &[ground], &[ground, ball]];
    // (stiffness, compliance, bend_stiffness, tethers, tracked, direct)
    let solvers = [
        (false, 0.0, 0.0, false, false, false),
        (true, 0.0, 0.0, false, false, false),
        (false, 1e-4, 0.0, false, false, false),
        (true, 1e-4, 0.0, false, false, false),
        (false, 0.0, 0.5, false, false, false),
        (false, 0.0, 0.0, true, false, false),
        (false, 0.0, 0.0, false, true, false),
        (false, 0.0, 0.0, false, false, true),
    ];
    for (n, colliders) in scenes.iter().enumerate() {
        for &(stiff, compliance, bend, tethers, track, direct) in &solvers {
            for wavefront in [false, true] {
                let mut pool = ParticlePool::new();
                for (k, segs) in SEGS.into_iter().enumerate() {
                    let z = 0.5 * k as f32;
                    let (a, b) = (Vec3::new(0.0, 0.0, z), Vec3::new(4.0, 0.5, z));
                    let mut desc = CableDesc::line(a, b, 6.0, segs).expect("a valid cable");
                    desc.attach_end = k % 2 == 0;
                    desc.params.radius = 0.05;
                    desc.params.stiffness = stiff;
                    desc.params.compliance = compliance;
                    desc.params.bend_stiffness = bend;
                    desc.params.tethers = tethers;
                    desc.params.iterations = Some(1 + (k as u32 * 3) % 8);
                    pool.add_cable(&desc).expect("room for the cable");
                }
                for c in *colliders {
                    pool.colliders_mut().add(*c);
                }
                let params = SolverParams {
                    friction: 0.3,
                    solver: if direct {
                        cable_systems::params::Solver::Direct
                    } else {
                        cable_systems::params::Solver::default()
                    },
                    ..SolverParams::default()
                };
                let mut scratch = Scratch::<f32>::default();
                for frame in 0..40 {
                    pool.colliders_mut().prepare();
                    let cols = pool.columns_mut();
                    let set = cols.colliders();
                    let mut sh = Shared::new(&params, set, Stages::default());
                    sh.wavefront = wavefront;
                    sh.track = track;
                    for (k, mut c) in cols.into_cables().enumerate() {
                        let b = Block::of_cable(
                            c.params,
                            c.attach,
                            c.clamp,
                            c.slip,
                            c.pos.len(),
                            &params,
                        );
                        let mut counted = Counting {
                            s: &mut c,
                            calls: 0,
                        };
                        substep(&mut counted, &b, &sh, &mut scratch);
                        let want = b.iterations as usize * (counted.rows() - 1);
                        assert!(
                            counted.calls >= want,
                            "scene {n}, (stiffness, compliance, bend, tethers, tracked, \
                                 direct) {:?}, wavefront {wavefront}, frame {frame}, cable {k}: \
                                 {} calls, want at least {want}",
                            (stiff, compliance, bend, tethers, track, direct),
                            counted.calls
                        );
                    }
                }
            }
        }
    }
}

/// The reference: the masks on each end's displacement (the textbook
/// form that [`cable_systems::kernel::distance::project_rigid`] replaces with one masked factor).
fn project_rigid_masked(a: &mut V3<f32>, b: &mut V3<f32>, c: &Rigid<f32>) {
    let d = *b - *a;
    let len = d.length();
    let live = !<f32 as Lane>::le(len, MIN_SEGMENT_LENGTH);
    let err = (len - c.rest) / len;
    let (ma, mb) = c.moves();
    *a = *a - d.scale(c.nka * err).keep(live & ma);
    *b = *b - d.scale(c.kb * err).keep(live & mb);
}

proptest::proptest! {
    /// [`cable_systems::kernel::distance::project_rigid`], its mask on `err` alone, gives every
    /// value the masked displacements give: bit for bit but for the
    /// sign of a zero, over pinned ends (weight 0), torn segments,
    /// segments shorter than [`MIN_SEGMENT_LENGTH`] and
    /// coordinates of `±0`.
    #[test]
    fn the_projection_masks_its_factor_as_the_displacements_were(
        a in proptest::array::uniform3(-3.0f32..3.0),
        step in proptest::array::uniform3(-2.0f32..2.0),
        tiny in 0u8..3,
        zeros in proptest::array::uniform3(0u8..3),
        rest in 0.0f32..4.0,
        wa in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
        wb in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
        linked: bool,
    ) {
        let mut a = V3::new(a[0], a[1], a[2]);
        // Some coordinates exactly ±0.
        for (k, z) in zeros.into_iter().enumerate() {
            let c = match k { 0 => &mut a.x, 1 => &mut a.y, _ => &mut a.z };
            match z { 0 => *c = 0.0, 1 => *c = -0.0, _ => {} }
        }
        // Segments of normal length, near zero, and of zero length.
        let scale = [1.0, 1e-7, 0.0][usize::from(tiny)];
        let mut b = a + V3::new(step[0], step[1], step[2]).scale(scale);
        let c = Rigid::new(wa, wb, rest, linked);
        let (mut a2, mut b2) = (a, b);
        project_rigid_masked(&mut a2, &mut b2, &c);
        cable_systems::kernel::distance::project_rigid(&mut a, &mut b, &c);
        for (got, want) in [a.x, a.y, a.z, b.x, b.y, b.z]
            .into_iter()
            .zip([a2.x, a2.y, a2.z, b2.x, b2.y, b2.z])
        {
            proptest::prop_assert!(
                got == want && (got.to_bits() == want.to_bits() || got == 0.0),
                "{got:e} against {want:e}"
            );
        }
    }

    /// [`cable_systems::kernel::distance::project_soft`] against the textbook XPBD step in
    /// `f64` (`Δλ = (−C − α̃λ)/(wa + wb + α̃)`, ends moved along the
    /// unit vector): the multiplier and both ends to a few `f32`
    /// roundings of the scene's scale, and exactly unchanged (but for
    /// the sign of a zero) where the step is skipped (two pinned ends,
    /// a segment under [`MIN_SEGMENT_LENGTH`], one of zero
    /// length).
    #[test]
    fn the_compliant_projection_is_the_textbook_step(
        a in proptest::array::uniform3(-3.0f32..3.0),
        step in proptest::array::uniform3(-2.0f32..2.0),
        tiny in 0u8..3,
        rest in 0.0f32..4.0,
        wa in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
        wb in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
        alpha_t in proptest::sample::select(vec![0.0f32, 1e-4, 0.01, 1.0, 100.0]),
        lambda0 in -2.0f32..2.0,
    ) {
        let a = V3::new(a[0], a[1], a[2]);
        let scale = [1.0, 1e-7, 0.0][usize::from(tiny)];
        let b = a + V3::new(step[0], step[1], step[2]).scale(scale);
        let c = Soft::new(wa, wb, rest, alpha_t);
        let (mut a1, mut b1, mut l1) = (a, b, lambda0);
        cable_systems::kernel::distance::project_soft(&mut a1, &mut b1, &c, alpha_t, &mut l1);

        let f = |v: V3<f32>| [f64::from(v.x), f64::from(v.y), f64::from(v.z)];
        let (pa, pb) = (f(a), f(b));
        let d: Vec<f64> = (0..3).map(|k| pb[k] - pa[k]).collect();
        let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
        let (wa, wb, at) = (f64::from(wa), f64::from(wb), f64::from(alpha_t));
        // The kernel's test is on the f32 length, as the step is.
        let skip = wa + wb == 0.0 || (b - a).length() <= MIN_SEGMENT_LENGTH;
        if skip {
            proptest::prop_assert!(l1.to_bits() == lambda0.to_bits());
            for (got, want) in [a1.x, a1.y, a1.z, b1.x, b1.y, b1.z]
                .into_iter()
                .zip([a.x, a.y, a.z, b.x, b.y, b.z])
            {
                proptest::prop_assert!(got == want, "{got:e} against {want:e}");
            }
            return Ok(());
        }
        let l0 = f64::from(lambda0);
        let dl = (-(len - f64::from(rest)) - at * l0) / (wa + wb + at);
        // Tolerances: a few f32 roundings of each quantity's scale
        // (|d| may be 1e-7, so `n` carries the rounding of `d`).
        let tol_l = 8.0 * f64::from(f32::EPSILON) * (l0.abs() + dl.abs() + 8.0);
        proptest::prop_assert!(
            (f64::from(l1) - (l0 + dl)).abs() <= tol_l,
            "lambda {l1:e} against {:e}", l0 + dl
        );
        let got_a = f(a1);
        let got_b = f(b1);
        let eps = 16.0 * f64::from(f32::EPSILON);
        // `Δλ` comes from `len − rest`, which cancels: its error is a
        // few roundings of `len` and `rest` themselves, not of `Δλ`
        // (a = 0, step (−0.712, 1.238, 0), rest 1.452, wa 0.5 moved
        // `a` 7.6e-8 from the f64 step, against 4.6e-8 allowed on the
        // scale of `Δλ` alone).
        let err_dl = eps * (len + f64::from(rest) + at * l0.abs()) / (wa + wb + at);
        for k in 0..3 {
            let n = d[k] / len;
            let want_a = pa[k] - wa * dl * n;
            let want_b = pb[k] + wb * dl * n;
            let ta = eps * (pa[k].abs() + (wa * dl).abs() + 1e-30) + wa * err_dl;
            let tb = eps * (pb[k].abs() + (wb * dl).abs() + 1e-30) + wb * err_dl;
            proptest::prop_assert!(
                (got_a[k] - want_a).abs() <= ta && (got_b[k] - want_b).abs() <= tb,
                "axis {k}: a {:e} against {want_a:e}, b {:e} against {want_b:e}",
                got_a[k], got_b[k]
            );
        }
    }
}
