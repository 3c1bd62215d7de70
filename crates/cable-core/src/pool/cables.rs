//! Adding, removing and finding cables: slots, generations and records,
//! and compaction of the rows removed cables leave.

use glam::Vec3;

use crate::cable::{CableDesc, CableHandle, End};
use crate::error::CableError;

use super::revisions::CableRevisions;
use super::store::{
    CableRecord, LiveHandles, MAX_REEL_LENGTH, NO_ANCHOR, ParticlePool, RowConst, SleepState, Slot,
    end_offset,
};

impl ParticlePool {
    /// Adds a cable and returns its handle.
    ///
    /// # Errors
    /// [`CableError`] naming the parameter that is out of range, or
    /// [`CableError::BudgetExceeded`] when the pool would exceed its budget.
    pub fn add_cable(&mut self, desc: &CableDesc) -> Result<CableHandle, CableError> {
        self.touch();
        self.revisions.shape();
        desc.params.validate()?;
        let geo = &desc.geometry;
        let count = geo.points.len();
        if count < 2 || geo.rest.len() != count - 1 {
            return Err(CableError::TooFew {
                field: "points",
                min: 2,
                got: count,
            });
        }
        for &pin in &desc.pins {
            if pin as usize >= count {
                return Err(CableError::OutOfRange {
                    field: "pins",
                    expected: "every index must be less than the number of particles",
                    value: f64::from(pin),
                });
            }
        }
        let inv_mass = desc.inverse_masses()?;
        let mut params = desc.params;
        let length = desc.length();
        // One segment's length: the one at the winch's end.
        let at_winch = match params.reel_end {
            crate::End::Start => geo.rest[0],
            crate::End::End => geo.rest[count - 2],
        };
        let min = params.min_length.unwrap_or(at_winch);
        // 4 × the length, but within what `CableParams::validate` accepts
        // (1e7 m), so that `set_params(h, *params(h)?)` is accepted.
        let max = params
            .max_length
            .unwrap_or((4.0 * length).min(length.max(MAX_REEL_LENGTH)));
        if !(min > 0.0 && min <= length) {
            return Err(CableError::OutOfRange {
                field: "min_length",
                expected: "must be greater than 0 and at most the cable's initial length",
                value: f64::from(min),
            });
        }
        if !(max >= length && max.is_finite()) {
            return Err(CableError::OutOfRange {
                field: "max_length",
                expected: "must be at least the cable's initial length",
                value: f64::from(max),
            });
        }
        params.min_length = Some(min);
        params.max_length = Some(max);
        desc.check_clamps()?;
        let live = self.particle_count();
        if count > self.budget.saturating_sub(live) {
            return Err(CableError::BudgetExceeded {
                requested: count,
                live,
                budget: self.budget,
            });
        }
        if self.garbage_rows > 0 && self.garbage_rows * 4 >= self.inv_mass.len() {
            self.compact();
        }
        let handle = self.alloc_slot();
        let first = self.inv_mass.len();
        let st = self.state.get_mut();
        st.pos.extend_from_slice(&geo.points);
        st.prev.extend_from_slice(&geo.points);
        st.carry.extend(std::iter::repeat_n(Vec3::ZERO, count));
        st.carry_prev.extend(std::iter::repeat_n(Vec3::ZERO, count));
        st.lambda.extend(std::iter::repeat_n(0.0, count));
        st.lambda_bend.extend(std::iter::repeat_n(0.0, count));
        st.lambda_row.extend(std::iter::repeat_n([0.0; 3], count));
        self.inv_mass.extend_from_slice(&inv_mass);
        for &pin in &desc.pins {
            self.inv_mass[first + pin as usize] = 0.0;
        }
        self.rest.extend_from_slice(&geo.rest);
        self.rest.push(0.0);
        self.row_const.extend((0..count).map(|i| RowConst {
            anchor: [NO_ANCHOR; 2],
            reach: [0.0; 2],
            kappa0: desc.rest_curvature(i),
            bend_compliance: 0.0,
            linked: i + 1 < count,
        }));
        let mut record = CableRecord {
            handle,
            first,
            count,
            params,
            attach: [None, None],
            end_inv_mass: [inv_mass[0], inv_mass[count - 1]],
            clamp_dir: [
                (geo.points[0] - geo.points[1]).normalize_or_zero(),
                (geo.points[count - 1] - geo.points[count - 2]).normalize_or_zero(),
            ],
            clamp: [None, None],
            alive: true,
            reel_segment: length / (count - 1) as f32,
            mass_per_length: desc.mass_per_length,
            winch_stopped: false,
            reel_rate: 0.0,
            winch_slipping: false,
            max_rest: 0.0,
            rest_total: 0.0,
            inner_pins: 0,
            slip: None,
            sleep: SleepState::default(),
            revisions: CableRevisions::default(),
        };
        for (end, on) in [(End::Start, desc.attach_start), (End::End, desc.attach_end)] {
            if on {
                let row = first + end_offset(count, end);
                record.attach[end.slot()] = Some(geo.points[end_offset(count, end)]);
                self.inv_mass[row] = 0.0;
            }
        }
        self.slots[handle.index as usize].record = Some(self.cables.len() as u32);
        self.sleepy += usize::from(record.sleepy());
        self.cables.push(record);
        self.revisions.params();
        self.refresh_rows(self.cables.len() - 1);
        self.debug_check();
        Ok(handle)
    }

    pub(super) fn alloc_slot(&mut self) -> CableHandle {
        if let Some(index) = self.free_slots.pop() {
            let generation = self.slots[index as usize].generation;
            CableHandle {
                index,
                generation,
                pool: self.id,
            }
        } else {
            let index = u32::try_from(self.slots.len())
                // The particle budget bounds cables far below 2^32 (each has ≥ 2 particles
                // and the columns are indexed by usize); a pool that still overflows is a bug.
                .expect("more than 2^32 cable slots");
            self.slots.push(Slot {
                generation: 0,
                record: None,
            });
            CableHandle {
                index,
                generation: 0,
                pool: self.id,
            }
        }
    }

    /// Removes a cable. Its handle is refused from now on, even after the
    /// slot is reused by a new cable.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn remove_cable(&mut self, handle: CableHandle) -> Result<(), CableError> {
        self.touch();
        self.revisions.shape();
        let rec = self.record_index(handle)?;
        let slot = &mut self.slots[handle.index as usize];
        slot.record = None;
        // Wrapping: after 2^32 reuses of one slot a handle could alias; that
        // many removals of one slot is far beyond any game's lifetime.
        slot.generation = slot.generation.wrapping_add(1);
        self.free_slots.push(handle.index);
        let r = &mut self.cables[rec];
        self.sleepy -= usize::from(r.sleepy());
        self.sleeping -= usize::from(r.sleep.asleep);
        r.alive = false;
        self.garbage_rows += r.count;
        self.dead_records += 1;
        Ok(())
    }

    /// Squeezes the rows of removed cables out of the columns in one
    /// order-preserving pass. Cheap when there is nothing to do.
    pub fn compact(&mut self) {
        if self.garbage_rows == 0 {
            return;
        }
        let st = self.state.get_mut();
        let mut write = 0usize;
        let mut kept = 0usize;
        for i in 0..self.cables.len() {
            if !self.cables[i].alive {
                continue;
            }
            let (first, count) = (self.cables[i].first, self.cables[i].count);
            if first != write {
                let src = first..first + count;
                st.pos.copy_within(src.clone(), write);
                st.prev.copy_within(src.clone(), write);
                st.carry.copy_within(src.clone(), write);
                st.carry_prev.copy_within(src.clone(), write);
                self.inv_mass.copy_within(src.clone(), write);
                self.rest.copy_within(src.clone(), write);
                st.lambda.copy_within(src.clone(), write);
                st.lambda_bend.copy_within(src.clone(), write);
                self.row_const.copy_within(src.clone(), write);
                st.lambda_row.copy_within(src, write);
            }
            let mut rec = self.cables[i].clone();
            rec.first = write;
            self.slots[rec.handle.index as usize].record = Some(kept as u32);
            self.cables[kept] = rec;
            write += count;
            kept += 1;
        }
        self.cables.truncate(kept);
        for col in [
            &mut self.inv_mass,
            &mut self.rest,
            &mut st.lambda,
            &mut st.lambda_bend,
        ] {
            col.truncate(write);
        }
        st.pos.truncate(write);
        st.prev.truncate(write);
        st.carry.truncate(write);
        st.carry_prev.truncate(write);
        self.row_const.truncate(write);
        st.lambda_row.truncate(write);
        self.garbage_rows = 0;
        self.dead_records = 0;
        self.debug_check();
    }

    /// True while `handle` names a live cable of this pool.
    #[inline]
    #[must_use]
    pub fn contains(&self, handle: CableHandle) -> bool {
        self.record_index(handle).is_ok()
    }

    pub(super) fn record_index(&self, handle: CableHandle) -> Result<usize, CableError> {
        match self.slots.get(handle.index as usize) {
            Some(Slot {
                generation,
                record: Some(r),
            }) if *generation == handle.generation && handle.pool == self.id => Ok(*r as usize),
            _ => Err(CableError::StaleHandle(handle)),
        }
    }

    pub(super) fn record(&self, handle: CableHandle) -> Result<&CableRecord, CableError> {
        Ok(&self.cables[self.record_index(handle)?])
    }

    pub(super) fn rows(&self, handle: CableHandle) -> Result<std::ops::Range<usize>, CableError> {
        let r = self.record(handle)?;
        Ok(r.first..r.first + r.count)
    }

    /// Handles of the live cables, in the order they were added.
    pub fn handles(&self) -> impl ExactSizeIterator<Item = CableHandle> + '_ {
        LiveHandles {
            inner: self.cables.iter(),
            remaining: self.cable_count(),
        }
    }
}
