//! Precision far from the origin for the constraints.
//!
//! Positions are f32 world coordinates, only as fine as the f32 spacing
//! where the cable is (0.06 mm at 1 km, 1 mm at 10 km). The integration
//! keeps what rounding drops ([`Store::carry`]: the part of the last
//! substep's step that the stored position does not show, and
//! [`Store::carry_prev`], the previous position's, beyond
//! [`FAR_VELOCITY`]), so velocities and positions stay exact (step 2 of
//! [`crate::kernel::substep`]). The constraint corrections were rounded
//! to that spacing too, and nothing kept the rest: a 1 m pendulum 1 km
//! out at 240 Hz swung with a period of 3.05 s instead of 2.009 s, then
//! stopped at 8.9°.
//!
//! So a lane whose cable starts more than [`FAR`] metres from the origin,
//! and that has no contact candidate this substep, is solved in
//! coordinates local to its first particle: [`to_local`] replaces each
//! position `p` by `(p − o) + carry` (`o` the first particle's position:
//! `p − o` is exact for a cable shorter than its distance from the origin,
//! and adding the carry gives the position the step meant), the
//! constraints run as always (they depend on differences of positions
//! only, and the tethers' anchors are particles of the cable), and
//! [`to_world`] stores `o + local` rounded, with what rounding dropped as
//! the new carry (Fast2Sum's error term), so the constraints' corrections
//! become velocity in full, as the integration's do.
//!
//! In free air (no collider in the world) a frame of more than one
//! substep keeps its far lanes local for the whole frame instead
//! ([`frame_to_local`], [`frame_to_world`]): previous positions and
//! attachment targets move with the positions, and the substeps see a
//! cable near the origin. Two passes over the rows a frame rather than two
//! a substep, which the free-air benchmark (59 % of its cables beyond
//! 32 m) paid for.
//!
//! Lanes near the origin are left as they were, bit for bit. Lanes with a
//! contact candidate are too: the contact passes read the colliders in
//! world coordinates (far out, their contacts keep the f32 spacing). Each
//! lane decides from its own data alone, so results do not depend on
//! which cables share a SIMD block.

use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::{Block, Store};

/// Distance from the origin (largest coordinate of a cable's first
/// particle, metres) beyond which a lane is solved in local coordinates.
/// The f32 spacing there is 3.8 µm: closer, rounding the corrections costs
/// nothing a game can see, and results stay as they were.
pub const FAR: f32 = 32.0;

/// The lanes whose cable starts beyond [`FAR`] (`first`: the position of
/// each lane's first particle).
#[inline(always)]
pub fn far<L: Lane>(first: V3<L>) -> L::M {
    L::splat(FAR).lt(first.abs().max_element())
}

/// Distance from the origin (largest coordinate of a cable's first
/// particle, metres) beyond which the integration also keeps the previous
/// position's carry ([`Store::carry_prev`]), so that the velocity is
/// exact and the stored positions' roundings do not add up. The f32
/// spacing there is 30 µm: closer, the carry of the last update alone
/// does well enough (it kept a pendulum 1 km out within 2.6–5.0 mm of
/// the one at the origin over 10 s; the error grows with the spacing),
/// and the column costs free-air throughput (the default `cable bench`,
/// 59 % of whose cables lay beyond 32 m, ran at 0.91× with the threshold
/// at [`FAR`]).
pub const FAR_VELOCITY: f32 = 256.0;

/// The lanes whose cable starts beyond [`FAR_VELOCITY`].
#[inline(always)]
pub fn far_velocity<L: Lane>(first: V3<L>) -> L::M {
    L::splat(FAR_VELOCITY).lt(first.abs().max_element())
}

/// The lanes [`to_local`] moved and their origins, for [`to_world`].
#[derive(Clone, Copy, Debug)]
pub struct Local<L: Lane> {
    /// Per lane, the world position local coordinates are taken from.
    origin: V3<L>,
    /// The lanes in local coordinates.
    m: L::M,
}

impl<L: Lane> Local<L> {
    /// The lanes in local coordinates.
    #[inline(always)]
    pub fn lanes(&self) -> L::M {
        self.m
    }

    /// Local coordinates from `origin`, the position of each lane's first
    /// particle as stored, for the lanes whose cable starts beyond
    /// [`FAR`] (no lane has a contact candidate: [`to_local`] with none).
    #[inline(always)]
    pub fn at(origin: V3<L>) -> Self {
        Self {
            origin,
            m: far(origin),
        }
    }

    /// The position to store for a particle stored at `p` with carry `c`:
    /// in the lanes of `self`, local `(p − origin) + c` ([`to_local`]'s
    /// value, bit for bit), `p` in the others.
    #[inline(always)]
    pub fn local(&self, p: V3<L>, c: V3<L>) -> V3<L> {
        V3::select(self.m, (p - self.origin) + c, p)
    }
}

/// Moves the lanes whose cable starts beyond [`FAR`] and that are not in
/// `contact` into coordinates local to their first particle, with the
/// carry added (see the module docs). `None` when no lane moved, which
/// costs one read of the first row.
#[inline(always)]
pub fn to_local<L: Lane, S: Store<L>>(s: &mut S, contact: L::M) -> Option<Local<L>> {
    let origin = s.pos(0);
    let m = far(origin) & !contact;
    if m.none() {
        return None;
    }
    for i in 0..s.rows() {
        let p = s.pos(i);
        let local = (p - origin) + s.carry(i);
        s.set_pos(i, V3::select(m, local, p));
    }
    Some(Local { origin, m })
}

/// Moves the lanes of `local` back to world coordinates: each position is
/// `origin + local` rounded, and its carry what the rounding dropped
/// (exact while the local coordinate is smaller than the origin's, which
/// [`FAR`] and a cable shorter than its distance from the origin make
/// so).
#[inline(always)]
pub fn to_world<L: Lane, S: Store<L>>(s: &mut S, local: Local<L>) {
    let Local { origin, m } = local;
    for i in 0..s.rows() {
        let l = s.pos(i);
        let w = origin + l;
        let dropped = l - (w - origin);
        s.set_pos(i, V3::select(m, w, l));
        let c = s.carry(i);
        s.set_carry(i, V3::select(m, dropped, c));
    }
}

/// Moves the lanes whose cable starts beyond [`FAR`] into coordinates
/// local to their first particle for a whole frame of substeps in free
/// air (no collider in the world): positions and previous positions, each
/// with its carry added (`(p − o) + carry`, `(p_prev − o) + carry_prev`),
/// `carry_prev` zero and the carry what those sums' rounding dropped (so
/// the velocity is kept exactly). The frame's substeps then run on these lanes as on a
/// cable at the origin (their first particle is within [`FAR`] of it, so
/// neither [`to_local`] nor the far integration takes them again), and
/// [`frame_to_world`] stores them back. Moves `b`'s attachment targets
/// into the same coordinates, and returns the lanes and their origins;
/// `None` when no lane is far (which costs one read of the first row).
///
/// Per substep the far path otherwise costs a pass over the rows to local
/// coordinates and one back; per frame it costs one each.
#[inline(always)]
pub fn frame_to_local<L: Lane, S: Store<L>>(s: &mut S, b: &mut Block<L>) -> Option<Local<L>> {
    let origin = s.pos(0);
    let m = far(origin);
    if m.none() {
        return None;
    }
    for i in 0..s.rows() {
        let (p, c) = (s.pos(i), s.carry(i));
        let (q, cq) = (s.prev(i), s.carry_prev(i));
        // Local positions with their carries added, and what rounding
        // those sums dropped (Fast2Sum: `p − o` is exact, and larger than
        // the carry but in the first row, where it is zero and the sum
        // exact). The local carry is the difference of the two drops: the
        // velocity of the near integration, `p − p_prev + carry`, is then
        // the full one, `(p + carry) − (p_prev + carry_prev)`, exactly.
        let (dp, dq) = (p - origin, q - origin);
        let (pl, ql) = (dp + c, dq + cq);
        let lost = (c - (pl - dp)) - (cq - (ql - dq));
        s.set_pos(i, V3::select(m, pl, p));
        s.set_prev(i, V3::select(m, ql, q));
        s.set_carry(i, V3::select(m, lost, c));
        s.set_carry_prev(i, V3::select(m, V3::zero(), cq));
    }
    s.set_carry_prev_live(s.carry_prev_live() & !m);
    for t in &mut b.attach_t {
        *t = V3::select(m, *t - origin, *t);
    }
    Some(Local { origin, m })
}

/// Stores the lanes of `local` ([`frame_to_local`]) back in world
/// coordinates at the end of the frame: each position `origin + local`
/// rounded, its carry what the rounding dropped plus the local carry;
/// each previous position the same, its carry ([`Store::carry_prev`])
/// what its rounding dropped. So the next substep's velocity,
/// `(p + carry) − (p_prev + carry_prev)`, is the local one exactly: the
/// integration reads `carry_prev` in every lane where it is live, and
/// clears it after one substep closer than [`FAR_VELOCITY`]. (Dropping the
/// previous position's rounding instead made a rope coasting at 1 m/s
/// 100 m out gain half a metre per second in 10 s.)
#[inline(always)]
pub fn frame_to_world<L: Lane, S: Store<L>>(s: &mut S, local: Local<L>) {
    let Local { origin, m } = local;
    for i in 0..s.rows() {
        let l = s.pos(i);
        let w = origin + l;
        s.set_pos(i, V3::select(m, w, l));
        let c = s.carry(i);
        s.set_carry(i, V3::select(m, (l - (w - origin)) + c, c));
        let lq = s.prev(i);
        let wq = origin + lq;
        s.set_prev(i, V3::select(m, wq, lq));
        let cq = s.carry_prev(i);
        s.set_carry_prev(i, V3::select(m, lq - (wq - origin), cq));
    }
    s.set_carry_prev_live(s.carry_prev_live() | m);
}
