//! The analytic catenary.

/// The catenary parameter `c` of a chain of `length` hanging between two
/// points level and `span` apart: solves `length = 2c·sinh(span / 2c)` by
/// bisection in f64 (`length > span > 0`). The chain's sag is then
/// `c·(cosh(span / 2c) − 1)`, and its tension at the lowest point `ρ·g·c`.
///
/// ```
/// let c = cable_testkit::catenary_parameter(10.0, 12.0);
/// assert!((2.0 * c * (10.0 / (2.0 * c)).sinh() - 12.0).abs() < 1e-9);
/// ```
pub fn catenary_parameter(span: f64, length: f64) -> f64 {
    let f = |c: f64| 2.0 * c * (span / (2.0 * c)).sinh() - length;
    // f decreases in c: tiny c gives a huge length, huge c gives the span.
    let (mut lo, mut hi) = (1e-3 * span, 1e3 * span);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}
