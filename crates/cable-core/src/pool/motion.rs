//! Moving a whole cable: teleports and set velocities.

use glam::Vec3;

use crate::cable::CableHandle;
use crate::error::{CableError, check_finite, check_vec3};

use super::store::{ParticlePool, in_range};

impl ParticlePool {
    /// Moves a whole cable rigidly by `offset` (positions and previous
    /// positions, so its velocity is kept), and its attachment targets with it:
    /// UE5's teleport handling.
    ///
    /// A teleport that would take any particle (position or previous
    /// position) or attachment target of the cable beyond
    /// ±[`crate::MAX_COORDINATE`] is refused and changes nothing, so the
    /// targets the pool holds are always ones
    /// [`ParticlePool::set_attachment`] accepts.
    ///
    /// # Errors
    /// Stale handle; a non-finite offset, or one that would take the cable
    /// out of range ([`CableError::OutOfRange`] naming `offset`).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// pool.teleport(h, Vec3::new(0.0, 9.0e5, 0.0))?;
    /// assert!(pool.teleport(h, Vec3::new(0.0, 2.0e5, 0.0)).is_err()); // past 1e6 m
    /// assert_eq!(pool.positions(h)?[0], Vec3::new(0.0, 9.0e5, 0.0));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn teleport(&mut self, handle: CableHandle, offset: Vec3) -> Result<(), CableError> {
        // Up to 2e6 per axis is meaningful (from -1e6 to 1e6); the check
        // below bounds where the cable lands.
        for c in offset.to_array() {
            check_finite("offset", c)?;
        }
        let i = self.record_index(handle)?;
        let rec = &self.cables[i];
        let rows = rec.first..rec.first + rec.count;
        let st = self.state.get();
        let moved = st.pos[rows.clone()]
            .iter()
            .chain(&st.prev[rows.clone()])
            .chain(rec.attach.iter().flatten());
        for &p in moved {
            let q = p + offset;
            if let Some(axis) = (0..3).find(|&a| !in_range(q[a])) {
                return Err(CableError::OutOfRange {
                    field: "offset",
                    expected: "must keep every particle and attachment target of the cable within ±1e6",
                    value: f64::from(offset[axis]),
                });
            }
        }
        self.touch_state(i);
        self.wake_record(i);
        if self.cables[i].attach.iter().any(Option::is_some) {
            // The targets move with the cable.
            self.revisions.targets();
        }
        let st = self.state.get_mut();
        // Far out `p + offset` rounds, and differently for a position and
        // its previous position: what each sum drops goes to its carry, so
        // the cable keeps its velocity to f32 precision (rounded alone, a
        // rope coasting at 1 m/s 10 km out lost 0.19 m/s).
        for (p, c) in st.pos[rows.clone()]
            .iter_mut()
            .zip(&mut st.carry[rows.clone()])
            .chain(
                st.prev[rows.clone()]
                    .iter_mut()
                    .zip(&mut st.carry_prev[rows]),
            )
        {
            let (sum, lost) = two_sum(*p, offset);
            *p = sum;
            *c += lost;
        }
        for t in self.cables[i].attach.iter_mut().flatten() {
            *t += offset;
        }
        Ok(())
    }

    /// Sets a cable's speed: every free particle gets velocity `v` (m/s) at
    /// substep `h` (s), by moving its previous position to `p - v·h`.
    ///
    /// `h` is the solver's substep, in (0, 1] like
    /// `SolverParams::substep`; the previous positions must stay within
    /// ±[`crate::MAX_COORDINATE`]. A refused call changes nothing.
    ///
    /// # Errors
    /// Stale handle; a non-finite or out-of-range `v` (naming `velocity`);
    /// `h` not finite or not in (0, 1] (naming `substep`); a `v·h` that
    /// would put a previous position beyond ±1e6 (naming `velocity`).
    pub fn set_velocity(&mut self, handle: CableHandle, v: Vec3, h: f32) -> Result<(), CableError> {
        check_vec3("velocity", v)?;
        let h = check_finite("substep", h)?;
        if !(h > 0.0 && h <= 1.0) {
            return Err(CableError::OutOfRange {
                field: "substep",
                expected: "must be greater than 0 and at most 1",
                value: f64::from(h),
            });
        }
        let rows = self.rows(handle)?;
        let step = v * h;
        let pos = &self.state.get().pos;
        for r in rows.clone() {
            if self.inv_mass[r] > 0.0 {
                let q = pos[r] - step;
                if let Some(axis) = (0..3).find(|&a| !in_range(q[a])) {
                    return Err(CableError::OutOfRange {
                        field: "velocity",
                        expected: "velocity × substep must keep every previous position within ±1e6",
                        value: f64::from(v[axis]),
                    });
                }
            }
        }
        let i = self.record_index(handle)?;
        self.touch_state(i);
        self.wake_record(i);
        let st = self.state.get_mut();
        for r in rows {
            if self.inv_mass[r] > 0.0 {
                st.prev[r] = st.pos[r] - step;
                // What rounding `prev` dropped: far from the origin the
                // velocity is still `v` to f32 precision.
                st.carry[r] = step - (st.pos[r] - st.prev[r]);
                st.carry_prev[r] = Vec3::ZERO;
            }
        }
        Ok(())
    }
}

/// `a + b` rounded to f32, and what the rounding dropped (Knuth's TwoSum,
/// per axis: exact whatever the magnitudes, `a + b = sum + lost`).
#[inline]
pub(super) fn two_sum(a: Vec3, b: Vec3) -> (Vec3, Vec3) {
    let sum = a + b;
    let bb = sum - a;
    let lost = (a - (sum - bb)) + (b - bb);
    (sum, lost)
}
