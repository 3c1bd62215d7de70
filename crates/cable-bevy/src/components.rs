//! The components a game puts on its entities, and the ones the plugin
//! adds in return.

use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_reflect::std_traits::ReflectDefault;
use cable_core::{CableDesc, CableError, CableHandle, Collider, ColliderHandle};
#[cfg(doc)]
use {
    bevy_asset::Assets,
    bevy_mesh::{Mesh, Mesh3d},
    bevy_transform::components::GlobalTransform,
};

use crate::convert::{to_cable, to_cable_quat};

/// A cable: what [`CablePlugin`](crate::CablePlugin) builds a pool cable from when the entity
/// appears. Changing it afterwards has no effect (despawn and respawn, or
/// edit the cable through [`CableSimulation::pool_mut`](crate::CableSimulation::pool_mut)). Removing it
/// frees the pool cable and removes what the plugin added ([`CableBody`],
/// [`CableRejected`], [`CableParticles`]); the rest of the entity stays.
///
/// # Example
/// ```
/// use bevy_math::Vec3;
/// use cable_bevy::Cable;
///
/// let mut rope = Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 20)?;
/// rope.desc.params.radius = 0.02;
/// let rope = rope.with_mass(20, 10.0); // a 10 kg load at the end
/// assert_eq!(rope.desc.particle_count(), 21);
/// # Ok::<(), cable_core::CableError>(())
/// ```
///
/// # Reflection
/// Only [`Cable::masses`] is reflected: [`Cable::desc`] is a
/// `cable_core::CableDesc`, which does not implement `Reflect` (the core
/// crates do not depend on Bevy), so an inspector does not show it and a
/// `Cable` cannot be built from a reflected value (a scene file): spawn
/// it in code.
#[derive(Component, Debug, Clone, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
#[require(CableParticles)]
pub struct Cable {
    /// Geometry and parameters (radius, sides, stiffness, …) of the cable.
    /// Not reflected (`cable_core::CableDesc` has no `Reflect`).
    #[reflect(ignore)]
    pub desc: CableDesc,
    /// Particle masses other than the default 1 kg: (particle index, kg).
    pub masses: Vec<(usize, f32)>,
}

impl Cable {
    /// A cable of `segments` segments and rest `length` metres whose
    /// particles start evenly on the line from `start` to `end`, both ends
    /// pinned where they start (see [`CableAttachments`] to attach them).
    ///
    /// # Errors
    /// As `CableDesc::line`: coordinates beyond ±1e6 m, a length not in
    /// (0, 1e6], no segments.
    pub fn line(start: Vec3, end: Vec3, length: f32, segments: u32) -> Result<Self, CableError> {
        Ok(Self::from_desc(CableDesc::line(
            to_cable(start),
            to_cable(end),
            length,
            segments,
        )?))
    }

    /// A cable through `points` (at least 2); each segment's rest length is
    /// the distance between its two points.
    ///
    /// # Errors
    /// As `CableDesc::from_points`.
    pub fn from_points(points: &[Vec3]) -> Result<Self, CableError> {
        let points: Vec<_> = points.iter().map(|p| to_cable(*p)).collect();
        Ok(Self::from_desc(CableDesc::from_points(&points)?))
    }

    /// A cable from a full description.
    #[must_use]
    pub fn from_desc(desc: CableDesc) -> Self {
        Self {
            desc,
            masses: Vec::new(),
        }
    }

    /// Sets the mass of particle `index`, kilograms (> 0).
    #[must_use]
    pub fn with_mass(mut self, index: usize, kg: f32) -> Self {
        self.masses.push((index, kg));
        self
    }
}

/// The pool cable of a [`Cable`] entity, added by [`CableSystems::Sync`](crate::CableSystems::Sync).
/// Reflected as a marker: its handle (a `cable_core::CableHandle`, no
/// `Reflect`, and meaningless outside this pool) is not.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
pub struct CableBody {
    /// The cable in [`CableSimulation::pool`](crate::CableSimulation::pool).
    /// Not reflected.
    #[reflect(ignore)]
    pub handle: CableHandle,
}

/// Added instead of [`CableBody`] when the pool refused a [`Cable`] (for
/// example a mass out of range, the pool's particle budget, or a
/// compliance that overflows at the substep), at spawn or at a later step
/// (its [`CableParticles`] are then emptied). The plugin does not retry
/// while it is there: remove it to try again. Reflected as a marker: the
/// error (a `cable_core::CableError`, no `Reflect`) is not; its `Debug`
/// and `Display` say it.
#[derive(Component, Debug, Clone, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
pub struct CableRejected(#[reflect(ignore)] pub CableError);

/// The particle positions of a cable entity, metres, from its start to its
/// end, written after every step (the buffer is reused).
#[derive(Component, Debug, Clone, Default, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableParticles {
    /// Positions, world space.
    pub positions: Vec<Vec3>,
}

/// Where one end of a cable hangs. A target that is NaN or beyond ±1e6 m
/// (a point, or the followed entity's translation, the offset or the end's
/// position), or a followed entity whose rotation is not a unit
/// quaternion, is refused at each step it holds: the end keeps its last
/// good target and moves from there to the next good one
/// ([`CableNotice::BadTarget`](crate::CableNotice::BadTarget), sent when
/// the refusals start).
#[derive(Debug, Clone, Copy, PartialEq, Default, bevy_reflect::Reflect)]
#[reflect(Default, Debug, Clone)]
pub enum CableAnchor {
    /// Not attached: the end moves freely.
    #[default]
    Free,
    /// Pinned to a world point, metres.
    Point(Vec3),
    /// Pinned to another entity: its [`GlobalTransform`]'s translation plus
    /// `offset` rotated by its rotation. When the entity is despawned (or
    /// has no [`GlobalTransform`]) the end is free.
    Entity {
        /// The entity followed.
        entity: Entity,
        /// Offset in the entity's local frame, metres.
        offset: Vec3,
    },
}

/// The attachments of a cable entity's two ends. Without it the ends stay
/// as the [`Cable`]'s description pinned them. Change it at any time:
/// attaching pins the end to its target from the next substep, detaching
/// frees it without a jump.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableAttachments {
    /// Particle 0.
    pub start: CableAnchor,
    /// The last particle.
    pub end: CableAnchor,
}

/// A kinematic collider for cables, in the entity's local frame; its pose
/// is the entity's [`GlobalTransform`] (translation and rotation; scale is
/// ignored), or the identity without one. Cables rest on it, wrap around it
/// and slide on it; it is not pushed back.
///
/// # Example
/// ```
/// use cable_bevy::CableCollider;
///
/// let ball = CableCollider::sphere(0.5)?;
/// let post = CableCollider::capsule_y(1.0, 0.1)?;
/// let floor = CableCollider::half_space();
/// let crate_ = CableCollider::cuboid(bevy_math::Vec3::splat(0.5))?;
/// # let _ = (ball, post, floor, crate_);
/// # Ok::<(), cable_core::CableError>(())
/// ```
///
/// # Reflection
/// Reflected as a marker: the shape (a `cable_core::Collider`, no
/// `Reflect`) is not, so an inspector does not show it and a scene file
/// cannot make one: add it in code.
#[derive(Component, Debug, Clone, Copy, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
pub struct CableCollider(#[reflect(ignore)] pub Collider);

impl CableCollider {
    /// A ball of `radius` metres around the entity's origin.
    ///
    /// # Errors
    /// `radius` not in (0, 1e6].
    pub fn sphere(radius: f32) -> Result<Self, CableError> {
        Ok(Self(Collider::sphere(to_cable(Vec3::ZERO), radius)?))
    }

    /// A capsule along the local Y axis: the points within `radius` of the
    /// segment from `-half_length` to `+half_length` on Y.
    ///
    /// # Errors
    /// A size out of range.
    pub fn capsule_y(half_length: f32, radius: f32) -> Result<Self, CableError> {
        let h = to_cable(Vec3::new(0.0, half_length, 0.0));
        Ok(Self(Collider::capsule(-h, h, radius)?))
    }

    /// The half-space below the entity's local XZ plane: local `+Y` is the
    /// outward normal (a floor at the entity's height).
    #[must_use]
    pub fn half_space() -> Self {
        Self(
            Collider::plane(to_cable(Vec3::Y), 0.0)
                .unwrap_or_else(|_| unreachable!("the Y axis is a valid normal")),
        )
    }

    /// A box with `half_extents` along the local axes.
    ///
    /// # Errors
    /// A half extent not in (0, 1e6].
    pub fn cuboid(half_extents: Vec3) -> Result<Self, CableError> {
        Ok(Self(Collider::cuboid(
            to_cable(Vec3::ZERO),
            to_cable(half_extents),
            to_cable_quat(Quat::IDENTITY),
        )?))
    }
}

/// The pool collider of a [`CableCollider`] entity, added by
/// [`CableSystems::Sync`](crate::CableSystems::Sync).
/// Reflected as a marker: its handle (no `Reflect`) is not.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone, from_reflect = false)]
pub struct CableColliderBody {
    /// The collider in [`CableSimulation::pool`](crate::CableSimulation::pool)'s collider set.
    /// Not reflected.
    #[reflect(ignore)]
    pub handle: ColliderHandle,
}

/// The force and torque the cables put on a [`CableCollider`] entity in
/// the last fixed step, written after each step (the average over its
/// substeps; what a game applies to the rigid body the collider stands
/// for). Adding it to any collider entity turns contact force measurement
/// on (`ColliderSet::set_measure_forces`): see the collisions guide's
/// "Contact forces".
#[derive(Component, Debug, Clone, Copy, PartialEq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableColliderForce {
    /// The force on the collider, newtons (world axes).
    pub force: Vec3,
    /// The torque about the collider's position (its entity's
    /// translation), newton metres.
    pub torque: Vec3,
}

/// Asks for a tube mesh of the cable: the plugin creates a [`Mesh`] asset
/// (and a [`Mesh3d`] holding it, unless the entity has one) and rewrites
/// its positions, normals, tangents, UVs and indices in place every frame.
/// Add a material to see it. Needs the [`Assets<Mesh>`] resource.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableTube;

/// A winch on the cable: reels its rest length toward `target_length`
/// metres at `speed` m/s, adding or removing particles at the winch end.
/// Applied when added or changed (the same values again are the same
/// order); removing it stops the winch where the cable is. Once the order
/// is done (the rest length at the target, the drum still), the winch is
/// stopped there and the component stays: the cable can fall asleep, and
/// a force-limited winch then holds (it no longer slips). The same order
/// as the hecs layer's `CableWinch`, given to the pool the same way
/// (`ParticlePool::set_winch`); a cable's `reel_accel`, `reel_force` and
/// `reel_end` parameters (acceleration and pulling limits, which end)
/// still apply. An order the pool refuses (a speed of 0, a NaN) is logged
/// and sent as [`CableNotice::BadWinch`](crate::CableNotice::BadWinch), once per order;
/// the order the winch ran goes on, and is still stopped when done
/// (`cable_systems::bind::apply_controls`, shared with the hecs layer).
///
/// # Example
/// ```
/// use cable_bevy::CableWinch;
///
/// // Reel a grappling rope in to 2 m at 3 m/s.
/// let winch = CableWinch { target_length: 2.0, speed: 3.0 };
/// # let _ = winch;
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Debug, Clone)]
pub struct CableWinch {
    /// Rest length to reel to, metres, in (0, 1e7].
    pub target_length: f32,
    /// Reeling speed, m/s, in (0, 1e4].
    pub speed: f32,
}

impl From<CableWinch> for cable_core::Winch {
    fn from(w: CableWinch) -> Self {
        cable_core::Winch {
            target_length: w.target_length,
            speed: w.speed,
        }
    }
}

/// Marks a cable the game does not show (its own culling decides): the pool
/// is told (`ParticlePool::set_visible`), so a cable whose parameters set
/// `skip_when_hidden` is not simulated while marked, and the mesh asset of
/// a hidden [`CableTube`] keeps its last contents instead of being
/// rewritten (and uploaded) every frame. Remove it to show the cable again.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableHidden;

/// The tension of each segment of the cable, newtons, written after each
/// fixed step into the cable entities that have one (insert
/// `CableTension::default()`; empty until the first fixed step) (0 for a broken segment; tether loads included): what a
/// crane's load cell or a breaking-rope warning reads. Adding it to any
/// cable entity turns tension tracking on (`Stepper::set_track_tension`,
/// a little extra work per substep for every cable); removing it from the
/// last one turns it off.
#[derive(Component, Debug, Clone, PartialEq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableTension {
    /// One tension per segment, start to end.
    pub segments: Vec<f32>,
}

/// What the solver says of the cable, written after each fixed step into
/// the cable entities that have one (insert `CableStatus::default()`; the
/// plugin does not add it, and it reads zeros until the first fixed step).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableStatus {
    /// The cable is asleep: it came to rest and is not simulated until
    /// something wakes it (`CableParams::sleep_speed`).
    pub asleep: bool,
    /// Its rest length, metres (what a winch changes).
    pub rest_length: f32,
    /// Its particle count (a winch adds and removes particles).
    pub particles: usize,
}

/// Opt-in interpolation of a cable between the last two steps, for
/// rendering at a frame rate that is not the step rate (as avian's and
/// `bevy_transform_interpolation`'s `TransformInterpolation`). Insert
/// `CableInterpolated::default()` on a cable entity: after each frame's
/// steps, [`CableInterpolated::positions`] holds each particle's position
/// interpolated between the step before the last and the last one, at
/// [`CableSimulation::overstep_fraction`](crate::CableSimulation::overstep_fraction)
/// (`Time<Fixed>::overstep_fraction()` under `FixedUpdate`), so
/// rendering runs at most one step behind the simulation and never
/// stutters. Its [`CableTube`] mesh is interpolated the same way.
/// [`CableParticles`] keep the last step's positions.
///
/// Written in `RunFixedMainLoop` after the fixed loop (so `Update` reads
/// the frame's values), or right after the write-back when the plugin
/// accumulates time itself ([`CableClock`](crate::CableClock)). When the
/// particle count changed in the last step (a winch), the readout is the
/// last step's positions.
///
/// # Example
/// ```
/// use bevy_ecs::prelude::*;
/// use cable_bevy::{Cable, CableInterpolated};
///
/// fn draw(ropes: Query<&CableInterpolated>) {
///     for rope in &ropes {
///         // a line strip through rope.positions
///         let _ = &rope.positions;
///     }
/// }
/// # bevy_ecs::system::assert_is_system(draw);
/// ```
#[derive(Component, Debug, Clone, Default, PartialEq, bevy_reflect::Reflect)]
#[reflect(Component, Default, Debug, Clone)]
pub struct CableInterpolated {
    /// Positions, world space, from the cable's start to its end.
    pub positions: Vec<Vec3>,
    /// The positions before the last step.
    pub(crate) previous: Vec<Vec3>,
}
