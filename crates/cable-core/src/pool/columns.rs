//! Disjoint mutable borrows of the columns for the solver ([`Columns`],
//! [`CableMut`]), parallel iteration over cables, and whole-pool checks.

use glam::Vec3;

use crate::cable::{CableHandle, CableParams};
use crate::collider::ColliderSet;

use super::store::{CableRecord, ParticlePool, RowConst};

impl ParticlePool {
    /// All positions of all live cables, row order (compacts first).
    pub fn all_positions(&mut self) -> &[Vec3] {
        self.compact();
        &self.state.get_mut().pos
    }

    /// Checks every column finite: a diagnostic for tests and debugging.
    #[must_use]
    pub fn all_finite(&self) -> bool {
        self.state
            .get()
            .pos
            .iter()
            .chain(&self.state.get().prev)
            .chain(&self.state.get().carry)
            .chain(&self.state.get().carry_prev)
            .all(|p| p.is_finite())
    }

    /// Splits the pool into one mutable view per live cable, in row order,
    /// after compacting. The views borrow disjoint rows, so callers may hand
    /// them to threads; [`ParticlePool::par_for_each_cable`] does that.
    /// Every cable counts as moved ([`ParticlePool::moved_revision`]),
    /// unless a stepper's [`ParticlePool::begin_step`] and
    /// [`ParticlePool::end_step`] bracket the borrow.
    pub fn columns_mut(&mut self) -> Columns<'_> {
        self.touch();
        // Any cable's particles may change: see `ParticlePool::moved_revision`.
        self.revisions.bulk();
        self.compact();
        let st = self.state.get_mut();
        Columns {
            base: 0,
            first_cable: 0,
            pos: &mut st.pos,
            prev: &mut st.prev,
            carry: &mut st.carry,
            carry_prev: &mut st.carry_prev,
            inv_mass: &self.inv_mass,
            rest: &self.rest,
            lambda: &mut st.lambda,
            lambda_bend: &mut st.lambda_bend,
            row_const: &self.row_const,
            lambda_row: &mut st.lambda_row,
            cables: &mut self.cables,
            colliders: &self.colliders,
        }
    }

    /// Runs `f` on every live cable, in parallel with rayon.
    ///
    /// The work is split recursively by cable boundaries into pieces of at
    /// least [`PAR_GRAIN`] particles; the split depends on the scene alone,
    /// never on the thread count, and each cable is processed by exactly one
    /// call, so results are bitwise identical whatever the thread pool.
    pub fn par_for_each_cable<F>(&mut self, f: F)
    where
        F: Fn(CableMut<'_>) + Sync,
    {
        self.columns_mut().par_for_each(&f);
    }

    pub(super) fn debug_check(&self) {
        let n = self.inv_mass.len();
        debug_assert!(
            self.state.get().prev.len() == n
                && self.state.get().carry.len() == n
                && self.state.get().carry_prev.len() == n
                && self.inv_mass.len() == n
                && self.rest.len() == n
                && self.state.get().lambda.len() == n
                && self.state.get().lambda_bend.len() == n
                && self.row_const.len() == n
                && self.state.get().lambda_row.len() == n,
            "ParticlePool columns out of step"
        );
    }
}

/// Smallest piece of work, in particles, that [`ParticlePool::par_for_each_cable`]
/// hands to one rayon task.
pub const PAR_GRAIN: usize = 4096;

/// Mutable, disjoint borrows of the particle columns of a run of cables.
#[derive(Debug)]
pub struct Columns<'a> {
    base: usize,
    /// Index (among the live cables, row order) of the run's first cable.
    first_cable: usize,
    pos: &'a mut [Vec3],
    prev: &'a mut [Vec3],
    carry: &'a mut [Vec3],
    carry_prev: &'a mut [Vec3],
    inv_mass: &'a [f32],
    rest: &'a [f32],
    lambda: &'a mut [f32],
    lambda_bend: &'a mut [f32],
    row_const: &'a [RowConst],
    lambda_row: &'a mut [[f32; 3]],
    cables: &'a mut [CableRecord],
    colliders: &'a ColliderSet,
}

/// The cables of a [`Columns`] run, one view each, in row order
/// ([`Columns::into_cables`]).
#[derive(Debug)]
pub struct IntoCables<'a> {
    rest: Columns<'a>,
}

impl<'a> Iterator for IntoCables<'a> {
    type Item = CableMut<'a>;

    #[inline]
    fn next(&mut self) -> Option<CableMut<'a>> {
        let r = &mut self.rest;
        let (rec, cables) = std::mem::take(&mut r.cables).split_first_mut()?;
        let rec: &'a CableRecord = rec;
        debug_assert!(rec.alive && rec.first == r.base);
        let n = rec.count;
        let (pos, pos1) = std::mem::take(&mut r.pos).split_at_mut(n);
        let (prev, prev1) = std::mem::take(&mut r.prev).split_at_mut(n);
        let (carry, carry1) = std::mem::take(&mut r.carry).split_at_mut(n);
        let (carry_prev, carry_prev1) = std::mem::take(&mut r.carry_prev).split_at_mut(n);
        let (inv_mass, inv_mass1) = r.inv_mass.split_at(n);
        let (rest, rest1) = r.rest.split_at(n);
        let (lambda, lambda1) = std::mem::take(&mut r.lambda).split_at_mut(n);
        let (lambda_bend, lambda_bend1) = std::mem::take(&mut r.lambda_bend).split_at_mut(n);
        let (row_const, row_const1) = r.row_const.split_at(n);
        let (lambda_row, lambda_row1) = std::mem::take(&mut r.lambda_row).split_at_mut(n);
        (r.pos, r.prev, r.carry, r.carry_prev) = (pos1, prev1, carry1, carry_prev1);
        (r.inv_mass, r.rest) = (inv_mass1, rest1);
        (r.lambda, r.lambda_bend, r.row_const, r.lambda_row) =
            (lambda1, lambda_bend1, row_const1, lambda_row1);
        r.cables = cables;
        r.base += n;
        r.first_cable += 1;
        Some(CableMut {
            handle: rec.handle,
            pos,
            prev,
            carry,
            carry_prev,
            inv_mass,
            rest,
            lambda,
            lambda_bend,
            row_const,
            lambda_row,
            params: &rec.params,
            attach: &rec.attach,
            clamp: &rec.clamp,
            slip: rec.slip,
            active: rec.active(),
            colliders: r.colliders,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rest.len(), Some(self.rest.len()))
    }
}

impl ExactSizeIterator for IntoCables<'_> {}

/// A mutable view of one cable's rows and parameters, handed to systems.
#[derive(Debug)]
pub struct CableMut<'a> {
    /// The cable's handle.
    pub handle: CableHandle,
    /// Positions, metres.
    pub pos: &'a mut [Vec3],
    /// Previous positions (Verlet state).
    pub prev: &'a mut [Vec3],
    /// The part of each particle's last displacement that rounding its
    /// position dropped (metres): the velocity is `pos - prev + carry`
    /// ([`ParticlePool::carry`]).
    pub carry: &'a mut [Vec3],
    /// The carry of each particle's previous position (metres,
    /// [`ParticlePool::carry_prev`]).
    pub carry_prev: &'a mut [Vec3],
    /// Inverse masses; 0 = pinned.
    pub inv_mass: &'a [f32],
    /// Rest length of the segment starting at each row; last entry 0.
    pub rest: &'a [f32],
    /// XPBD multipliers of the distance constraints (solver scratch).
    pub lambda: &'a mut [f32],
    /// XPBD multipliers of the bending constraints (solver scratch).
    pub lambda_bend: &'a mut [f32],
    /// Derived solver constants of each particle.
    pub row_const: &'a [RowConst],
    /// Multipliers of each particle's start-side tether, end-side tether
    /// and curvature constraint (solver scratch).
    pub lambda_row: &'a mut [[f32; 3]],
    /// The cable's parameters.
    pub params: &'a CableParams,
    /// Attachment target of each end ([`End::slot`](crate::End::slot) order).
    pub attach: &'a [Option<Vec3>; 2],
    /// Where each end's clamp puts its virtual particle, relative to the
    /// end particle, while the clamp holds ([`crate::CableParams::clamp_start`]):
    /// the end's direction when the cable was added times its segment's
    /// rest length. `None`: no clamp, or the end is free.
    pub clamp: &'a [Option<Vec3>; 2],
    /// The most tension (N) the cable's winch holds the rope with in the
    /// next substep ([`crate::CableParams::slip_end`]): `reel_force` while
    /// a winch with a pulling limit reels in, [`crate::SLIP_FACTOR`] ×
    /// `reel_force` while it holds or pays out, as long as it has rope
    /// left to give (below `max_length`). `None`: no such winch.
    pub slip: Option<f32>,
    /// False while the cable sleeps or is hidden and skipped: systems leave
    /// it as it is ([`ParticlePool::is_active`]).
    pub active: bool,
    /// The pool's colliders, as prepared for this substep (read-only).
    pub colliders: &'a ColliderSet,
}

impl<'a> Columns<'a> {
    /// Number of cables in this run.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cables.len()
    }

    /// True when the run holds no cable.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cables.is_empty()
    }

    fn rows(&self) -> usize {
        self.inv_mass.len()
    }

    /// Splits before cable `k` of the run.
    fn split_at(self, k: usize) -> (Columns<'a>, Columns<'a>) {
        let row = self.cables[k].first - self.base;
        let (c0, c1) = self.cables.split_at_mut(k);
        let (p0, p1) = self.pos.split_at_mut(row);
        let (q0, q1) = self.prev.split_at_mut(row);
        let (e0, e1) = self.carry.split_at_mut(row);
        let (f0, f1) = self.carry_prev.split_at_mut(row);
        let (w0, w1) = self.inv_mass.split_at(row);
        let (r0, r1) = self.rest.split_at(row);
        let (l0, l1) = self.lambda.split_at_mut(row);
        let (b0, b1) = self.lambda_bend.split_at_mut(row);
        let (k0, k1) = self.row_const.split_at(row);
        let (x0, x1) = self.lambda_row.split_at_mut(row);
        (
            Columns {
                base: self.base,
                first_cable: self.first_cable,
                pos: p0,
                prev: q0,
                carry: e0,
                carry_prev: f0,
                inv_mass: w0,
                rest: r0,
                lambda: l0,
                lambda_bend: b0,
                row_const: k0,
                lambda_row: x0,
                cables: c0,
                colliders: self.colliders,
            },
            Columns {
                base: self.base + row,
                first_cable: self.first_cable + k,
                pos: p1,
                prev: q1,
                carry: e1,
                carry_prev: f1,
                inv_mass: w1,
                rest: r1,
                lambda: l1,
                lambda_bend: b1,
                row_const: k1,
                lambda_row: x1,
                cables: c1,
                colliders: self.colliders,
            },
        )
    }

    /// The pool's colliders, shared by every cable of the run: borrowed
    /// for as long as the columns, so a caller can hold them beside the
    /// cables' views ([`Columns::into_cables`]).
    #[must_use]
    pub fn colliders(&self) -> &'a ColliderSet {
        self.colliders
    }

    /// One view per cable of the run, in row order, each borrowing its own
    /// rows for the columns' whole lifetime: a caller may keep them, put
    /// them in any order and hand them to threads (a layout that solves
    /// cables in its own grouping writes each group back from the task
    /// that solved it). O(1) per cable.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// for k in 0..3 {
    ///     pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2 + k)?)?;
    /// }
    /// let mut views: Vec<_> = pool.columns_mut().into_cables().collect();
    /// views.reverse(); // any order: each view owns its rows
    /// for c in &mut views {
    ///     c.pos[0].y = c.pos.len() as f32;
    /// }
    /// assert_eq!(pool.cable(0).expect("live").pos[0].y, 3.0);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn into_cables(self) -> IntoCables<'a> {
        IntoCables { rest: self }
    }

    /// Calls `f` on each cable of the run in order, on this thread.
    pub fn for_each(self, f: &impl Fn(CableMut<'_>)) {
        self.for_each_indexed(&|_, c| f(c));
    }

    /// Calls `f` with each cable's index (among the live cables, row order)
    /// and view, in order, on this thread.
    pub fn for_each_indexed(self, f: &impl Fn(usize, CableMut<'_>)) {
        let first = self.first_cable;
        for (i, c) in self.into_cables().enumerate() {
            f(first + i, c);
        }
    }

    /// Calls `f` on each cable of the run, in parallel (see
    /// [`ParticlePool::par_for_each_cable`]).
    pub fn par_for_each<F>(self, f: &F)
    where
        F: Fn(CableMut<'_>) + Sync,
    {
        self.par_for_each_indexed(&|_, c| f(c));
    }

    /// Calls `f` with each cable's index (among the live cables, row order)
    /// and view, in parallel, split by the scene alone as
    /// [`Columns::par_for_each`] is.
    pub fn par_for_each_indexed<F>(self, f: &F)
    where
        F: Fn(usize, CableMut<'_>) + Sync,
    {
        if self.len() <= 1 || self.rows() <= PAR_GRAIN {
            self.for_each_indexed(f);
            return;
        }
        // Split at the cable nearest the middle row: depends on the scene only.
        let mid_row = self.base + self.rows() / 2;
        let k = self
            .cables
            .partition_point(|c| c.first < mid_row)
            .clamp(1, self.len() - 1);
        let (a, b) = self.split_at(k);
        rayon::join(|| a.par_for_each_indexed(f), || b.par_for_each_indexed(f));
    }
}
