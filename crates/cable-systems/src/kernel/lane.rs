//! The lane vocabulary of the one solver kernel: a scalar type [`Lane`]
//! and its comparison [`Mask`], implemented by `f32`/`bool` (one cable)
//! and by [`Fx`]/[`Mx`] (`N` cables side by side), plus a 3-vector [`V3`]
//! and bounds [`Bounds`] over any lane type.
//!
//! The kernel ([`crate::kernel`]) is written once against these traits,
//! as ultraviolet writes its scalar and wide types with one body: the
//! scalar and the wide instantiation perform the same IEEE operations in
//! the same order, so every lane of a wide run is bitwise the scalar run
//! of its cable. To keep that true, the vocabulary has no fused
//! multiply-add (it rounds once instead of twice), `min`/`max` are
//! selections (`a < b`), not the platform instructions (which differ on
//! NaN and signed zero), and negation flips the sign bit.
//!
//! [`Fx`] is a plain array with element-wise loops: LLVM turns them into
//! whatever vector instructions the surrounding function may use, so the
//! same code runs as SSE2 in the default build and as AVX2 or AVX-512
//! inside a function compiled for it ([`crate::simd`] picks one at run
//! time).

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Not, Sub};

use glam::Vec3;

/// A comparison result, one boolean per lane.
pub trait Mask: Copy + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self> {
    /// Every lane `b`.
    fn splat(b: bool) -> Self;
    /// True when some lane is set.
    fn any(self) -> bool;
    /// True when every lane is set.
    fn all(self) -> bool;
    /// True when no lane is set.
    #[inline(always)]
    fn none(self) -> bool {
        !self.any()
    }
    /// Lane `i`.
    fn lane(self, i: usize) -> bool;
    /// Sets lane `i`.
    fn set_lane(&mut self, i: usize, b: bool);
}

/// An `f32` per lane (see the module docs).
pub trait Lane:
    Copy
    + Send
    + Sync
    + 'static
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    /// The comparison result.
    type M: Mask;
    /// Number of lanes.
    const WIDTH: usize;
    /// Every lane `v`.
    fn splat(v: f32) -> Self;
    /// Square root, lane by lane (IEEE, exact rounding).
    fn sqrt(self) -> Self;
    /// `self <= o`.
    fn le(self, o: Self) -> Self::M;
    /// `self < o`.
    fn lt(self, o: Self) -> Self::M;
    /// `self == o`.
    fn eq(self, o: Self) -> Self::M;
    /// `if m { t } else { f }`, exact for every value.
    fn select(m: Self::M, t: Self, f: Self) -> Self;
    /// `self` where `m`, `+0.0` elsewhere.
    fn keep(self, m: Self::M) -> Self;
    /// `-self`: flips the sign bit (exact, zeros included).
    fn neg(self) -> Self;
    /// `|self|`: clears the sign bit.
    fn abs(self) -> Self;
    /// Magnitude of `self` with the sign of `s`.
    fn copysign(self, s: Self) -> Self;
    /// Rounds up to an integer.
    fn ceil(self) -> Self;
    /// Lane `i` (by reference: a wide lane value is hundreds of bytes).
    fn lane(&self, i: usize) -> f32;
    /// Sets lane `i`.
    fn set_lane(&mut self, i: usize, v: f32);
    /// Runs `f` out of line, compiled for the wide kernel's SIMD path:
    /// on the path `wide` when it is `Some` and these lanes are wide
    /// ([`crate::simd::Wide::on_path`]); one lane gains nothing from wider
    /// registers, so its one copy is the baseline's.
    fn out_of_line<R>(wide: Option<crate::simd::Wide>, f: impl FnOnce() -> R) -> R;

    /// One group of [`GROUP`] lanes of this type (this type itself when it
    /// is no wider): work that concerns a few lanes of a wide block, such
    /// as a sphere near two cables of 32, runs on their groups alone. The
    /// arithmetic is lane by lane, so a lane's result is the same bits
    /// either way.
    type G: Lane;
    /// Groups of [`Lane::G`] in this type.
    const GROUPS: usize;
    /// Group `g`: lanes `g·GROUP ..` of `self`.
    fn group(&self, g: usize) -> Self::G;
    /// Sets group `g`.
    fn set_group(&mut self, g: usize, v: Self::G);
    /// Group `g` of the mask `m`.
    fn group_m(m: Self::M, g: usize) -> <Self::G as Lane>::M;

    /// `self < o ? self : o` (the second operand on ties and NaN).
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self::select(self.lt(o), self, o)
    }
    /// `o < self ? self : o`.
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self::select(o.lt(self), self, o)
    }
    /// `self.max(lo).min(hi)`.
    #[inline(always)]
    fn clamp(self, lo: Self, hi: Self) -> Self {
        self.max(lo).min(hi)
    }
    /// `self > o`.
    #[inline(always)]
    fn gt(self, o: Self) -> Self::M {
        o.lt(self)
    }
    /// `self >= o`.
    #[inline(always)]
    fn ge(self, o: Self) -> Self::M {
        o.le(self)
    }
    /// Lanes that are neither NaN nor infinite.
    #[inline(always)]
    fn finite(self) -> Self::M {
        self.abs().lt(Self::splat(f32::INFINITY))
    }
}

impl Mask for bool {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        b
    }
    #[inline(always)]
    fn any(self) -> bool {
        self
    }
    #[inline(always)]
    fn all(self) -> bool {
        self
    }
    #[inline(always)]
    fn lane(self, _: usize) -> bool {
        self
    }
    #[inline(always)]
    fn set_lane(&mut self, _: usize, b: bool) {
        *self = b;
    }
}

impl Lane for f32 {
    #[inline(always)]
    fn out_of_line<R>(_: Option<crate::simd::Wide>, f: impl FnOnce() -> R) -> R {
        crate::simd::out_of_line(f)
    }
    type G = f32;
    const GROUPS: usize = 1;
    #[inline(always)]
    fn group(&self, _: usize) -> f32 {
        *self
    }
    #[inline(always)]
    fn set_group(&mut self, _: usize, v: f32) {
        *self = v;
    }
    #[inline(always)]
    fn group_m(m: bool, _: usize) -> bool {
        m
    }
    type M = bool;
    const WIDTH: usize = 1;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn le(self, o: Self) -> bool {
        self <= o
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    #[allow(clippy::float_cmp)] // the lane comparison itself
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn select(m: bool, t: Self, f: Self) -> Self {
        if m { t } else { f }
    }
    #[inline(always)]
    fn keep(self, m: bool) -> Self {
        if m { self } else { 0.0 }
    }
    #[inline(always)]
    fn neg(self) -> Self {
        f32::from_bits(self.to_bits() ^ 0x8000_0000)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::from_bits(self.to_bits() & 0x7fff_ffff)
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        f32::from_bits((self.to_bits() & 0x7fff_ffff) | (s.to_bits() & 0x8000_0000))
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        f32::ceil(self)
    }
    #[inline(always)]
    fn lane(&self, _: usize) -> f32 {
        *self
    }
    #[inline(always)]
    fn set_lane(&mut self, _: usize, v: f32) {
        *self = v;
    }
}

/// Lanes of one group ([`Lane::G`]): one 256-bit register of `f32`.
pub const GROUP: usize = 8;

/// `N` booleans as all-ones / all-zeros `u32`s: the mask of [`Fx`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Mx<const N: usize>(pub [u32; N]);

/// `N` lanes of `f32` side by side (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct Fx<const N: usize>(pub [f32; N]);

impl<const N: usize> Default for Fx<N> {
    #[inline(always)]
    fn default() -> Self {
        Self([0.0; N])
    }
}

impl<const N: usize> Default for Mx<N> {
    #[inline(always)]
    fn default() -> Self {
        Self([0; N])
    }
}

macro_rules! lanewise {
    ($tr:ident, $f:ident, $ty:ident, $op:tt) => {
        impl<const N: usize> $tr for $ty<N> {
            type Output = Self;
            #[inline(always)]
            #[allow(clippy::assign_op_pattern)] // one macro for every operator
            fn $f(self, o: Self) -> Self {
                let mut r = self;
                for i in 0..N {
                    r.0[i] = r.0[i] $op o.0[i];
                }
                r
            }
        }
    };
}

lanewise!(Add, add, Fx, +);
lanewise!(Sub, sub, Fx, -);
lanewise!(Mul, mul, Fx, *);
lanewise!(Div, div, Fx, /);
lanewise!(BitAnd, bitand, Mx, &);
lanewise!(BitOr, bitor, Mx, |);

impl<const N: usize> Not for Mx<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        let mut r = self;
        for x in &mut r.0 {
            *x = !*x;
        }
        r
    }
}

#[inline(always)]
fn bits(b: bool) -> u32 {
    if b { u32::MAX } else { 0 }
}

impl<const N: usize> Mask for Mx<N> {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        Self([bits(b); N])
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0.iter().fold(0, |a, &x| a | x) != 0
    }
    #[inline(always)]
    fn all(self) -> bool {
        self.0.iter().fold(u32::MAX, |a, &x| a & x) == u32::MAX
    }
    #[inline(always)]
    fn lane(self, i: usize) -> bool {
        self.0[i] != 0
    }
    #[inline(always)]
    fn set_lane(&mut self, i: usize, b: bool) {
        self.0[i] = bits(b);
    }
}

impl<const N: usize> Fx<N> {
    /// `f` of each pair of lanes.
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let mut r = self;
        for i in 0..N {
            r.0[i] = f(self.0[i], o.0[i]);
        }
        r
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        let mut r = self;
        for x in &mut r.0 {
            *x = f(*x);
        }
        r
    }

    #[inline(always)]
    fn cmp(self, o: Self, f: impl Fn(f32, f32) -> bool) -> Mx<N> {
        let mut m = Mx([0; N]);
        for i in 0..N {
            m.0[i] = bits(f(self.0[i], o.0[i]));
        }
        m
    }
}

impl<const N: usize> Lane for Fx<N> {
    #[inline(always)]
    fn out_of_line<R>(wide: Option<crate::simd::Wide>, f: impl FnOnce() -> R) -> R {
        crate::simd::Wide::on_path(wide, f)
    }
    type G = Fx<GROUP>;
    const GROUPS: usize = N / GROUP;
    #[inline(always)]
    fn group(&self, g: usize) -> Fx<GROUP> {
        const { assert!(N.is_multiple_of(GROUP), "lanes come in whole groups") };
        Fx(std::array::from_fn(|k| self.0[GROUP * g + k]))
    }
    #[inline(always)]
    fn set_group(&mut self, g: usize, v: Fx<GROUP>) {
        const { assert!(N.is_multiple_of(GROUP), "lanes come in whole groups") };
        self.0[GROUP * g..GROUP * (g + 1)].copy_from_slice(&v.0);
    }
    #[inline(always)]
    fn group_m(m: Mx<N>, g: usize) -> Mx<GROUP> {
        const { assert!(N.is_multiple_of(GROUP), "lanes come in whole groups") };
        Mx(std::array::from_fn(|k| m.0[GROUP * g + k]))
    }
    type M = Mx<N>;
    const WIDTH: usize = N;
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Self([v; N])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f32::sqrt)
    }
    #[inline(always)]
    fn le(self, o: Self) -> Mx<N> {
        self.cmp(o, |a, b| a <= b)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Mx<N> {
        self.cmp(o, |a, b| a < b)
    }
    #[inline(always)]
    #[allow(clippy::float_cmp)] // the lane comparison itself
    fn eq(self, o: Self) -> Mx<N> {
        self.cmp(o, |a, b| a == b)
    }
    #[inline(always)]
    fn select(m: Mx<N>, t: Self, f: Self) -> Self {
        let mut r = f;
        for i in 0..N {
            r.0[i] = f32::from_bits((t.0[i].to_bits() & m.0[i]) | (f.0[i].to_bits() & !m.0[i]));
        }
        r
    }
    /// Overrides the trait's `select(lt)` form with the same per-lane
    /// rule written as one float select, which compiles to `minps`: through
    /// the mask array, a loop carrying bounds of 32 lanes (the contact
    /// broad phase) was compiled lane by lane.
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        self.zip(o, |a, b| if a < b { a } else { b })
    }
    /// As `min` above: `o < self ? self : o`, compiled to `maxps`.
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.zip(o, |a, b| if b < a { a } else { b })
    }
    #[inline(always)]
    fn keep(self, m: Mx<N>) -> Self {
        let mut r = self;
        for i in 0..N {
            r.0[i] = f32::from_bits(r.0[i].to_bits() & m.0[i]);
        }
        r
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self.map(|x| f32::from_bits(x.to_bits() ^ 0x8000_0000))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.map(|x| f32::from_bits(x.to_bits() & 0x7fff_ffff))
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        let mut r = self;
        for i in 0..N {
            r.0[i] =
                f32::from_bits((r.0[i].to_bits() & 0x7fff_ffff) | (s.0[i].to_bits() & 0x8000_0000));
        }
        r
    }
    #[inline(always)]
    fn ceil(self) -> Self {
        self.map(f32::ceil)
    }
    #[inline(always)]
    fn lane(&self, i: usize) -> f32 {
        self.0[i]
    }
    #[inline(always)]
    fn set_lane(&mut self, i: usize, v: f32) {
        self.0[i] = v;
    }
}

/// A 3-vector of lanes: one point per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3<L> {
    /// x, metres.
    pub x: L,
    /// y, metres.
    pub y: L,
    /// z, metres.
    pub z: L,
}

impl<L: Lane> V3<L> {
    /// A vector from its components.
    #[inline(always)]
    pub fn new(x: L, y: L, z: L) -> Self {
        Self { x, y, z }
    }
    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(v: Vec3) -> Self {
        Self::new(L::splat(v.x), L::splat(v.y), L::splat(v.z))
    }
    /// The zero vector.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(Vec3::ZERO)
    }
    /// `self · s` for a lane scalar.
    #[inline(always)]
    pub fn scale(self, s: L) -> Self {
        Self::new(self.x * s, self.y * s, self.z * s)
    }
    /// `x·x' + y·y' + z·z'`, in glam's order.
    #[inline(always)]
    pub fn dot(self, o: Self) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// `sqrt(self · self)`.
    #[inline(always)]
    pub fn length(self) -> L {
        self.dot(self).sqrt()
    }
    /// `self · self`.
    #[inline(always)]
    pub fn length_squared(self) -> L {
        self.dot(self)
    }
    /// The cross product.
    #[inline(always)]
    pub fn cross(self, o: Self) -> Self {
        Self::new(
            self.y * o.z - o.y * self.z,
            self.z * o.x - o.z * self.x,
            self.x * o.y - o.x * self.y,
        )
    }
    /// Component-wise `|·|`.
    #[inline(always)]
    pub fn abs(self) -> Self {
        Self::new(self.x.abs(), self.y.abs(), self.z.abs())
    }
    /// Component-wise minimum.
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        Self::new(self.x.min(o.x), self.y.min(o.y), self.z.min(o.z))
    }
    /// Component-wise maximum.
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        Self::new(self.x.max(o.x), self.y.max(o.y), self.z.max(o.z))
    }
    /// Largest component.
    #[inline(always)]
    pub fn max_element(self) -> L {
        self.x.max(self.y).max(self.z)
    }
    /// `if m { t } else { f }` per lane.
    #[inline(always)]
    pub fn select(m: L::M, t: Self, f: Self) -> Self {
        Self::new(
            L::select(m, t.x, f.x),
            L::select(m, t.y, f.y),
            L::select(m, t.z, f.z),
        )
    }
    /// `self` where `m`, `+0` elsewhere.
    #[inline(always)]
    pub fn keep(self, m: L::M) -> Self {
        Self::new(self.x.keep(m), self.y.keep(m), self.z.keep(m))
    }
    /// Group `g` of the lanes ([`Lane::group`]).
    #[inline(always)]
    pub fn group(&self, g: usize) -> V3<L::G> {
        V3::new(self.x.group(g), self.y.group(g), self.z.group(g))
    }
    /// Sets group `g` of the lanes.
    #[inline(always)]
    pub fn set_group(&mut self, g: usize, v: V3<L::G>) {
        self.x.set_group(g, v.x);
        self.y.set_group(g, v.y);
        self.z.set_group(g, v.z);
    }
    /// Lane `i` as a glam vector.
    #[inline(always)]
    pub fn lane(&self, i: usize) -> Vec3 {
        Vec3::new(self.x.lane(i), self.y.lane(i), self.z.lane(i))
    }
    /// Sets lane `i`.
    #[inline(always)]
    pub fn set_lane(&mut self, i: usize, v: Vec3) {
        self.x.set_lane(i, v.x);
        self.y.set_lane(i, v.y);
        self.z.set_lane(i, v.z);
    }
    /// Component `k` (0, 1, 2).
    #[inline(always)]
    pub fn get(self, k: usize) -> L {
        match k {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }
    /// Lanes where every component is finite.
    #[inline(always)]
    pub fn finite(self) -> L::M {
        self.x.finite() & self.y.finite() & self.z.finite()
    }
}

impl<L: Lane> Add for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl<L: Lane> std::ops::Neg for V3<L> {
    type Output = Self;
    /// `-self`, exact (sign flips).
    #[inline(always)]
    fn neg(self) -> Self {
        Self::new(self.x.neg(), self.y.neg(), self.z.neg())
    }
}

impl<L: Lane> Div<L> for V3<L> {
    type Output = Self;
    /// Component-wise division by a lane scalar.
    #[inline(always)]
    fn div(self, s: L) -> Self {
        Self::new(self.x / s, self.y / s, self.z / s)
    }
}

impl<L: Lane> Sub for V3<L> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl From<Vec3> for V3<f32> {
    #[inline(always)]
    fn from(v: Vec3) -> Self {
        Self::new(v.x, v.y, v.z)
    }
}

impl From<V3<f32>> for Vec3 {
    #[inline(always)]
    fn from(v: V3<f32>) -> Self {
        Vec3::new(v.x, v.y, v.z)
    }
}

/// A 3×3 matrix of constants (a rotation), rows for `mul`.
#[derive(Clone, Copy, Debug)]
pub struct M3 {
    /// Columns of the matrix.
    pub cols: [Vec3; 3],
}

impl M3 {
    /// `m · v`, in glam's order: `x_axis·v.x + y_axis·v.y + z_axis·v.z`.
    #[inline(always)]
    pub fn mul<L: Lane>(&self, v: V3<L>) -> V3<L> {
        let [a, b, c] = self.cols.map(V3::<L>::splat);
        a.scale(v.x) + b.scale(v.y) + c.scale(v.z)
    }
}

/// Axis-aligned bounds per lane.
#[derive(Clone, Copy, Debug)]
pub struct Bounds<L> {
    /// Smallest corner.
    pub min: V3<L>,
    /// Largest corner.
    pub max: V3<L>,
}

impl<L: Lane> Bounds<L> {
    /// The bounds of two points.
    #[inline(always)]
    pub fn of(a: V3<L>, b: V3<L>) -> Self {
        Self {
            min: a.min(b),
            max: a.max(b),
        }
    }
    /// Grown to hold `p`.
    #[inline(always)]
    pub fn with(self, p: V3<L>) -> Self {
        Self {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }
    /// The bounds of both.
    #[inline(always)]
    pub fn union(&self, o: &Self) -> Self {
        Self {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
    /// Grown by `m` on every side.
    #[inline(always)]
    pub fn expand(self, m: L) -> Self {
        let m = V3::new(m, m, m);
        Self {
            min: self.min - m,
            max: self.max + m,
        }
    }
    /// Lanes whose bounds overlap the constant box `o`.
    #[inline(always)]
    pub fn overlaps(&self, o: &cable_core::Aabb) -> L::M {
        let (lo, hi) = (V3::<L>::splat(o.min), V3::<L>::splat(o.max));
        self.min.x.le(hi.x)
            & self.min.y.le(hi.y)
            & self.min.z.le(hi.z)
            & lo.x.le(self.max.x)
            & lo.y.le(self.max.y)
            & lo.z.le(self.max.z)
    }
    /// Bounds of lane `i`.
    #[inline(always)]
    pub fn lane(&self, i: usize) -> cable_core::Aabb {
        cable_core::Aabb::new(self.min.lane(i), self.max.lane(i))
    }
}
