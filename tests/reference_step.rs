//! The default step is exactly the classic step of the spec's "Reference
//! semantics", compared bit for bit with a straightforward, independent
//! array-of-structs implementation written here from the spec (UE's
//! `VerletIntegrate` + `SolveDistanceConstraint`).

mod common;

use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use common::Rng;
use glam::Vec3;

/// One particle as UE stores it.
#[derive(Clone, Copy)]
struct Particle {
    free: bool,
    position: [f32; 3],
    old_position: [f32; 3],
}

struct RefCable {
    particles: Vec<Particle>,
    segment_length: f32,
    start: [f32; 3],
    end: [f32; 3],
    attach_start: bool,
    attach_end: bool,
    accel: [f32; 3],
}

fn reference_substep(c: &mut RefCable, h: f32, iterations: u32) {
    let n = c.particles.len();
    // 1. attachments
    if c.attach_start {
        c.particles[0].position = c.start;
        c.particles[0].old_position = c.start;
    }
    if c.attach_end {
        c.particles[n - 1].position = c.end;
        c.particles[n - 1].old_position = c.end;
    }
    // 2. Verlet
    let h2 = h * h;
    for p in &mut c.particles {
        if p.free {
            let mut new = [0f32; 3];
            #[allow(clippy::needless_range_loop)] // k is the axis, as in the spec
            for k in 0..3 {
                let vel = p.position[k] - p.old_position[k];
                new[k] = p.position[k] + vel + h2 * c.accel[k];
            }
            p.old_position = p.position;
            p.position = new;
        }
    }
    // 3. constraints
    for _ in 0..iterations {
        for i in 0..n - 1 {
            let (a, b) = (c.particles[i], c.particles[i + 1]);
            if !a.free && !b.free {
                continue;
            }
            let delta = [
                b.position[0] - a.position[0],
                b.position[1] - a.position[1],
                b.position[2] - a.position[2],
            ];
            let dist = (delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]).sqrt();
            let err = (dist - c.segment_length) / dist;
            #[allow(clippy::needless_range_loop)] // k is the axis, as in the spec
            for k in 0..3 {
                if a.free && b.free {
                    c.particles[i].position[k] += 0.5 * err * delta[k];
                    c.particles[i + 1].position[k] -= 0.5 * err * delta[k];
                } else if a.free {
                    c.particles[i].position[k] += err * delta[k];
                } else {
                    c.particles[i + 1].position[k] -= err * delta[k];
                }
            }
        }
    }
}

#[test]
fn default_substep_is_the_classic_step_bit_for_bit() {
    let mut rng = Rng(7);
    for scene in 0..20 {
        let gravity = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-20.0, 0.0),
            rng.range(-1.0, 1.0),
        );
        let h = [1.0 / 60.0, 1.0 / 120.0, 0.01, 1.0 / 30.0][scene % 4];
        let iterations = rng.int(1, 17) as u32;
        let mut pool = ParticlePool::new();
        let mut refs = Vec::new();
        for _ in 0..rng.int(1, 12) {
            let start = Vec3::new(
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
            );
            let end = start
                + Vec3::new(
                    rng.range(0.5, 8.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                );
            let length = start.distance(end) * rng.range(0.8, 1.6);
            let segments = rng.int(1, 40) as u32;
            let mut desc = CableDesc::line(start, end, length, segments).unwrap();
            desc.attach_start = rng.coin();
            desc.attach_end = rng.coin();
            desc.params.tethers = false; // the spec's classic step has none
            desc.params.gravity_scale = rng.range(0.0, 2.0);
            desc.params.force = Vec3::new(rng.range(-3.0, 3.0), 0.0, rng.range(-3.0, 3.0));
            pool.add_cable(&desc).unwrap();
            // The reference starts from the same initial points and derives
            // everything else itself.
            let points = desc.points();
            let n = points.len();
            let particles = points
                .iter()
                .enumerate()
                .map(|(i, p)| Particle {
                    free: !((i == 0 && desc.attach_start) || (i == n - 1 && desc.attach_end)),
                    position: p.to_array(),
                    old_position: p.to_array(),
                })
                .collect();
            let gs = desc.params.gravity_scale;
            let f = desc.params.force;
            refs.push(RefCable {
                particles,
                segment_length: length / segments as f32,
                start: start.to_array(),
                end: end.to_array(),
                attach_start: desc.attach_start,
                attach_end: desc.attach_end,
                accel: [
                    gravity.x * gs + f.x,
                    gravity.y * gs + f.y,
                    gravity.z * gs + f.z,
                ],
            });
        }
        let params = SolverParams {
            gravity,
            substep: h,
            iterations,
            ..SolverParams::default()
        };
        let mut stepper = Stepper::new(params).unwrap();
        for step in 0..90 {
            assert_eq!(stepper.advance(&mut pool, h).unwrap(), 1);
            for (handle, r) in pool.handles().zip(&mut refs) {
                reference_substep(r, h, iterations);
                let ours = pool.positions(handle).unwrap();
                for (i, (p, q)) in ours.iter().zip(&r.particles).enumerate() {
                    let same = p
                        .to_array()
                        .iter()
                        .zip(q.position)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(
                        same,
                        "scene {scene} substep {step} particle {i}: {p} vs reference {:?}",
                        q.position
                    );
                }
            }
        }
    }
}
