//! [`ParticlePool::check_same_setup`]: whether a restored pool is a run of
//! the scene a freshly built pool describes (the same cables, parameters,
//! masses, attachments and colliders), or a save of something else.

use glam::{Quat, Vec3};

use super::store::{CableRecord, ParticlePool};
use crate::cable::{CableParams, TeleportMode};
use crate::collider::Shape;

/// The first place where a restored pool is not a run of the scene it was
/// compared with ([`ParticlePool::check_same_setup`]), with the saved value
/// and the scene's. Displays as
/// `cables[1].params.compliance: save has 0.01, scene has 0`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: save has {saved}, scene has {scene}")]
pub struct SetupMismatch {
    /// Where: `cables[1].params.compliance`, `cables[0].rest[3]`,
    /// `colliders[2].shape`, `cables` (the count). Cables and colliders are
    /// numbered as the scene lists them (the pool's live ones in order).
    pub place: String,
    /// What the save holds there, as text.
    pub saved: String,
    /// What the scene's pool holds there, as text.
    pub scene: String,
}

impl SetupMismatch {
    /// A mismatch at `place`.
    #[must_use]
    pub fn new(
        place: impl Into<String>,
        saved: impl Into<String>,
        scene: impl Into<String>,
    ) -> Self {
        Self {
            place: place.into(),
            saved: saved.into(),
            scene: scene.into(),
        }
    }
}

/// A value a scene fixes: compared exactly, and shown in a message.
trait Shown {
    /// `0.01`, `[0, -9.81, 0]`, `true`, `none`.
    fn shown(&self) -> String;
    /// The same value, bit for bit (`-0` and `0` differ, as they may in
    /// results; the values are finite).
    fn same(&self, other: &Self) -> bool;
}

impl Shown for f32 {
    fn shown(&self) -> String {
        self.to_string()
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Shown for u32 {
    fn shown(&self) -> String {
        self.to_string()
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Shown for bool {
    fn shown(&self) -> String {
        self.to_string()
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Shown for Vec3 {
    fn shown(&self) -> String {
        format!("[{}, {}, {}]", self.x, self.y, self.z)
    }
    fn same(&self, other: &Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
}

impl Shown for Quat {
    fn shown(&self) -> String {
        format!("[{}, {}, {}, {}]", self.x, self.y, self.z, self.w)
    }
    fn same(&self, other: &Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
}

impl Shown for crate::End {
    fn shown(&self) -> String {
        format!("{self:?}").to_lowercase()
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Shown for crate::CollisionGroups {
    fn shown(&self) -> String {
        format!(
            "{{ memberships: {:#x}, filter: {:#x} }}",
            self.memberships, self.filter
        )
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Shown for TeleportMode {
    fn shown(&self) -> String {
        format!("{self:?}").to_lowercase()
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl Shown for Shape {
    fn shown(&self) -> String {
        match *self {
            Shape::Sphere { radius } => format!("a sphere of radius {radius}"),
            Shape::Capsule {
                half_length,
                radius,
            } => format!("a capsule of half length {half_length} and radius {radius}"),
            Shape::Plane => "a plane".into(),
            Shape::Cuboid { half_extents } => {
                format!("a box of half extents {}", half_extents.shown())
            }
        }
    }
    fn same(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Shape::Sphere { radius: a }, Shape::Sphere { radius: b }) => a.same(&b),
            (
                Shape::Capsule {
                    half_length: a,
                    radius: r,
                },
                Shape::Capsule {
                    half_length: b,
                    radius: s,
                },
            ) => a.same(&b) && r.same(&s),
            (Shape::Plane, Shape::Plane) => true,
            (Shape::Cuboid { half_extents: a }, Shape::Cuboid { half_extents: b }) => a.same(&b),
            _ => false,
        }
    }
}

impl<T: Shown> Shown for Option<T> {
    fn shown(&self) -> String {
        self.as_ref().map_or_else(|| "none".into(), Shown::shown)
    }
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// `Err` at `place` unless `saved` and `scene` are the same.
fn expect_same<T: Shown>(
    place: impl FnOnce() -> String,
    saved: &T,
    scene: &T,
) -> Result<(), SetupMismatch> {
    if saved.same(scene) {
        Ok(())
    } else {
        Err(SetupMismatch::new(place(), saved.shown(), scene.shown()))
    }
}

/// Compares every field of two cables' parameters, naming the first that
/// differs (`cables[1].params.compliance`).
fn check_params(
    k: usize,
    a: &CableParams,
    b: &CableParams,
    winch_stopped: bool,
) -> Result<(), SetupMismatch> {
    macro_rules! fields {
        ($($f:ident),* $(,)?) => {
            $(expect_same(|| format!("cables[{k}].params.{}", stringify!($f)), &a.$f, &b.$f)?;)*
        };
    }
    // Every field, so that a field added later fails to compile here
    // until it is compared.
    let CableParams {
        gravity_scale: _,
        force: _,
        stiffness: _,
        compliance: _,
        radius: _,
        sides: _,
        tile: _,
        tethers: _,
        bend_stiffness: _,
        clamp_start: _,
        clamp_end: _,
        break_tension: _,
        reel_speed: _,
        reel_end: _,
        reel_accel: _,
        reel_force: _,
        min_length: _,
        max_length: _,
        sleep_speed: _,
        sleep_delay: _,
        skip_when_hidden: _,
        damping: _,
        friction: _,
        iterations: _,
        teleport_distance: _,
        teleport_rotation: _,
        teleport_mode: _,
        collision_groups: _,
    } = *a;
    fields!(
        gravity_scale,
        force,
        stiffness,
        compliance,
        radius,
        sides,
        tile,
        tethers,
        bend_stiffness,
        clamp_start,
        clamp_end,
        break_tension,
        reel_end,
        reel_accel,
        reel_force,
        min_length,
        max_length,
        sleep_speed,
        sleep_delay,
        skip_when_hidden,
        damping,
        friction,
        iterations,
        teleport_distance,
        teleport_rotation,
        teleport_mode,
        collision_groups,
    );
    // The stepper stops a winch the particle budget cannot feed (its
    // `reel_speed` becomes 0, `stop_winch`): that is a run of the scene
    // too. A cable saved without a winch is not.
    let stopped = winch_stopped && a.reel_speed.to_bits() == 0 && b.reel_speed != 0.0;
    if !(stopped || a.reel_speed.same(&b.reel_speed)) {
        return Err(SetupMismatch::new(
            format!("cables[{k}].params.reel_speed"),
            a.reel_speed.shown(),
            b.reel_speed.shown(),
        ));
    }
    Ok(())
}

/// One row of a cable as a scene fixes it: the rest length of its segment,
/// its rest curvature, its inverse mass (pins and attached ends are 0) and
/// whether its segment is intact.
#[derive(Clone, Copy)]
struct Row {
    rest: f32,
    kappa0: f32,
    inv_mass: f32,
    linked: bool,
}

impl ParticlePool {
    /// Row `i` of cable `rec` as [`ParticlePool::row`] gives it, or with
    /// `mirrored` as seen from its end: particle `count - 1 - i`, with the
    /// segment towards the start (so a winch at the end looks like one at
    /// the start, and one comparison serves both).
    fn row_in(&self, rec: &CableRecord, i: usize, mirrored: bool) -> Row {
        if !mirrored {
            return self.row(rec.first + i);
        }
        let n = rec.count;
        let p = rec.first + n - 1 - i;
        // The segment before the particle; the start particle has none
        // (its own slot, unused, as the end particle's is unmirrored).
        let s = if i + 1 < n { p - 1 } else { rec.first + n - 1 };
        Row {
            rest: self.rest[s],
            kappa0: self.row_const[p].kappa0,
            inv_mass: self.inv_mass[p],
            linked: self.row_const[s].linked,
        }
    }

    /// Row `r` of the columns.
    fn row(&self, r: usize) -> Row {
        Row {
            rest: self.rest[r],
            kappa0: self.row_const[r].kappa0,
            inv_mass: self.inv_mass[r],
            linked: self.row_const[r].linked,
        }
    }

    /// Checks that this pool, restored from a save, is a run of the scene
    /// whose freshly built pool is `scene` (its cables added in the
    /// scene's order, its colliders after them, nothing run): a save of
    /// another scene is refused, naming the first difference.
    ///
    /// What a scene fixes must be the same, bit for bit: the particle
    /// budget; the number of cables and, for each in order, its parameters
    /// (with the winch bounds the pool resolved), its attachment targets,
    /// the inverse masses its attached ends return to, its linear density
    /// and winch segment, and each particle's rest length, rest curvature
    /// and inverse mass (so its pins and masses); the colliders in order,
    /// each with its shape and pose, and the pose the last substep used.
    ///
    /// What a run changes may differ: positions, velocities, multipliers,
    /// sleep (of a cable whose `sleep_speed` lets it sleep); a winch the
    /// particle budget stopped ([`ParticlePool::stop_winch`]) has a
    /// `reel_speed` of 0;
    /// a segment of a cable with a
    /// [`CableParams::break_tension`] may have broken; and a cable with a
    /// turning winch ([`CableParams::reel_speed`] ≠ 0) may have gained
    /// particles after its start (each on a winch segment, with a positive
    /// inverse mass and no rest curvature) or lost the scene's, its first
    /// segment then of any length up to 1.5 winch segments plus the
    /// scene's longest (what [`ParticlePool::reel`] leaves), the rest of
    /// its rows those of the scene's end. Colliders are compared by shape
    /// and kinematic motion, and those at rest also by pose (a kinematic
    /// collider's pose is what the run made of it); a game that moves
    /// colliders itself compares their shapes itself.
    ///
    /// O(particles + colliders). Call it on a pool that passed
    /// [`ParticlePool::validate`] (a restored pool did); `scene` is one
    /// built through the API.
    ///
    /// # Errors
    /// A [`SetupMismatch`] naming the first difference, such as
    /// `cables[1].params.compliance: save has 0.01, scene has 0`.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let build = |compliance: f32| -> Result<ParticlePool, cable_core::CableError> {
    ///     let mut pool = ParticlePool::new();
    ///     let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
    ///     desc.params.compliance = compliance;
    ///     pool.add_cable(&desc)?;
    ///     Ok(pool)
    /// };
    /// let mut run = build(0.0)?;
    /// let h = run.handles().next().unwrap();
    /// run.positions_mut(h)?[2].y -= 0.1; // a run moves particles
    /// assert!(run.check_same_setup(&build(0.0)?).is_ok());
    /// let err = run.check_same_setup(&build(0.01)?).unwrap_err();
    /// assert_eq!(err.to_string(), "cables[0].params.compliance: save has 0, scene has 0.01");
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn check_same_setup(&self, scene: &ParticlePool) -> Result<(), SetupMismatch> {
        if self.budget != scene.budget {
            return Err(SetupMismatch::new(
                "budget",
                format!("{} particles", self.budget),
                format!("{} particles", scene.budget),
            ));
        }
        let (saved, built) = (self.live_records(), scene.live_records());
        if saved.len() != built.len() {
            return Err(SetupMismatch::new(
                "cables",
                format!("{} cables", saved.len()),
                format!("{} cables", built.len()),
            ));
        }
        for (k, (a, b)) in saved.iter().zip(&built).enumerate() {
            self.check_cable(k, a, scene, b)?;
        }
        let (saved, built): (Vec<_>, Vec<_>) = (
            self.colliders.live_entries().collect(),
            scene.colliders.live_entries().collect(),
        );
        if saved.len() != built.len() {
            return Err(SetupMismatch::new(
                "colliders",
                format!("{} colliders", saved.len()),
                format!("{} colliders", built.len()),
            ));
        }
        for (i, ((a, stepped), (b, _))) in saved.iter().zip(&built).enumerate() {
            expect_same(|| format!("colliders[{i}].shape"), &a.shape(), &b.shape())?;
            expect_same(
                || format!("colliders[{i}].velocity"),
                &a.velocity(),
                &b.velocity(),
            )?;
            expect_same(
                || format!("colliders[{i}].angular_velocity"),
                &a.angular_velocity(),
                &b.angular_velocity(),
            )?;
            if b.is_kinematic() {
                // Its pose is what the run made of the scene's: not compared.
                continue;
            }
            expect_same(
                || format!("colliders[{i}].position"),
                &a.position(),
                &b.position(),
            )?;
            expect_same(
                || format!("colliders[{i}].rotation"),
                &a.rotation(),
                &b.rotation(),
            )?;
            // A scene's colliders at rest never move: the last substep used
            // the pose.
            expect_same(
                || format!("colliders[{i}].stepped.position"),
                &stepped.0,
                &b.position(),
            )?;
            expect_same(
                || format!("colliders[{i}].stepped.rotation"),
                &stepped.1,
                &b.rotation(),
            )?;
        }
        Ok(())
    }

    /// The live cables' records, in order.
    fn live_records(&self) -> Vec<&CableRecord> {
        self.cables.iter().filter(|c| c.alive).collect()
    }

    /// [`ParticlePool::check_same_setup`] of live cable `k`: `a` of this
    /// pool, `b` of `scene`.
    fn check_cable(
        &self,
        k: usize,
        a: &CableRecord,
        scene: &ParticlePool,
        b: &CableRecord,
    ) -> Result<(), SetupMismatch> {
        let (na, nb) = (a.count, b.count);
        let breakable = b.params.break_tension.is_some();
        let at = |field: &str| format!("cables[{k}].{field}");
        // A winch at the end is the mirror image of one at the start: its
        // rows are compared as seen from the end (`row_in`).
        let mirrored = b.params.reel_speed != 0.0 && b.params.reel_end == crate::End::End;
        // Row `i` of the saved cable against row `j` of the scene's.
        let row = |i: usize, j: usize| -> Result<(), SetupMismatch> {
            let (x, y) = (self.row_in(a, i, mirrored), scene.row_in(b, j, mirrored));
            expect_same(|| at(&format!("rest[{i}]")), &x.rest, &y.rest)?;
            expect_same(|| at(&format!("kappa0[{i}]")), &x.kappa0, &y.kappa0)?;
            expect_same(|| at(&format!("inv_mass[{i}]")), &x.inv_mass, &y.inv_mass)?;
            // A segment may have broken (for good) if the cable can break.
            if x.linked != y.linked && !(breakable && y.linked) {
                return Err(SetupMismatch::new(
                    at(&format!("linked[{i}]")),
                    x.linked.shown(),
                    y.linked.shown(),
                ));
            }
            Ok(())
        };
        let winch = b.params.reel_speed != 0.0;
        if !winch {
            // No winch: the rows are the scene's. Compared before the
            // parameters, so that a cable of another length or segment
            // count is named as such (not by the winch bounds derived
            // from them).
            if na != nb {
                return Err(SetupMismatch::new(
                    at("count"),
                    format!("{na} particles"),
                    format!("{nb} particles (and no winch)"),
                ));
            }
            for i in 0..na {
                let (x, y) = (self.rest[a.first + i], scene.rest[b.first + i]);
                expect_same(|| at(&format!("rest[{i}]")), &x, &y)?;
            }
        }
        check_params(k, &a.params, &b.params, a.winch_stopped)?;
        if a.sleep.asleep && b.params.sleep_speed <= 0.0 {
            return Err(SetupMismatch::new(
                format!("cables[{k}].sleep.asleep"),
                "true",
                "a cable that never sleeps (sleep_speed 0)",
            ));
        }
        expect_same(
            || at("mass_per_length"),
            &a.mass_per_length,
            &b.mass_per_length,
        )?;
        expect_same(|| at("reel_segment"), &a.reel_segment, &b.reel_segment)?;
        for end in 0..2 {
            expect_same(
                || at(&format!("attach[{end}]")),
                &a.attach[end],
                &b.attach[end],
            )?;
            expect_same(
                || at(&format!("end_inv_mass[{end}]")),
                &a.end_inv_mass[end],
                &b.end_inv_mass[end],
            )?;
        }
        if !winch {
            return (0..na).try_for_each(|i| row(i, i));
        }
        // A winch: [start, added particles..., the scene's last t rows].
        let (first, seg) = (self.row_in(a, 0, mirrored), a.reel_segment);
        let start = scene.row_in(b, 0, mirrored);
        expect_same(|| at("kappa0[0]"), &first.kappa0, &start.kappa0)?;
        expect_same(|| at("inv_mass[0]"), &first.inv_mass, &start.inv_mass)?;
        if first.linked != start.linked && !(breakable && start.linked) {
            return Err(SetupMismatch::new(
                at("linked[0]"),
                first.linked.shown(),
                start.linked.shown(),
            ));
        }
        let longest = scene.rest[b.first..b.first + nb]
            .iter()
            .copied()
            .fold(0.0, f32::max);
        let reach = 1.5 * seg + longest;
        if first.rest > reach {
            return Err(SetupMismatch::new(
                at("rest[0]"),
                first.rest.to_string(),
                format!(
                    "a winch whose first segment is at most {reach} (1.5 winch segments of {seg} and the longest segment, {longest})"
                ),
            ));
        }
        // The scene's rows at the end, and the added rows after the start.
        let mut common = (1..na.min(nb))
            .take_while(|&d| row(na - d, nb - d).is_ok())
            .count();
        // With `mass_per_length` the winch weighs again the particles next
        // to the segments it changed: the first of the scene's particles
        // kept may weigh what its new neighbour segment says.
        if a.mass_per_length.is_some() && common + 1 < na.min(nb) {
            let (x, y) = (
                self.row_in(a, na - 1 - common, mirrored),
                scene.row_in(b, nb - 1 - common, mirrored),
            );
            if x.rest.to_bits() == y.rest.to_bits()
                && x.kappa0.to_bits() == y.kappa0.to_bits()
                && x.inv_mass > 0.0
                && (x.linked == y.linked || (breakable && y.linked))
            {
                common += 1;
            }
        }
        let added = (1..na)
            .take_while(|&i| {
                let x = self.row_in(a, i, mirrored);
                x.rest.to_bits() == seg.to_bits()
                    && x.kappa0 == 0.0
                    && x.inv_mass > 0.0
                    && (x.linked || breakable)
            })
            .count();
        // The scene's last `t` rows are kept (the last always is), and the
        // `na - 1 - t` rows before them were added.
        let t_min = (na - 1 - added).max(1);
        let t_max = common.min(nb - 1);
        if t_min <= t_max {
            return Ok(());
        }
        if common < na.min(nb) - 1 {
            // The first row from the end that is not the scene's.
            row(na - 1 - common, nb - 1 - common)?;
        }
        let i = added + 1;
        let x = self.row_in(a, i, mirrored);
        Err(SetupMismatch::new(
            at(&format!("particle[{i}]")),
            format!(
                "one of rest length {}, rest curvature {} and inverse mass {}",
                x.rest, x.kappa0, x.inv_mass
            ),
            format!(
                "none that could be there (its own particles end the cable; its winch adds particles of rest length {seg} and rest curvature 0)"
            ),
        ))
    }
}
