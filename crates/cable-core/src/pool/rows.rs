//! Every live cable's rows at once, for a pass that couples cables
//! ([`ParticlePool::edit_rows`]: cable–cable contact).

use glam::Vec3;

use super::store::{ParticlePool, RowConst, RowsCable};

/// Every live cable's particle rows at once, in row order (the pool
/// compacted: cable `k`'s rows follow cable `k − 1`'s), given to the
/// closure of [`ParticlePool::edit_rows`].
#[derive(Debug)]
pub struct PoolRows<'a> {
    /// Positions, metres.
    pub pos: &'a mut [Vec3],
    /// Previous positions (the Verlet state: the start of the last
    /// substep; velocity × substep is `pos − prev`).
    pub prev: &'a mut [Vec3],
    /// Inverse masses; 0 = pinned.
    pub inv_mass: &'a [f32],
    /// Rest length of the segment starting at each row, metres; 0 on each
    /// cable's last row.
    pub rest: &'a [f32],
    /// Derived constants of each row ([`RowConst::linked`]: the segment
    /// from this row to the next is intact).
    pub row_const: &'a [RowConst],
    /// Each live cable in row order: its first row, its number of rows,
    /// its parameters, and whether it is simulated now or sleeps
    /// (`false` for a hidden cable that skips updates).
    pub cables: &'a [RowsCable],
    moved: &'a mut Vec<u32>,
}

impl PoolRows<'_> {
    /// Records that the pass moved particles of cable `k` (its index in
    /// [`PoolRows::cables`]): the pool wakes it and tells the layouts its
    /// state changed. Every cable whose positions a pass changes must be
    /// marked, once is enough.
    pub fn mark_moved(&mut self, k: usize) {
        // Cable counts are far below 2³² (the particle budget is).
        self.moved.push(k as u32);
    }
}

impl ParticlePool {
    /// Runs `f` on every live cable's rows at once ([`PoolRows`]), for a
    /// pass that couples cables, such as cable–cable contact. Compacts the
    /// pool, and has a layout holding the state write it back first
    /// ([`ParticlePool::lend_state`]). The cables `f` marks moved
    /// ([`PoolRows::mark_moved`]) are woken and get a new state revision,
    /// as [`ParticlePool::positions_mut`] does, so layouts that keep rows
    /// of their own read them again.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// pool.edit_rows(|rows| {
    ///     let c = rows.cables[0];
    ///     rows.pos[c.first + 2].y += 0.1; // nudge the middle particle
    ///     rows.mark_moved(0);
    /// });
    /// assert_eq!(pool.positions(h)?[2].y, 0.1);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn edit_rows<R>(&mut self, f: impl FnOnce(&mut PoolRows<'_>) -> R) -> R {
        self.compact();
        let mut cables = std::mem::take(&mut self.rows_scratch);
        cables.clear();
        cables.extend(self.cables.iter().filter(|r| r.alive).map(|r| RowsCable {
            first: r.first,
            count: r.count,
            params: r.params,
            present: !(r.sleep.hidden && r.params.skip_when_hidden),
            awake: !r.sleep.asleep,
        }));
        let mut moved = std::mem::take(&mut self.moved_scratch);
        moved.clear();
        let st = self.state.get_mut();
        let out = f(&mut PoolRows {
            pos: &mut st.pos,
            prev: &mut st.prev,
            inv_mass: &self.inv_mass,
            rest: &self.rest,
            row_const: &self.row_const,
            cables: &cables,
            moved: &mut moved,
        });
        moved.sort_unstable();
        moved.dedup();
        // Compacted: the live records are the cables in row order.
        for &k in &moved {
            self.touch_state(k as usize);
            self.wake_record(k as usize);
        }
        self.rows_scratch = cables;
        self.moved_scratch = moved;
        out
    }
}
