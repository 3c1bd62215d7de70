//! The pool's colliders in the debug views: conversion to outline shapes at
//! the collider's current pose, an ASCII snapshot of a simulated cable
//! draped over a sphere collider, and one SVG element per collider.

use cable_core::{CableDesc, Collider, ParticlePool};
use cable_debug::{
    AsciiMode, AsciiOptions, Frame, Recorder, Shape, SvgOptions, render_frame_ascii, render_svg,
    shapes_of,
};
use cable_systems::{SolverParams, Stepper};
use glam::{Quat, Vec3};

fn close(a: Vec3, b: Vec3) -> bool {
    a.distance(b) < 1.0e-5
}

#[test]
fn a_sphere_and_a_box_keep_their_pose() {
    let q = Quat::from_rotation_z(0.4) * Quat::from_rotation_x(-0.3);
    let c = Collider::cuboid(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 0.25, 1.0), q).unwrap();
    let Shape::Box {
        center,
        half_extents,
        rotation,
    } = Shape::from(&c)
    else {
        panic!("a cuboid must become a box");
    };
    assert_eq!(center, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(half_extents, Vec3::new(0.5, 0.25, 1.0));
    // The box's local x axis points where the rotation sends it.
    assert!(close(rotation * Vec3::X, q * Vec3::X));
    let s = Collider::sphere(Vec3::new(-4.0, 0.5, 2.0), 0.7).unwrap();
    assert_eq!(
        Shape::from(&s),
        Shape::Sphere {
            center: Vec3::new(-4.0, 0.5, 2.0),
            radius: 0.7
        }
    );
}

#[test]
fn a_capsule_keeps_its_ends_and_a_moved_capsule_follows_its_pose() {
    let (a0, b0) = (Vec3::new(1.0, -1.0, 0.5), Vec3::new(3.0, 2.0, -1.0));
    let mut pool = ParticlePool::new();
    let h = pool
        .colliders_mut()
        .add(Collider::capsule(a0, b0, 0.3).unwrap());
    let Shape::Capsule { a, b, radius } = shapes_of(pool.colliders())[0] else {
        panic!("a capsule must stay a capsule");
    };
    assert_eq!(radius, 0.3);
    // The same segment, either way round.
    assert!((close(a, a0) && close(b, b0)) || (close(a, b0) && close(b, a0)));

    // Moved and turned a quarter turn about z: the axis follows the pose.
    let (pos, rot) = (Vec3::new(10.0, 0.0, 0.0), Quat::from_rotation_z(0.5));
    pool.colliders_mut().set_pose(h, pos, rot).unwrap();
    let Shape::Capsule { a, b, .. } = Frame::capture(&pool, 0.0).shapes[0] else {
        panic!("a capsule must stay a capsule");
    };
    let half = a0.distance(b0) * 0.5;
    assert!(close((a + b) * 0.5, pos), "{a} {b}");
    assert!(
        close((b - a) * 0.5, rot * Vec3::new(0.0, half, 0.0)),
        "{a} {b}"
    );
}

#[test]
fn a_plane_keeps_its_half_space() {
    let c = Collider::plane(Vec3::new(0.0, 2.0, 2.0), 3.0).unwrap();
    let Shape::Plane { normal, offset } = Shape::from(&c) else {
        panic!("a plane must stay a plane");
    };
    // The same half-space as the scene's: dot(n, p) ≥ offset is outside.
    let n = Vec3::new(0.0, 2.0, 2.0);
    for p in [
        Vec3::ZERO,
        Vec3::new(0.0, 1.0, 1.0),
        Vec3::new(5.0, 3.0, -1.0),
        Vec3::new(-2.0, -1.0, 4.0),
    ] {
        let want = n.dot(p) - 3.0;
        let got = (normal.dot(p) - offset) * n.length() / normal.length();
        assert!((want - got).abs() < 1.0e-4, "{p}: {want} vs {got}");
    }
}

#[test]
fn removed_colliders_are_not_drawn() {
    let mut pool = ParticlePool::new();
    let a = pool
        .colliders_mut()
        .add(Collider::sphere(Vec3::ZERO, 1.0).unwrap());
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, -2.0).unwrap());
    pool.colliders_mut().remove(a).unwrap();
    let shapes = shapes_of(pool.colliders());
    assert_eq!(shapes.len(), 1);
    assert!(matches!(shapes[0], Shape::Plane { .. }));
    // A recorder's own shapes come after the pool's.
    let extra = Shape::Sphere {
        center: Vec3::X,
        radius: 0.5,
    };
    let mut rec = Recorder::new(4).with_shapes(vec![extra]);
    rec.offer(&pool, 0.0);
    assert_eq!(rec.frames()[0].shapes.len(), 2);
    assert_eq!(rec.frames()[0].shapes[1], extra);
}

const CENTER: Vec3 = Vec3::new(0.0, 0.0, 0.0);
const RADIUS: f32 = 1.0;

/// A free 5 m cable dropped from 1.5 m above the top of a unit sphere
/// collider, simulated for 2 s with friction.
fn draped() -> ParticlePool {
    let mut pool = ParticlePool::new();
    let mut desc =
        CableDesc::line(Vec3::new(-2.5, 2.5, 0.0), Vec3::new(2.5, 2.5, 0.0), 5.0, 40).unwrap();
    desc.attach_start = false;
    desc.attach_end = false;
    desc.params.radius = 0.05;
    pool.add_cable(&desc).unwrap();
    pool.colliders_mut()
        .add(Collider::sphere(CENTER, RADIUS).unwrap());
    let mut stepper = Stepper::new(SolverParams {
        damping: 0.2,
        friction: 0.8,
        ..SolverParams::default()
    })
    .unwrap();
    for _ in 0..120 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    pool
}

#[test]
fn snapshot_cable_draped_over_a_sphere_collider() {
    let pool = draped();
    let frame = Frame::capture(&pool, 2.0);
    assert_eq!(
        frame.shapes,
        [Shape::Sphere {
            center: CENTER,
            radius: RADIUS
        }]
    );
    // Physics, not pictures: no particle inside the sphere (beyond a
    // solver tolerance of 1 cm), and the cable rests on it, its middle on
    // top and both halves hanging down.
    let pts = &frame.cables[0].points;
    for p in pts {
        assert!(p.is_finite());
        assert!(
            p.distance(CENTER) >= RADIUS + 0.05 - 0.01,
            "{p} penetrates the sphere"
        );
    }
    let mid = pts[pts.len() / 2];
    assert!(mid.x.abs() < 0.2 && mid.y > RADIUS, "middle at {mid}");
    assert!(
        pts[0].y < 0.0 && pts[pts.len() - 1].y < 0.0,
        "ends not hanging"
    );

    let opts = |mode| AsciiOptions {
        width: 48,
        height: 14,
        mode,
        ..AsciiOptions::default()
    };
    insta::assert_snapshot!(
        "cable_over_sphere_collider_braille",
        render_frame_ascii(&frame, &opts(AsciiMode::Braille)).unwrap()
    );
    insta::assert_snapshot!(
        "cable_over_sphere_collider_plain",
        render_frame_ascii(&frame, &opts(AsciiMode::Plain)).unwrap()
    );
}

#[test]
fn svg_draws_one_element_per_collider() {
    let mut pool = draped();
    let q = Quat::from_rotation_z(0.3);
    let kinds = ["sphere", "plane", "box", "capsule"];
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, -1.5).unwrap());
    pool.colliders_mut()
        .add(Collider::cuboid(Vec3::new(3.0, -1.0, 0.0), Vec3::splat(0.5), q).unwrap());
    pool.colliders_mut().add(
        Collider::capsule(Vec3::new(-3.0, -1.0, 0.0), Vec3::new(-2.0, 0.0, 0.0), 0.2).unwrap(),
    );
    let frame = Frame::capture(&pool, 2.0);
    assert_eq!(frame.shapes.len(), 4);
    for strain in [false, true] {
        let svg = render_svg(
            &frame,
            &SvgOptions {
                strain,
                ..SvgOptions::default()
            },
        )
        .unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let drawn: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("collider"))
            .collect();
        assert_eq!(drawn.len(), 4, "strain {strain}");
        for (i, (node, kind)) in drawn.iter().zip(kinds).enumerate() {
            assert_eq!(
                node.attribute("data-collider"),
                Some(i.to_string().as_str())
            );
            assert_eq!(node.attribute("data-shape"), Some(kind));
            // Each group really draws something.
            assert!(
                node.children().any(|c| c.is_element()),
                "collider {i} ({kind}) is empty"
            );
        }
        let box_lines = drawn[2].children().filter(|c| c.is_element()).count();
        assert_eq!(box_lines, 12, "a box has twelve edges");
    }
    // Without colliders, no collider element.
    let bare = render_svg(
        &Frame::capture(&pool, 2.0).with_shapes(Vec::new()),
        &SvgOptions::default(),
    )
    .unwrap();
    assert!(!bare.contains("class=\"collider\""));
}
