//! A cable's derived row constants ([`RowConst`] tether anchors and
//! reaches, bending compliances) and the sums its record caches (longest
//! segment, total rest length): recomputed whole
//! ([`ParticlePool::refresh_rows`]) or, after a winch turn, only where a
//! turn can change them ([`ParticlePool::refresh_after_reel`]).
//!
//! Both compute every value by the same passes, in the same order, so a
//! partial refresh leaves the bits a whole one would.

use std::ops::Range;

use glam::Vec3;

use crate::cable::bend_compliance;

use super::store::{NO_ANCHOR, ParticlePool, RowConst};

#[cfg(test)]
thread_local! {
    /// Rows whose constants this thread recomputed (`refresh_rows` and
    /// `refresh_after_reel`), one per side pass and one per bending pass.
    static REFRESHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Rows refreshed on this thread so far (tests count the work a winch
/// turn does).
#[cfg(test)]
pub(super) fn refreshed() -> u64 {
    REFRESHED.with(std::cell::Cell::get)
}

/// Counts `n` rows refreshed (tests only).
#[inline]
fn count(n: usize) {
    #[cfg(test)]
    REFRESHED.with(|s| s.set(s.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// The towards-the-start pass (side 0) over `rows` of one cable's rows
/// `k`, inverse masses `w` and rest lengths `rest`: walks forward,
/// remembering the last pinned particle. Starts from what the row before
/// `rows` holds (valid: no row before `rows` changed), else from nothing.
/// With `SUMS`, returns the in-order `f64` sum of `rest` over `rows` and
/// its maximum (from 0), computed in the same loop (else zeros).
fn toward_start<const SUMS: bool>(
    k: &mut [RowConst],
    w: &[f32],
    rest: &[f32],
    tethers: bool,
    rows: Range<usize>,
) -> (f64, f32) {
    count(rows.len());
    let (mut anchor, mut reach) = match rows.start.checked_sub(1) {
        None => (NO_ANCHOR, 0.0f32),
        Some(p) if w[p] == 0.0 => (p as u32, 0.0),
        Some(p) => (k[p].anchor[0], k[p].reach[0]),
    };
    let (mut sum, mut most) = (0.0f64, 0.0f32);
    for i in rows {
        if i > 0 {
            if k[i - 1].linked {
                reach += rest[i - 1];
            } else {
                anchor = NO_ANCHOR;
            }
        }
        if w[i] == 0.0 {
            anchor = i as u32;
            reach = 0.0;
            k[i].anchor[0] = NO_ANCHOR;
        } else {
            k[i].anchor[0] = if tethers { anchor } else { NO_ANCHOR };
        }
        k[i].reach[0] = reach;
        if SUMS {
            sum += f64::from(rest[i]);
            most = most.max(rest[i]);
        }
    }
    (sum, most)
}

/// The towards-the-end pass (side 1) over `rows`, walking backward from
/// what the row after `rows` holds (else from nothing). Returns what
/// [`toward_start`] does, the sum still taken in row order (from the
/// first row of `rows` up).
fn toward_end<const SUMS: bool>(
    k: &mut [RowConst],
    w: &[f32],
    rest: &[f32],
    tethers: bool,
    rows: Range<usize>,
) -> (f64, f32) {
    count(rows.len());
    let n = k.len();
    let (mut anchor, mut reach) = match rows.end {
        e if e >= n => (NO_ANCHOR, 0.0f32),
        e if w[e] == 0.0 => (e as u32, 0.0),
        e => (k[e].anchor[1], k[e].reach[1]),
    };
    let (mut sum, mut most) = (0.0f64, 0.0f32);
    let mirror = rows.start + rows.end;
    for i in rows.rev() {
        if i + 1 < n {
            if k[i].linked {
                reach += rest[i];
            } else {
                anchor = NO_ANCHOR;
            }
        }
        if w[i] == 0.0 {
            anchor = i as u32;
            reach = 0.0;
            k[i].anchor[1] = NO_ANCHOR;
        } else {
            k[i].anchor[1] = if tethers { anchor } else { NO_ANCHOR };
        }
        k[i].reach[1] = reach;
        if SUMS {
            // The same rows in increasing order, for the sum.
            let j = mirror - 1 - i;
            sum += f64::from(rest[j]);
            most = most.max(rest[j]);
        }
    }
    (sum, most)
}

/// The bending compliances of `rows` ([`clamped_compliance`]).
fn bending(
    k: &mut [RowConst],
    w: &[f32],
    rest: &[f32],
    params: &crate::CableParams,
    rows: Range<usize>,
) {
    count(rows.len());
    let ei = params.bend_stiffness;
    let n = k.len();
    for i in rows {
        let inner = i > 0 && i + 1 < n && k[i - 1].linked && k[i].linked;
        k[i].bend_compliance = if inner {
            clamped_compliance([w[i - 1], w[i], w[i + 1]], rest[i - 1], rest[i], ei)
        } else if n >= 2 && i == 0 && params.clamp_start && w[0] == 0.0 && k[0].linked {
            // A clamp: a virtual pinned particle one segment behind the
            // pinned end, so the segment between them is inside the clamp.
            clamped_compliance([0.0, w[0], w[1]], rest[0], rest[0], ei)
        } else if n >= 2 && i == n - 1 && params.clamp_end && w[i] == 0.0 && k[i - 1].linked {
            clamped_compliance([w[i - 1], w[i], 0.0], rest[i - 1], rest[i - 1], ei)
        } else {
            0.0
        };
    }
}

/// The bending compliance at a particle of inverse mass `w[1]` between
/// particles of inverse masses `w[0]` and `w[2]`, with segments of rest
/// lengths `r0` and `r1`: `l̄ / EI`, where `l̄` is the length of rod whose
/// curvature the particle stands for, half of each segment next to it
/// (its Voronoi region), but only of a segment that can bend. A segment
/// between two pinned particles is inside a clamp: it stays straight, and
/// the rod's bending starts at its end. The particle at the clamp's edge
/// then stands for half a segment of bendable rod, not one (its
/// compliance is halved): the discrete bending energy is the trapezoid
/// rule's sum over the free length, whose error falls as 1/n², where a
/// full segment's would be the rectangle rule's, a clamp half a segment
/// before the particle (a tip deflection too large by about `2l/L`: 22 %
/// for a cantilever of 10 segments). Zero (no constraint) when both
/// segments are inside the clamp: the three particles are pinned.
fn clamped_compliance(w: [f32; 3], r0: f32, r1: f32, ei: f32) -> f32 {
    let bendable = |a: f32, b: f32, r: f32| if a == 0.0 && b == 0.0 { 0.0 } else { r };
    let (h0, h1) = (bendable(w[0], w[1], r0), bendable(w[1], w[2], r1));
    if h0 == 0.0 && h1 == 0.0 {
        0.0
    } else {
        bend_compliance(h0, h1, ei)
    }
}

impl ParticlePool {
    /// Recomputes the derived [`RowConst`]s of cable record `rec` (tether
    /// anchors and reaches, bending compliances) from its inverse masses,
    /// rest lengths, links and parameters, and the sums its record keeps
    /// (longest segment, total rest length, pinned inner particles).
    pub(super) fn refresh_rows(&mut self, rec: usize) {
        let r = &self.cables[rec];
        let rows = r.first..r.first + r.count;
        let params = r.params;
        let w = &self.inv_mass[rows.clone()];
        let rest = &self.rest[rows.clone()];
        let k = &mut self.row_const[rows];
        let n = k.len();
        let (total, most) = toward_start::<true>(k, w, rest, params.tethers, 0..n);
        toward_end::<false>(k, w, rest, params.tethers, 0..n);
        bending(k, w, rest, &params, 0..n);
        let inner_pins = w[1..n - 1].iter().filter(|&&w| w == 0.0).count();
        let r = &mut self.cables[rec];
        // Not a params revision: the stepper's check bounds what a winch
        // can do to the rest lengths (see `check_bend_for_substep`).
        r.max_rest = most;
        // The last row's rest length (0) adds nothing.
        r.rest_total = total;
        r.inner_pins = inner_pins;
        self.refresh_clamps(rec);
        self.refresh_slip(rec);
    }

    /// Sets record `rec`'s slip tension (`CableRecord::slip`) from its
    /// parameters, winch speed and total rest length: a winch that may
    /// slip ([`crate::CableParams::slip_end`]) and has rope left to give
    /// (below its `max_length`) pulls with at most `reel_force` while it
    /// reels in, and holds up to [`crate::SLIP_FACTOR`] × it otherwise.
    pub(super) fn refresh_slip(&mut self, rec: usize) {
        let r = &self.cables[rec];
        let p = &r.params;
        let hi = f64::from(p.max_length.unwrap_or(f32::MAX));
        let room = r.rest_total + 1.0e-6 * hi < hi;
        // Reeling in, the motor pulls with at most `reel_force`; else the
        // brake holds up to `SLIP_FACTOR` × it.
        let slip = match (p.slip_end(), p.reel_force) {
            (Some(_), Some(f)) if room && r.reel_rate < 0.0 => Some(f),
            (Some(_), Some(f)) if room => Some(crate::SLIP_FACTOR * f),
            _ => None,
        };
        self.cables[rec].slip = slip;
    }

    /// Sets record `rec`'s clamp offsets (`CableRecord::clamp`) from its
    /// end rows' bending compliances (non-zero at an end while its clamp
    /// holds, see `bending`), its clamp directions and end segments' rest
    /// lengths.
    fn refresh_clamps(&mut self, rec: usize) {
        let r = &self.cables[rec];
        let (a, n) = (r.first, r.count);
        let at = |row: usize, seg: usize, dir: Vec3| {
            (self.row_const[a + row].bend_compliance > 0.0).then(|| dir * self.rest[a + seg])
        };
        let clamp = if n >= 2 {
            [at(0, 0, r.clamp_dir[0]), at(n - 1, n - 2, r.clamp_dir[1])]
        } else {
            [None, None]
        };
        self.cables[rec].clamp = clamp;
    }

    /// [`ParticlePool::refresh_rows`] of record `rec` after a winch turn
    /// changed its `changed` segments next to the winch's end particle
    /// (the first `changed` at the start, the last at the end), and
    /// inserted (`shift` > 0) or removed rows next to them, rows after
    /// which moved by `shift`.
    ///
    /// With no pinned particle inside the cable (the winch then adds and
    /// removes free ones only), the values on the side away from the winch
    /// hold beyond the changed segments (their anchors, when they are the
    /// far end, moved by `shift`), and so do the bending compliances:
    /// only the pass from the winch's end goes over the whole cable (its
    /// reaches are sums from the winch's end, whose first term changed),
    /// taking the total rest length and the longest segment on the way.
    pub(super) fn refresh_after_reel(
        &mut self,
        rec: usize,
        at_end: bool,
        changed: usize,
        shift: isize,
    ) {
        if self.cables[rec].inner_pins > 0 {
            self.refresh_rows(rec);
            return;
        }
        let r = &self.cables[rec];
        let rows = r.first..r.first + r.count;
        let params = r.params;
        let w = &self.inv_mass[rows.clone()];
        let rest = &self.rest[rows.clone()];
        let k = &mut self.row_const[rows];
        let n = k.len();
        let changed = changed.min(n - 1);
        let (total, most) = if at_end {
            let from = n - 1 - changed;
            toward_start::<false>(k, w, rest, params.tethers, from..n);
            bending(k, w, rest, &params, from.saturating_sub(1)..n);
            toward_end::<true>(k, w, rest, params.tethers, 0..n)
        } else {
            // Rows after the changed segments moved: an anchor there (the
            // pinned end particle) moved with them.
            if shift != 0 && params.tethers && w[n - 1] == 0.0 {
                count(n - changed);
                for row in &mut k[changed..n - 1] {
                    if row.anchor[1] != NO_ANCHOR {
                        row.anchor[1] = row.anchor[1].wrapping_add_signed(shift as i32);
                    }
                }
            }
            toward_end::<false>(k, w, rest, params.tethers, 0..changed);
            bending(k, w, rest, &params, 0..(changed + 1).min(n));
            toward_start::<true>(k, w, rest, params.tethers, 0..n)
        };
        let r = &mut self.cables[rec];
        r.max_rest = most;
        r.rest_total = total;
        self.refresh_clamps(rec);
        self.refresh_slip(rec);
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::refreshed;
    use crate::{CableDesc, CableHandle, End, ParticlePool};

    /// The cable's row constants and cached sums, as bits.
    fn derived(pool: &ParticlePool, h: CableHandle) -> Vec<u64> {
        let i = pool.record_index(h).expect("live");
        let r = &pool.cables[i];
        let mut out = vec![r.rest_total.to_bits(), u64::from(r.max_rest.to_bits())];
        out.push(r.inner_pins as u64);
        for k in pool.row_consts(h).expect("live") {
            out.extend(k.anchor.map(u64::from));
            out.extend(k.reach.map(|x| u64::from(x.to_bits())));
            out.push(u64::from(k.bend_compliance.to_bits()));
            out.push(u64::from(k.kappa0.to_bits()));
            out.push(u64::from(k.linked));
        }
        out
    }

    /// What a whole `refresh_rows` of the cable gives now, as bits.
    fn fresh(pool: &ParticlePool, h: CableHandle) -> Vec<u64> {
        let mut copy = pool.clone();
        let i = copy.record_index(h).expect("live");
        copy.refresh_rows(i);
        derived(&copy, h)
    }

    /// A cable of `segs` segments of `seg` metres hanging from its winch's
    /// end, behind one other cable and ahead of another.
    fn winch_pool(end: End, segs: usize, seg: f32) -> (ParticlePool, CableHandle) {
        let mut pool = ParticlePool::new();
        let other = |x: f32| CableDesc::line(Vec3::X * x, Vec3::new(x, 0.0, 1.0), 1.0, 4);
        pool.add_cable(&other(-1.0).expect("valid")).expect("fits");
        let len = seg * segs as f32;
        let (top, bottom) = (Vec3::ZERO, Vec3::new(0.0, -len, 0.0));
        let (a, b) = match end {
            End::Start => (top, bottom),
            End::End => (bottom, top),
        };
        let mut d = CableDesc::line(a, b, len, segs as u32).expect("valid");
        d.attach_start = end == End::Start;
        d.attach_end = end == End::End;
        d.params.reel_end = end;
        d.params.max_length = Some(1.0e4);
        d.params.min_length = Some(seg);
        d.params.bend_stiffness = 0.5;
        d.mass_per_length = Some(0.3);
        let h = pool.add_cable(&d).expect("fits");
        pool.add_cable(&other(1.0).expect("valid")).expect("fits");
        (pool, h)
    }

    /// After every turn of a winch at either end (paying out, reeling in,
    /// turns too small to add a particle, down to the minimum length), with
    /// tethers on or off, the other end pinned or free, a segment broken
    /// or an inner particle pinned (a whole refresh then), the row
    /// constants and the cached sums are those of a whole refresh, bit
    /// for bit.
    #[test]
    fn partial_refreshes_match_whole_ones_bitwise() {
        let deltas = [
            0.013, 0.5, 1.0e-4, 2.37, -0.05, -1.2, 0.0071, 3.0, -0.004, -6.0, 0.9, -0.31,
        ];
        for end in [End::Start, End::End] {
            for variant in 0..5 {
                let (mut pool, h) = winch_pool(end, 40, 0.05);
                let last = pool.particle_count_of(h).expect("live") - 1;
                let far = match end {
                    End::Start => last,
                    End::End => 0,
                };
                match variant {
                    0 => {}
                    1 => pool.set_inv_mass(h, far, 0.0).expect("valid"),
                    2 => {
                        let mut p = *pool.params(h).expect("live");
                        p.tethers = false;
                        pool.set_params(h, p).expect("valid");
                    }
                    3 => {
                        pool.set_inv_mass(h, far, 0.0).expect("valid");
                        pool.break_segment(h, 20).expect("valid");
                    }
                    _ => pool.set_inv_mass(h, 17, 0.0).expect("valid"),
                }
                for (turn, &d) in deltas.iter().cycle().take(60).enumerate() {
                    pool.reel(h, d).expect("fits");
                    assert_eq!(
                        derived(&pool, h),
                        fresh(&pool, h),
                        "{end:?}, variant {variant}, turn {turn} ({d} m)"
                    );
                }
                pool.validate().expect("consistent");
            }
        }
    }

    /// A winch turned every substep at 100 particles a turn: each turn
    /// refreshes the whole cable once (the pass from the winch's end,
    /// whose reaches all change), and only the rows next to the winch
    /// otherwise, not three passes over the cable; and it sums no rest
    /// lengths of its own. (The reaches from the winch's end are sums in
    /// `f32` starting at the winch's segment, which every turn changes:
    /// a turn that keeps their values rewrites every one.)
    #[test]
    fn a_turn_refreshes_one_pass_over_the_cable_and_the_rows_it_changed() {
        for end in [End::Start, End::End] {
            let (mut pool, h) = winch_pool(end, 1000, 0.01);
            for _ in 0..20 {
                let n = pool.particle_count_of(h).expect("live") as u64;
                let before = refreshed();
                let grew = pool.reel(h, 1.0).expect("fits") as u64 - n;
                assert!((99..=101).contains(&grew), "{grew}");
                let work = refreshed() - before;
                // The whole pass (over the new count), then the far side
                // and bending of the changed segments (new ones and the
                // winch's) and of the first old particle (its mass
                // changed), one row more for bending and one at the end.
                assert!(work <= n + grew + 2 * (grew + 4), "{end:?}: {work} for {n}");
            }
            // Reeling in: the pass, and a few rows.
            let n = pool.particle_count_of(h).expect("live") as u64;
            let before = refreshed();
            pool.reel(h, -5.0).expect("live");
            assert!(refreshed() - before <= n + 8);
            pool.validate().expect("consistent");
        }
    }

    /// Many small turns leave the cable one turn of the same total does
    /// (the documented part: the particle count, every rest length and
    /// so the row constants; lengths exact in binary, so no rounding on
    /// either path), paying out and then reeling in, at either end.
    #[test]
    fn many_small_turns_leave_the_cable_of_one_big_turn() {
        for end in [End::Start, End::End] {
            let (mut big, hb) = winch_pool(end, 8, 0.25);
            let (mut small, hs) = winch_pool(end, 8, 0.25);
            for (total, steps) in [(64.0f32, 512), (-60.0, 480), (8.0, 128)] {
                big.reel(hb, total).expect("fits");
                let step = total / steps as f32;
                for _ in 0..steps {
                    small.reel(hs, step).expect("fits");
                }
                let n = big.particle_count_of(hb).expect("live");
                assert_eq!(
                    small.particle_count_of(hs).expect("live"),
                    n,
                    "{end:?} {total}"
                );
                // (Not the masses: a new particle's is that of half the
                // winch segment it split, which the turns' sizes set.)
                let bits = |pool: &ParticlePool, h| -> Vec<u32> {
                    let r = pool.rest_lengths(h).expect("live");
                    r.iter().map(|x| x.to_bits()).collect()
                };
                assert_eq!(bits(&big, hb), bits(&small, hs), "{end:?} {total}");
                assert_eq!(derived(&big, hb), derived(&small, hs), "{end:?} {total}");
                // (Nor the positions: each split places its particles
                // along the winch segment as it then lies.)
                assert_eq!(derived(&small, hs), fresh(&small, hs));
            }
            big.validate().expect("consistent");
            small.validate().expect("consistent");
        }
    }
}
