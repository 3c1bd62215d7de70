//! Colliders: kinematic spheres, capsules, planes (half-spaces) and boxes
//! that cables rest on, wrap around and catch on.
//!
//! A [`Collider`] is a [`Shape`] in its own frame placed by a pose
//! (position, rotation). The [`ColliderSet`] (owned by the
//! [`crate::ParticlePool`]) names colliders by generational
//! [`ColliderHandle`]s, like cables. Colliders are kinematic: the game sets
//! their pose (every frame, if they move) and cables react; cables never
//! push colliders.
//!
//! Once per substep the stepper calls [`ColliderSet::prepare`], which turns
//! every live collider into a [`WorldCollider`] (world-space shape, bounds,
//! and the motion since the previous substep, for friction) and rebuilds the
//! broad-phase [`Bvh`]. Systems read only that prepared state.

use glam::{Mat3, Quat, Vec3};

use crate::bvh::{Aabb, Bvh};
use crate::error::{CableError, check_finite, check_rotation, check_vec3};
pub use crate::handle::ColliderHandle;

// Serialisation and validation of colliders and sets: a child module, so
// it sees the private fields.
#[cfg(feature = "serde")]
mod save;

// Kinematic motion: velocities, advancing poses, swept bounds.
mod motion;

// Contact forces: what the cables push on each collider (the sums, and
// the `ColliderSet` methods that measure and report them).
mod forces;
mod measure;
mod touches;
pub use forces::ContactForce;

/// A collider's shape in its own frame (metres).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Shape {
    /// A ball of `radius` around the origin.
    Sphere {
        /// Radius, metres (> 0).
        radius: f32,
    },
    /// The points within `radius` of the segment from `(0, -half_length, 0)`
    /// to `(0, half_length, 0)`.
    Capsule {
        /// Half the length of the core segment, metres (≥ 0).
        half_length: f32,
        /// Radius, metres (> 0).
        radius: f32,
    },
    /// The half-space `y ≤ 0` is solid; `y ≥ 0` is outside.
    Plane,
    /// The box `|x| ≤ hx, |y| ≤ hy, |z| ≤ hz`.
    Cuboid {
        /// Half extents along the local axes, metres (each > 0).
        half_extents: Vec3,
    },
}

/// A collider: a shape and its pose in the world.
///
/// Build one with [`Collider::sphere`], [`Collider::capsule`],
/// [`Collider::plane`] or [`Collider::cuboid`], which validate their input.
///
/// # Example
/// ```
/// use cable_core::{Collider, ParticlePool};
/// use glam::{Quat, Vec3};
///
/// let mut pool = ParticlePool::new();
/// let floor = pool.colliders_mut().add(Collider::plane(Vec3::Y, 0.0)?);
/// let crate_ = pool
///     .colliders_mut()
///     .add(Collider::cuboid(Vec3::new(2.0, 0.5, 0.0), Vec3::splat(0.5), Quat::IDENTITY)?);
/// // Kinematic: move it each frame; cables resting on it are carried by friction.
/// pool.colliders_mut().set_pose(crate_, Vec3::new(2.1, 0.5, 0.0), Quat::IDENTITY)?;
/// assert!(pool.colliders_mut().remove(floor).is_ok());
/// assert!(pool.colliders_mut().remove(floor).is_err()); // stale now
/// # Ok::<(), cable_core::CableError>(())
/// ```
///
/// With the `serde` feature it serialises as its shape and pose;
/// deserialising checks them as the constructors do (an out-of-range size,
/// a non-finite pose or a rotation that is not a unit quaternion is an
/// error).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "save::ColliderRepr")
)]
pub struct Collider {
    shape: Shape,
    position: Vec3,
    rotation: Quat,
    /// Kinematic velocity, m/s (zero: moved only by `set_pose`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    velocity: Vec3,
    /// Kinematic spin about the collider's origin, rad/s (axis × rate).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    angular_velocity: Vec3,
}

/// Serialise a collider's motion only when it has one, so the saves of
/// colliders at rest keep their bytes.
#[cfg(feature = "serde")]
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn is_zero(v: &Vec3) -> bool {
    *v == Vec3::ZERO
}

/// Fastest kinematic motion accepted: speed, m/s, and spin, rad/s.
pub const MAX_KINEMATIC_SPEED: f32 = 1.0e5;

/// Largest accepted size (radius, half extent, offset), metres.
const MAX_SIZE: f32 = crate::MAX_COORDINATE;

fn check_size(field: &'static str, v: f32, allow_zero: bool) -> Result<f32, CableError> {
    let v = check_finite(field, v)?;
    let ok = if allow_zero { v >= 0.0 } else { v > 0.0 };
    if !ok || v > MAX_SIZE {
        return Err(CableError::OutOfRange {
            field,
            expected: if allow_zero {
                "must be at least 0 and at most 1e6"
            } else {
                "must be greater than 0 and at most 1e6"
            },
            value: f64::from(v),
        });
    }
    Ok(v)
}

impl Collider {
    /// A sphere of `radius` metres around `center`.
    ///
    /// # Errors
    /// `center` not finite or beyond ±1e6, `radius` not in (0, 1e6].
    pub fn sphere(center: Vec3, radius: f32) -> Result<Self, CableError> {
        check_vec3("center", center)?;
        let radius = check_size("radius", radius, false)?;
        Ok(Self {
            shape: Shape::Sphere { radius },
            position: center,
            rotation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        })
    }

    /// A capsule: the points within `radius` of the segment from `a` to `b`
    /// (`a == b` gives a sphere).
    ///
    /// # Errors
    /// `a` or `b` not finite or beyond ±1e6, `radius` not in (0, 1e6].
    pub fn capsule(a: Vec3, b: Vec3, radius: f32) -> Result<Self, CableError> {
        check_vec3("a", a)?;
        check_vec3("b", b)?;
        let radius = check_size("radius", radius, false)?;
        let axis = b - a;
        let len = axis.length();
        let rotation = if len > 0.0 {
            Quat::from_rotation_arc(Vec3::Y, axis / len)
        } else {
            Quat::IDENTITY
        };
        Ok(Self {
            shape: Shape::Capsule {
                half_length: len * 0.5,
                radius,
            },
            position: (a + b) * 0.5,
            rotation,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        })
    }

    /// The half-space whose outside is the points `p` with
    /// `dot(normal, p) ≥ offset` (the scene format's plane). `normal` need
    /// not be unit length; it is normalised together with `offset`.
    ///
    /// # Errors
    /// `normal` not finite, beyond ±1e6 or of zero length; `offset` not finite
    /// or beyond ±1e6 (after normalisation).
    pub fn plane(normal: Vec3, offset: f32) -> Result<Self, CableError> {
        check_vec3("normal", normal)?;
        let offset = check_finite("offset", offset)?;
        let len = normal.length();
        if len <= 1.0e-6 {
            return Err(CableError::OutOfRange {
                field: "normal",
                expected: "must have a length greater than 0",
                value: f64::from(len),
            });
        }
        let n = normal / len;
        let d = offset / len;
        if !d.is_finite() || d.abs() > MAX_SIZE {
            return Err(CableError::OutOfRange {
                field: "offset",
                expected: "offset / |normal| must lie within ±1e6",
                value: f64::from(offset),
            });
        }
        Ok(Self {
            shape: Shape::Plane,
            position: n * d,
            rotation: Quat::from_rotation_arc(Vec3::Y, n),
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        })
    }

    /// An oriented box centred at `center` with `half_extents` along its
    /// local axes, turned by the unit quaternion `rotation`.
    ///
    /// # Errors
    /// `center` not finite or beyond ±1e6, a half extent not in (0, 1e6],
    /// `rotation` not finite or not of length 1 (within 1e-3).
    pub fn cuboid(center: Vec3, half_extents: Vec3, rotation: Quat) -> Result<Self, CableError> {
        check_vec3("center", center)?;
        for h in half_extents.to_array() {
            check_size("half_extents", h, false)?;
        }
        let rotation = check_rotation("rotation", rotation)?;
        Ok(Self {
            shape: Shape::Cuboid { half_extents },
            position: center,
            rotation,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        })
    }

    /// The shape, in the collider's own frame.
    #[inline]
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Position of the collider's origin, metres.
    #[inline]
    #[must_use]
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// Rotation of the collider's frame (unit quaternion).
    #[inline]
    #[must_use]
    pub fn rotation(&self) -> Quat {
        self.rotation
    }

    /// The same collider moving kinematically: translating at `velocity`
    /// (m/s) and spinning at `angular_velocity` (rad/s, axis × rate) about
    /// its origin ([`Collider::position`]: a sphere's or box's centre, the
    /// middle of a capsule's axis, the point `offset · normal` of a plane).
    /// The stepper advances its pose every substep and the contact with it
    /// is continuous against that motion: a particle or segment that a
    /// moving collider sweeps over is pushed ahead of it, not crossed.
    ///
    /// # Errors
    /// A component not finite, or a speed or spin over
    /// [`MAX_KINEMATIC_SPEED`].
    ///
    /// # Example
    /// ```
    /// use cable_core::Collider;
    /// use glam::Vec3;
    ///
    /// // A bar spinning at 5 revolutions a second about the z axis.
    /// let bar = Collider::capsule(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 0.01)?
    ///     .with_motion(Vec3::ZERO, Vec3::new(0.0, 0.0, 5.0 * std::f32::consts::TAU))?;
    /// assert_eq!(bar.velocity(), Vec3::ZERO);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn with_motion(
        mut self,
        velocity: Vec3,
        angular_velocity: Vec3,
    ) -> Result<Self, CableError> {
        self.velocity = check_motion("velocity", velocity)?;
        self.angular_velocity = check_motion("angular_velocity", angular_velocity)?;
        Ok(self)
    }

    /// Kinematic velocity, m/s ([`Collider::with_motion`]).
    #[inline]
    #[must_use]
    pub fn velocity(&self) -> Vec3 {
        self.velocity
    }

    /// Kinematic spin about the origin, rad/s ([`Collider::with_motion`]).
    #[inline]
    #[must_use]
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }

    /// True when the collider moves on its own ([`Collider::with_motion`]).
    #[inline]
    #[must_use]
    pub fn is_kinematic(&self) -> bool {
        self.velocity != Vec3::ZERO || self.angular_velocity != Vec3::ZERO
    }

    /// The shape placed at pose (`position`, `rotation`) in world space.
    #[must_use]
    pub fn world_shape(&self) -> WorldShape {
        let (p, q) = (self.position, self.rotation);
        match self.shape {
            Shape::Sphere { radius } => WorldShape::Sphere { center: p, radius },
            Shape::Capsule {
                half_length,
                radius,
            } => {
                let h = q * Vec3::new(0.0, half_length, 0.0);
                WorldShape::Capsule {
                    a: p - h,
                    b: p + h,
                    radius,
                }
            }
            Shape::Plane => {
                let normal = (q * Vec3::Y).normalize_or(Vec3::Y);
                WorldShape::Plane {
                    normal,
                    offset: normal.dot(p),
                }
            }
            Shape::Cuboid { half_extents } => {
                let axes = Mat3::from_quat(q);
                WorldShape::Cuboid {
                    center: p,
                    axes,
                    inv_axes: axes.transpose(),
                    half_extents,
                }
            }
        }
    }
}

/// A collider's shape in world space, ready for contact queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldShape {
    /// A ball.
    Sphere {
        /// Centre, metres.
        center: Vec3,
        /// Radius, metres.
        radius: f32,
    },
    /// The points within `radius` of the segment `a`–`b`.
    Capsule {
        /// One end of the core segment.
        a: Vec3,
        /// The other end of the core segment.
        b: Vec3,
        /// Radius, metres.
        radius: f32,
    },
    /// Outside is `dot(normal, p) ≥ offset`; `normal` is unit length.
    Plane {
        /// Unit outward normal.
        normal: Vec3,
        /// Offset along the normal, metres.
        offset: f32,
    },
    /// An oriented box.
    Cuboid {
        /// Centre, metres.
        center: Vec3,
        /// Columns are the box's local axes in world space (a rotation).
        axes: Mat3,
        /// Transpose of `axes`: world to local.
        inv_axes: Mat3,
        /// Half extents along the local axes, metres.
        half_extents: Vec3,
    },
}

impl WorldShape {
    /// World-space bounds; all of space for a plane.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        match *self {
            WorldShape::Sphere { center, radius } => {
                Aabb::from_points(center, center).expand(radius)
            }
            WorldShape::Capsule { a, b, radius } => Aabb::from_points(a, b).expand(radius),
            WorldShape::Plane { .. } => Aabb::EVERYTHING,
            WorldShape::Cuboid {
                center,
                axes,
                half_extents,
                ..
            } => {
                let ext = axes.x_axis.abs() * half_extents.x
                    + axes.y_axis.abs() * half_extents.y
                    + axes.z_axis.abs() * half_extents.z;
                Aabb::new(center - ext, center + ext)
            }
        }
    }
}

/// A prepared collider: world shape, bounds and the motion of its frame
/// over the last substep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldCollider {
    /// The shape in world space at the current pose.
    pub shape: WorldShape,
    /// World bounds of `shape` (all of space for planes); for a collider
    /// that moved during the last substep, of everything it swept over.
    pub aabb: Aabb,
    /// Handle of the collider.
    pub handle: ColliderHandle,
    position: Vec3,
    inv_rotation: Quat,
    prev_position: Vec3,
    prev_rotation: Quat,
    moving: bool,
}

impl WorldCollider {
    /// The collider's position (a sphere's or box's centre, the middle of
    /// a capsule's axis, a plane's point `offset · normal`): the point its
    /// spin turns about and contact torques are taken about.
    #[inline]
    #[must_use]
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// True when the collider moved during the last substep.
    #[inline]
    #[must_use]
    pub fn is_moving(&self) -> bool {
        self.moving
    }

    /// The collider's frame now and at the start of the last substep, for
    /// kernels that compute [`WorldCollider::displacement_at`] themselves:
    /// `(position, world-to-local rotation, previous position, previous
    /// local-to-world rotation)`, or `None` when it did not move.
    #[inline]
    #[must_use]
    pub fn frames(&self) -> Option<(Vec3, Mat3, Vec3, Mat3)> {
        self.moving.then(|| {
            (
                self.position,
                Mat3::from_quat(self.inv_rotation),
                self.prev_position,
                Mat3::from_quat(self.prev_rotation),
            )
        })
    }

    /// The collider's rigid motion over the last substep, for continuous
    /// contact against it: `(from, turn, to)` such that the material point
    /// that was at `p` when the substep began is now at
    /// `to + turn · (p − from)`; `None` when it did not move.
    #[inline]
    #[must_use]
    pub fn carry(&self) -> Option<(Vec3, Mat3, Vec3)> {
        self.moving.then(|| {
            // Now-rotation × inverse of the previous one.
            let turn = self.inv_rotation.conjugate() * self.prev_rotation.conjugate();
            (self.prev_position, Mat3::from_quat(turn), self.position)
        })
    }

    /// How far the collider's material point that is now at `p` moved during
    /// the last substep, metres (zero for a collider at rest).
    #[inline]
    #[must_use]
    pub fn displacement_at(&self, p: Vec3) -> Vec3 {
        if !self.moving {
            return Vec3::ZERO;
        }
        let local = self.inv_rotation * (p - self.position);
        p - (self.prev_position + self.prev_rotation * local)
    }
}

#[derive(Debug, Clone)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
struct Entry {
    collider: Collider,
    /// Pose used by the previous substep: (position, rotation).
    stepped: (Vec3, Quat),
}

#[derive(Debug, Clone)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
struct ColliderSlot {
    generation: u32,
    entry: Option<Entry>,
}

/// The colliders of a pool, named by [`ColliderHandle`]s.
///
/// Colliders are processed in slot order (the order they were added, with
/// freed slots reused), which the results depend on; never on threads.
///
/// Every set has its own identity ([`ColliderSet::id`]), carried by the
/// handles it issues, so a handle of one set is refused by another. A
/// clone has the same contents and keeps the identity: it accepts the
/// original's handles (the pool's snapshot semantics, see
/// [`crate::ParticlePool`]).
///
/// With the `serde` feature a set serialises its identity, slots, free list
/// and each collider with the pose the last substep used; deserialising
/// checks it ([`ColliderSet::validate`]) and keeps the identity. The
/// prepared state ([`ColliderSet::prepared`]) is not saved: it is rebuilt
/// before every substep that reads it.
///
/// # Example
/// ```
/// use cable_core::{CableError, Collider, ColliderSet};
/// use glam::Vec3;
///
/// let ball = Collider::sphere(Vec3::ZERO, 1.0)?;
/// let (mut a, mut b) = (ColliderSet::new(), ColliderSet::new());
/// let ha = a.add(ball);
/// b.add(ball); // same slot and generation in `b`
/// assert_eq!(b.remove(ha), Err(CableError::StaleCollider(ha)));
/// assert!(a.clone().get(ha).is_ok());
/// # Ok::<(), CableError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ColliderSet {
    id: u32,
    slots: Vec<ColliderSlot>,
    free: Vec<u32>,
    live: usize,
    world: Vec<WorldCollider>,
    planes: Vec<u32>,
    bvh: Bvh,
    bounded: Vec<(Aabb, u32)>,
    /// Regions where colliders were added, removed or moved since the last
    /// [`ColliderSet::take_changes`]: sleeping cables there wake.
    changes: Vec<Aabb>,
    /// Contact force sums ([`ColliderSet::contact_force`]); not saved.
    forces: forces::ForceMeter,
    /// Tracked contacts ([`ColliderSet::set_track_contacts`]); not saved.
    touches: touches::TouchLog,
}

/// At most this many change regions are kept; beyond, they merge into one
/// (a cable woken by the merged box wakes a little early, never late).
const MAX_CHANGES: usize = 256;

impl Default for ColliderSet {
    /// An empty set with a fresh identity.
    fn default() -> Self {
        Self {
            id: crate::handle::next_owner_id(),
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            world: Vec::new(),
            planes: Vec::new(),
            bvh: Bvh::default(),
            bounded: Vec::new(),
            changes: Vec::new(),
            forces: forces::ForceMeter::default(),
            touches: touches::TouchLog::default(),
        }
    }
}

impl ColliderSet {
    /// An empty set with a fresh identity.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The set's identity, carried by its handles
    /// ([`ColliderHandle::set_id`]); no pool or set created afterwards in
    /// the process gets it, nor one restored before (whatever identity a
    /// save holds), but clones keep it.
    #[inline]
    #[must_use]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Number of live colliders.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no collider lives.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Adds a collider and returns its handle. The collider starts at rest
    /// at its pose.
    pub fn add(&mut self, collider: Collider) -> ColliderHandle {
        let entry = Entry {
            collider,
            stepped: (collider.position, collider.rotation),
        };
        self.note_change(collider.world_shape().aabb());
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.entry = Some(entry);
            ColliderHandle {
                index,
                generation: slot.generation,
                set: self.id,
            }
        } else {
            let index = u32::try_from(self.slots.len())
                // Each collider costs tens of bytes; 2^32 of them cannot be allocated.
                .expect("more than 2^32 collider slots");
            self.slots.push(ColliderSlot {
                generation: 0,
                entry: Some(entry),
            });
            ColliderHandle {
                index,
                generation: 0,
                set: self.id,
            }
        }
    }

    fn entry(&self, h: ColliderHandle) -> Result<&Entry, CableError> {
        match self.slots.get(h.index as usize) {
            Some(ColliderSlot {
                generation,
                entry: Some(e),
            }) if *generation == h.generation && h.set == self.id => Ok(e),
            _ => Err(CableError::StaleCollider(h)),
        }
    }

    fn entry_mut(&mut self, h: ColliderHandle) -> Result<&mut Entry, CableError> {
        match self.slots.get_mut(h.index as usize) {
            Some(ColliderSlot {
                generation,
                entry: Some(e),
            }) if *generation == h.generation && h.set == self.id => Ok(e),
            _ => Err(CableError::StaleCollider(h)),
        }
    }

    /// True while `h` names a live collider of this set.
    #[must_use]
    pub fn contains(&self, h: ColliderHandle) -> bool {
        self.entry(h).is_ok()
    }

    /// The collider named by `h`.
    ///
    /// # Errors
    /// [`CableError::StaleCollider`] when the handle is not live.
    pub fn get(&self, h: ColliderHandle) -> Result<&Collider, CableError> {
        Ok(&self.entry(h)?.collider)
    }

    /// Removes a collider and returns it; its handle is refused from now on.
    ///
    /// # Errors
    /// [`CableError::StaleCollider`] when the handle is not live.
    pub fn remove(&mut self, h: ColliderHandle) -> Result<Collider, CableError> {
        let c = self.entry(h)?.collider;
        self.note_change(c.world_shape().aabb());
        let slot = &mut self.slots[h.index as usize];
        slot.entry = None;
        // Wrapping: 2^32 removals of one slot is beyond any program's lifetime.
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(h.index);
        self.live -= 1;
        Ok(c)
    }

    /// Moves a collider kinematically to a new pose. The motion from the
    /// pose of the previous substep to this one is what the next substep
    /// sees: cables in contact are pushed, and carried along by friction.
    /// Set the pose once per frame and, when a frame runs several substeps,
    /// the first one sees the whole motion; to spread it over them, set the
    /// pose before each substep (`Stepper::advance_with` in `cable-systems`
    /// calls back before every substep). To put a collider somewhere
    /// without a motion (a respawn), use [`ColliderSet::teleport`].
    ///
    /// For a plane, the pose moves and turns its frame (origin on the
    /// plane, local `+y` the outward normal).
    ///
    /// # Errors
    /// Stale handle, a non-finite or out-of-range position, or a rotation
    /// that is not a unit quaternion.
    pub fn set_pose(
        &mut self,
        h: ColliderHandle,
        position: Vec3,
        rotation: Quat,
    ) -> Result<(), CableError> {
        check_vec3("position", position)?;
        let rotation = check_rotation("rotation", rotation)?;
        let e = self.entry_mut(h)?;
        if e.collider.position == position && e.collider.rotation == rotation {
            return Ok(());
        }
        let before = e.collider.world_shape().aabb();
        e.collider.position = position;
        e.collider.rotation = rotation;
        let after = e.collider.world_shape().aabb();
        self.note_change(before.union(after));
        Ok(())
    }

    /// Remembers that colliders changed inside `region`.
    fn note_change(&mut self, region: Aabb) {
        if self.changes.len() >= MAX_CHANGES {
            let merged = self.changes.drain(..).fold(region, |a, b| a.union(b));
            self.changes.push(merged);
        } else {
            self.changes.push(region);
        }
    }

    /// Regions (world bounds, before and after) where colliders were added,
    /// removed or moved since the last call, which forgets them. The pool
    /// wakes its sleeping cables there before each step
    /// ([`crate::ParticlePool::wake_near_collider_changes`]).
    pub fn take_changes(&mut self, mut f: impl FnMut(&Aabb)) {
        for c in self.changes.drain(..) {
            f(&c);
        }
    }

    /// Handles of the live colliders, in processing (slot) order.
    pub fn handles(&self) -> impl Iterator<Item = ColliderHandle> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.entry.as_ref().map(|_| ColliderHandle {
                index: i as u32,
                generation: s.generation,
                set: self.id,
            })
        })
    }

    /// Each live collider in slot order with the pose (position, rotation)
    /// the last substep used ([`ParticlePool::check_same_setup`] compares
    /// them).
    ///
    /// [`ParticlePool::check_same_setup`]: crate::ParticlePool::check_same_setup
    pub(crate) fn live_entries(&self) -> impl Iterator<Item = (&Collider, (Vec3, Quat))> + '_ {
        self.slots
            .iter()
            .filter_map(|s| s.entry.as_ref().map(|e| (&e.collider, e.stepped)))
    }

    /// Prepares the colliders for one substep: world shapes, bounds, the
    /// motion since the previous call, and the broad-phase tree. The
    /// stepper calls it once per substep, before the cables are solved.
    pub fn prepare(&mut self) {
        self.world.clear();
        self.planes.clear();
        self.bounded.clear();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(e) = slot.entry.as_mut() else {
                continue;
            };
            let c = e.collider;
            let (pp, pq) = e.stepped;
            let shape = c.world_shape();
            let moving = pp != c.position || pq != c.rotation;
            let aabb = if moving {
                swept_bounds(&c, pp, pq)
            } else {
                shape.aabb()
            };
            let k = self.world.len() as u32;
            if matches!(shape, WorldShape::Plane { .. }) {
                self.planes.push(k);
            } else {
                self.bounded.push((aabb, k));
            }
            self.world.push(WorldCollider {
                shape,
                aabb,
                handle: ColliderHandle {
                    index: i as u32,
                    generation: slot.generation,
                    set: self.id,
                },
                position: c.position,
                inv_rotation: c.rotation.conjugate(),
                prev_position: pp,
                prev_rotation: pq,
                moving,
            });
            e.stepped = (c.position, c.rotation);
        }
        self.bvh.build(&self.bounded);
    }

    /// The colliders as of the last [`ColliderSet::prepare`], in slot order.
    #[inline]
    #[must_use]
    pub fn prepared(&self) -> &[WorldCollider] {
        &self.world
    }

    /// Calls `f` with the index (into [`ColliderSet::prepared`]) of every
    /// prepared collider whose bounds overlap `q`. Planes are not reported
    /// here; see [`ColliderSet::prepared_planes`].
    #[inline]
    pub fn query(&self, q: &Aabb, f: impl FnMut(u32)) {
        self.bvh.query(q, f);
    }

    /// Indices (into [`ColliderSet::prepared`]) of the prepared planes.
    #[inline]
    #[must_use]
    pub fn prepared_planes(&self) -> &[u32] {
        &self.planes
    }

    /// Checks the set's invariants: every collider and the pose it had at
    /// the last substep valid (as the constructors and
    /// [`ColliderSet::set_pose`] check them), the free list naming each
    /// empty slot exactly once and no live one, and the live count. A set
    /// built through the API always passes; a restored one is checked
    /// before it is used.
    ///
    /// # Errors
    /// [`CableError::InvalidState`] naming the slot (`colliders.slots[3]`)
    /// or list and what is wrong.
    pub fn validate(&self) -> Result<(), CableError> {
        let bad = |place: String, reason: String| CableError::InvalidState { place, reason };
        let mut live = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(e) = &slot.entry else { continue };
            live += 1;
            e.collider
                .check()
                .map_err(|err| bad(format!("colliders.slots[{i}].collider"), err.to_string()))?;
            check_vec3("position", e.stepped.0)
                .and_then(|_| check_unit("rotation", e.stepped.1))
                .map_err(|err| bad(format!("colliders.slots[{i}].stepped"), err.to_string()))?;
        }
        if live != self.live {
            return Err(bad(
                "colliders".into(),
                format!("counts {} live colliders, the slots hold {live}", self.live),
            ));
        }
        let mut listed = vec![false; self.slots.len()];
        for (k, &f) in self.free.iter().enumerate() {
            let place = || format!("colliders.free[{k}]");
            let Some(slot) = self.slots.get(f as usize) else {
                return Err(bad(
                    place(),
                    format!("slot {f} does not exist ({} slots)", self.slots.len()),
                ));
            };
            if slot.entry.is_some() {
                return Err(bad(place(), format!("slot {f} holds a live collider")));
            }
            if std::mem::replace(&mut listed[f as usize], true) {
                return Err(bad(place(), format!("slot {f} is listed twice")));
            }
        }
        if let Some(i) =
            (0..self.slots.len()).find(|&i| self.slots[i].entry.is_none() && !listed[i])
        {
            return Err(bad(
                format!("colliders.slots[{i}]"),
                "is empty but not in the free list".into(),
            ));
        }
        Ok(())
    }
}

/// Checks that `q` is a unit quaternion as [`check_rotation`] does, without
/// normalising it (a restored pose keeps its bits).
fn check_unit(field: &'static str, q: Quat) -> Result<Quat, CableError> {
    check_rotation(field, q).map(|_| q)
}

impl Collider {
    /// Checks the shape's sizes and the pose as the constructors do.
    pub(crate) fn check(&self) -> Result<(), CableError> {
        match self.shape {
            Shape::Sphere { radius } => {
                check_size("radius", radius, false)?;
            }
            Shape::Capsule {
                half_length,
                radius,
            } => {
                check_size("half_length", half_length, true)?;
                check_size("radius", radius, false)?;
            }
            Shape::Plane => {}
            Shape::Cuboid { half_extents } => {
                for h in half_extents.to_array() {
                    check_size("half_extents", h, false)?;
                }
            }
        }
        check_vec3("position", self.position)?;
        check_unit("rotation", self.rotation)?;
        check_motion("velocity", self.velocity)?;
        check_motion("angular_velocity", self.angular_velocity)?;
        Ok(())
    }
}

/// Bounds of everything collider `c` swept over while moving from pose
/// (`p0`, `q0`) to its current one: both poses' bounds, and, when it
/// turned, the balls around both origins that hold the whole shape (a
/// spinning bar sweeps a disc, not just its two end poses).
fn swept_bounds(c: &Collider, p0: Vec3, q0: Quat) -> Aabb {
    let now = c.world_shape().aabb();
    let then = Collider {
        position: p0,
        rotation: q0,
        ..*c
    }
    .world_shape()
    .aabb();
    let mut b = now.union(then);
    if q0 != c.rotation {
        let reach = match c.shape {
            Shape::Sphere { radius } => radius,
            Shape::Capsule {
                half_length,
                radius,
            } => half_length + radius,
            Shape::Plane => return Aabb::EVERYTHING,
            Shape::Cuboid { half_extents } => half_extents.length(),
        };
        for o in [p0, c.position] {
            b = b.union(Aabb::from_points(o, o).expand(reach));
        }
    }
    b
}

/// Checks a kinematic velocity or spin: finite, at most
/// [`MAX_KINEMATIC_SPEED`] long.
pub(super) fn check_motion(field: &'static str, v: Vec3) -> Result<Vec3, CableError> {
    let len = v.length();
    if !v.is_finite() || len > MAX_KINEMATIC_SPEED {
        return Err(CableError::OutOfRange {
            field,
            expected: "must be finite and at most 1e5 long",
            value: f64::from(len),
        });
    }
    Ok(v)
}
