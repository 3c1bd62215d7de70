//! The synthetic benchmark workloads of `cable bench` and of the criterion
//! benches: many equal cables hanging between two pinned ends, in free air
//! ([`BenchScene::Free`]), draped onto a ground plane and spheres
//! ([`BenchScene::Contact`]) or onto the ground alone
//! ([`BenchScene::Ground`]).

use std::time::{Duration, Instant};

use cable_core::{CableDesc, CableError, Collider, ParticlePool};
use cable_systems::{Layout, SolverParams, Stepper};
use glam::Vec3;

/// A synthetic workload: `cables` cables of `segments` segments, each
/// pinned at both ends 10 m apart with 12 m of rest length (so it sags and
/// every constraint works), solved with `iterations` iterations for
/// `substeps` substeps of 1/60 s.
///
/// # Example
/// ```
/// use cable::workload::Workload;
/// use cable::systems::Layout;
///
/// let w = Workload { cables: 64, segments: 16, iterations: 4, substeps: 10, ..Workload::default() };
/// let m = w.measure(Layout::Lanes8)?;
/// assert_eq!(m.segment_iterations, 64 * 16 * 4 * 10);
/// assert!(m.seconds > 0.0);
/// # Ok::<(), cable::CableError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Number of cables.
    pub cables: usize,
    /// Segments per cable.
    pub segments: u32,
    /// Solver iterations per substep.
    pub iterations: u32,
    /// Substeps measured.
    pub substeps: u32,
    /// Substeps per frame ([`Stepper::advance`] call): 1 is a game running
    /// one substep a frame; more lets a layout keep a cable hot in cache
    /// across the substeps of a frame.
    pub frame_substeps: u32,
    /// Where the cables hang.
    pub scene: BenchScene,
    /// Cables have tethers ([`cable_core::CableParams::tethers`], on by
    /// default in scenes). Off: the spec's classic step, the workload the
    /// layout figures are quoted for.
    pub tethers: bool,
    /// After every frame, read every particle's position through
    /// [`ParticlePool::cable`], as a renderer building the cables' meshes
    /// does: the timing then includes whatever the layout must copy back
    /// for a reader ([`ParticlePool::lend_state`]).
    pub read_every_frame: bool,
    /// Contact between cables ([`SolverParams::cable_collision`]).
    pub cable_collision: bool,
}

/// The scene of a [`Workload`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BenchScene {
    /// Cables on a grid 0.5 m apart, in free air: the solver alone.
    #[default]
    Free,
    /// Cables side by side 0.5 m apart, pinned 10 m apart at height 0 with
    /// 12 m of rope, so each drapes onto a ground plane at y = −2 m; 20
    /// spheres of radius 0.6 m sit under them along the row; friction 0.3.
    Contact,
    /// The contact scene without its spheres: the cables draped onto the
    /// ground plane alone (friction 0.3).
    Ground,
    /// Free cables 4 m long and 5 cm thick dropped into a 5 m × 5 m box
    /// (a floor and four walls, friction 0.3): layers of 25 straight
    /// cables 0.2 m apart, 0.2 m above each other, each layer across the
    /// one below. With [`Workload::cable_collision`] they pile up on each
    /// other; without, they pass through each other onto the floor.
    Pile,
}

impl BenchScene {
    /// The name used by `cable bench --scene`: `free`, `contact`, `ground`
    /// or `pile`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BenchScene::Free => "free",
            BenchScene::Contact => "contact",
            BenchScene::Ground => "ground",
            BenchScene::Pile => "pile",
        }
    }
}

impl std::str::FromStr for BenchScene {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "free" => Ok(BenchScene::Free),
            "contact" => Ok(BenchScene::Contact),
            "ground" => Ok(BenchScene::Ground),
            "pile" => Ok(BenchScene::Pile),
            _ => Err(format!(
                "unknown scene `{s}`; available: free, contact, ground, pile"
            )),
        }
    }
}

impl Default for Workload {
    /// The issue's workload: 10,000 cables × 32 segments, 8 iterations,
    /// 120 substeps, one substep per frame (`cable bench` runs all 120 in
    /// one frame unless told `--frame-substeps`).
    fn default() -> Self {
        Self {
            cables: 10_000,
            segments: 32,
            iterations: 8,
            substeps: 120,
            frame_substeps: 1,
            scene: BenchScene::Free,
            tethers: false,
            read_every_frame: false,
            cable_collision: false,
        }
    }
}

/// What one [`Workload::measure`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    /// The layout measured.
    pub layout: Layout,
    /// Wall-clock seconds of the measured substeps.
    pub seconds: f64,
    /// Segments × iterations × substeps × cables solved.
    pub segment_iterations: u64,
    /// Particles × substeps.
    pub particle_substeps: u64,
}

impl Measurement {
    /// Segment-iterations per second.
    #[must_use]
    pub fn segment_iterations_per_sec(&self) -> f64 {
        self.segment_iterations as f64 / self.seconds
    }

    /// Particle-substeps per second.
    #[must_use]
    pub fn particle_substeps_per_sec(&self) -> f64 {
        self.particle_substeps as f64 / self.seconds
    }
}

/// Every particle's position read once, folded into one number: what a
/// renderer reading the pool each frame costs, at least.
fn read_all(pool: &ParticlePool) -> f32 {
    (0..pool.cable_count())
        .filter_map(|i| pool.cable(i))
        .flat_map(|c| c.pos.iter())
        .fold(0.0, |a, p| a + p.x + p.y + p.z)
}

impl Workload {
    /// The solver parameters of the workload.
    #[must_use]
    pub fn params(&self) -> SolverParams {
        SolverParams {
            iterations: self.iterations,
            max_substeps: self.frame_substeps.max(1),
            friction: match self.scene {
                BenchScene::Free => 0.0,
                BenchScene::Contact | BenchScene::Ground | BenchScene::Pile => 0.3,
            },
            cable_collision: self.cable_collision,
            ..SolverParams::default()
        }
    }

    /// Builds the pool: cables on a grid 0.5 m apart, or the contact scene
    /// (see [`BenchScene`]).
    ///
    /// # Errors
    /// A count out of range (segments, iterations, particle budget).
    pub fn build(&self) -> Result<ParticlePool, CableError> {
        self.params().validate()?;
        let mut pool = ParticlePool::with_budget(crate::scene::SCENE_PARTICLE_BUDGET);
        if self.scene == BenchScene::Pile {
            self.build_pile(&mut pool)?;
            return Ok(pool);
        }
        if self.scene != BenchScene::Free {
            let width = self.cables as f32 * 0.5;
            for k in 0..self.cables {
                let start = Vec3::new(0.0, 0.0, k as f32 * 0.5);
                let mut desc = CableDesc::line(start, start + Vec3::X * 10.0, 12.0, self.segments)?;
                desc.params.tethers = self.tethers;
                pool.add_cable(&desc)?;
            }
            pool.colliders_mut().add(Collider::plane(Vec3::Y, -2.0)?);
            if self.scene == BenchScene::Ground {
                return Ok(pool);
            }
            for k in 0..20 {
                let z = (k as f32 + 0.5) / 20.0 * width;
                let x = 3.0 + (k % 3) as f32 * 2.0;
                pool.colliders_mut()
                    .add(Collider::sphere(Vec3::new(x, -1.6, z), 0.6)?);
            }
            return Ok(pool);
        }
        let side = (self.cables as f64).sqrt().ceil().max(1.0) as usize;
        for k in 0..self.cables {
            let (y, z) = ((k / side) as f32 * 0.5, (k % side) as f32 * 0.5);
            let start = Vec3::new(0.0, y, z);
            let mut desc = CableDesc::line(start, start + Vec3::X * 10.0, 12.0, self.segments)?;
            desc.params.tethers = self.tethers;
            pool.add_cable(&desc)?;
        }
        Ok(pool)
    }

    /// The pile ([`BenchScene::Pile`]): layers of 25 cables, alternately
    /// along x and along z, 0.2 m apart from 0.2 m up.
    fn build_pile(&self, pool: &mut ParticlePool) -> Result<(), CableError> {
        const ROW: usize = 25;
        for k in 0..self.cables {
            let (layer, i) = (k / ROW, k % ROW);
            let y = 0.2 + layer as f32 * 0.2;
            let across = -2.4 + i as f32 * 0.2;
            let (a, b) = if layer % 2 == 0 {
                (Vec3::new(-2.0, y, across), Vec3::new(2.0, y, across))
            } else {
                (Vec3::new(across, y, -2.0), Vec3::new(across, y, 2.0))
            };
            let mut desc = CableDesc::line(a, b, 4.0, self.segments)?;
            desc.attach_start = false;
            desc.attach_end = false;
            desc.params.radius = 0.025;
            desc.params.tethers = self.tethers;
            pool.add_cable(&desc)?;
        }
        let walls = pool.colliders_mut();
        walls.add(Collider::plane(Vec3::Y, 0.0)?);
        for n in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z] {
            walls.add(Collider::plane(n, -2.5)?);
        }
        Ok(())
    }

    /// Builds the pool and a stepper in `layout`, warmed up by one frame
    /// (buffers allocated, layout copies current): ready to time.
    ///
    /// # Errors
    /// As [`Workload::build`].
    pub fn prepare(&self, layout: Layout) -> Result<(ParticlePool, Stepper), CableError> {
        let mut pool = self.build()?;
        let mut stepper = Stepper::with_layout(self.params(), layout)?;
        // `run_substeps` does not check the cables for the substep: do it once here.
        stepper.validate_pool(&pool)?;
        stepper.run_substeps(&mut pool, self.frame_substeps.max(1));
        Ok((pool, stepper))
    }

    /// Segments × iterations of one substep over all cables.
    #[must_use]
    pub fn segment_iterations_per_substep(&self) -> u64 {
        self.cables as u64 * u64::from(self.segments) * u64::from(self.iterations)
    }

    /// Builds the pool, warms the layout up with one frame (not measured),
    /// then times `substeps` substeps on the current rayon pool.
    ///
    /// # Errors
    /// As [`Workload::build`].
    pub fn measure(&self, layout: Layout) -> Result<Measurement, CableError> {
        let (mut pool, mut stepper) = self.prepare(layout)?;
        let per = self.frame_substeps.max(1);
        let mut left = self.substeps;
        let started = Instant::now();
        while left > 0 {
            let n = per.min(left);
            stepper.run_substeps(&mut pool, n);
            left -= n;
            if self.read_every_frame {
                std::hint::black_box(read_all(&pool));
            }
        }
        let seconds = started.elapsed().max(Duration::from_nanos(1)).as_secs_f64();
        let (c, s, t) = (
            self.cables as u64,
            u64::from(self.segments),
            u64::from(self.substeps),
        );
        Ok(Measurement {
            layout,
            seconds,
            segment_iterations: c * s * u64::from(self.iterations) * t,
            particle_substeps: c * (s + 1) * t,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{BenchScene, Workload};

    /// Each scene builds what its documentation says, and its name parses
    /// back to it.
    #[test]
    fn scenes_build_their_colliders_and_names_round_trip() {
        for (scene, colliders, friction) in [
            (BenchScene::Free, 0, 0.0),
            (BenchScene::Contact, 21, 0.3),
            (BenchScene::Ground, 1, 0.3),
            (BenchScene::Pile, 5, 0.3),
        ] {
            assert_eq!(scene.name().parse::<BenchScene>(), Ok(scene));
            let w = Workload {
                scene,
                cables: 5,
                segments: 4,
                ..Workload::default()
            };
            let pool = w.build().expect("a valid workload");
            assert_eq!(pool.cable_count(), 5, "{}", scene.name());
            assert_eq!(pool.colliders().len(), colliders, "{}", scene.name());
            assert_eq!(w.params().friction, friction, "{}", scene.name());
        }
        let err = "floor".parse::<BenchScene>().expect_err("no such scene");
        assert!(err.contains("free, contact, ground, pile"), "{err}");
    }
}
