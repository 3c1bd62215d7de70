//! Constraints system: Gauss-Seidel relaxation of distance and bending
//! constraints, rigid (classic) or compliant (XPBD).
//!
//! Each of the substep's `iterations` sweeps visits the segments in order
//! 0, 1, …, n − 1 and moves the two particles of each along their difference
//! so that the segment regains its rest length, shared by inverse mass
//! (half each for equal masses, all of it onto the free one when the other
//! is pinned, nothing when both are pinned). With `stiffness`, a second
//! sweep does the same for particles i and i + 2 at the sum of the two rest
//! lengths (UE's and Flax's bending). Segments shorter than
//! [`cable_core::MIN_SEGMENT_LENGTH`] are skipped: their direction is undefined.
//!
//! With compliance α > 0 the sweeps are XPBD (Macklin et al. 2016): each
//! constraint accumulates a multiplier λ over the substep's iterations and
//! moves by `Δλ = (−C − α̃·λ) / (w_a + w_b + α̃)` with `α̃ = α / h²`. With
//! α = 0 the classic projection runs instead, so a rigid cable is exactly
//! UE's `SolveDistanceConstraint`.

use cable_core::{CableMut, MIN_SEGMENT_LENGTH, ParticlePool};
use glam::Vec3;

use crate::collide::Contacts;
use crate::params::SolverParams;

/// Classic rigid projection of the constraint |pos[j] − pos[i]| = rest.
#[inline(always)]
pub(crate) fn project(pos: &mut [Vec3], i: usize, j: usize, wa: f32, wb: f32, rest: f32) {
    let (a, b) = project_pair(pos[i], pos[j], wa, wb, rest);
    pos[i] = a;
    pos[j] = b;
}

/// The classic rigid projection of the constraint |b − a| = rest on two
/// particle positions `a`, `b` (metres) with inverse masses `wa`, `wb`:
/// returns their new positions (unchanged when the constraint is skipped or
/// a particle is pinned). Every layout's
/// scalar path calls this; the 8-wide kernel (`crate::lanes`) repeats it
/// operation for operation.
#[inline(always)]
#[must_use]
pub fn project_pair(a: Vec3, b: Vec3, wa: f32, wb: f32, rest: f32) -> (Vec3, Vec3) {
    let wsum = wa + wb;
    if wsum <= 0.0 {
        return (a, b);
    }
    let d = b - a;
    let len = d.length();
    if len <= MIN_SEGMENT_LENGTH {
        return (a, b);
    }
    let err = (len - rest) / len;
    let na = if wa > 0.0 {
        a + d * (wa / wsum * err)
    } else {
        a
    };
    let nb = if wb > 0.0 {
        b - d * (wb / wsum * err)
    } else {
        b
    };
    (na, nb)
}

/// XPBD projection with compliance `alpha_t` = α / h² and multiplier `lambda`.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // a kernel: every argument is one scalar of the constraint
pub(crate) fn project_compliant(
    pos: &mut [Vec3],
    i: usize,
    j: usize,
    wa: f32,
    wb: f32,
    rest: f32,
    alpha_t: f32,
    lambda: &mut f32,
) {
    let (a, b) = project_pair_compliant(pos[i], pos[j], wa, wb, rest, alpha_t, lambda);
    pos[i] = a;
    pos[j] = b;
}

/// The XPBD projection (compliance `alpha_t` = α / h²) on two particle positions:
/// returns their new positions and updates the multiplier `lambda`.
#[inline(always)]
#[must_use]
pub fn project_pair_compliant(
    a: Vec3,
    b: Vec3,
    wa: f32,
    wb: f32,
    rest: f32,
    alpha_t: f32,
    lambda: &mut f32,
) -> (Vec3, Vec3) {
    let wsum = wa + wb;
    if wsum <= 0.0 {
        return (a, b);
    }
    let d = b - a;
    let len = d.length();
    if len <= MIN_SEGMENT_LENGTH {
        return (a, b);
    }
    let c = len - rest;
    let dl = (-c - alpha_t * *lambda) / (wsum + alpha_t);
    *lambda += dl;
    let n = d / len;
    (a - n * (wa * dl), b + n * (wb * dl))
}

/// Runs `iterations` Gauss-Seidel sweeps over one cable's constraints,
/// each followed by a contact pass against the colliders near the cable
/// ([`crate::collide`]), then friction.
pub fn solve_cable(c: &mut CableMut<'_>, params: &SolverParams) {
    let mut contacts = Contacts::find(c); // collide (issue 3): broad phase + CCD
    let n = c.pos.len();
    let segs = n - 1;
    let w = c.inv_mass;
    let rest = c.rest;
    let stiff = c.params.stiffness && n >= 3;
    let compliance = c.params.compliance;
    if compliance == 0.0 {
        for _ in 0..params.iterations {
            for i in 0..segs {
                project(c.pos, i, i + 1, w[i], w[i + 1], rest[i]);
            }
            if stiff {
                for i in 0..segs - 1 {
                    project(c.pos, i, i + 2, w[i], w[i + 2], rest[i] + rest[i + 1]);
                }
            }
            if !contacts.is_empty() {
                contacts.project(c); // collide (issue 3)
            }
        }
    } else {
        let h = params.substep;
        let alpha_t = compliance / (h * h);
        c.lambda.fill(0.0);
        c.lambda_bend.fill(0.0);
        for _ in 0..params.iterations {
            for i in 0..segs {
                let l = &mut c.lambda[i];
                project_compliant(c.pos, i, i + 1, w[i], w[i + 1], rest[i], alpha_t, l);
            }
            if stiff {
                for i in 0..segs - 1 {
                    let r = rest[i] + rest[i + 1];
                    let l = &mut c.lambda_bend[i];
                    project_compliant(c.pos, i, i + 2, w[i], w[i + 2], r, alpha_t, l);
                }
            }
            if !contacts.is_empty() {
                contacts.project(c); // collide (issue 3)
            }
        }
    }
    contacts.finish(c, params); // collide (issue 3): friction
}

/// Runs [`solve_cable`] on every cable of the pool, in parallel.
pub fn solve_constraints(pool: &mut ParticlePool, params: &SolverParams) {
    pool.par_for_each_cable(|mut c| solve_cable(&mut c, params));
}
