//! The substep ([`substep`]), its stages 1 and 2 ([`attach`],
//! [`integrate`]), what every block of a substep shares ([`Shared`]), the
//! kernel's working memory ([`Scratch`]) and the one-lane entry points the
//! layouts call per cable ([`advance_cable`], [`advance_cable_with`]).

use cable_core::ColliderSet;

use crate::kernel::contact::Contacts;
use crate::kernel::distance::{
    RIGID, SOFT, TRACKED, bend_rigid, sweep_rigid, sweep_rigid_tracked, sweep_slip, sweep_soft,
    sweeps_wavefront,
};
use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::origin::Local;
use crate::kernel::stages::Stages;
use crate::kernel::store::{Block, Store};
use crate::params::SolverParams;

/// What every block of a substep shares.
#[derive(Clone, Copy, Debug)]
pub struct Shared<'a> {
    /// The colliders, prepared for this substep.
    pub colliders: &'a ColliderSet,
    /// Which stages run.
    pub stages: Stages,
    /// Solve the distance constraints with [`crate::kernel::rod::solve_direct`].
    pub direct: bool,
    /// Accumulate every constraint's multiplier (tension output).
    pub track: bool,
    /// The substep squared, s².
    pub h2: f32,
    /// The contact passes run on a path wider than the baseline
    /// ([`crate::simd::Wide`]); set from
    /// [`crate::simd::active`], like the lane loops' path.
    pub wide: Option<crate::simd::Wide>,
    /// Blocks run their distance sweeps' iterations as a wavefront where
    /// they can (see [`substep`]);
    /// `false` runs them one after another. Both give the same results,
    /// bit for bit (the kernel's tests compare them); on by default.
    pub wavefront: bool,
}

impl<'a> Shared<'a> {
    /// True when no lane can have a contact candidate (no collider in the
    /// world, or the contact stage off) and the integration and the
    /// constraints both run: far lanes may then stay in local coordinates
    /// for a whole frame ([`begin_frame`]).
    #[inline]
    #[must_use]
    pub fn free_air(&self) -> bool {
        self.stages.integrate
            && self.stages.constraints
            && (!self.stages.collide || self.colliders.prepared().is_empty())
    }

    /// True when these settings allow [`substep`]'s wavefront path (its
    /// blocks must also be [`Block::distance_only`]). Every field is named,
    /// as there: a new setting does not compile until its author says
    /// whether the wavefront runs it.
    #[inline]
    #[must_use]
    pub fn allows_wavefront(&self) -> bool {
        let Self {
            colliders: _,
            stages,
            direct,
            track: _,
            h2: _,
            wide: _,
            wavefront,
        } = self;
        *wavefront && stages.constraints && !*direct
    }

    /// The shared values of `params` and `colliders`.
    #[must_use]
    pub fn new(params: &SolverParams, colliders: &'a ColliderSet, stages: Stages) -> Self {
        Self {
            colliders,
            stages,
            direct: params.solver == crate::params::Solver::Direct,
            track: false,
            h2: params.substep * params.substep,
            wide: crate::simd::Wide::active(),
            wavefront: true,
        }
    }
}

/// Runs one substep on one block: the order of the simulation, written once.
///
/// # Steps
/// 1. **attachments**: attached ends are set to their targets (position
///    and previous position), as UE's `TickComponent`;
/// 2. **integrate**: for free particles `v = (p − p_prev)·keep;
///    p_prev = p; p += v + h²·(gravity·gravity_scale + force)`;
/// 3. **contacts** (only with colliders near the block): broad phase,
///    the side each piece starts on, swept particles and swept segments
///    against thin shapes ([`crate::kernel::contact`]);
///
///    Lanes whose cable starts more than [`crate::kernel::origin::FAR`]
///    from the origin and that have no contact candidate are solved from
///    here on in coordinates local to their first particle, the carry
///    added, and stored back rounded with what rounding dropped as carry
///    ([`crate::kernel::origin`]): far out, the constraints keep their
///    precision as the integration does. (With no collider in the world,
///    the integration's pass over the rows moves them, not one of its
///    own: the same values, bit for bit.)
/// 4. `iterations` times:
///    1. the **distance** constraints: a Gauss-Seidel sweep over the
///       segments in order (rigid, or XPBD with compliance), or with
///       [`crate::Solver::Direct`] one Newton step of all of them, the
///       curvature constraints of a cable with `bend_stiffness` and the
///       particles' inertia at once
///       ([`crate::kernel::rod::solve_direct`], from the substep's
///       prediction kept after step 2); a cable whose Newton step fell
///       below [`crate::kernel::rod::CONVERGED`] skips the iterations
///       left, unless a contact pass or another sweep runs between them;
///    2. the i to i + 2 **bending** sweep with `stiffness`;
///    3. the **curvature** sweep with `bend_stiffness`
///       ([`crate::kernel::rod::sweep_curvature`]; not with the direct
///       solver, which solved them in step 1);
///    4. in the last iteration only, **tethers**
///       ([`crate::kernel::rod::tethers`]): they only pull particles in, so one
///       pass at the end leaves every particle within its reach (a pass
///       every iteration cost half the free-air benchmark's throughput for
///       the same guarantee), and the contact passes after it keep
///       colliders the last word;
///    5. a **contact** pass, on the lanes that meet their candidates
///       after this iteration ([`Contacts::lanes_after`]: near a solid,
///       every iteration; near planes alone, the last);
///
///    (For a block, of any width, whose iterations are distance sweeps
///    alone (rigid, tracked or not, or compliant) and tethers, and none of
///    whose lanes is near a solid, the sweeps run
///    as one wavefront, `sweeps_wavefront`: the same result, bit for bit.)
/// 5. **friction**, then a last contact pass (for a block near planes
///    alone, the last iteration's pass, friction and the last pass run as
///    one pass over the rows, [`Contacts::project_and_finish_planes`]).
///
/// Multipliers (tension) are reset at the start of the substep and
/// accumulated through it when compliant constraints or tension tracking
/// need them; the direct solver's distance multipliers are not reset:
/// they are its warm start, kept across substeps and frames (the layouts
/// keep them with the particles' state). Its curvature multipliers start
/// from zero each substep, as the sweep's (a compliant row's Newton step
/// finds its multiplier from any start: its geometric stiffness does not
/// depend on it).
#[inline(always)]
pub fn substep<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &Block<L>,
    sh: &Shared<'_>,
    scratch: &mut Scratch<L>,
) {
    if sh.stages.attach {
        attach(s, b);
    }
    // With no collider in the world, no lane has a contact candidate: the
    // far lanes go to local coordinates (`origin`) in the integration's
    // pass over the rows rather than in one of their own.
    let free_air = sh.free_air();
    let early = if free_air {
        integrate_to_local(s, b)
    } else {
        if sh.stages.integrate {
            integrate(s, b);
        }
        None
    };
    let direct = sh.direct && sh.stages.constraints;
    if direct {
        // In free air, far lanes' prediction is already local.
        scratch.newton.predict(s);
    }
    let touching = sh.stages.collide && scratch.contacts.find(s, b, sh.colliders, sh.wide);
    if !sh.stages.constraints && !touching {
        return;
    }
    // Lanes far from the origin, without contact, in local coordinates
    // until the constraints are done (`origin`).
    let local = if free_air {
        early
    } else {
        let contact = if touching {
            scratch.contacts.lanes()
        } else {
            L::M::splat(false)
        };
        let local = crate::kernel::origin::to_local(s, contact);
        if direct && let Some(l) = &local {
            // The direct solver's prediction in the same coordinates.
            scratch.newton.predict_lanes(s, l.lanes());
        }
        local
    };
    let track = sh.track || b.track;
    if direct {
        // The direct solver's multipliers carry over from the last
        // substep (its warm start); a compliant bending sweep's start
        // from zero.
        if b.soft && b.stiff {
            for i in 0..s.rows() - 2 {
                s.set_lambda(2, i, L::splat(0.0));
            }
        }
    } else if b.soft || track {
        s.reset_lambda();
    }
    if b.curv || (track && b.tether) {
        s.reset_lambda_row();
    }
    let h2 = L::splat(sh.h2);
    // Lanes near a solid meet their candidates after every iteration; the
    // others (near planes alone) only after the last (`contact::when`).
    let every = touching && scratch.contacts.every_iteration();
    if sh.allows_wavefront() && b.distance_only() && !every {
        // Distance sweeps alone (rigid, their multipliers tracked or not,
        // or compliant), and no contact pass before the last: the
        // iterations at once, then the tethers and the contact.
        let k = b.iterations;
        let c = &mut scratch.contacts;
        iterations_wavefront(s, b, k, track);
        if b.tether && k > 0 {
            crate::kernel::rod::tethers(s, b, track);
        }
        if touching {
            let world = sh.colliders.prepared();
            if !c.project_and_finish_planes(s, b.radius, world, b.mu) {
                c.project(s, b, sh.colliders);
                c.finish(s, b, sh.colliders);
            }
            c.report_loads(sh.colliders, sh.h2);
        }
        if let Some(l) = local {
            crate::kernel::origin::to_world(s, l);
        }
        return;
    }
    // A rod's curvature constraints are solved with its distance
    // constraints by the direct solver, not swept.
    let rod = direct && b.curv && crate::kernel::rod::has_curvature(s);
    let k = b.iterations;
    // The direct solver's lanes that converged (`solve_direct`): their
    // iterations left would move them by rounding alone. Not with a
    // contact pass or another sweep between iterations, which moves them
    // again.
    // (The lanes of a block agree on `stiff`; contact candidates are the
    // lane's own: so a cable stops after the same iteration in every
    // layout.)
    // Nor a lane whose winch may slip: its row slips from the multiplier
    // of the step before (`kernel::rod`), so a rigid first step that
    // converged at once (a rope hanging at rest when its winch is set)
    // must run again to find it over the bound.
    let slips = b.slip_m[0] | b.slip_m[1];
    let may_stop = if b.stiff || !direct {
        L::M::splat(false)
    } else if touching {
        !scratch.contacts.lanes() & !slips
    } else {
        !slips
    };
    let mut done = L::M::splat(false);
    for it in 0..k {
        let last = it + 1 == k;
        if sh.stages.constraints {
            if direct {
                if !done.all() {
                    let now =
                        crate::kernel::rod::solve_direct(s, b, &mut scratch.newton, rod, h2, done);
                    done = done | (now & may_stop);
                } else {
                    // The memory hints of the iteration skipped, which a
                    // store spreads the next rows' requests over.
                    for _ in 1..s.rows() {
                        s.ahead();
                    }
                }
            } else if b.slip {
                sweep_slip(s, b, b.soft);
            } else if b.soft {
                sweep_soft(s, 1, b.alpha_t);
            } else if track {
                sweep_rigid_tracked(s);
            } else {
                sweep_rigid(s);
            }
            if b.stiff {
                if b.soft {
                    sweep_soft(s, 2, b.alpha_t);
                } else {
                    bend_rigid(s);
                }
            }
            if b.curv && !rod {
                crate::kernel::rod::sweep_curvature(s, b, h2);
            }
            if b.tether && last {
                crate::kernel::rod::tethers(s, b, track);
            }
        }
        if touching {
            let c = &mut scratch.contacts;
            let lanes = c.lanes_after(it, k);
            // The direct solver's next iteration takes the pass's pushes
            // as given (`Newton::contact_moved`).
            let between = direct && !last && lanes.any();
            if between {
                scratch.newton.hold(s);
            }
            c.project_on(s, b, sh.colliders, lanes);
            if between {
                scratch.newton.contact_moved(s);
            }
        }
    }
    if touching {
        if k == 0 {
            // No iteration ran the pass after the last one.
            scratch.contacts.project(s, b, sh.colliders);
        }
        scratch.contacts.finish(s, b, sh.colliders);
        scratch.contacts.report_loads(sh.colliders, sh.h2);
    }
    if let Some(l) = local {
        crate::kernel::origin::to_world(s, l);
    }
}

/// `k` of [`substep`]'s iterations as one wavefront (`sweeps_wavefront`)
/// for a block whose iterations are distance sweeps alone: rigid
/// ([`RIGID`]), rigid with their multipliers ([`TRACKED`]) or compliant
/// ([`SOFT`]).
#[inline(always)]
fn iterations_wavefront<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, k: u32, track: bool) {
    let k = k as usize;
    match (b.soft, track) {
        (true, _) => sweeps_wavefront::<L, S, SOFT>(s, k, b.alpha_t),
        (false, true) => sweeps_wavefront::<L, S, TRACKED>(s, k, b.alpha_t),
        (false, false) => sweeps_wavefront::<L, S, RIGID>(s, k, b.alpha_t),
    }
}

/// The kernel's working memory for one block: contact candidates and the
/// direct solver's system. Fully rewritten by each use, so it carries
/// nothing between blocks (the direct solver's multipliers, which do carry
/// over, are the store's); kept between frames so a warmed-up step does
/// not allocate.
#[derive(Clone)]
pub struct Scratch<L: Lane> {
    /// Contact candidates and state ([`Contacts::find`]).
    pub contacts: Contacts<L>,
    /// The system of [`crate::kernel::rod::solve_direct`].
    pub newton: crate::kernel::rod::Newton<L>,
}

impl<L: Lane> std::fmt::Debug for Scratch<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch").finish_non_exhaustive()
    }
}

impl<L: Lane> Default for Scratch<L>
where
    Contacts<L>: Default,
{
    fn default() -> Self {
        Self {
            contacts: Contacts::default(),
            newton: crate::kernel::rod::Newton::default(),
        }
    }
}

thread_local! {
    static SCALAR: std::cell::RefCell<Scratch<f32>> = std::cell::RefCell::new(Scratch::default());
}

impl Scratch<f32> {
    /// Runs `f` with this thread's one-lane scratch.
    pub fn with_thread_local<R>(f: impl FnOnce(&mut Scratch<f32>) -> R) -> R {
        SCALAR.with(|cell| {
            let mut c = std::mem::take(&mut *cell.borrow_mut());
            let r = f(&mut c);
            *cell.borrow_mut() = c;
            r
        })
    }
}

/// Step 1: attached ends at their targets.
#[inline(always)]
pub fn attach<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) {
    let last = s.rows() - 1;
    for (slot, row) in [(0, 0), (1, last)] {
        let m = b.attach_m[slot];
        if m.any() {
            let t = b.attach_t[slot];
            s.set_pos(row, V3::select(m, t, s.pos(row)));
            s.set_prev(row, V3::select(m, t, s.prev(row)));
        }
    }
}

/// Step 2: Verlet integration of the free particles.
///
/// The carry ([`Store::carry`]) is what rounding the last position update
/// to f32 dropped. Near the origin the positions are taken as stored and
/// the carry completes the velocity: `v = (p − p_prev + carry)·keep`, the
/// classic step to float rounding. For the lanes whose cable starts
/// beyond [`crate::kernel::origin::FAR_VELOCITY`] the position is `p + carry` and
/// the previous position `p_prev + carry_prev` ([`Store::carry_prev`], the
/// carry a substep before), so neither the velocity nor the position
/// keeps any rounding: `p + carry` becomes `p + carry + v + h²·a`, rounded
/// to f32 with what that drops as the new carry (far out a substep's
/// rounding is a good part of a spacing of the coordinates, 1 mm at
/// 10 km, and summed over thousands of substeps it moved a pendulum by
/// centimetres). `carry_prev` stays zero near the origin, where the
/// formula is the first one, bit for bit.
#[inline(always)]
pub fn integrate<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) {
    let keep = b.keep;
    let far = crate::kernel::origin::far_velocity(s.pos(0));
    if (far | s.carry_prev_live()).none() {
        // Every lane near the origin with `carry_prev` zero, which stays
        // so: the same formula without that column (bit for bit: c − 0
        // is c), which the store may then keep out of the cache.
        for i in 0..s.rows() {
            let (p, q, c) = near_step(s, b, i);
            s.set_pos(i, p);
            s.set_prev(i, q);
            s.set_carry(i, c);
        }
        return;
    }
    // Far out the step starts from the position in full, `p + carry`:
    // `step − (−carry)`, which is `step + carry`; near, `step − 0`, which
    // is `step` (a select after the sum kept more values live: spills).
    let neg = L::splat(-1.0);
    for i in 0..s.rows() {
        let f = s.free(i);
        let c = s.carry(i);
        // What the last displacement's rounding dropped of it: the carry
        // less the previous position's (zero near the origin).
        let d = c - s.carry_prev(i);
        s.set_carry_prev(i, V3::select(f & far, c, V3::zero()));
        let cur = s.pos(i);
        let q = s.prev(i);
        // The last displacement in full: what the positions show plus what
        // rounding them dropped.
        let v = (cur - q + d).scale(keep);
        let step = v + b.dacc - V3::select(far, c.scale(neg), V3::zero());
        let next = cur + step;
        // What rounding `next` to f32 drops of `step` (Fast2Sum's error
        // term: exact while |step| ≤ |cur|, and below the rounding of
        // `step` itself otherwise). Far from the origin a substep's h²·g is
        // a few spacings of the coordinate; carried, its rounding never
        // becomes velocity.
        let lost = step - (next - cur);
        s.set_pos(i, V3::select(f, next, cur));
        s.set_prev(i, V3::select(f, cur, q));
        s.set_carry(i, V3::select(f, lost, V3::zero()));
    }
    s.set_carry_prev_live(far);
}

/// Row `i`'s integration where every lane is within
/// [`crate::kernel::origin::FAR_VELOCITY`] with `carry_prev` zero: the
/// position, previous position and carry to store.
#[inline(always)]
fn near_step<L: Lane, S: Store<L>>(s: &S, b: &Block<L>, i: usize) -> (V3<L>, V3<L>, V3<L>) {
    let f = s.free(i);
    let cur = s.pos(i);
    let q = s.prev(i);
    let step = (cur - q + s.carry(i)).scale(b.keep) + b.dacc;
    let next = cur + step;
    let lost = step - (next - cur);
    (
        V3::select(f, next, cur),
        V3::select(f, cur, q),
        V3::select(f, lost, V3::zero()),
    )
}

/// [`integrate`] then [`crate::kernel::origin::to_local`] with no lane in
/// contact, for a block no collider can touch this substep: where some
/// lane is far and every lane is within
/// [`crate::kernel::origin::FAR_VELOCITY`], in one pass over the rows (row
/// 0's stored position, the origin, is computed first). The same values,
/// bit for bit.
#[inline(always)]
fn integrate_to_local<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) -> Option<Local<L>> {
    let far = crate::kernel::origin::far_velocity(s.pos(0));
    let to = Local::at(near_step(s, b, 0).0);
    if (far | s.carry_prev_live()).any() || to.lanes().none() {
        integrate(s, b);
        return crate::kernel::origin::to_local(s, L::M::splat(false));
    }
    for i in 0..s.rows() {
        let (p, q, c) = near_step(s, b, i);
        s.set_pos(i, to.local(p, c));
        s.set_prev(i, q);
        s.set_carry(i, c);
    }
    Some(to)
}

/// Runs `n` substeps of one cable in the pool's columns (the `Soa`
/// layout's work, and the scalar path of every other layout), with this
/// thread's scratch ([`Scratch::with_thread_local`]).
pub fn advance_cable(
    c: &mut cable_core::CableMut<'_>,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
) {
    if !c.active {
        // Asleep, or hidden and skipped: left as it is.
        return;
    }
    Scratch::<f32>::with_thread_local(|scratch| {
        advance_cable_with(c, params, n, stages, track, scratch);
    });
}

/// [`advance_cable`] with the caller's scratch: the layouts keep one per
/// piece of their one-lane cables, so that what a
/// scratch grows to depends on the scene alone, not on which thread ran
/// which cable (a thread's own scratch grows the first time that thread
/// meets a longer cable, which work stealing may make any frame).
pub fn advance_cable_with(
    c: &mut cable_core::CableMut<'_>,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
    scratch: &mut Scratch<f32>,
) {
    if !c.active {
        // Asleep, or hidden and skipped: left as it is.
        return;
    }
    let mut b = Block::of_cable(c.params, c.attach, c.clamp, c.slip, c.pos.len(), params);
    let colliders = c.colliders;
    let mut sh = Shared::new(params, colliders, stages);
    sh.track = track;
    let held = begin_frame(c, &mut b, &sh, n);
    for _ in 0..n {
        substep(c, &b, &sh, scratch);
    }
    end_frame(c, held);
    let handle = c.handle;
    scratch.contacts.report_touches(colliders, |_| Some(handle));
}

/// The start of a frame of `n` substeps of one block: with more than one
/// substep in free air ([`Shared::free_air`]), the block's far lanes in
/// local coordinates for the whole frame
/// ([`crate::kernel::origin::frame_to_local`], which moves `b`'s
/// attachment targets with them: run the frame's substeps with `b`).
/// `None` where each substep moves them itself; [`end_frame`] after the
/// substeps.
#[inline(always)]
pub fn begin_frame<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &mut Block<L>,
    sh: &Shared<'_>,
    n: u32,
) -> Option<Local<L>> {
    if n > 1 && sh.free_air() {
        crate::kernel::origin::frame_to_local(s, b)
    } else {
        None
    }
}

/// The end of a frame that [`begin_frame`] started: its far lanes back in
/// world coordinates ([`crate::kernel::origin::frame_to_world`]).
#[inline(always)]
pub fn end_frame<L: Lane, S: Store<L>>(s: &mut S, held: Option<Local<L>>) {
    if let Some(l) = held {
        crate::kernel::origin::frame_to_world(s, l);
    }
}
