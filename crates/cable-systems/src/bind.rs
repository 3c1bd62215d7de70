//! What the ECS layers share: the hecs layer (`ecs`, feature `hecs`) and
//! the Bevy plugin (`cable-bevy`, which builds this crate without the
//! `hecs` feature) keep the same components in different ECSs, and make
//! the same decisions about them here, once:
//!
//! - [`apply_controls`]: a cable's visibility and winch order into the
//!   pool, each order given once (compared bit for bit), a refused one
//!   reported once, the order the winch runs finished when it is done;
//! - [`entity_target`] and [`point_target`]: where an attached end goes,
//!   or why its target is refused (the end then keeps its last good
//!   target);
//! - [`pose_collider`]: a collider's pose from its entity, a new
//!   collider's first one taken without a motion;
//! - [`spawn_cable`]: a cable and its particle masses into the pool,
//!   checked against the substep first;
//! - [`take_refused`]: the cables that no longer fit the substep taken out
//!   of the pool alone, so the others step;
//! - [`stalled_winches`]: the cables whose winch stopped at the particle
//!   budget in the last frame (news, not a failed step);
//! - [`check_savable`]: what a save must hold to restore.
//!
//! An engine with its own ECS can call them too.

use crate::Stepper;
use cable_core::error::{check_rotation, check_vec3};
use cable_core::{
    CableDesc, CableError, CableHandle, ColliderHandle, ColliderSet, ParticlePool, Winch,
};
use glam::{Quat, Vec3};

/// The winch orders of one cable as an ECS layer gave them: the last order
/// its winch component held (accepted or not) and the last one the pool
/// accepted, the one its winch runs. Kept between frames by the layer and
/// updated by [`apply_controls`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WinchOrders {
    /// The order the component held when last applied, `None` for no
    /// component; a frame whose order is this one, bit for bit, gives the
    /// pool nothing new.
    pub given: Option<Winch>,
    /// The last order the pool accepted ([`ParticlePool::set_winch`]):
    /// the one the cable's winch runs (`None`: stopped by a removed
    /// component).
    pub running: Option<Winch>,
}

impl WinchOrders {
    /// The orders of a cable whose winch runs `order`, given and accepted
    /// (a cable just restored from a save, whose pool holds the order).
    #[must_use]
    pub const fn accepted(order: Option<Winch>) -> Self {
        Self {
            given: order,
            running: order,
        }
    }
}

/// Why [`apply_controls`] did not apply a cable's controls.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ControlError {
    /// The handle names no live cable: nothing was changed.
    #[error("the cable's controls were not applied: {0}")]
    Stale(CableError),
    /// The pool refused a new winch order (a target length or speed out of
    /// range, NaN included): the cable's winch keeps the order it ran.
    /// Returned once per order: the same order again, bit for bit, is not
    /// given to the pool again.
    #[error("the winch order was refused: {0}")]
    WinchRefused(CableError),
}

/// Whether two orders are the same, bit for bit (an order holding a NaN is
/// the same order as itself).
fn same_order(a: Option<Winch>, b: Option<Winch>) -> bool {
    let bits = |o: Option<Winch>| o.map(|w| (w.target_length.to_bits(), w.speed.to_bits()));
    bits(a) == bits(b)
}

/// Applies one cable's controls for this frame: `hidden` into the pool's
/// visibility ([`ParticlePool::set_visible`]); then the winch `order` (the
/// winch component, `None` without one). An order that differs, bit for
/// bit, from the last one given (`orders.given`) goes to the pool
/// ([`ParticlePool::set_winch`]; `None` stops the winch where it is) and
/// becomes `orders.running` if the pool accepts it. The same order again
/// is not given again: instead the running order is finished once it is
/// done ([`ParticlePool::finish_winch`] with its own target length), so
/// the cable can sleep with its component on, even when a later order was
/// refused.
///
/// # Errors
/// [`ControlError::Stale`] when `handle` names no live cable (nothing is
/// changed); [`ControlError::WinchRefused`] when the pool refuses a new
/// order, once per order (`orders.given` records it, so the same order
/// next frame is not retried; the visibility was applied).
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, Winch};
/// use cable_systems::bind::{ControlError, WinchOrders, apply_controls};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8)?)?;
/// let mut orders = WinchOrders::default();
/// let reel = Some(Winch { target_length: 1.5, speed: 1.0 });
/// apply_controls(&mut pool, h, &mut orders, reel, false)?;
/// assert_eq!(orders.running, reel);
/// // A NaN order is refused once, then it is the same order as before.
/// let nan = Some(Winch { target_length: f32::NAN, speed: 1.0 });
/// let refused = apply_controls(&mut pool, h, &mut orders, nan, false);
/// assert!(matches!(refused, Err(ControlError::WinchRefused(_))));
/// apply_controls(&mut pool, h, &mut orders, nan, false)?;
/// assert_eq!(orders.running, reel); // still reeling to 1.5 m
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apply_controls(
    pool: &mut ParticlePool,
    handle: CableHandle,
    orders: &mut WinchOrders,
    order: Option<Winch>,
    hidden: bool,
) -> Result<(), ControlError> {
    pool.set_visible(handle, !hidden)
        .map_err(ControlError::Stale)?;
    if same_order(order, orders.given) {
        if let Some(w) = orders.running {
            // Done: stopped, so the cable can sleep and steps whole again
            // (the component stays; a changed order starts it anew). The
            // handle is live (`set_visible` took it).
            let _ = pool.finish_winch(handle, w.target_length);
        }
        return Ok(());
    }
    orders.given = order;
    pool.set_winch(handle, order)
        .map_err(ControlError::WinchRefused)?;
    orders.running = order;
    Ok(())
}

/// Every component finite and within ±[`cable_core::MAX_COORDINATE`]:
/// what [`check_vec3`] accepts, without an error to build.
#[inline]
#[must_use]
pub fn in_range(v: Vec3) -> bool {
    // NaN compares false, an infinity is out of range; `&`, not `&&`:
    // no branch per component.
    let m = cable_core::MAX_COORDINATE;
    (v.x.abs() <= m) & (v.y.abs() <= m) & (v.z.abs() <= m)
}

/// The target of an end attached to a point: `point` when it is finite and
/// within the pool's coordinate range.
///
/// # Errors
/// [`CableError::NotFinite`] or [`CableError::OutOfRange`] naming `point`:
/// the layer reports it and the end keeps its last good target.
#[inline]
pub fn point_target(point: Vec3) -> Result<Vec3, CableError> {
    if in_range(point) {
        Ok(point)
    } else {
        checked_point(point)
    }
}

#[cold]
#[inline(never)]
fn checked_point(point: Vec3) -> Result<Vec3, CableError> {
    check_vec3("point", point)
}

/// The target of an end attached at local `offset` to an entity whose
/// world transform has `translation` and `rotation` (its scale is not
/// applied): the world position, and the rotation normalised (what a
/// teleport's turn is measured with).
///
/// # Errors
/// A translation, offset or resulting target that is not finite or beyond
/// ±[`cable_core::MAX_COORDINATE`], or a rotation that is not finite or
/// whose length is not within 1e-3 of 1, named by the field
/// (`transform.translation`, `transform.rotation`, `offset`, `target`):
/// the layer reports it and the end keeps its last good target.
///
/// # Example
/// ```
/// use cable_systems::bind::entity_target;
/// use glam::{Quat, Vec3};
///
/// let turned = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
/// let (at, _) = entity_target(Vec3::Y, turned, Vec3::X)?;
/// assert!((at - Vec3::new(0.0, 2.0, 0.0)).length() < 1e-6);
/// assert!(entity_target(Vec3::NAN, Quat::IDENTITY, Vec3::ZERO).is_err());
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[inline]
pub fn entity_target(
    translation: Vec3,
    rotation: Quat,
    offset: Vec3,
) -> Result<(Vec3, Quat), CableError> {
    // `check_rotation`: finite, length within 1e-3 of 1, then normalised;
    // inline, without an error to build (this runs for every followed end
    // every frame).
    let len = rotation.length();
    if in_range(translation) && rotation.is_finite() && (len - 1.0).abs() <= 1.0e-3 {
        let rotation = rotation / len;
        let target = translation + rotation * offset;
        if in_range(offset) && in_range(target) {
            return Ok((target, rotation));
        }
    }
    checked_entity_target(translation, rotation, offset)
}

/// [`entity_target`]'s checks again, naming the field that failed.
#[cold]
#[inline(never)]
fn checked_entity_target(
    translation: Vec3,
    rotation: Quat,
    offset: Vec3,
) -> Result<(Vec3, Quat), CableError> {
    check_vec3("transform.translation", translation)?;
    let rotation = check_rotation("transform.rotation", rotation)?;
    check_vec3("offset", offset)?;
    let target = check_vec3("target", translation + rotation * offset)?;
    Ok((target, rotation))
}

/// Poses collider `handle` from its entity's transform. A collider `new`
/// this frame (just added, or added again after it was removed behind the
/// layer's back) is put there without a motion
/// ([`ColliderSet::teleport`]): a pose set from its shape's own pose would
/// sweep it through the cables on its first step, as if it had moved
/// there. Afterwards the change of pose from step to step is a motion the
/// cables feel ([`ColliderSet::set_pose`]).
///
/// # Errors
/// As [`ColliderSet::set_pose`]: a stale handle, a translation not finite
/// or out of range, or a rotation that is not a unit quaternion; the
/// collider keeps its last good pose.
pub fn pose_collider(
    set: &mut ColliderSet,
    handle: ColliderHandle,
    translation: Vec3,
    rotation: Quat,
    new: bool,
) -> Result<(), CableError> {
    if new {
        set.teleport(handle, translation, rotation)
    } else {
        set.set_pose(handle, translation, rotation)
    }
}

/// Adds a cable for an entity: `desc` is checked first, against substep
/// `substep` seconds too (a cable whose compliance over substep² would
/// overflow would make every step refuse, so it is refused here, once),
/// then added, then its particle `masses` (particle index, kg) set. On any
/// error nothing stays in the pool.
///
/// # Errors
/// As [`CableDesc::validate_for_substep`] and [`ParticlePool::add_cable`];
/// a mass that is not finite and greater than 0 (or so small its inverse
/// overflows) is [`CableError::OutOfRange`] naming `mass`; an index past
/// the cable's particles is [`CableError::ParticleOutOfRange`].
///
/// # Example
/// ```
/// use cable_core::{CableDesc, CableError, ParticlePool};
/// use cable_systems::bind::spawn_cable;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
/// let crane = spawn_cable(&mut pool, &desc, &[(2, 50.0)], 1.0 / 60.0)?;
/// assert_eq!(pool.inv_masses(crane)?[2], 1.0 / 50.0); // the ends are pinned: 0
/// let bad = spawn_cable(&mut pool, &desc, &[(2, f32::NAN)], 1.0 / 60.0);
/// assert!(matches!(bad, Err(CableError::OutOfRange { field: "mass", .. })));
/// assert_eq!(pool.cable_count(), 1);
/// # Ok::<(), CableError>(())
/// ```
pub fn spawn_cable(
    pool: &mut ParticlePool,
    desc: &CableDesc,
    masses: &[(usize, f32)],
    substep: f32,
) -> Result<CableHandle, CableError> {
    desc.validate_for_substep(substep)?;
    let handle = pool.add_cable(desc)?;
    for &(index, kg) in masses {
        let inv = 1.0 / kg;
        let set = if kg > 0.0 && kg.is_finite() && inv.is_finite() {
            pool.set_inv_mass(handle, index, inv)
        } else {
            Err(CableError::OutOfRange {
                field: "mass",
                expected: "must be finite and greater than 0",
                value: f64::from(kg),
            })
        };
        if let Err(e) = set {
            // Just added, so the handle is live.
            let _ = pool.remove_cable(handle);
            return Err(e);
        }
    }
    Ok(handle)
}

/// Takes every cable that refuses substep `h`
/// ([`ParticlePool::validate_cable_for_substep`]: a compliance or a mass
/// that the substep cannot hold, after the parameters or the pool were
/// changed) out of `pool`, and returns each with why, in handle order. The
/// other cables are untouched, so a step refused because of a few cables
/// can run for the rest. Both ECS layers call it when their step is
/// refused ([`Stepper::validate_pool`]); they take the refused cables'
/// entities out of the simulation and say why.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, CableParams, ParticlePool};
/// use cable_systems::bind::take_refused;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let fine = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let mut desc = CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 4)?;
/// desc.params = CableParams { compliance: 1.0e26, ..desc.params };
/// let soft = pool.add_cable(&desc)?;
/// // Fine at 1/60 s; at 1/480 s, compliance / h² is beyond 1e30.
/// assert!(take_refused(&mut pool, 1.0 / 60.0).is_empty());
/// let refused = take_refused(&mut pool, 1.0 / 480.0);
/// assert_eq!(refused.len(), 1);
/// assert_eq!(refused[0].0, soft);
/// assert!(refused[0].1.to_string().starts_with("compliance"));
/// assert!(!pool.contains(soft) && pool.contains(fine));
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn take_refused(pool: &mut ParticlePool, h: f32) -> Vec<(CableHandle, CableError)> {
    let refused: Vec<(CableHandle, CableError)> = pool
        .handles()
        .filter_map(|c| pool.validate_cable_for_substep(c, h).err().map(|e| (c, e)))
        .collect();
    for (handle, _) in &refused {
        // Live: listed by `handles` just above.
        let _ = pool.remove_cable(*handle);
    }
    refused
}

/// The cables whose winch stopped in the last frame because paying out
/// needed more particles than the pool's budget, each with its
/// [`CableError::WinchBudget`] ([`Stepper::stalled_winches`]). The frame
/// ran for everything else: a layer reports these as news about the
/// cable, not as a refused step. The winch stays stopped until its order
/// changes.
pub fn stalled_winches(stepper: &Stepper) -> impl Iterator<Item = (CableHandle, &CableError)> {
    stepper.stalled_winches().iter().filter_map(|e| match *e {
        CableError::WinchBudget { cable, .. } => Some((cable, e)),
        _ => None,
    })
}

/// Checks that a save of `pool` stepped by `stepper` restores: the pool's
/// state is valid ([`ParticlePool::validate`]: no NaN, nothing beyond
/// [`cable_core::MAX_STATE_COORDINATE`]) and every cable fits the stepper's
/// substep ([`ParticlePool::validate_records_for_substep`]), which the
/// restore checks too. Every save path calls it before writing
/// ([`crate::save::save_state`], the hecs layer's and the Bevy plugin's).
///
/// # Errors
/// The first problem found, naming the place.
pub fn check_savable(pool: &ParticlePool, stepper: &Stepper) -> Result<(), CableError> {
    pool.validate()?;
    pool.validate_records_for_substep(stepper.params().substep)
}
