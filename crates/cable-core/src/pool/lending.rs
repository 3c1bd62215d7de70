//! Lending the state columns to a layout and taking them back
//! ([`ParticlePool::lend_state`]).

use glam::Vec3;

use super::lent::{ParticleState, Reclaimed, StateHolder};
use super::store::ParticlePool;
use crate::{CableError, CableHandle};

impl ParticlePool {
    /// Lends the pool's state columns to a layout that holds a newer state
    /// of some cables in its own storage: nothing is copied now; the first
    /// access to the pool's particle state afterwards (any reader or
    /// editor, through `&self` or `&mut self`) has `holder` write its state
    /// back once, on that thread ([`StateHolder::write_back`]), and sees it.
    /// A holder lent before and still newer than the columns writes back
    /// first, then is dropped.
    ///
    /// For layouts: a game steps through `cable_systems::Stepper`, which
    /// does this when its layout keeps rows of its own.
    pub fn lend_state(&mut self, holder: Box<dyn StateHolder>) {
        self.state.lend(holder);
    }

    /// Takes back the storage lent with [`ParticlePool::lend_state`], if
    /// any, and says whether the pool's columns are current
    /// ([`Reclaimed::current`]). The pool is not lent afterwards.
    pub fn reclaim_state(&mut self) -> Option<Reclaimed> {
        self.state.reclaim()
    }

    /// True while a lent holder's state is newer than the pool's columns
    /// (nothing has accessed the particle state since
    /// [`ParticlePool::lend_state`]).
    #[must_use]
    pub fn is_lent(&self) -> bool {
        self.state.is_lent()
    }

    /// Copies cable `handle`'s particle positions into `out` (cleared
    /// first; its capacity is reused), as a renderer or an ECS write-back
    /// reads them every frame. Unlike [`ParticlePool::positions`], it does
    /// not make a lent pool current ([`ParticlePool::lend_state`]): the
    /// layout holding the state copies this one cable from where it lives
    /// ([`StateHolder::copy_positions`]), so reading some cables costs
    /// their particles, not a write-back of every cable, and the next
    /// frame stays free of write-backs too.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live (`out` is
    /// then left as it was).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let mut points = Vec::new();
    /// pool.copy_positions(h, &mut points)?;
    /// assert_eq!(points, pool.positions(h)?);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn copy_positions(
        &self,
        handle: CableHandle,
        out: &mut Vec<Vec3>,
    ) -> Result<(), CableError> {
        let n = self.particle_count_of(handle)?;
        out.clear();
        out.resize(n, Vec3::ZERO);
        self.copy_positions_to(handle, out)
    }

    /// [`ParticlePool::copy_positions`] into a slice of exactly the cable's
    /// particle count ([`ParticlePool::particle_count_of`]), such as a
    /// cable's part of a buffer shared by many.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live;
    /// [`CableError::OutOfRange`] when `out` is not as long as the cable.
    pub fn copy_positions_to(
        &self,
        handle: CableHandle,
        out: &mut [Vec3],
    ) -> Result<(), CableError> {
        let i = self.record_index(handle)?;
        let rows = {
            let r = &self.cables[i];
            r.first..r.first + r.count
        };
        if out.len() != rows.len() {
            return Err(CableError::OutOfRange {
                field: "positions buffer length",
                expected: "the cable's particle count",
                value: out.len() as f64,
            });
        }
        self.state.copy_positions(i, rows, out);
        Ok(())
    }

    /// Has a lent holder write its state back now, so later reads cost
    /// nothing (reads do this themselves when needed).
    pub fn sync_state(&mut self) {
        self.state.get_mut();
    }

    /// The state columns as they are, without asking a holder to write
    /// back: right after [`ParticlePool::reclaim_state`] gave back a holder
    /// with `current == false`, they are older than that holder for its
    /// cables. For a layout writing its holder back itself; everything
    /// else reads through the pool's accessors.
    pub fn state_columns_mut(&mut self) -> &mut ParticleState {
        self.state.as_is_mut()
    }
}
