//! The integrator the Unity Verlet-rope write-ups compare Verlet with:
//! explicit (forward) Euler with a stored velocity, and the same stick
//! constraints as the classic step, in f64.
//!
//! One substep of `h` seconds:
//! 1. every free particle: `p ← p + h·v`, then `v ← v + h·a` (forward
//!    Euler: both from the values at the start of the substep);
//! 2. `iterations` sweeps over the sticks in order, each moving its ends
//!    along their difference to the rest length (half each when both are
//!    free, all onto the free one when one is pinned), exactly as
//!    [`crate::classic`] does.
//!
//! The stored velocity does not see the sticks' corrections: that is the
//! point of the comparison. Verlet keeps no velocity (it is
//! `p − p_old`), so every correction a constraint makes is also a change
//! of velocity, and a rope of stiff sticks stays bounded; with a stored
//! velocity the corrections are invisible to it, and the energy it
//! carries grows without bound (`examples/verlet_vs_euler.rs`).

use glam::Vec3;

/// A rope of particles of 1 kg each, integrated by explicit Euler.
#[derive(Clone, Debug)]
pub struct EulerRope {
    /// Positions, metres.
    pub position: Vec<[f64; 3]>,
    /// Stored velocities, m/s.
    pub velocity: Vec<[f64; 3]>,
    /// Whether each particle is pinned where it started.
    pub pinned: Vec<bool>,
    /// Rest length of each stick (segment `i` joins particles `i`, `i + 1`).
    pub rest: Vec<f64>,
    /// Acceleration of every free particle, m/s².
    pub accel: [f64; 3],
}

impl EulerRope {
    /// A rope at rest on `points` (at least two), every particle free, each
    /// stick as long as the distance between its two points.
    pub fn new(points: &[Vec3], accel: Vec3) -> Self {
        assert!(points.len() >= 2, "a rope has at least one stick");
        let position: Vec<[f64; 3]> = points.iter().map(|p| p.to_array().map(f64::from)).collect();
        let rest = points
            .windows(2)
            .map(|w| f64::from(w[0].distance(w[1])))
            .collect();
        Self {
            velocity: vec![[0.0; 3]; position.len()],
            pinned: vec![false; position.len()],
            position,
            rest,
            accel: accel.to_array().map(f64::from),
        }
    }

    /// One substep of `h` seconds with `iterations` stick sweeps.
    pub fn substep(&mut self, h: f64, iterations: u32) {
        for i in 0..self.position.len() {
            if self.pinned[i] {
                continue;
            }
            for k in 0..3 {
                self.position[i][k] += h * self.velocity[i][k];
                self.velocity[i][k] += h * self.accel[k];
            }
        }
        for _ in 0..iterations {
            for i in 0..self.rest.len() {
                let (a_free, b_free) = (!self.pinned[i], !self.pinned[i + 1]);
                if !a_free && !b_free {
                    continue;
                }
                let (a, b) = (self.position[i], self.position[i + 1]);
                let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                if len <= f64::from(cable_core::MIN_SEGMENT_LENGTH) {
                    continue;
                }
                let err = (len - self.rest[i]) / len;
                let (ka, kb) = match (a_free, b_free) {
                    (true, true) => (0.5, 0.5),
                    (true, false) => (1.0, 0.0),
                    _ => (0.0, 1.0),
                };
                for (k, dk) in d.iter().enumerate() {
                    self.position[i][k] += ka * err * dk;
                    self.position[i + 1][k] -= kb * err * dk;
                }
            }
        }
    }

    /// Kinetic plus potential energy of the free particles, joules (1 kg
    /// each; the potential of the acceleration field is `−a · p`).
    pub fn energy(&self) -> f64 {
        let mut e = 0.0;
        for i in 0..self.position.len() {
            if self.pinned[i] {
                continue;
            }
            let (p, v) = (self.position[i], self.velocity[i]);
            e += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            e -= self.accel[0] * p[0] + self.accel[1] * p[1] + self.accel[2] * p[2];
        }
        e
    }

    /// The longest stick over its rest length, minus 1.
    pub fn worst_stretch(&self) -> f64 {
        self.rest
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (a, b) = (self.position[i], self.position[i + 1]);
                let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() / r - 1.0
            })
            .fold(0.0, f64::max)
    }
}

/// Kinetic plus potential energy of free particles of 1 kg given by their
/// positions and their positions one substep of `h` seconds earlier (the
/// velocity a Verlet integrator carries: `(p − p_old) / h`), in the
/// acceleration field `accel`, joules. `free` says which particles count.
pub fn verlet_energy(position: &[Vec3], prev: &[Vec3], free: &[bool], h: f64, accel: Vec3) -> f64 {
    let a = accel.to_array().map(f64::from);
    let mut e = 0.0;
    for ((p, q), &f) in position.iter().zip(prev).zip(free) {
        if !f {
            continue;
        }
        let (p, q) = (p.to_array().map(f64::from), q.to_array().map(f64::from));
        let v = [(p[0] - q[0]) / h, (p[1] - q[1]) / h, (p[2] - q[2]) / h];
        e += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        e -= a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
    }
    e
}

#[cfg(test)]
mod tests {
    use super::EulerRope;
    use glam::Vec3;

    #[test]
    fn a_free_particle_falls_by_forward_euler() {
        let mut r = EulerRope::new(&[Vec3::ZERO, Vec3::X], Vec3::new(0.0, -10.0, 0.0));
        r.pinned[0] = true;
        // Two substeps of 0.1 s, no sticks: y = 0 + 0.1·0, then 0.1·(−1).
        r.substep(0.1, 0);
        assert_eq!(r.position[1][1], 0.0);
        r.substep(0.1, 0);
        assert!((r.position[1][1] + 0.1).abs() < 1e-12);
        assert!((r.velocity[1][1] + 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_stick_puts_its_free_end_back_at_the_rest_length() {
        let mut r = EulerRope::new(&[Vec3::ZERO, Vec3::X], Vec3::new(0.0, -10.0, 0.0));
        r.pinned[0] = true;
        r.velocity[1] = [0.0, -5.0, 0.0];
        r.substep(0.1, 1);
        let p = r.position[1];
        let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-12, "{len}");
        // The stored velocity did not see the correction.
        assert!((r.velocity[1][1] + 6.0).abs() < 1e-12);
    }
}
