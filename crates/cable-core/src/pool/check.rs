//! [`ParticlePool::validate`]: the pool's invariants, checked on a
//! restored pool before it is used (and on demand).

use super::store::{CableRecord, ParticlePool, end_offset};
use crate::error::{CableError, check_vec3};

/// Largest coordinate of a particle's position or previous position, in
/// metres, that [`ParticlePool::validate`] accepts: 10⁹ times the
/// coordinates a cable may be created at ([`crate::MAX_COORDINATE`]), far
/// beyond any run (a fall from rest at 9.81 m/s² reaches 4.9·10¹² m in
/// the 10⁶ s of the longest `cable run`), and small enough that the
/// solver's squared lengths and products of lengths stay finite, so a
/// damaged save cannot restore a state that turns NaN on its first steps.
pub const MAX_STATE_COORDINATE: f32 = 1.0e15;

/// Longest rest length of a segment [`ParticlePool::validate`] accepts,
/// metres: a segment is at most a whole cable (1e7 m), and the winch
/// splits its first segment once it passes 1.5 winch segments (each at
/// most 1e7 m).
const MAX_REST_LENGTH: f32 = 1.5e7;

/// Largest rest curvature [`ParticlePool::validate`] accepts: the solver
/// leaves turnings whose `|e₁||e₂| + e₁·e₂` is below 10⁻⁶ of `|e₁||e₂|`
/// alone, so no curvature it acts on reaches `2·10⁶` (and the rest
/// curvatures of polylines of f32 points are far smaller).
const MAX_REST_CURVATURE: f32 = 2.0e6;

/// True when `carry`, what the integrator's rounding of a position dropped
/// ([`ParticlePool::carry`]), is within what rounding can drop at `pos`
/// and `prev`: per axis, a metre (generous near the origin, and so the
/// columns of saves from before the relative bound read) or 2⁻¹⁸ of the
/// larger of the two coordinates' magnitudes (the integrator's error term
/// is within a few spacings of the f32 coordinates involved, each 2⁻²³ of
/// the magnitude at most). A free fall of 3000 s is at −4.4·10⁷ m, where
/// the spacing is 4 m: a carry of a few metres is then what the state is.
fn carry_in_range(carry: glam::Vec3, pos: glam::Vec3, prev: glam::Vec3) -> bool {
    carry.is_finite()
        && (0..3).all(|a| {
            let scale = pos[a].abs().max(prev[a].abs()) * (1.0 / 262_144.0);
            carry[a].abs() <= scale.max(1.0)
        })
}

/// An [`CableError::InvalidState`] at `place`.
pub(super) fn bad(place: impl Into<String>, reason: impl Into<String>) -> CableError {
    CableError::InvalidState {
        place: place.into(),
        reason: reason.into(),
    }
}

impl ParticlePool {
    /// Checks every invariant of the pool, naming the first one broken:
    ///
    /// - the columns have equal lengths, and the cables' records tile them
    ///   in order (each cable's rows `first..first + count` start where the
    ///   previous cable's end, at least 2 of them, the last record ending at
    ///   the columns' end);
    /// - each live record's handle names this pool and a slot that names
    ///   the record back with the same generation; each slot naming a
    ///   record names a live one; the free list holds each empty slot once
    ///   and no other; the live particles fit the budget;
    /// - every value is finite and in range: positions and previous
    ///   positions (within ±[`MAX_STATE_COORDINATE`]), what rounding
    ///   dropped from them (`carry` and `carry_prev`: within a metre, or a
    ///   few f32 spacings of the coordinate), inverse masses (≥ 0), rest lengths (> 0 and at
    ///   most 1.5e7 within a cable, 0 on its last row, whose segment is
    ///   never linked), rest curvatures (0..=2e6), the multipliers, the
    ///   sleep timers (≥ 0); each cable's
    ///   parameters pass [`crate::CableParams::validate`] with its winch
    ///   bounds resolved, its attachment targets are in range and its
    ///   attached ends pinned (inverse mass 0);
    /// - the colliders ([`crate::ColliderSet::validate`]).
    ///
    /// A pool changed only through its API always passes while its state is
    /// finite (a simulation gone NaN does not). A restored pool
    /// (deserialised with the `serde` feature) is checked before it is
    /// returned, so a hand-edited or damaged save is an error, never a pool
    /// that breaks these invariants or a panic later. O(particles).
    ///
    /// # Errors
    /// [`CableError::InvalidState`] naming the place (`cables[3].first`,
    /// `pos[120]`, `slots[2]`, `free_slots[0]`, ...) and what is wrong.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// assert!(pool.validate().is_ok());
    /// pool.positions_mut(h)?[2].y = f32::NAN;
    /// assert_eq!(pool.validate().unwrap_err().to_string(), "pos[2]: must be finite, got NaN");
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn validate(&self) -> Result<(), CableError> {
        self.check_structure()?;
        self.check_values()?;
        self.colliders.validate()
    }

    /// [`ParticlePool::validate_for_substep`] naming the cable as
    /// [`ParticlePool::validate`] names places (`cables[3]: compliance:
    /// ...`): whether a stepper with substep `substep` can step the pool,
    /// checked on a restored pool against the substep of the stepper
    /// restored with it.
    ///
    /// # Errors
    /// [`CableError::InvalidState`] at `cables[k]`, the reason that of
    /// [`ParticlePool::validate_for_substep`].
    pub fn validate_records_for_substep(&self, substep: f32) -> Result<(), CableError> {
        for (k, rec) in self.cables.iter().enumerate().filter(|(_, c)| c.alive) {
            super::access::check_record(rec, substep).map_err(|e| {
                bad(
                    format!("cables[{k}]"),
                    format!("{e} (with the substep {substep} s)"),
                )
            })?;
        }
        Ok(())
    }

    /// The structural invariants, which indexing relies on: column
    /// lengths, record tiling, slots and free list, the counts of removed
    /// cables and rows, the budget.
    pub(super) fn check_structure(&self) -> Result<(), CableError> {
        let n = self.state.get().pos.len();
        for (name, len) in [
            ("prev", self.state.get().prev.len()),
            ("carry", self.state.get().carry.len()),
            ("carry_prev", self.state.get().carry_prev.len()),
            ("inv_mass", self.inv_mass.len()),
            ("rest", self.rest.len()),
            ("lambda", self.state.get().lambda.len()),
            ("lambda_bend", self.state.get().lambda_bend.len()),
            ("lambda_row", self.state.get().lambda_row.len()),
            ("row_const", self.row_const.len()),
        ] {
            if len != n {
                return Err(bad(
                    name,
                    format!(
                        "holds {len} rows, but pos holds {n} (every column has one row per particle)"
                    ),
                ));
            }
        }
        let (mut row, mut garbage, mut dead) = (0usize, 0usize, 0usize);
        for (k, rec) in self.cables.iter().enumerate() {
            if rec.count < 2 {
                return Err(bad(
                    format!("cables[{k}].count"),
                    format!("a cable has at least 2 particles, got {}", rec.count),
                ));
            }
            if rec.first != row {
                return Err(bad(
                    format!("cables[{k}].first"),
                    format!(
                        "is {}, but the cables before it end at row {row} (cables lie in the columns one after another)",
                        rec.first
                    ),
                ));
            }
            row = match row.checked_add(rec.count) {
                Some(end) if end <= n => end,
                _ => {
                    return Err(bad(
                        format!("cables[{k}].count"),
                        format!(
                            "rows {}..{} + {} run past the {n} rows of the columns",
                            rec.first, rec.first, rec.count
                        ),
                    ));
                }
            };
            if rec.handle.pool != self.id {
                return Err(bad(
                    format!("cables[{k}].handle.pool"),
                    format!("is {}, but the pool's id is {}", rec.handle.pool, self.id),
                ));
            }
            if rec.alive {
                let index = rec.handle.index as usize;
                let Some(slot) = self.slots.get(index) else {
                    return Err(bad(
                        format!("cables[{k}].handle.index"),
                        format!("slot {index} does not exist ({} slots)", self.slots.len()),
                    ));
                };
                if slot.record != Some(k as u32) || slot.generation != rec.handle.generation {
                    return Err(bad(
                        format!("slots[{index}]"),
                        format!(
                            "does not name the live cable {k} back (record {:?}, generation {}; the cable's handle has generation {})",
                            slot.record, slot.generation, rec.handle.generation
                        ),
                    ));
                }
            } else {
                garbage += rec.count;
                dead += 1;
            }
        }
        if row != n {
            return Err(bad(
                "pos",
                format!("holds {n} rows, but the cables hold {row}"),
            ));
        }
        if garbage != self.garbage_rows || dead != self.dead_records {
            return Err(bad(
                "cables",
                format!(
                    "{dead} removed cables of {garbage} rows, but the pool counts {} of {}",
                    self.dead_records, self.garbage_rows
                ),
            ));
        }
        let mut listed = vec![false; self.slots.len()];
        for (k, &f) in self.free_slots.iter().enumerate() {
            let Some(slot) = self.slots.get(f as usize) else {
                return Err(bad(
                    format!("free_slots[{k}]"),
                    format!("slot {f} does not exist ({} slots)", self.slots.len()),
                ));
            };
            if slot.record.is_some() {
                return Err(bad(
                    format!("free_slots[{k}]"),
                    format!("slot {f} names a cable"),
                ));
            }
            if std::mem::replace(&mut listed[f as usize], true) {
                return Err(bad(
                    format!("free_slots[{k}]"),
                    format!("slot {f} is listed twice"),
                ));
            }
        }
        for (i, slot) in self.slots.iter().enumerate() {
            match slot.record {
                None if !listed[i] => {
                    return Err(bad(format!("slots[{i}]"), "is empty but not in free_slots"));
                }
                Some(r) => {
                    let named = self.cables.get(r as usize);
                    if !named.is_some_and(|c| c.alive && c.handle.index as usize == i) {
                        return Err(bad(
                            format!("slots[{i}].record"),
                            format!("names record {r}, which is not the live cable of this slot"),
                        ));
                    }
                }
                None => {}
            }
        }
        let live = n - garbage;
        if live > self.budget {
            return Err(bad(
                "budget",
                format!("is {}, but the cables hold {live} particles", self.budget),
            ));
        }
        Ok(())
    }

    /// The value invariants; assumes [`ParticlePool::check_structure`] passed.
    fn check_values(&self) -> Result<(), CableError> {
        let finite = |name: &str, values: &mut dyn Iterator<Item = f32>, per: usize| {
            for (i, v) in values.enumerate() {
                if !v.is_finite() {
                    return Err(bad(
                        format!("{name}[{}]", i / per),
                        format!("must be finite, got {v}"),
                    ));
                }
            }
            Ok(())
        };
        let st = self.state.get();
        for (name, column) in [("pos", &st.pos), ("prev", &st.prev)] {
            finite(name, &mut column.iter().flat_map(|p| p.to_array()), 3)?;
            if let Some(i) = column
                .iter()
                .position(|p| p.abs().max_element() > MAX_STATE_COORDINATE)
            {
                return Err(bad(
                    format!("{name}[{i}]"),
                    format!(
                        "must lie within ±1e15 m per axis (far beyond any run: a fall from rest at 9.81 m/s² reaches 4.9e12 m in 1e6 s), got {}",
                        column[i]
                    ),
                ));
            }
        }
        finite("lambda", &mut st.lambda.iter().copied(), 1)?;
        if let Some(i) =
            (0..st.carry.len()).find(|&i| !carry_in_range(st.carry[i], st.pos[i], st.prev[i]))
        {
            return Err(bad(
                format!("carry[{i}]"),
                format!(
                    "must be finite and within ±1 m per axis, or within ±2^-18 of the position's or previous position's coordinate where that is larger (what rounding drops is a few of its spacings), got {}",
                    st.carry[i]
                ),
            ));
        }
        // The previous position's carry was the carry a substep before:
        // the same bound.
        if let Some(i) = (0..st.carry_prev.len())
            .find(|&i| !carry_in_range(st.carry_prev[i], st.pos[i], st.prev[i]))
        {
            return Err(bad(
                format!("carry_prev[{i}]"),
                format!(
                    "must be finite and within ±1 m per axis, or within ±2^-18 of the position's or previous position's coordinate where that is larger (what rounding drops is a few of its spacings), got {}",
                    st.carry_prev[i]
                ),
            ));
        }
        // Only a sleeping cable's are read; every record's are checked.
        for (k, rec) in self.cables.iter().enumerate() {
            let s = &rec.sleep;
            if !(s.still.is_finite() && s.still >= 0.0) {
                return Err(bad(
                    format!("cables[{k}].sleep.still"),
                    format!("must be finite and at least 0 seconds, got {}", s.still),
                ));
            }
            if !(s.bounds.min.is_finite() && s.bounds.max.is_finite()) {
                return Err(bad(format!("cables[{k}].sleep.bounds"), "must be finite"));
            }
        }
        finite(
            "lambda_bend",
            &mut self.state.get().lambda_bend.iter().copied(),
            1,
        )?;
        finite(
            "lambda_row",
            &mut self.state.get().lambda_row.iter().flatten().copied(),
            3,
        )?;
        finite("kappa0", &mut self.row_const.iter().map(|k| k.kappa0), 1)?;
        if let Some(i) = self
            .row_const
            .iter()
            .position(|k| !(0.0..=MAX_REST_CURVATURE).contains(&k.kappa0))
        {
            return Err(bad(
                format!("kappa0[{i}]"),
                format!(
                    "a rest curvature (2·tan of half the turning angle) is at least 0 and at most 2e6 (the solver does not bend sharper turnings), got {}",
                    self.row_const[i].kappa0
                ),
            ));
        }
        if let Some(i) = self
            .inv_mass
            .iter()
            .position(|w| !(w.is_finite() && *w >= 0.0))
        {
            return Err(bad(
                format!("inv_mass[{i}]"),
                format!("must be finite and at least 0, got {}", self.inv_mass[i]),
            ));
        }
        for (k, rec) in self.cables.iter().enumerate() {
            self.check_record(k, rec)?;
        }
        Ok(())
    }

    /// The value invariants of record `k`.
    fn check_record(&self, k: usize, rec: &CableRecord) -> Result<(), CableError> {
        let at = |field: &str| format!("cables[{k}].{field}");
        rec.params
            .validate()
            .map_err(|e| bad(at("params"), e.to_string()))?;
        if rec.params.min_length.is_none() || rec.params.max_length.is_none() {
            return Err(bad(
                at("params"),
                "min_length and max_length must be given (a pool resolves them when the cable is added)",
            ));
        }
        let last = rec.first + rec.count - 1;
        for r in rec.first..last {
            let l = self.rest[r];
            if !(l.is_finite() && l > 0.0 && l <= MAX_REST_LENGTH) {
                return Err(bad(
                    format!("rest[{r}]"),
                    format!(
                        "a segment's rest length must be finite and greater than 0, and at most 1.5e7 (1.5 winch segments of the longest, 1e7 m), got {l}"
                    ),
                ));
            }
        }
        if self.rest[last] != 0.0 || self.row_const[last].linked {
            return Err(bad(
                format!("rest[{last}]"),
                "the last row of a cable has rest length 0 and no segment after it",
            ));
        }
        for (slot, target) in rec.attach.iter().enumerate() {
            if let Some(t) = *target {
                check_vec3("attach", t)
                    .map_err(|e| bad(at(&format!("attach[{slot}]")), e.to_string()))?;
                let row =
                    rec.first + end_offset(rec.count, [crate::End::Start, crate::End::End][slot]);
                if self.inv_mass[row] != 0.0 {
                    return Err(bad(
                        format!("inv_mass[{row}]"),
                        format!(
                            "an attached end is pinned (inverse mass 0), got {}",
                            self.inv_mass[row]
                        ),
                    ));
                }
            }
            let d = rec.clamp_dir[slot];
            let unit =
                d == glam::Vec3::ZERO || (d.is_finite() && (d.length() - 1.0).abs() < 1.0e-3);
            if !unit {
                return Err(bad(
                    at(&format!("clamp_dir[{slot}]")),
                    format!("a clamp's direction is a unit vector (or zero), got {d}"),
                ));
            }
            let w = rec.end_inv_mass[slot];
            if !(w.is_finite() && w >= 0.0) {
                return Err(bad(
                    at(&format!("end_inv_mass[{slot}]")),
                    format!("must be finite and at least 0, got {w}"),
                ));
            }
        }
        let rate = rec.reel_rate;
        if !(rate.is_finite() && rate.abs() <= 1.0e4) {
            return Err(bad(
                at("reel_rate"),
                format!("must lie within ±1e4 (a winch speed, m/s), got {rate}"),
            ));
        }
        let seg = rec.reel_segment;
        if !(seg.is_finite() && seg > 0.0 && seg <= 1.0e7) {
            return Err(bad(
                at("reel_segment"),
                format!("must be greater than 0 and at most 1e7, got {seg}"),
            ));
        }
        if let Some(rho) = rec.mass_per_length
            && !(rho.is_finite() && rho > 0.0 && rho <= 1.0e6)
        {
            return Err(bad(
                at("mass_per_length"),
                format!("must be greater than 0 and at most 1e6, got {rho}"),
            ));
        }
        Ok(())
    }
}
