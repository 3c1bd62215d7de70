//! The per-frame controls around the layouts' substeps: sleeping cables
//! wake near moved colliders and fall asleep when still, overloaded
//! segments tear and winches turn between substeps, and colliders are
//! prepared before the first substeps. [`LayoutState::advance`] runs them
//! and calls the layout dispatch (`LayoutState::run`) for the substeps.

use cable_core::{CableError, CableHandle, End, ParticlePool};

use super::{Layout, LayoutState};
use crate::kernel::Stages;
use crate::params::SolverParams;

/// Turns every winch by one substep of `h` seconds
/// ([`cable_core::CableParams::reel_speed`], `reel_accel`, `reel_force`:
/// [`ParticlePool::turn_winch`], given the tension of the segment at the
/// winch in the substep just run). A winch whose payout does not fit the
/// pool's particle budget stops there (its `reel_speed` set to 0), listed
/// in `stalled` as a [`CableError::WinchBudget`].
fn reel_all(
    pool: &mut ParticlePool,
    h: f32,
    winches: &mut Vec<(CableHandle, f32)>,
    tensions: &mut Vec<f32>,
    stalled: &mut Vec<CableError>,
) {
    winches.clear();
    for c in (0..pool.cable_count()).filter_map(|i| pool.cable(i)) {
        if !c.active || !pool.winch_turns(c.handle).unwrap_or(false) {
            continue;
        }
        // A pulling limit reads the winch segment's tension (its
        // multipliers are tracked: `Block::set_lane`): the first segment
        // for a winch at the start, the last for one at the end.
        let t = match c.params.reel_force {
            Some(_) => {
                crate::tension::segment_tensions(pool, c.handle, h, tensions).map_or(0.0, |()| {
                    let seg = match c.params.reel_end {
                        End::Start => tensions.first(),
                        End::End => tensions.last(),
                    };
                    seg.copied().unwrap_or(0.0)
                })
            }
            None => 0.0,
        };
        winches.push((c.handle, t));
    }
    for &(cable, tension) in winches.iter() {
        // Only a full particle budget can refuse (the handles are live,
        // the substep valid and the tensions finite): the cable paid out
        // as far as it fits.
        if let Err(CableError::BudgetExceeded {
            requested,
            live,
            budget,
        }) = pool.turn_winch(cable, h, if tension.is_finite() { tension } else { 0.0 })
        {
            // Stopped, rather than retried (and refused) every substep.
            // The handle is live (it was just reeled), so this cannot fail.
            let _ = pool.stop_winch(cable);
            stalled.push(CableError::WinchBudget {
                cable,
                requested,
                live,
                budget,
            });
        }
    }
}

impl LayoutState {
    /// Runs `n` substeps of every cable of the pool in `layout`, doing the
    /// `stages` of each ([`Stages::ALL`] for a normal step).
    ///
    /// Before the substeps, sleeping cables near colliders that changed
    /// wake ([`ParticlePool::wake_near_collider_changes`]); after them (with
    /// every stage run), still cables fall asleep
    /// ([`ParticlePool::update_sleep`]). Sleeping cables, and hidden ones
    /// that skip updates, are left as they are.
    ///
    /// With colliders, [`cable_core::ColliderSet::prepare`] runs before the
    /// first substep (it measures how far each collider moved since the
    /// last substep, for friction) and again before the second; colliders
    /// cannot move between the substeps of one call, so the remaining
    /// substeps share that second preparation and run back to back.
    pub fn advance(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        if n == 0 {
            return;
        }
        crate::trace::span!("cable.layout", substeps = n);
        pool.wake_near_collider_changes();
        // The columns this frame borrows move only the active cables,
        // which `end_step` marks moved (`ParticlePool::moved_revision`:
        // a sleeping cable's mesh is kept without reading its particles).
        let mark = pool.begin_step();
        self.advance_awake(layout, pool, params, n, stages);
        pool.end_step(mark);
        if stages == Stages::ALL {
            pool.update_sleep(n as f32 * params.substep, params.substep);
        }
    }

    /// [`LayoutState::advance`] of the cables awake.
    fn advance_awake(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        // Revisions are unique across the process's pools: no other pool
        // (and no other state of this one) can carry the same pair.
        let (mut breakable, mut reeling) = (false, false);
        if self.plain_at != Some((pool.structure_revision(), pool.params_revision())) {
            // Parameters only: reading the particles would have a layout
            // that keeps them write them back (`ParticlePool::lend_state`).
            for h in pool.handles() {
                breakable |= pool.params(h).is_ok_and(|p| p.break_tension.is_some());
                reeling |= pool.winch_turns(h).unwrap_or(false);
            }
        }
        self.plain_at = None;
        let between = params.cable_collision && stages.collide;
        if breakable || reeling || between {
            // Cables meet, segments break and winches turn between
            // substeps: one substep at a time (contact between cables
            // first, on the substep's positions; then breaking: it reads
            // the multipliers of the substep, indexed by the particles
            // before reeling).
            for _ in 0..n {
                self.advance_unbroken(layout, pool, params, 1, stages);
                if between {
                    self.between.solve(pool, params);
                }
                if breakable {
                    crate::tension::break_overloaded(
                        pool,
                        params.substep,
                        &mut self.handles,
                        &mut self.tensions,
                        &mut self.torn,
                    );
                }
                if reeling && stages.integrate {
                    reel_all(
                        pool,
                        params.substep,
                        &mut self.winches,
                        &mut self.tensions,
                        &mut self.stalled,
                    );
                }
            }
        } else {
            self.advance_unbroken(layout, pool, params, n, stages);
            // Substeps change no cable's parameters and add no cable (the
            // layouts' access to the columns gives the pool a new structure
            // revision all the same): the answer holds at the revisions
            // the pool has now. Breaking and winches change parameters and
            // cables, so after those the next frame looks again.
            self.plain_at = Some((pool.structure_revision(), pool.params_revision()));
        }
    }

    fn advance_unbroken(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        let colliders = !pool.colliders().is_empty() || !pool.colliders().prepared().is_empty();
        if colliders && stages.collide && pool.colliders().has_kinematic() {
            // Kinematic colliders move every substep: each substep gets its
            // own poses, and the contact sweeps the motion between them.
            for _ in 0..n {
                pool.colliders_mut().advance_kinematic(params.substep);
                pool.colliders_mut().prepare();
                self.run(layout, pool, params, 1, stages);
            }
        } else if colliders && stages.collide {
            pool.colliders_mut().prepare();
            self.run(layout, pool, params, 1, stages);
            if n > 1 {
                pool.colliders_mut().prepare();
                self.run(layout, pool, params, n - 1, stages);
            }
        } else {
            self.run(layout, pool, params, n, stages);
        }
    }
}
