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
//! Lanes near the origin are left as they were, bit for bit. Lanes with a
//! contact candidate are too: the contact passes read the colliders in
//! world coordinates (far out, their contacts keep the f32 spacing). Each
//! lane decides from its own data alone, so results do not depend on
//! which cables share a SIMD block.

use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::Store;

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
