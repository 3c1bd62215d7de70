//! Cable descriptions, per-cable parameters and attachments (the handles
//! that name cables are in [`crate::handle`]).

use glam::Vec3;

use crate::error::{CableError, check_finite, check_vec3};
use crate::groups::CollisionGroups;
pub use crate::handle::CableHandle;

/// One of the two ends of a cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum End {
    /// Particle 0 (UE's `bAttachStart`).
    #[default]
    Start,
    /// The last particle (UE's `bAttachEnd` / `AttachEndTo`).
    End,
}

impl End {
    /// 0 for [`End::Start`], 1 for [`End::End`]: the index into per-end arrays.
    #[inline]
    #[must_use]
    pub fn slot(self) -> usize {
        match self {
            End::Start => 0,
            End::End => 1,
        }
    }
}

/// A winch order, as the ECS layers' winch components give it: reel the
/// cable's rest length to `target_length` at `speed`
/// ([`crate::ParticlePool::set_winch`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Winch {
    /// Rest length to reel to, metres, in (0, 1e7].
    pub target_length: f32,
    /// Reeling speed, m/s, in (0, 1e4].
    pub speed: f32,
}

/// Physical and render parameters of one cable.
///
/// Units are SI: metres, seconds, metres per second squared. Every field has
/// the default of the scene format (see `docs/scene-format.md`); the
/// teleport fields are not scene keys (API only) and default to off.
///
/// With the `serde` feature (on by default) it serialises with its field
/// names; missing fields take their defaults and unknown ones are refused.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct CableParams {
    /// Multiplies the world gravity for this cable (UE's `CableGravityScale`). Default 1.
    pub gravity_scale: f32,
    /// Extra constant acceleration on every free particle, m/s² (wind; UE's
    /// `CableForce`, Flax's `AdditionalForce`). Default zero.
    pub force: Vec3,
    /// Adds bending constraints between particles i and i+2 at the sum of the
    /// two segments' rest lengths (UE's `bEnableStiffness`). Default false.
    pub stiffness: bool,
    /// XPBD compliance of the distance (and bending) constraints, m/N for unit
    /// particle masses. 0 is the classic rigid projection, exactly. Default 0.
    /// With [`CableParams::tethers`] on, no particle gets farther from a
    /// pinned one than its rest distance along the cable, so an elastic
    /// cable that should stretch turns tethers off.
    pub compliance: f32,
    /// Cable radius in metres, for collision and meshes. Default 0.05.
    pub radius: f32,
    /// Sides of the tube mesh (≥ 3). Default 8.
    pub sides: u32,
    /// Texture repeats along the cable (UE's `TileMaterial`). Default 1.
    pub tile: f32,
    /// Long-range attachments ("tethers", Kim et al. 2012): every free
    /// particle stays within its rest distance along the cable from the
    /// nearest pinned particle on each side, so a hanging cable does not
    /// stretch whatever its resolution. Default true. A compliant cable
    /// ([`CableParams::compliance`] > 0) that should stretch needs them off:
    /// the scene format (`cable::Scene`) defaults them to off for one.
    /// The tethers from a winch that may slip ([`CableParams::slip_end`])
    /// pull with at most what its segment leaves of its slip tension.
    pub tethers: bool,
    /// Bending rigidity `EI`, N·m² (≥ 0): each inner particle resists the
    /// change of its discrete curvature from the rest shape (straight for
    /// [`CableDesc::line`], the initial polyline for
    /// [`CableDesc::from_points`]) with the XPBD compliance
    /// `l̄ / EI` (`l̄` the mean of the two segments' rest lengths), the
    /// discrete elastic rod's bending energy. A segment between two
    /// pinned particles is inside a clamp and does not bend: a particle
    /// next to one stands for the half segment on its other side alone
    /// ([`crate::RowConst::bend_compliance`]). 0 = off. Default 0.
    pub bend_stiffness: f32,
    /// The start is clamped, not hinged (the scene's `clamp_start`): while
    /// the start particle is pinned, the cable leaves it in the direction
    /// it had when it was added ([`crate::ParticlePool::add_cable`]), held
    /// by the bending stiffness: a curvature constraint at the start
    /// particle against a virtual particle one segment behind it on that
    /// line, so a clamped cantilever bends from its first particle as
    /// beam theory says. Needs [`CableParams::bend_stiffness`] > 0 (the
    /// clamp holds through it) and a straight rest shape: curvature
    /// without a material frame has no sign, so a pre-bent cable could
    /// roll about the clamp ([`crate::ParticlePool::add_cable`] and
    /// [`crate::ParticlePool::set_params`] refuse a clamp on a cable whose
    /// rest shape turns anywhere by more than [`MAX_CLAMPED_TURN`]). While
    /// the start is free the clamp does nothing. Default false.
    pub clamp_start: bool,
    /// [`CableParams::clamp_start`] for the end particle (the scene's
    /// `clamp_end`). Default false.
    pub clamp_end: bool,
    /// A segment whose tension exceeds this many newtons breaks (its
    /// distance constraint is removed for good). `None`: unbreakable.
    pub break_tension: Option<f32>,
    /// Winch speed, m/s: the rest length changes at this rate (positive
    /// pays out, negative reels in); particles are added or removed next
    /// to the winch's end ([`CableParams::reel_end`]) as needed. Default 0.
    pub reel_speed: f32,
    /// Which end the winch is at (the scene's `"start"` or `"end"`).
    /// Default [`End::Start`].
    pub reel_end: End,
    /// The winch's acceleration limit, m/s² (> 0, at most 1e6): its speed
    /// ramps toward [`CableParams::reel_speed`] at this rate instead of
    /// jumping to it (also when the speed is set to 0: the winch slows
    /// down). `None` (the default): instant.
    pub reel_accel: Option<f32>,
    /// The winch's pulling limit, newtons (> 0, at most 1e12), against the
    /// tension of the segment at the winch. Reeling in, the winch pulls
    /// with at most this force (its motor): a load it can lift rises at
    /// (force − weight)/mass until it reaches the winch's speed; one it
    /// cannot lift runs the rope out, which stops the winch, and it holds
    /// (as it does while the tension exceeds this limit). Holding or
    /// paying out, the rope never pulls at it with more than
    /// [`SLIP_FACTOR`] (1.2) × this limit: where the rope pulls harder the
    /// winch slips, paying out as fast as the load takes the rope, braked
    /// by that force, so an overloaded winch gives rope instead of tearing
    /// it. Both bounds are part of the solve, with the tethers from the
    /// winch's end sharing them ([`CableParams::slip_end`],
    /// [`crate::ParticlePool::turn_winch`]). At `max_length` the winch has
    /// no rope left to give: it holds whatever the load. A winch with
    /// `reel_speed` 0 does not turn: it holds whatever the load. `None`
    /// (the default): unlimited.
    pub reel_force: Option<f32>,
    /// Shortest rest length the winch reels in to, metres. `None`: the
    /// length of the segment at the winch's end (`reel_end`), set when the
    /// cable is added.
    pub min_length: Option<f32>,
    /// Longest rest length the winch pays out to, metres. `None`: 4 × the
    /// initial length, but at most 1e7 (the most this field accepts) unless
    /// the cable is longer than that already (set when the cable is added).
    pub max_length: Option<f32>,
    /// Sleeping: a cable whose every particle has moved slower than this
    /// (m/s, over a substep) for [`CableParams::sleep_delay`] seconds falls
    /// asleep — its velocity is zeroed and it costs no solver time until
    /// something wakes it (see [Sleeping](crate::ParticlePool#sleeping-and-hidden-cables)).
    /// 0 (the default): never sleeps. Cables with a turning winch
    /// ([`CableParams::reel_speed`] ≠ 0) do not sleep.
    pub sleep_speed: f32,
    /// Seconds a cable must stay below [`CableParams::sleep_speed`] before it
    /// sleeps (default 1).
    pub sleep_delay: f32,
    /// UE's "skip cable update when not visible": while the engine has told
    /// the pool the cable is hidden ([`crate::ParticlePool::set_visible`]),
    /// it is not simulated (it keeps its state and resumes when shown).
    /// Default `false`: hidden cables are simulated.
    pub skip_when_hidden: bool,
    /// This cable's linear velocity damping per second, ≥ 0, in place of
    /// the solver's `damping` (`None`, the default: the solver's).
    pub damping: Option<f32>,
    /// This cable's Coulomb friction coefficient against colliders, in
    /// [0, 1], in place of the solver's `friction` (`None`: the solver's).
    pub friction: Option<f32>,
    /// This cable's solver iterations per substep, in
    /// 1..=[`MAX_CABLE_ITERATIONS`], in place of the solver's `iterations`
    /// (`None`: the solver's). Lane layouts group cables by it.
    pub iterations: Option<u32>,
    /// Teleport distance threshold, metres (≥ 0; UE5's
    /// `TeleportDistanceThreshold`): when an attached end's target moves
    /// farther than this in one [`crate::ParticlePool::set_attachment`]
    /// (one frame of the ECS layer), the cable does not chase it but
    /// teleports as [`CableParams::teleport_mode`] says. `None`: off.
    /// Default off.
    pub teleport_distance: Option<f32>,
    /// Teleport rotation threshold, radians (≥ 0; UE5's
    /// `TeleportRotationThreshold`, which is in degrees): when an end's
    /// attachment turns by more than this in one move
    /// ([`crate::ParticlePool::teleport_attachment`]; the ECS layer's
    /// entity targets), the cable teleports. `None`: off. Default off.
    pub teleport_rotation: Option<f32>,
    /// What a teleport does to the cable: move it rigidly with the
    /// attachment, or lay it straight anew. Default [`TeleportMode::Move`].
    pub teleport_mode: TeleportMode,
    /// Which cables this one collides with when cable–cable contact is
    /// on (`cable_systems::SolverParams::cable_collision`). Default
    /// [`CollisionGroups::ALL`]: every cable, itself included.
    pub collision_groups: CollisionGroups,
}

/// What a cable does when its attachment teleports
/// ([`CableParams::teleport_distance`], [`CableParams::teleport_rotation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum TeleportMode {
    /// Every particle, position and previous position, is moved rigidly
    /// with the attachment: translated by its displacement and turned about
    /// it by its rotation, so the cable keeps its shape and its velocity
    /// (in the attachment's frame).
    #[default]
    Move,
    /// The cable is re-initialised straight and at rest (UE's reset after
    /// teleport): its particles are laid out by rest length on the line
    /// between the two ends' targets, or, when the other end is free,
    /// along the direction the cable pointed in (turned with the
    /// attachment) at its full rest length.
    Reset,
}

/// Most solver iterations a cable may ask for ([`CableParams::iterations`]).
pub const MAX_CABLE_ITERATIONS: u32 = 1024;

impl Default for CableParams {
    fn default() -> Self {
        Self {
            gravity_scale: 1.0,
            force: Vec3::ZERO,
            stiffness: false,
            compliance: 0.0,
            radius: 0.05,
            sides: 8,
            tile: 1.0,
            tethers: true,
            bend_stiffness: 0.0,
            clamp_start: false,
            clamp_end: false,
            break_tension: None,
            reel_speed: 0.0,
            reel_end: End::Start,
            reel_accel: None,
            reel_force: None,
            min_length: None,
            max_length: None,
            sleep_speed: 0.0,
            sleep_delay: 1.0,
            skip_when_hidden: false,
            damping: None,
            friction: None,
            iterations: None,
            teleport_distance: None,
            teleport_rotation: None,
            teleport_mode: TeleportMode::Move,
            collision_groups: CollisionGroups::ALL,
        }
    }
}

/// Largest rest curvature `2·tan(θ₀/2)` (about the turning angle θ₀ in
/// radians) a clamped cable's rest shape may have at any particle
/// ([`CableParams::clamp_start`]): the rest shape must be straight, up to
/// the rounding of points given in `f32`.
pub const MAX_CLAMPED_TURN: f32 = 1.0e-3;

/// Largest accepted gravity scale magnitude.
const MAX_GRAVITY_SCALE: f32 = 1.0e3;

/// Largest accepted compliance, and largest accepted compliance / substep²
/// (the XPBD `α̃` the solver divides by): a constraint this soft holds
/// nothing, and beyond it the f32 arithmetic of the solver overflows.
pub const MAX_COMPLIANCE: f32 = 1.0e30;

/// A winch with a pulling limit ([`CableParams::reel_force`]) slips, paying
/// out rope, where the tension at it would exceed this many times the
/// limit (the spec's "by more than 20 %").
pub const SLIP_FACTOR: f32 = 1.2;

impl CableParams {
    /// The end whose winch may slip: [`CableParams::reel_end`] when the
    /// winch turns ([`CableParams::reel_speed`] not 0) with a pulling limit
    /// ([`CableParams::reel_force`]), else `None`. The solver bounds the
    /// tension at that end at `reel_force` while the winch reels in and at
    /// [`SLIP_FACTOR`] × `reel_force` otherwise, the tethers from that end
    /// included: what the rope would pull beyond the bound lets it run
    /// past its reach, and the winch pays that out.
    ///
    /// ```
    /// use cable_core::{CableParams, End};
    ///
    /// let mut p = CableParams { reel_speed: -0.5, ..CableParams::default() };
    /// assert_eq!(p.slip_end(), None); // no pulling limit
    /// p.reel_force = Some(100.0);
    /// assert_eq!(p.slip_end(), Some(End::Start));
    /// p.reel_speed = 0.0; // no winch turns
    /// assert_eq!(p.slip_end(), None);
    /// ```
    #[must_use]
    pub fn slip_end(&self) -> Option<End> {
        (self.reel_force.is_some() && self.reel_speed != 0.0).then_some(self.reel_end)
    }

    /// Checks every field, naming the first one that is out of range.
    ///
    /// # Errors
    /// [`CableError::NotFinite`] or [`CableError::OutOfRange`] naming the field.
    pub fn validate(&self) -> Result<(), CableError> {
        let gs = check_finite("gravity_scale", self.gravity_scale)?;
        if gs.abs() > MAX_GRAVITY_SCALE {
            return Err(CableError::OutOfRange {
                field: "gravity_scale",
                expected: "must lie within ±1000",
                value: f64::from(gs),
            });
        }
        check_vec3("force", self.force)?;
        let c = check_finite("compliance", self.compliance)?;
        if !(0.0..=MAX_COMPLIANCE).contains(&c) {
            return Err(CableError::OutOfRange {
                field: "compliance",
                expected: "must be between 0 and 1e30",
                value: f64::from(c),
            });
        }
        let r = check_finite("radius", self.radius)?;
        if !(r > 0.0 && r <= 1.0e3) {
            return Err(CableError::OutOfRange {
                field: "radius",
                expected: "must be greater than 0 and at most 1000",
                value: f64::from(r),
            });
        }
        if !(3..=1024).contains(&self.sides) {
            return Err(CableError::OutOfRange {
                field: "sides",
                expected: "must be between 3 and 1024",
                value: f64::from(self.sides),
            });
        }
        let t = check_finite("tile", self.tile)?;
        if !(t > 0.0 && t <= 1.0e6) {
            return Err(CableError::OutOfRange {
                field: "tile",
                expected: "must be greater than 0 and at most 1e6",
                value: f64::from(t),
            });
        }
        let ei = check_finite("bend_stiffness", self.bend_stiffness)?;
        if !(0.0..=1.0e12).contains(&ei) {
            return Err(CableError::OutOfRange {
                field: "bend_stiffness",
                expected: "must be between 0 and 1e12",
                value: f64::from(ei),
            });
        }
        if (self.clamp_start || self.clamp_end) && ei <= 0.0 {
            return Err(CableError::OutOfRange {
                field: "bend_stiffness",
                expected: "must be greater than 0 on a clamped cable (clamp_start or clamp_end): the clamp holds through the bending stiffness",
                value: f64::from(ei),
            });
        }
        if let Some(b) = self.break_tension {
            let b = check_finite("break_tension", b)?;
            if b <= 0.0 {
                return Err(CableError::OutOfRange {
                    field: "break_tension",
                    expected: "must be greater than 0",
                    value: f64::from(b),
                });
            }
        }
        let v = check_finite("reel_speed", self.reel_speed)?;
        if v.abs() > 1.0e4 {
            return Err(CableError::OutOfRange {
                field: "reel_speed",
                expected: "must lie within ±1e4",
                value: f64::from(v),
            });
        }
        for (field, v, most) in [
            ("reel_accel", self.reel_accel, 1.0e6),
            ("reel_force", self.reel_force, 1.0e12),
        ] {
            if let Some(v) = v {
                let v = check_finite(field, v)?;
                if !(v > 0.0 && v <= most) {
                    return Err(CableError::OutOfRange {
                        field,
                        expected: if most == 1.0e6 {
                            "must be greater than 0 and at most 1e6"
                        } else {
                            "must be greater than 0 and at most 1e12"
                        },
                        value: f64::from(v),
                    });
                }
            }
        }
        for (field, l) in [
            ("min_length", self.min_length),
            ("max_length", self.max_length),
        ] {
            if let Some(l) = l {
                let l = check_finite(field, l)?;
                if !(l > 0.0 && l <= 1.0e7) {
                    return Err(CableError::OutOfRange {
                        field,
                        expected: "must be greater than 0 and at most 1e7",
                        value: f64::from(l),
                    });
                }
            }
        }
        for (field, t) in [
            ("teleport_distance", self.teleport_distance),
            ("teleport_rotation", self.teleport_rotation),
        ] {
            if let Some(t) = t {
                let t = check_finite(field, t)?;
                if t < 0.0 {
                    return Err(CableError::OutOfRange {
                        field,
                        expected: "must be at least 0",
                        value: f64::from(t),
                    });
                }
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_length, self.max_length)
            && lo > hi
        {
            return Err(CableError::OutOfRange {
                field: "min_length",
                expected: "must be at most max_length",
                value: f64::from(lo),
            });
        }
        // Bounded settings (the per-cable overrides only when given).
        for (field, v, max, expected) in [
            (
                "sleep_speed",
                Some(self.sleep_speed),
                1.0e3,
                "must lie within 0..=1e3",
            ),
            (
                "sleep_delay",
                Some(self.sleep_delay),
                1.0e6,
                "must lie within 0..=1e6",
            ),
            ("damping", self.damping, 1.0e6, "must be between 0 and 1e6"),
            ("friction", self.friction, 1.0, "must be between 0 and 1"),
        ] {
            let Some(v) = v else { continue };
            let v = check_finite(field, v)?;
            if !(0.0..=max).contains(&v) {
                return Err(CableError::OutOfRange {
                    field,
                    expected,
                    value: f64::from(v),
                });
            }
        }
        if let Some(k) = self.iterations
            && !(1..=MAX_CABLE_ITERATIONS).contains(&k)
        {
            return Err(CableError::OutOfRange {
                field: "iterations",
                expected: "must be between 1 and 1024",
                value: f64::from(k),
            });
        }
        Ok(())
    }

    /// Checks these parameters for a solver of substep `substep` seconds:
    /// [`CableParams::validate`], and that `compliance / substep²` (computed
    /// in f32, as the solver does) is finite and at most [`MAX_COMPLIANCE`],
    /// so the solver's arithmetic cannot overflow. A smaller substep makes
    /// the ratio larger: the fix is a smaller compliance or a larger substep.
    ///
    /// # Errors
    /// As [`CableParams::validate`]; [`CableError::OutOfRange`] naming
    /// `compliance`, with the ratio as its value, when the ratio is too
    /// large; [`CableError::NotFinite`] or
    /// [`CableError::OutOfRange`] naming `substep` when it is not finite and
    /// greater than 0.
    ///
    /// # Example
    /// ```
    /// use cable_core::CableParams;
    /// let soft = CableParams { compliance: 1.0e-4, ..CableParams::default() };
    /// assert!(soft.validate_for_substep(1.0 / 60.0).is_ok());
    /// assert!(soft.validate_for_substep(1.0e-23).is_err()); // 1e-4 / 1e-46 overflows
    /// ```
    pub fn validate_for_substep(&self, substep: f32) -> Result<(), CableError> {
        self.validate()?;
        self.check_compliance_for_substep(substep)
    }

    /// The substep part of [`CableParams::validate_for_substep`], for
    /// parameters already validated (the pool's, whose winch bounds were
    /// resolved when the cable was added).
    pub(crate) fn check_compliance_for_substep(&self, substep: f32) -> Result<(), CableError> {
        let h = check_finite("substep", substep)?;
        if h <= 0.0 {
            return Err(CableError::OutOfRange {
                field: "substep",
                expected: "must be greater than 0",
                value: f64::from(h),
            });
        }
        if self.compliance > 0.0 {
            let alpha = self.compliance / (h * h);
            if !(alpha.is_finite() && alpha <= MAX_COMPLIANCE) {
                return Err(CableError::OutOfRange {
                    field: "compliance",
                    expected: "compliance / substep² must be at most 1e30 (lower the compliance or raise the substep)",
                    // The ratio checked, not the compliance alone (which
                    // may be small when the substep is).
                    value: f64::from(self.compliance) / (f64::from(h) * f64::from(h)),
                });
            }
        }
        Ok(())
    }
}

/// XPBD compliance of the curvature constraint at a particle between
/// segments of rest lengths `r0` and `r1`, for bending rigidity `ei`:
/// `l̄ / EI` ([`CableParams::bend_stiffness`]); 0 (no constraint) when `ei`
/// is 0 or the compliance is not finite or exceeds [`MAX_COMPLIANCE`] (a
/// constraint that soft holds nothing).
#[inline]
pub(crate) fn bend_compliance(r0: f32, r1: f32, ei: f32) -> f32 {
    if ei > 0.0 {
        let c = 0.5 * (r0 + r1) / ei;
        if c.is_finite() && c <= MAX_COMPLIANCE {
            c
        } else {
            0.0
        }
    } else {
        0.0
    }
}

/// Checks that no curvature constraint of a cable of bending rigidity
/// `ei` whose longest segment is `max_rest` metres, and whose winch
/// segment length ([`crate::ParticlePool::reel`]) is `seg` metres, can
/// have a compliance that overflows when divided by `substep²` (in f32, as
/// the solver does). `substep` must be finite and greater than 0 (checked
/// by the caller).
///
/// The bound holds for every state a winch can take the cable to, so the
/// check need not be repeated as it turns: the winch keeps the first
/// segment within `max(longest, seg) + seg / 2` (merging a short first
/// segment into the next, or splitting one longer than `1.5·seg`), every
/// other segment is an original one or `seg` long, and a curvature
/// constraint spans two segments: its compliance is at most
/// `(a + b) / 2 / EI` for `a = max(longest, seg) + seg / 2`,
/// `b = max(longest, seg)` (or 1e30: softer constraints are dropped). A
/// cable with one segment gets inner particles by paying out, so it is
/// bounded the same way.
pub(crate) fn check_bend_for_substep(
    max_rest: f32,
    seg: f32,
    ei: f32,
    substep: f32,
) -> Result<(), CableError> {
    if ei > 0.0 {
        let b = max_rest.max(seg);
        let bound = (0.5 * ((b + 0.5 * seg) + b) / ei).min(MAX_COMPLIANCE);
        let alpha = bound / (substep * substep);
        if !(alpha.is_finite() && alpha <= MAX_COMPLIANCE) {
            return Err(CableError::OutOfRange {
                field: "bend_stiffness",
                expected: "segment length / bend_stiffness / substep² must be at most 1e30 (raise the bend stiffness or the substep)",
                value: f64::from(ei),
            });
        }
    }
    Ok(())
}

/// The initial geometry of a cable: where its particles start and the rest
/// length of each segment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Geometry {
    pub(crate) points: Vec<Vec3>,
    pub(crate) rest: Vec<f32>,
    /// Straight by construction ([`CableDesc::line`]): its rest shape does
    /// not turn, whatever rounding its `f32` points show far from the
    /// origin.
    pub(crate) straight: bool,
}

/// Everything needed to add a cable to a [`crate::ParticlePool`].
///
/// Build it with [`CableDesc::line`] (UE's start/end/length/segments) or
/// [`CableDesc::from_points`] (Flax's spline keyframes, non-uniform rest
/// lengths), then adjust the public fields.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 12.0, 32)?;
/// desc.attach_end = false; // a free end
/// desc.params.stiffness = true;
/// let cable = pool.add_cable(&desc)?;
/// assert_eq!(pool.positions(cable)?.len(), 33);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CableDesc {
    pub(crate) geometry: Geometry,
    /// Pin particle 0 where it starts (UE's `bAttachStart`). Default true.
    pub attach_start: bool,
    /// Pin the last particle where it starts (UE's `bAttachEnd`). Default true.
    pub attach_end: bool,
    /// Physical and render parameters.
    pub params: CableParams,
    /// Indices of more particles pinned where they start (inverse mass 0),
    /// besides the attached ends. Each must be less than the particle count.
    pub pins: Vec<u32>,
    /// Linear density, kg/m (> 0): each particle gets half the mass of each
    /// segment next to it, and keeps it as a winch changes the segments:
    /// the particles it adds, and those next to the segments it lengthens
    /// or shortens, are weighed again after every turn. `None`: every
    /// particle weighs 1 kg (a winch's new particles too).
    pub mass_per_length: Option<f32>,
}

impl CableDesc {
    /// A cable of `segments` equal segments whose particles start evenly on
    /// the straight line from `start` to `end`, with total rest length
    /// `length` (metres; may exceed the distance, so the cable sags).
    ///
    /// # Errors
    /// Non-finite or out-of-range coordinates (beyond ±1e6 m), `length` not
    /// greater than 0, `segments` less than 1 or more than
    /// [`crate::MAX_SEGMENTS`].
    pub fn line(start: Vec3, end: Vec3, length: f32, segments: u32) -> Result<Self, CableError> {
        check_vec3("start", start)?;
        check_vec3("end", end)?;
        let length = check_finite("length", length)?;
        if !(length > 0.0 && length <= 1.0e7) {
            return Err(CableError::OutOfRange {
                field: "length",
                expected: "must be greater than 0 and at most 1e7",
                value: f64::from(length),
            });
        }
        if segments < 1 {
            return Err(CableError::OutOfRange {
                field: "segments",
                expected: "must be at least 1",
                value: f64::from(segments),
            });
        }
        if segments > crate::MAX_SEGMENTS {
            return Err(CableError::OutOfRange {
                field: "segments",
                expected: "must be at most 16777216",
                value: f64::from(segments),
            });
        }
        let n = segments as usize;
        let seg = length / segments as f32;
        let points = (0..=n)
            .map(|i| along(start, end, i as f32 / segments as f32))
            .collect();
        Ok(Self::with_geometry(Geometry {
            points,
            rest: vec![seg; n],
            straight: true,
        }))
    }

    /// A cable through `points` (at least 2); each segment's rest length is
    /// the distance between its two points, as Flax derives them from a
    /// spline's keyframes.
    ///
    /// # Errors
    /// Fewer than 2 points, a non-finite or out-of-range coordinate, two
    /// consecutive coincident points, or more than [`crate::MAX_SEGMENTS`] segments.
    pub fn from_points(points: &[Vec3]) -> Result<Self, CableError> {
        if points.len() < 2 {
            return Err(CableError::TooFew {
                field: "points",
                min: 2,
                got: points.len(),
            });
        }
        if points.len() - 1 > crate::MAX_SEGMENTS as usize {
            return Err(CableError::OutOfRange {
                field: "points",
                expected: "must hold at most 16777217 points",
                value: points.len() as f64,
            });
        }
        for &p in points {
            check_vec3("points", p)?;
        }
        let mut rest = Vec::with_capacity(points.len() - 1);
        for (i, w) in points.windows(2).enumerate() {
            let d = w[0].distance(w[1]);
            if d <= crate::MIN_SEGMENT_LENGTH {
                return Err(CableError::ZeroLengthSegment { index: i + 1 });
            }
            rest.push(d);
        }
        Ok(Self::with_geometry(Geometry {
            points: points.to_vec(),
            rest,
            straight: false,
        }))
    }

    fn with_geometry(geometry: Geometry) -> Self {
        Self {
            geometry,
            attach_start: true,
            attach_end: true,
            params: CableParams::default(),
            pins: Vec::new(),
            mass_per_length: None,
        }
    }

    /// The inverse mass of each particle before pinning, 1/kg: 1 without
    /// [`CableDesc::mass_per_length`], else the inverse of half the mass
    /// of each segment next to the particle.
    ///
    /// # Errors
    /// `mass_per_length` not finite and greater than 0, or so small or so
    /// large that a particle's inverse mass is not a finite positive number.
    pub fn inverse_masses(&self) -> Result<Vec<f32>, CableError> {
        let n = self.particle_count();
        let Some(rho) = self.mass_per_length else {
            return Ok(vec![1.0; n]);
        };
        let rho = check_finite("mass_per_length", rho)?;
        if !(rho > 0.0 && rho <= 1.0e6) {
            return Err(CableError::OutOfRange {
                field: "mass_per_length",
                expected: "must be greater than 0 and at most 1e6",
                value: f64::from(rho),
            });
        }
        let rest = &self.geometry.rest;
        (0..n)
            .map(|i| {
                let left = if i > 0 { rest[i - 1] } else { 0.0 };
                let right = rest.get(i).copied().unwrap_or(0.0);
                let w = 1.0 / (0.5 * rho * (left + right));
                if w.is_finite() && w > 0.0 {
                    Ok(w)
                } else {
                    Err(CableError::OutOfRange {
                        field: "mass_per_length",
                        expected: "gives a particle mass that is zero or not finite",
                        value: f64::from(rho),
                    })
                }
            })
            .collect()
    }

    /// Checks the cable for a solver of substep `substep` seconds:
    /// [`CableParams::validate_for_substep`], and that no curvature
    /// constraint's compliance `l̄ / EI` divided by `substep²` overflows
    /// (with a tiny [`CableParams::bend_stiffness`] and a small substep it
    /// would; the solver would then produce NaN), now or after a winch
    /// changed the segments (the bound allows a segment half a segment
    /// longer than the longest).
    ///
    /// # Errors
    /// As [`CableParams::validate_for_substep`];
    /// [`CableError::OutOfRange`] naming `bend_stiffness` when a curvature
    /// compliance over `substep²` is too large.
    ///
    /// # Example
    /// ```
    /// use cable_core::CableDesc;
    /// use glam::Vec3;
    ///
    /// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
    /// desc.params.bend_stiffness = 1.0e-30; // about 0.3 m / 1e-30 N·m²: 3e29
    /// assert!(desc.validate_for_substep(1.0 / 60.0).is_err());
    /// desc.params.bend_stiffness = 1.0e-3;
    /// assert!(desc.validate_for_substep(1.0 / 60.0).is_ok());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn validate_for_substep(&self, substep: f32) -> Result<(), CableError> {
        self.params.validate_for_substep(substep)?;
        let rest = &self.geometry.rest;
        let max_rest = rest.iter().copied().fold(0.0f32, f32::max);
        // The pool's winch segment length (`ParticlePool::reel`).
        let seg = self.length() / rest.len().max(1) as f32;
        check_bend_for_substep(max_rest, seg, self.params.bend_stiffness, substep)
    }

    /// Checks the clamps ([`CableParams::clamp_start`], `clamp_end`)
    /// against the rest shape: a clamped cable's must be straight (no
    /// particle turning by more than [`MAX_CLAMPED_TURN`]).
    /// [`crate::ParticlePool::add_cable`] runs this check.
    ///
    /// # Errors
    /// [`CableError::OutOfRange`] naming `clamp_start` (or `clamp_end`)
    /// when the rest shape turns.
    ///
    /// # Example
    /// ```
    /// use cable_core::CableDesc;
    /// use glam::Vec3;
    ///
    /// let hook = [Vec3::ZERO, Vec3::X, Vec3::new(1.5, 0.5, 0.0)];
    /// let mut desc = CableDesc::from_points(&hook)?;
    /// desc.params.bend_stiffness = 2.0;
    /// desc.params.clamp_start = true;
    /// assert!(desc.check_clamps().is_err()); // pre-bent: it could roll
    /// let mut straight = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 8)?;
    /// straight.params = desc.params;
    /// assert!(straight.check_clamps().is_ok());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn check_clamps(&self) -> Result<(), CableError> {
        let n = self.particle_count();
        check_clamps(
            &self.params,
            (1..n.saturating_sub(1)).map(|i| self.rest_curvature(i)),
        )
    }

    /// The rest curvature at particle `i` (`2·tan(θ₀/2)` of the rest
    /// shape's turning angle θ₀ there; 0 at the ends): 0 along a
    /// [`CableDesc::line`], which is straight by construction; for
    /// [`CableDesc::from_points`] the discrete curvature of the points
    /// ([`crate::discrete_curvature`]), taken as 0 where it is within
    /// what rounding the points to `f32` can bend a straight line (far
    /// from the origin a metre's coordinates are rounded to millimetres:
    /// 1 km out, a straight line of 5 cm segments turns by up to 0.004 at
    /// its points).
    #[must_use]
    pub fn rest_curvature(&self, i: usize) -> f32 {
        let p = &self.geometry.points;
        if self.geometry.straight || i == 0 || i + 1 >= p.len() {
            return 0.0;
        }
        let (a, b, c) = (p[i - 1], p[i], p[i + 1]);
        let k = discrete_curvature(a, b, c);
        // Each coordinate is within half a spacing (ε/2 of its magnitude)
        // of where it was meant to be: the middle point moves the turn by
        // up to about 2·(spacing)/l, the outer ones by half that each.
        let scale = a
            .abs()
            .max_element()
            .max(b.abs().max_element())
            .max(c.abs().max_element());
        let l = a.distance(b).min(b.distance(c));
        let rounding = 4.0 * f32::EPSILON * scale / l;
        if k <= rounding { 0.0 } else { k }
    }

    /// Total rest length, metres.
    #[must_use]
    pub fn length(&self) -> f32 {
        // Summed in f64: millions of segments would drift in f32.
        self.geometry
            .rest
            .iter()
            .map(|&r| f64::from(r))
            .sum::<f64>() as f32
    }

    /// Number of particles (segments + 1).
    #[inline]
    #[must_use]
    pub fn particle_count(&self) -> usize {
        self.geometry.points.len()
    }

    /// Initial particle positions.
    #[inline]
    #[must_use]
    pub fn points(&self) -> &[Vec3] {
        &self.geometry.points
    }

    /// Rest length of each segment, metres (one fewer than the particles).
    #[inline]
    #[must_use]
    pub fn rest_lengths(&self) -> &[f32] {
        &self.geometry.rest
    }
}

/// The discrete curvature `2·|e₁ × e₂| / (|e₁||e₂| + e₁·e₂)` (that is
/// `2·tan(θ/2)` of the turning angle θ) at `b` of the polyline `a, b, c`;
/// 0 where it is not defined (a reversal or a degenerate segment).
#[must_use]
pub fn discrete_curvature(a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (e1, e2) = (b - a, c - b);
    let den = e1.length() * e2.length() + e1.dot(e2);
    let k = 2.0 * e1.cross(e2).length() / den;
    if den > 0.0 && k.is_finite() { k } else { 0.0 }
}

/// Refuses a clamp ([`CableParams::clamp_start`], `clamp_end`) on a cable
/// whose rest shape turns (rest curvatures `kappa0`) by more than
/// [`crate::MAX_CLAMPED_TURN`] anywhere: curvature without a material
/// frame has no sign, so a pre-bent cable would roll about its clamp.
pub(crate) fn check_clamps(
    params: &CableParams,
    kappa0: impl Iterator<Item = f32>,
) -> Result<(), CableError> {
    let field = match (params.clamp_start, params.clamp_end) {
        (true, _) => "clamp_start",
        (false, true) => "clamp_end",
        (false, false) => return Ok(()),
    };
    let most = kappa0.fold(0.0f32, f32::max);
    if most > crate::MAX_CLAMPED_TURN {
        return Err(CableError::OutOfRange {
            field,
            expected: "needs a straight rest shape: a clamped pre-bent cable (its roll about the clamp) is not simulated by this version; the rest shape's largest turn 2·tan(θ/2) at a particle must be at most 1e-3",
            value: f64::from(most),
        });
    }
    Ok(())
}

/// The point a fraction `t` of the way from `a` to `b`: `a·(1 − t) + b·t`
/// (glam's `lerp`) in each coordinate, but a coordinate that `a` and `b`
/// share is the point's exactly. (`lerp` rounds a shared coordinate by a
/// spacing here and there: far from the origin a line laid with it was
/// not straight, and a rod along it bent out of its plane by
/// millimetres; a winch paid out particles off its line.)
#[inline]
#[must_use]
pub(crate) fn along(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    let f = |a: f32, b: f32| if a == b { a } else { a * (1.0 - t) + b * t };
    Vec3::new(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z))
}
