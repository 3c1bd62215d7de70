//! The reference oracle of the spec's classic step ("Reference
//! semantics": UE's `VerletIntegrate` + `SolveDistanceConstraint`),
//! written out independently of the solver on plain arrays, particle by
//! particle, axis by axis.
//!
//! One substep of one cable:
//! 1. pinned particles are put on their targets;
//! 2. every free particle moves by Verlet: `x + (x − x_prev) + h²·a`;
//! 3. `iterations` sweeps over the segments in order: a segment whose
//!    length `d` is over [`MIN_SEGMENT_LENGTH`] moves its ends by
//!    `(d − rest) / d` of their difference, half each when both are free,
//!    all onto the free one when one is pinned, nothing when both are.
//!
//! No damping, compliance, bending, tethers, colliders or masses: it is
//! what the solver's classic configuration must give "to float rounding".
//! The arithmetic is chosen by [`Precision`].

use cable_core::MIN_SEGMENT_LENGTH;
use glam::Vec3;

/// The arithmetic of a reference run.
///
/// `F32` rounds every operation's result to f32, which is exactly f32
/// arithmetic (f64 has more than 2·24 + 2 bits, so rounding the f64 result
/// of +, −, ×, ÷ or √ of f32 values to f32 gives the correctly rounded
/// f32 result); `F64` keeps double precision, the reference for accuracy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// f32 arithmetic, operation by operation.
    F32,
    /// f64 arithmetic.
    F64,
}

impl Precision {
    fn r(self, x: f64) -> f64 {
        match self {
            Precision::F32 => f64::from(x as f32),
            Precision::F64 => x,
        }
    }
}

/// One cable of the reference: positions, previous positions, pins (with
/// their targets), one rest length for every segment, and the
/// acceleration of its free particles.
#[derive(Clone, Debug)]
pub struct ClassicCable {
    /// Positions, metres.
    pub position: Vec<[f64; 3]>,
    /// Positions one substep earlier.
    pub prev: Vec<[f64; 3]>,
    /// `Some(target)` for a pinned particle: it sits on its target.
    pub pinned: Vec<Option<[f64; 3]>>,
    /// The rest length of every segment, metres.
    pub rest: f64,
    /// Acceleration of every free particle (gravity × scale + force), m/s².
    pub accel: [f64; 3],
}

fn v64(p: Vec3) -> [f64; 3] {
    p.to_array().map(f64::from)
}

impl ClassicCable {
    /// A cable at rest on `points` (at least two), every particle free.
    pub fn new(points: &[Vec3], rest: f32, accel: Vec3) -> Self {
        assert!(points.len() >= 2, "a cable has at least one segment");
        let at: Vec<[f64; 3]> = points.iter().copied().map(v64).collect();
        Self {
            prev: at.clone(),
            pinned: vec![None; at.len()],
            position: at,
            rest: f64::from(rest),
            accel: v64(accel),
        }
    }

    /// Pins particle `i` to `target`.
    pub fn pin(&mut self, i: usize, target: Vec3) -> &mut Self {
        self.pinned[i] = Some(v64(target));
        self
    }

    /// Takes a state to step from (a pool's positions and previous
    /// positions of this cable, say).
    pub fn load(&mut self, positions: &[Vec3], prev: &[Vec3]) {
        assert_eq!(positions.len(), self.position.len(), "particle count");
        assert_eq!(prev.len(), self.prev.len(), "particle count");
        for (x, p) in self.position.iter_mut().zip(positions) {
            *x = v64(*p);
        }
        for (x, p) in self.prev.iter_mut().zip(prev) {
            *x = v64(*p);
        }
    }

    /// One classic substep of `h` seconds with `iterations` constraint
    /// sweeps, in the arithmetic `fp`.
    pub fn substep(&mut self, h: f32, iterations: u32, fp: Precision) {
        let n = self.position.len();
        // 1. attachments
        for i in 0..n {
            if let Some(target) = self.pinned[i] {
                self.position[i] = target;
                self.prev[i] = target;
            }
        }
        // 2. Verlet
        let h = f64::from(h);
        let h2 = fp.r(h * h);
        for i in 0..n {
            if self.pinned[i].is_some() {
                continue;
            }
            let (p, old) = (self.position[i], self.prev[i]);
            let mut new = [0f64; 3];
            for k in 0..3 {
                let vel = fp.r(p[k] - old[k]);
                let x = fp.r(p[k] + vel);
                new[k] = fp.r(x + fp.r(h2 * self.accel[k]));
            }
            self.prev[i] = p;
            self.position[i] = new;
        }
        // 3. constraints
        for _ in 0..iterations {
            for i in 0..n - 1 {
                let (a_free, b_free) = (self.pinned[i].is_none(), self.pinned[i + 1].is_none());
                if !a_free && !b_free {
                    continue;
                }
                let (a, b) = (self.position[i], self.position[i + 1]);
                let d = [fp.r(b[0] - a[0]), fp.r(b[1] - a[1]), fp.r(b[2] - a[2])];
                let sq = fp.r(fp.r(fp.r(d[0] * d[0]) + fp.r(d[1] * d[1])) + fp.r(d[2] * d[2]));
                let len = fp.r(sq.sqrt());
                if len <= f64::from(MIN_SEGMENT_LENGTH) {
                    continue;
                }
                let err = fp.r(fp.r(len - self.rest) / len);
                for k in 0..3 {
                    if a_free && b_free {
                        let m = fp.r(fp.r(0.5 * err) * d[k]);
                        self.position[i][k] = fp.r(a[k] + m);
                        self.position[i + 1][k] = fp.r(b[k] - m);
                    } else if a_free {
                        self.position[i][k] = fp.r(a[k] + fp.r(err * d[k]));
                    } else {
                        self.position[i + 1][k] = fp.r(b[k] - fp.r(err * d[k]));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ClassicCable, Precision};
    use glam::Vec3;

    #[test]
    fn a_free_particle_falls_by_verlet_and_a_pinned_one_stays() {
        let mut c = ClassicCable::new(&[Vec3::ZERO, Vec3::X], 1.0, Vec3::new(0.0, -10.0, 0.0));
        c.pin(0, Vec3::ZERO);
        c.substep(0.1, 0, Precision::F64);
        assert_eq!(c.position[0], [0.0; 3]);
        let y = c.position[1][1];
        assert!((y + 0.1).abs() < 1e-6, "{y}");
    }

    #[test]
    fn a_stretched_segment_between_free_ends_comes_back_symmetrically() {
        let mut c = ClassicCable::new(&[Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)], 1.0, Vec3::ZERO);
        c.substep(0.01, 1, Precision::F32);
        assert_eq!(c.position[0], [0.5, 0.0, 0.0]);
        assert_eq!(c.position[1], [1.5, 0.0, 0.0]);
    }
}
