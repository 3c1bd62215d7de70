//! Segment tension, in newtons, from the multipliers the solver
//! accumulated in the last substep.
//!
//! Every constraint projection is an XPBD update with a multiplier `λ`
//! (the classic rigid projection is XPBD with zero compliance:
//! `Δλ = −C / (wa + wb)`), and the force a constraint exerted over a
//! substep `h` is `λ / h²`. A segment's tension is its own multiplier plus
//! the load of every tether that spans it (a tether from particle `i` to
//! its anchor `a` stands for the segments between them): positive when
//! the segment pulls, negative when it pushes (a rigid segment also
//! resists compression). A broken segment's tension is 0.
//!
//! Multipliers are accumulated and written back only while tension is
//! tracked ([`crate::Stepper::set_track_tension`]) or for cables that can
//! break ([`cable_core::CableParams::break_tension`]).

use cable_core::error::check_finite;
use cable_core::{CableError, CableHandle, NO_ANCHOR, ParticlePool};

/// Writes the tension of each segment of cable `handle` (newtons, segment
/// order) into `out`, from the multipliers of the last substep of length
/// `substep` seconds.
///
/// # Errors
/// [`CableError::StaleHandle`] when the handle is not live;
/// [`CableError::NotFinite`] or [`CableError::OutOfRange`] naming
/// `substep` when it is not a positive finite number whose square is a
/// positive (normal) finite `f32` (about 1.1e-19 to 1.8e19 seconds: a
/// stepper's substep is in (0, 1]), so no tension comes out infinite or
/// NaN from the division by the substep². `out` is then left as it was.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::{SolverParams, Stepper, tension};
/// use glam::Vec3;
///
/// // A 1 kg/m chain, 2 m long, hanging from its top end.
/// let mut pool = ParticlePool::new();
/// let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8)?;
/// d.attach_end = false;
/// d.mass_per_length = Some(1.0);
/// let h = pool.add_cable(&d)?;
/// let params = SolverParams { damping: 2.0, ..SolverParams::default() };
/// let mut stepper = Stepper::new(params)?;
/// stepper.set_track_tension(true);
/// stepper.run_substeps(&mut pool, 240);
/// let mut t = Vec::new();
/// tension::segment_tensions(&pool, h, params.substep, &mut t)?;
/// // The top segment holds every particle below it: 2 kg less the pinned top particle's 0.125 kg.
/// assert!((t[0] - 1.875 * 9.81).abs() < 0.2, "{}", t[0]);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn segment_tensions(
    pool: &ParticlePool,
    handle: CableHandle,
    substep: f32,
    out: &mut Vec<f32>,
) -> Result<(), CableError> {
    let h2 = checked_substep_squared(substep)?;
    let (lambda, rows) = pool.multipliers(handle)?;
    let k = pool.row_consts(handle)?;
    let segs = lambda.len() - 1;
    // Tether loads over the segments they span, by a difference array
    // (kept in `out` itself: no allocation once `out` has room).
    out.clear();
    out.resize(segs, 0.0);
    let mut add = |j: usize, v: f32| {
        if let Some(t) = out.get_mut(j) {
            *t += v;
        }
    };
    for (i, (kc, l)) in k.iter().zip(rows).enumerate() {
        if kc.anchor[0] != NO_ANCHOR {
            add(kc.anchor[0] as usize, -l[0]);
            add(i, l[0]);
        }
        if kc.anchor[1] != NO_ANCHOR {
            add(i, -l[1]);
            add(kc.anchor[1] as usize, l[1]);
        }
    }
    let mut run = 0.0f32;
    for (j, t) in out.iter_mut().enumerate() {
        run += *t;
        *t = if k[j].linked {
            (-lambda[j] + run) / h2
        } else {
            0.0
        };
    }
    Ok(())
}

/// `substep²`, when `substep` is positive and finite and its square a
/// normal finite `f32` (what the multipliers are divided by); otherwise
/// the error naming `substep`.
fn checked_substep_squared(substep: f32) -> Result<f32, CableError> {
    let h = check_finite("substep", substep)?;
    let h2 = h * h;
    if h > 0.0 && h2.is_normal() {
        Ok(h2)
    } else {
        Err(CableError::OutOfRange {
            field: "substep",
            expected: "must be greater than 0, with a square that is a normal finite f32 (about 1.1e-19 to 1.8e19 seconds)",
            value: f64::from(h),
        })
    }
}

/// Breaks overloaded segments as a rope parts: in each breakable cable,
/// each intact piece (a run of unbroken segments) breaks at most once per
/// call, at its most loaded segment, when that segment's tension exceeds
/// the cable's [`cable_core::CableParams::break_tension`] (ties: the
/// lowest index). The load then redistributes over the new pieces in the
/// substeps that follow, so a loaded rope parts at one place, not at every
/// segment over the limit at once. Reads the multipliers of the last
/// substep; returns how many segments broke.
pub(crate) fn break_overloaded(
    pool: &mut ParticlePool,
    substep: f32,
    handles: &mut Vec<CableHandle>,
    t: &mut Vec<f32>,
    torn: &mut Vec<(CableHandle, usize)>,
) -> usize {
    crate::trace::span!("cable.break");
    let mut broke = 0;
    handles.clear();
    handles.extend(pool.handles());
    for &h in handles.iter() {
        let Ok(Some(limit)) = pool.params(h).map(|p| p.break_tension) else {
            continue;
        };
        if pool.is_active(h) != Ok(true) {
            // Asleep or skipped: its multipliers are those it slept with.
            continue;
        }
        if segment_tensions(pool, h, substep, t).is_err() {
            continue;
        }
        let Ok(rows) = pool.row_consts(h) else {
            continue;
        };
        // The most loaded segment of each intact piece, if over the limit.
        // Found over the pieces as they were before this call's breaks.
        let first = torn.len();
        let mut worst: Option<(usize, f32)> = None;
        for (j, &tj) in t.iter().enumerate() {
            let intact = rows.get(j).is_some_and(|r| r.linked);
            if intact {
                if tj > limit && worst.is_none_or(|(_, w)| tj > w) {
                    worst = Some((j, tj));
                }
            } else if let Some((k, _)) = worst.take() {
                torn.push((h, k));
            }
        }
        if let Some((k, _)) = worst {
            torn.push((h, k));
        }
        for &(_, j) in &torn[first..] {
            if pool.break_segment(h, j).is_ok() {
                broke += 1;
            }
        }
    }
    broke
}
