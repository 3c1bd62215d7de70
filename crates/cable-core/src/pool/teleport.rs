//! Teleport handling as in Unreal 5's cable: an attachment that jumps
//! farther (or turns more) than the cable's thresholds in one move takes
//! the cable with it instead of dragging it through the solver.

use glam::{Quat, Vec3};

use super::motion::two_sum;
use super::store::{ParticlePool, end_offset, in_range};
use crate::cable::{CableHandle, End, TeleportMode};
use crate::error::{CableError, check_rotation, check_vec3};

/// The angle of the rotation `q` (unit), radians in `[0, π]`.
#[inline]
fn angle(q: Quat) -> f32 {
    2.0 * q.xyz().length().atan2(q.w.abs())
}

impl ParticlePool {
    /// Moves the attachment of an attached `end` to `target` while the thing
    /// it hangs from turns by `turn` (its rotation since the last move, a
    /// unit quaternion; [`Quat::IDENTITY`] when only positions are known),
    /// if that move crosses one of the cable's teleport thresholds
    /// ([`crate::CableParams::teleport_distance`]: `target` farther than
    /// that from the end's current target; or
    /// [`crate::CableParams::teleport_rotation`]: `turn` by more than that
    /// angle). Then the cable is teleported as its
    /// [`crate::CableParams::teleport_mode`] says, the end is attached at
    /// `target`, and the result is `true`. Otherwise nothing changes (not
    /// even [`ParticlePool::revision`]) and the result is `false`: the
    /// caller moves the end as usual ([`ParticlePool::set_attachment`],
    /// which calls this first with no turn).
    ///
    /// - [`TeleportMode::Move`]: every particle's position and previous
    ///   position `p` becomes `target + turn · (p − e)`, `e` the end
    ///   particle's position (where the old target held it): the cable moves
    ///   rigidly with the attachment, keeping its shape and its velocity in
    ///   the attachment's frame.
    /// - [`TeleportMode::Reset`]: the particles are laid at rest (previous
    ///   position = position) on a straight line, spaced by their rest
    ///   lengths: between `target` and the other end's target when that end
    ///   is attached (as UE lays a cable between its two ends), else from
    ///   `target` along the direction from this end to the other end turned
    ///   by `turn` (straight down when the cable had none), at the cable's
    ///   full rest length.
    ///
    /// A free end never teleports (attaching one pins it where
    /// [`ParticlePool::set_attachment`] says; move the cable first with
    /// [`ParticlePool::teleport`] if it should not be dragged there). The
    /// other end's target is left as it is: a game moving both ends of a
    /// cable moves each with its own call, and the second call of a rigid
    /// pair finds the cable already there (its move is measured from the
    /// end's particle, so it moves the cable by nothing).
    ///
    /// # Errors
    /// Stale handle; `target` not finite or beyond ±1e6 m (naming
    /// `target`); `turn` not a unit quaternion (naming `turn`); a teleport
    /// that would take a particle beyond ±1e6 m (naming `target`; nothing
    /// changes).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, CableParams, End, ParticlePool};
    /// use glam::{Quat, Vec3};
    ///
    /// let mut pool = ParticlePool::new();
    /// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 4)?;
    /// desc.attach_end = false;
    /// desc.params.teleport_distance = Some(5.0); // metres
    /// let rope = pool.add_cable(&desc)?;
    /// // 1 m: below the threshold, the solver drags the cable after its end.
    /// assert!(!pool.teleport_attachment(rope, End::Start, Vec3::X, Quat::IDENTITY)?);
    /// // 100 m in one move: the whole cable goes with it.
    /// let far = Vec3::new(100.0, 0.0, 0.0);
    /// assert!(pool.teleport_attachment(rope, End::Start, far, Quat::IDENTITY)?);
    /// assert_eq!(pool.positions(rope)?[4], Vec3::new(100.0, -2.0, 0.0));
    /// assert_eq!(pool.attachment(rope, End::Start)?, Some(far));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn teleport_attachment(
        &mut self,
        handle: CableHandle,
        end: End,
        target: Vec3,
        turn: Quat,
    ) -> Result<bool, CableError> {
        check_vec3("target", target)?;
        let turn = check_rotation("turn", turn)?;
        let i = self.record_index(handle)?;
        self.teleport_record(i, end, target, turn)
    }

    /// [`ParticlePool::teleport_attachment`] of live record `i`, with a
    /// checked `target` and a unit `turn`.
    pub(super) fn teleport_record(
        &mut self,
        i: usize,
        end: End,
        target: Vec3,
        turn: Quat,
    ) -> Result<bool, CableError> {
        let rec = &self.cables[i];
        let Some(from) = rec.attach[end.slot()] else {
            return Ok(false);
        };
        let p = rec.params;
        let moved = p
            .teleport_distance
            .is_some_and(|d| from.distance(target) > d);
        let turned = p.teleport_rotation.is_some_and(|r| angle(turn) > r);
        if !(moved || turned) {
            return Ok(false);
        }
        let (first, count) = (rec.first, rec.count);
        let rows = first..first + count;
        let pivot = self.state.get_mut().pos[first + end_offset(count, end)];
        // Each position and previous position moved, with what rounding the
        // last sum dropped (`two_sum`): kept in the carries below, so a cable
        // far out keeps its velocity.
        let (pos, prev, lost): (Vec<Vec3>, Vec<Vec3>, Vec<Vec3>) = match p.teleport_mode {
            TeleportMode::Move => {
                let map = |q: Vec3| {
                    if turn == Quat::IDENTITY {
                        two_sum(q, target - pivot)
                    } else {
                        two_sum(target, turn * (q - pivot))
                    }
                };
                let st = self.state.get_mut();
                let (pos, lp): (Vec<Vec3>, Vec<Vec3>) =
                    st.pos[rows.clone()].iter().map(|&q| map(q)).unzip();
                let (prev, lq): (Vec<Vec3>, Vec<Vec3>) =
                    st.prev[rows.clone()].iter().map(|&q| map(q)).unzip();
                (pos, prev, lp.into_iter().chain(lq).collect())
            }
            TeleportMode::Reset => {
                let other = match end {
                    End::Start => End::End,
                    End::End => End::Start,
                };
                let rest = &self.rest[first..first + count - 1];
                let length: f64 = rest.iter().map(|&r| f64::from(r)).sum();
                let far = match rec.attach[other.slot()] {
                    Some(t) => t,
                    None => {
                        let chord =
                            self.state.get_mut().pos[first + end_offset(count, other)] - pivot;
                        let dir = (turn * chord).normalize_or(Vec3::NEG_Y);
                        target + dir * length as f32
                    }
                };
                let (a, b) = match end {
                    End::Start => (target, far),
                    End::End => (far, target),
                };
                let mut along = 0.0f64;
                let laid: Vec<Vec3> = (0..count)
                    .map(|k| {
                        if k > 0 {
                            along += f64::from(rest[k - 1]);
                        }
                        crate::cable::along(a, b, (along / length) as f32)
                    })
                    .collect();
                (laid.clone(), laid, vec![Vec3::ZERO; 2 * count])
            }
        };
        if let Some(axis) = pos
            .iter()
            .chain(&prev)
            .find_map(|q| (0..3).find(|&a| !in_range(q[a])))
        {
            return Err(CableError::OutOfRange {
                field: "target",
                expected: "a teleport must keep every particle of the cable within ±1e6",
                value: f64::from(target[axis]),
            });
        }
        self.touch();
        // The cable's own mark too (`ParticlePool::moved_revision`).
        self.touch_state(i);
        self.wake_record(i);
        self.state.get_mut().pos[rows.clone()].copy_from_slice(&pos);
        self.state.get_mut().prev[rows.clone()].copy_from_slice(&prev);
        // The carried rounding is a displacement: it turns with the cable,
        // and a cable laid at rest has none.
        let st = self.state.get_mut();
        for (c, l) in st.carry[rows.clone()]
            .iter_mut()
            .chain(&mut st.carry_prev[rows])
            .zip(lost)
        {
            *c = match p.teleport_mode {
                TeleportMode::Move => turn * *c + l,
                TeleportMode::Reset => Vec3::ZERO,
            };
        }
        self.attach_end(i, end, Some(target));
        Ok(true)
    }
}
