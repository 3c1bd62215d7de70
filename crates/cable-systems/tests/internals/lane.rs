use cable_systems::kernel::lane::*;

#[test]
fn wide_lanes_equal_scalar_lanes_bit_for_bit() {
    let xs = [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        1e-30,
        3.0,
    ];
    let ys = [-0.0f32, 0.0, 1.5, 7.0, 1.0, -1.0, -1e-30, f32::NAN];
    let (a, b) = (Fx(xs), Fx(ys));
    type Pair = (fn(f32, f32) -> f32, fn(Fx<8>, Fx<8>) -> Fx<8>);
    let ops: [Pair; 8] = [
        (|x, y| x + y, |x, y| x + y),
        (|x, y| x - y, |x, y| x - y),
        (|x, y| x * y, |x, y| x * y),
        (|x, y| x / y, |x, y| x / y),
        (Lane::min, Lane::min),
        (Lane::max, Lane::max),
        (|x, _| Lane::neg(x), |x, _| Lane::neg(x)),
        (Lane::copysign, Lane::copysign),
    ];
    for (s, w) in ops {
        let r = w(a, b);
        for i in 0..8 {
            let (got, want) = (r.0[i], s(xs[i], ys[i]));
            // Rust leaves the sign and payload of a NaN that an operation
            // creates unspecified (Miri picks them at random): a NaN only
            // has to stay a NaN. Every other result agrees bit for bit.
            if got.is_nan() && want.is_nan() {
                continue;
            }
            assert_eq!(got.to_bits(), want.to_bits(), "lane {i}");
        }
    }
    let m = a.le(b);
    for i in 0..8 {
        assert_eq!(m.lane(i), xs[i] <= ys[i]);
        let sel = Fx::select(m, a, b).0[i];
        assert_eq!(
            sel.to_bits(),
            f32::select(xs[i] <= ys[i], xs[i], ys[i]).to_bits()
        );
    }
}
