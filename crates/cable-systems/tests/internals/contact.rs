use cable_core::{ColliderSet, WorldShape};
use cable_systems::kernel::contact::geom::axis_normal;
use cable_systems::kernel::contact::geom::{NONE, Plane, few_groups, plane_near};
use cable_systems::kernel::contact::shape::{All, sides_on};
use cable_systems::kernel::contact::*;
use cable_systems::kernel::lane::{Bounds, Lane, Mask, V3};
use cable_systems::kernel::lane::{Fx, Mx};
use cable_systems::kernel::store::{Block, Store};
use glam::Vec3;

/// Positions, free masks, previous positions and carries of `W`
/// lanes: what a plane's contact, a shape's side memory and friction
/// read.
#[derive(Clone)]
struct Pts<const W: usize = 8> {
    pos: Vec<V3<Fx<W>>>,
    free: Vec<Mx<W>>,
    prev: Vec<V3<Fx<W>>>,
    carry: Vec<V3<Fx<W>>>,
    carry_prev: Vec<V3<Fx<W>>>,
}

impl<const W: usize> Pts<W> {
    /// `rows` free particles at the origin, every carry `carry`.
    fn new(rows: usize, carry: f32) -> Self {
        Self {
            pos: vec![V3::zero(); rows],
            free: vec![Mx::splat(true); rows],
            prev: vec![V3::zero(); rows],
            carry: vec![V3::splat(Vec3::splat(carry)); rows],
            carry_prev: vec![V3::zero(); rows],
        }
    }
}

impl<const W: usize> Store<Fx<W>> for Pts<W> {
    fn rows(&self) -> usize {
        self.pos.len()
    }
    fn pos(&self, i: usize) -> V3<Fx<W>> {
        self.pos[i]
    }
    fn set_pos(&mut self, i: usize, p: V3<Fx<W>>) {
        self.pos[i] = p;
    }
    fn free(&self, i: usize) -> Mx<W> {
        self.free[i]
    }
    fn prev(&self, i: usize) -> V3<Fx<W>> {
        self.prev[i]
    }
    fn set_prev(&mut self, _: usize, _: V3<Fx<W>>) {
        unreachable!()
    }
    fn carry(&self, i: usize) -> V3<Fx<W>> {
        self.carry[i]
    }
    fn set_carry(&mut self, i: usize, c: V3<Fx<W>>) {
        self.carry[i] = c;
    }
    fn carry_prev(&self, i: usize) -> V3<Fx<W>> {
        self.carry_prev[i]
    }
    fn set_carry_prev(&mut self, i: usize, c: V3<Fx<W>>) {
        self.carry_prev[i] = c;
    }
    fn w(&self, _: usize) -> Fx<W> {
        unreachable!()
    }
    fn rigid(&self, _: usize, _: usize) -> cable_systems::kernel::store::Rigid<Fx<W>> {
        unreachable!()
    }
    fn soft(&self, _: usize, _: usize, _: Fx<W>) -> cable_systems::kernel::store::Soft<Fx<W>> {
        unreachable!()
    }
    fn lambda(&self, _: usize, _: usize) -> Fx<W> {
        unreachable!()
    }
    fn set_lambda(&mut self, _: usize, _: usize, _: Fx<W>) {
        unreachable!()
    }
    fn reset_lambda(&mut self) {
        unreachable!()
    }
    fn tether(&self, _: usize, _: usize) -> (V3<Fx<W>>, Fx<W>, Mx<W>) {
        unreachable!()
    }
    fn curv(&self, _: usize) -> (Fx<W>, Fx<W>, Mx<W>) {
        unreachable!()
    }
    fn lambda_row(&self, _: usize, _: usize) -> Fx<W> {
        unreachable!()
    }
    fn set_lambda_row(&mut self, _: usize, _: usize, _: Fx<W>) {
        unreachable!()
    }
    fn reset_lambda_row(&mut self) {
        unreachable!()
    }
}

/// Bits of every lane of `v`, for bitwise comparison.
fn bits(v: &[V3<Fx<8>>]) -> Vec<[u32; 3]> {
    v.iter()
        .flat_map(|p| (0..8).map(move |l| p.lane(l).to_array().map(f32::to_bits)))
        .collect()
}

/// Panics naming the first row and lane where `a` and `b` differ.
fn same_bits<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
        panic!(
            "{what}: row {}, lane {}: {:?} against {:?}",
            k / 8,
            k % 8,
            a[k],
            b[k]
        );
    }
    assert_eq!(a.len(), b.len(), "{what}");
}

/// With no moving candidate, friction tells the particles a contact
/// pushed from their pushes alone (`Contacts::touches` false, nothing
/// written to `touch`); with one, from `touch`. On the same pushes the
/// two give bitwise the same positions and carries: pushes that are
/// zero, `−0`, cancelled to zero by a second contact (touched, no
/// load), so small that their square underflows, NaN, infinite, along
/// one axis or several, on free and pinned particles, sticking and
/// sliding. Fails, for one, if the push test looks at one coordinate.
#[test]
fn friction_without_touches_is_friction_with_them() {
    let pushes = [
        (Vec3::ZERO, false),
        (Vec3::ZERO, true), // pushed, then pushed back to zero
        (Vec3::new(-0.0, 0.0, -0.0), true),
        (Vec3::new(0.0, 0.01, 0.0), true),
        (Vec3::new(0.02, 0.0, 0.0), true),
        (Vec3::new(0.0, 0.0, -0.03), true),
        (Vec3::new(0.004, 0.003, 0.0), true),
        (Vec3::new(1e-30, 0.0, 0.0), true), // its square underflows
        (Vec3::new(0.0, f32::NAN, 0.0), true),
        (Vec3::new(f32::INFINITY, 0.0, 0.0), true),
        (Vec3::new(0.0, 2.0, 0.0), true), // a heavy load: sticks
    ];
    let slips = [
        Vec3::new(0.001, 0.0, 0.0005),
        Vec3::new(0.05, -0.01, 0.02),
        Vec3::ZERO,
        Vec3::new(-0.3, 0.0, 0.1),
    ];
    let rows = 12;
    let mut st = Pts::<8>::new(rows, 1e-9);
    let mut push = vec![V3::<Fx<8>>::zero(); rows];
    let mut touch = vec![Fx::<8>::splat(NONE); rows];
    for i in 0..rows {
        for l in 0..8 {
            let (p, touched) = pushes[(i * 8 + l) % pushes.len()];
            push[i].set_lane(l, p);
            if touched {
                touch[i].set_lane(l, 1.0); // `tag(0)`
            }
            let prev = Vec3::new(i as f32, 0.5, l as f32);
            st.prev[i].set_lane(l, prev);
            st.pos[i].set_lane(l, prev + slips[(i + l) % slips.len()]);
        }
        st.free[i].set_lane(i % 8, i % 3 != 0); // some pinned particles
    }
    let with = Contacts::<Fx<8>> {
        friction: true,
        touches: true,
        push,
        touch,
        ..Contacts::default()
    };
    let without = Contacts {
        touches: false,
        touch: Vec::new(),
        ..with.clone()
    };
    let mu = Fx::splat(0.5);
    let mut results = Vec::new();
    for mut c in [with, without] {
        let mut s = st.clone();
        c.friction(&mut s, &[], mu);
        results.push(s);
    }
    let what = "friction with and without touches";
    same_bits(&bits(&results[0].pos), &bits(&results[1].pos), what);
    same_bits(&bits(&results[0].carry), &bits(&results[1].carry), what);
    // Friction acted: some particles moved, and some carries were cleared.
    assert_ne!(bits(&results[0].pos), bits(&st.pos));
    assert_ne!(bits(&results[0].carry), bits(&st.carry));
}

/// A plane whose normal is an axis takes the one-coordinate form
/// (`Contacts::project_axis_plane`), and it is bitwise the dot-product
/// form (`Contacts::project_plane`): positions, friction's pushes and
/// touches, over two passes (the second accumulates onto the first's
/// pushes), for every axis and sign, zero and non-zero offsets, and
/// coordinates that are `±0`, denormal, inside, on and outside the
/// cable radius. Fails, for one, if the off-axis coordinates of a
/// pushed particle are left as they were (a `−0` stays `−0` where the
/// dot-product form adds `+0`).
#[test]
fn axis_plane_contact_is_the_dot_product_form() {
    assert_eq!(axis_normal(Vec3::Y), Some((1, false)));
    assert_eq!(axis_normal(Vec3::NEG_Z), Some((2, true)));
    assert_eq!(axis_normal(Vec3::new(-0.0, 1.0, 0.0)), None);
    assert_eq!(axis_normal(Vec3::new(0.6, 0.8, 0.0)), None);
    let values = [
        0.0f32, -0.0, 1e-40, -1e-40, 0.05, -0.05, 0.1, -0.1, 0.0999, 0.3, 0.33, -0.7, 2.0, -0.95,
        -1.05, -1.1, 0.2, -0.2,
    ];
    let (rows, r) = (24, Fx::<8>::splat(0.1));
    let mut st = Pts {
        pos: vec![V3::zero(); rows],
        free: vec![Mx::splat(true); rows],
        prev: Vec::new(),
        carry: Vec::new(),
        carry_prev: Vec::new(),
    };
    for i in 0..rows {
        for l in 0..8 {
            let v = |c: usize| values[(i * 7 + l * 3 + c * 5) % values.len()];
            st.pos[i].set_lane(l, Vec3::new(v(0), v(1), v(2)));
        }
        st.free[i].set_lane(i % 8, i % 3 != 0); // some pinned particles
    }
    let mut cm = Mx::<8>::splat(true);
    cm.set_lane(6, false); // a lane the plane is no candidate for
    let (mut pushed, mut differs_from_input) = (0, 0);
    for axis in 0..3 {
        for neg in [false, true] {
            for off in [0.0f32, -0.0, 0.25, -1.0] {
                let mut n = [0.0f32; 3];
                n[axis] = if neg { -1.0 } else { 1.0 };
                let normal = Vec3::from_array(n);
                assert_eq!(axis_normal(normal), Some((axis, neg)));
                let mut c = Contacts::<Fx<8>> {
                    friction: true,
                    touches: true,
                    push: vec![V3::zero(); rows],
                    touch: vec![Fx::splat(NONE); rows],
                    ..Contacts::default()
                };
                let (mut c2, mut st2, mut st1) = (c.clone(), st.clone(), st.clone());
                let (kf, offl) = (Fx::splat(3.0), Fx::splat(off));
                let pl = Plane {
                    axis,
                    neg,
                    nv: V3::splat(normal),
                    off: offl,
                    cm,
                    kf,
                };
                for _ in 0..2 {
                    match axis {
                        0 => c.project_axis_plane::<_, 0>(&mut st1, &pl, r, 0),
                        1 => c.project_axis_plane::<_, 1>(&mut st1, &pl, r, 0),
                        _ => c.project_axis_plane::<_, 2>(&mut st1, &pl, r, 0),
                    }
                    c2.project_plane(&mut st2, &pl, r, 0);
                }
                let what = format!("normal {normal}, offset {off}");
                same_bits(
                    &bits(&st1.pos),
                    &bits(&st2.pos),
                    &format!("positions, {what}"),
                );
                same_bits(&bits(&c.push), &bits(&c2.push), &format!("pushes, {what}"));
                let touch = |c: &Contacts<Fx<8>>| -> Vec<u32> {
                    c.touch.iter().flat_map(|t| t.0.map(f32::to_bits)).collect()
                };
                same_bits(&touch(&c), &touch(&c2), &format!("touches, {what}"));
                pushed += c
                    .touch
                    .iter()
                    .flat_map(|t| t.0)
                    .filter(|&t| t >= 0.0)
                    .count();
                differs_from_input += usize::from(bits(&st1.pos) != bits(&st.pos));
            }
        }
    }
    // The comparison saw contacts, and zero signs turned by them.
    assert!(pushed > 200, "only {pushed} pushes");
    assert_eq!(differs_from_input, 24);
}

/// A shape's side memory on the lane groups where it is a candidate
/// ([`few_groups`]) holds, in every lane of the block, what the pass
/// over the whole block writes: the outward normal where the shape is
/// a candidate, zero elsewhere. Fails if a candidate group is skipped
/// or its lanes are written into another group's. (Run through the
/// stepper, no scene here depends on the side memory of a block with
/// few candidate groups: skipping the first group passed every other
/// test.)
#[test]
fn side_memory_on_lane_groups_is_the_whole_block_pass() {
    let mut set = ColliderSet::new();
    set.add(cable_core::Collider::sphere(Vec3::ZERO, 0.3).expect("valid ball"));
    set.prepare();
    let world = set.prepared();
    let rows = 6;
    let mut st = Pts::<32>::new(rows, 0.0);
    for i in 0..rows {
        for l in 0..32 {
            // Rows cross the ball's box along x; lanes at different
            // heights, some through the ball, some outside it.
            let x = -0.3 + 0.12 * i as f32;
            let y = -0.35 + 0.025 * l as f32;
            st.prev[i].set_lane(l, Vec3::new(x, y, 0.002 * l as f32));
        }
    }
    // A candidate in groups 1 and 3 only (lanes 8..=13 and 25..=27).
    let mut cm = Mx::<32>::splat(false);
    for l in (8..=13).chain(25..=27) {
        cm.set_lane(l, true);
    }
    assert!(few_groups::<Fx<32>>(cm).is_some(), "the groups' path");
    let margin = Fx::<32>::splat(0.05);
    let mut c = Contacts::<Fx<32>> {
        cands: vec![0],
        cand_m: vec![cm],
        span: vec![(0, rows)],
        lane_span: vec![(Fx::splat(0.0), Fx::splat(rows as f32))],
        ..Contacts::default()
    };
    c.remember_sides(&st, world, margin);
    let mut whole = vec![V3::<Fx<32>>::zero(); 2 * rows];
    let at = (cm, (0, rows), c.lane_span[0]);
    sides_on(&st, &world[0], &mut whole, at, margin, All);
    let lanes = |v: &[V3<Fx<32>>]| -> Vec<[u32; 3]> {
        v.iter()
            .flat_map(|p| (0..32).map(move |l| p.lane(l).to_array().map(f32::to_bits)))
            .collect()
    };
    same_bits(&lanes(&c.side), &lanes(&whole), "side memory");
    // Normals remembered in both candidate groups, and only there.
    let mut per_group = [0; 4];
    for (k, n) in lanes(&whole).iter().enumerate() {
        if *n != [0; 3] {
            per_group[k % 32 / 8] += 1;
        }
    }
    assert!(
        per_group[1] > 4 && per_group[3] > 4 && per_group[0] + per_group[2] == 0,
        "normals remembered per group: {per_group:?}"
    );
}

/// The broad phase's plane test is the exact minimum over the box's
/// eight corners: no lane whose box reaches the plane within the
/// margin is missed, and none farther is kept.
#[test]
fn plane_near_is_the_nearest_corner_test() {
    let normals = [
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::new(0.6, 0.8, 0.0),
        Vec3::new(-0.48, 0.6, -0.64),
        Vec3::new(0.0, 0.0, -1.0),
    ];
    let mut checked = 0;
    for (k, normal) in normals.into_iter().enumerate() {
        let offset = k as f32 * 0.37 - 0.5;
        // Eight boxes, one per lane, around the plane and away from it.
        let mut bb = Bounds {
            min: V3::<Fx<8>>::zero(),
            max: V3::<Fx<8>>::zero(),
        };
        for l in 0..8 {
            let c = Vec3::new(
                l as f32 * 0.3 - 1.0,
                (l % 3) as f32 - 1.0,
                0.5 - l as f32 * 0.2,
            );
            let h = Vec3::new(0.1 + l as f32 * 0.05, 0.2, 0.05 * (8 - l) as f32);
            bb.min.set_lane(l, c - h);
            bb.max.set_lane(l, c + h);
        }
        for margin in [0.0f32, 0.1, 0.5, 1.0] {
            let got = plane_near(normal, offset, &bb, Fx::splat(margin));
            for l in 0..8 {
                let (lo, hi) = (bb.min.lane(l), bb.max.lane(l));
                let nearest = (0..8)
                    .map(|c| {
                        let p = Vec3::new(
                            if c & 1 == 0 { lo.x } else { hi.x },
                            if c & 2 == 0 { lo.y } else { hi.y },
                            if c & 4 == 0 { lo.z } else { hi.z },
                        );
                        normal.dot(p) - offset
                    })
                    .fold(f32::INFINITY, f32::min);
                // Away from the threshold by more than rounding.
                if (nearest - margin).abs() > 1e-5 {
                    assert_eq!(got.lane(l), nearest < margin, "normal {normal}, lane {l}");
                    checked += 1;
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} lanes away from the threshold"
    );
}

/// A block near planes alone: the plane's pass, friction and the last
/// pass as one pass over the rows
/// ([`Contacts::project_and_finish_planes`]) are bitwise the three passes
/// in turn ([`Contacts::project`], [`Contacts::finish`]), with lanes
/// resting on, sinking into, sliding on and above two planes (an axis
/// plane and a tilted one, whose contacts interact in a corner).
#[test]
fn planes_in_one_pass_are_the_three_passes_in_turn() {
    let mut set = ColliderSet::new();
    set.add(cable_core::Collider::plane(Vec3::Y, -0.5).expect("valid plane"));
    set.add(
        cable_core::Collider::plane(Vec3::new(-1.0, 1.0, 0.0).normalize(), -2.0)
            .expect("valid plane"),
    );
    set.prepare();
    let world = set.prepared();
    let rows = 10;
    let mut st = Pts::<8>::new(rows, 1e-7);
    for i in 0..rows {
        for l in 0..8 {
            let x = 0.4 * i as f32 + 0.05 * l as f32;
            // Heights from 0.1 m below the ground to 0.2 m above it.
            let y = -0.6 + 0.04 * ((i * 8 + l) % 9) as f32;
            let prev = Vec3::new(x, y + 0.01, 0.1 * l as f32);
            let slide = Vec3::new(0.002 * (l as f32 - 3.5), -0.01, 0.003 * i as f32);
            st.prev[i].set_lane(l, prev);
            st.pos[i].set_lane(l, prev + slide);
        }
        st.free[i].set_lane(i % 8, i % 4 != 0); // some pinned particles
    }
    let mut cm = Mx::<8>::splat(true);
    cm.set_lane(6, false); // a lane far from the planes
    let planes: Vec<Plane<Fx<8>>> = (0..2)
        .map(|k| match world[k].shape {
            WorldShape::Plane { normal, offset } => Plane::of(normal, offset, cm, k as u32),
            _ => unreachable!("planes"),
        })
        .collect();
    let block = Block::<Fx<8>> {
        radius: Fx::splat(0.02),
        live: Mx::splat(true),
        mu: Fx::splat(0.4),
        friction: true,
        ..Block::default()
    };
    let c = Contacts::<Fx<8>> {
        cands: vec![0, 1],
        cand_m: vec![cm, cm],
        span: vec![(0, rows), (0, rows)],
        planes,
        friction: true,
        push: vec![V3::zero(); rows],
        ..Contacts::default()
    };
    let mut three = st.clone();
    let mut c3 = c.clone();
    c3.project(&mut three, &block, &set);
    c3.finish(&mut three, &block, &set);
    let mut one = st.clone();
    let mut c1 = c;
    assert!(c1.project_and_finish_planes(&mut one, block.radius, world, block.mu));
    same_bits(&bits(&one.pos), &bits(&three.pos), "positions");
    same_bits(&bits(&one.carry), &bits(&three.carry), "carries");
    // The passes did something: pushes out of both planes and friction.
    assert_ne!(bits(&one.pos), bits(&st.pos), "nothing moved");
    let r = 0.02;
    let out = |p: Vec3| p.y >= -0.5 + r - 1e-6 && p.y - p.x >= (-2.0 + r) * 2f32.sqrt() - 1e-5;
    for i in 0..rows {
        for l in (0..8).filter(|&l| l != 6 && one.free[i].lane(l)) {
            assert!(
                out(one.pos[i].lane(l)),
                "row {i} lane {l} left inside: {:?}",
                one.pos[i].lane(l)
            );
        }
    }
}
