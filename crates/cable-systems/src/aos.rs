//! The `Aos` layout: the seeds' shape, one object per cable holding an array
//! of particle structs, stepped one cable after another on one thread, as
//! UE's `FCableSimulation` and Flax's `Cloth` rope do.
//!
//! It is kept as the readable reference and the baseline of the layout
//! benchmarks. Its arithmetic is the scalar solver's
//! ([`crate::constraints::project_pair`]) in the same order, so its results
//! are bitwise those of the other exact layouts. Buffers are kept between
//! frames: a warmed-up step does not allocate.

use cable_core::{CableParams, ParticlePool};
use glam::Vec3;

use crate::constraints::{project_pair, project_pair_compliant};
use crate::layout::Stages;
use crate::params::SolverParams;

/// One particle, as the seeds store it.
#[derive(Debug, Clone, Copy, Default)]
pub struct AosParticle {
    /// Position, metres.
    pub pos: Vec3,
    /// Previous position (Verlet state).
    pub prev: Vec3,
    /// Inverse mass, 1/kg; 0 = pinned.
    pub inv_mass: f32,
    /// Rest length of the segment to the next particle, metres (0 on the last).
    pub rest: f32,
    /// XPBD multiplier of the distance constraint to the next particle.
    pub lambda: f32,
    /// XPBD multiplier of the bending constraint to particle + 2.
    pub lambda_bend: f32,
}

/// One cable object: its particles and parameters.
#[derive(Debug, Clone, Default)]
pub struct AosCable {
    /// The particles, start to end.
    pub particles: Vec<AosParticle>,
    /// The cable's parameters.
    pub params: CableParams,
    /// Attachment target of each end.
    pub attach: [Option<Vec3>; 2],
}

impl AosCable {
    /// Runs one substep: attachments, integrate, constraints (the order of
    /// [`crate::step::substep_cable`]).
    pub fn substep(&mut self, params: &SolverParams, stages: Stages) {
        let ps = &mut self.particles;
        let last = ps.len() - 1;
        for (slot, row) in [(0, 0), (1, last)].into_iter().filter(|_| stages.attach) {
            if let Some(t) = self.attach[slot] {
                ps[row].pos = t;
                ps[row].prev = t;
            }
        }
        let h = params.substep;
        let dacc = (params.gravity * self.params.gravity_scale + self.params.force) * (h * h);
        let keep = params.velocity_keep();
        for p in ps.iter_mut().filter(|_| stages.integrate) {
            if p.inv_mass > 0.0 {
                let cur = p.pos;
                let v = (cur - p.prev) * keep;
                p.prev = cur;
                p.pos = cur + v + dacc;
            }
        }
        let stiff = self.params.stiffness && ps.len() >= 3;
        let compliance = self.params.compliance;
        let alpha_t = compliance / (h * h);
        if compliance != 0.0 {
            for p in ps.iter_mut() {
                p.lambda = 0.0;
                p.lambda_bend = 0.0;
            }
        }
        let iterations = if stages.constraints {
            params.iterations
        } else {
            0
        };
        for _ in 0..iterations {
            for span in [1, 2] {
                if span == 2 && !stiff {
                    break;
                }
                for i in 0..ps.len() - span {
                    let (a, b) = (ps[i], ps[i + span]);
                    let rest = if span == 1 {
                        a.rest
                    } else {
                        a.rest + ps[i + 1].rest
                    };
                    let (na, nb) = if compliance == 0.0 {
                        project_pair(a.pos, b.pos, a.inv_mass, b.inv_mass, rest)
                    } else {
                        let l = if span == 1 {
                            &mut ps[i].lambda
                        } else {
                            &mut ps[i].lambda_bend
                        };
                        project_pair_compliant(
                            a.pos, b.pos, a.inv_mass, b.inv_mass, rest, alpha_t, l,
                        )
                    };
                    ps[i].pos = na;
                    ps[i + span].pos = nb;
                }
            }
        }
    }
}

/// The `Aos` layout's cable objects, kept by the stepper between frames.
#[derive(Debug, Clone, Default)]
pub struct AosWorld {
    cables: Vec<AosCable>,
    /// Pool revision and parameters right after the last write-back: while
    /// both match, the cable objects hold the pool's current state.
    synced: Option<(u64, SolverParams)>,
    /// The pool\'s attachment revision the targets were copied at.
    synced_attach: u64,
}

impl AosWorld {
    /// The cable objects as of the last [`advance`], in pool order.
    #[must_use]
    pub fn cables(&self) -> &[AosCable] {
        &self.cables
    }
}

/// Runs `n` substeps of every cable in the `Aos` layout: copies the pool
/// into cable objects (when it changed since the last call), steps them one
/// after another on this thread, and copies the positions back.
pub fn advance(
    world: &mut AosWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
) {
    let current = world.synced == Some((pool.revision(), *params));
    if current && world.synced_attach != pool.attachment_revision() {
        // Only attachment targets moved: refresh them, keep the objects.
        for (i, obj) in world.cables.iter_mut().enumerate() {
            if let Some(c) = pool.cable(i) {
                obj.attach = *c.attach;
            }
        }
    }
    world.synced_attach = pool.attachment_revision();
    if !current {
        pool.compact();
        let count = pool.cable_count();
        world.cables.truncate(count);
        world.cables.resize_with(count, AosCable::default);
        for (i, obj) in world.cables.iter_mut().enumerate() {
            let Some(c) = pool.cable(i) else { continue };
            obj.params = *c.params;
            obj.attach = *c.attach;
            obj.particles.clear();
            obj.particles.extend((0..c.pos.len()).map(|r| AosParticle {
                pos: c.pos[r],
                prev: c.prev[r],
                inv_mass: c.inv_mass[r],
                rest: c.rest[r],
                lambda: 0.0,
                lambda_bend: 0.0,
            }));
        }
    }
    for obj in &mut world.cables {
        for _ in 0..n {
            obj.substep(params, stages);
        }
    }
    let cables = &world.cables;
    pool.par_for_each_cable_indexed(|i, c| {
        for ((p, q), s) in c
            .pos
            .iter_mut()
            .zip(c.prev.iter_mut())
            .zip(&cables[i].particles)
        {
            *p = s.pos;
            *q = s.prev;
        }
    });
    world.synced = Some((pool.revision(), *params));
}
