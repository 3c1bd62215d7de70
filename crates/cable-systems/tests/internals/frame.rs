use cable_systems::frame::*;
use glam::Vec3;

#[test]
fn transport_is_the_minimal_rotation() {
    let a = Vec3::new(1.0, 2.0, 0.5).normalize();
    let b = Vec3::new(-0.3, 1.0, 2.0).normalize();
    let n = seed_normal(a, Vec3::Z);
    let q = glam::Quat::from_rotation_arc(a, b);
    assert!((transport(n, a, b) - q * n).length() < 1e-5);
}

#[test]
fn fold_keeps_a_perpendicular_unit_normal() {
    let n = transport(Vec3::Y, Vec3::X, Vec3::NEG_X);
    assert!((n.length() - 1.0).abs() < 1e-6 && n.dot(Vec3::X).abs() < 1e-6);
}
