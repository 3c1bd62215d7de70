//! `CableDebugPlugin` in a headless app (no window, no GPU): what it draws
//! is read back from the gizmo asset Bevy's `GizmoPlugin` fills in `Last`
//! (the vertex buffers the renderer would upload).
#![cfg(feature = "gizmos")]

use std::any::TypeId;
use std::time::Duration;

use bevy_app::prelude::*;
use bevy_asset::{AssetPlugin, Assets};
use bevy_color::{Color, LinearRgba};
use bevy_ecs::prelude::*;
use bevy_gizmos::config::GizmoConfigStore;
use bevy_gizmos::{GizmoAsset, GizmoHandles, GizmoPlugin};
use bevy_math::{Quat, Vec3};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableCollider, CableDebugPlugin, CableGizmos, CableParticles, CablePlugin, CableTension,
    CableTensionColors,
};

/// A headless app stepping 1/60 s per update, one fixed step per update,
/// with Bevy's gizmos and the debug plugin.
fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        AssetPlugin::default(),
        GizmoPlugin,
        CablePlugin::default(),
        CableDebugPlugin,
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app
}

/// What the cable gizmo group drew in the last update: the line list as
/// (start, end, start colour) and the vertices of the line strips (the
/// breaks between strips left out).
#[derive(Debug, Default)]
struct Drawn {
    lines: Vec<(Vec3, Vec3, LinearRgba)>,
    strips: Vec<Vec3>,
}

impl Drawn {
    fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.strips.is_empty()
    }

    /// Every vertex, lines and strips.
    fn vertices(&self) -> Vec<Vec3> {
        self.lines
            .iter()
            .flat_map(|(a, b, _)| [*a, *b])
            .chain(self.strips.iter().copied())
            .collect()
    }
}

fn drawn(app: &App) -> Drawn {
    let handles = app.world().resource::<GizmoHandles>();
    let Some(Some(handle)) = handles.handles().get(&TypeId::of::<CableGizmos>()) else {
        // Bevy drops the asset of a group that drew nothing.
        return Drawn::default();
    };
    let asset = app
        .world()
        .resource::<Assets<GizmoAsset>>()
        .get(handle)
        .expect("the group's gizmo asset");
    let buffer = asset.buffer();
    assert_eq!(buffer.list_positions.len(), buffer.list_colors.len());
    assert_eq!(buffer.list_positions.len() % 2, 0);
    Drawn {
        lines: buffer
            .list_positions
            .chunks(2)
            .zip(buffer.list_colors.chunks(2))
            .map(|(p, c)| (p[0], p[1], c[0]))
            .collect(),
        strips: buffer
            .strip_positions
            .iter()
            .copied()
            .filter(|p| p.is_finite())
            .collect(),
    }
}

fn config(app: &mut App) -> Mut<'_, GizmoConfigStore> {
    app.world_mut().resource_mut::<GizmoConfigStore>()
}

fn particles(app: &App, e: Entity) -> Vec<Vec3> {
    app.world()
        .get::<CableParticles>(e)
        .expect("Cable requires CableParticles")
        .positions
        .clone()
}

#[test]
fn each_segment_is_a_line_between_its_particles() {
    let mut app = app();
    let rope = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(0.0, 2.0, 0.0), Vec3::new(2.0, 2.0, 0.0), 2.5, 12)
                .expect("valid"),
        )
        .id();
    let color = Color::srgb(0.1, 0.2, 0.9);
    {
        let mut store = config(&mut app);
        let cables = store.config_mut::<CableGizmos>().1;
        cables.cable_color = Some(color);
    }
    for frame in 0..30 {
        app.update();
        let p = particles(&app, rope);
        let d = drawn(&app);
        if p.is_empty() {
            // The first update only starts the clocks: no step, no particles.
            assert_eq!(frame, 0);
            assert!(d.is_empty(), "{d:?}");
            continue;
        }
        assert_eq!(p.len(), 13);
        assert!(d.strips.is_empty(), "a cable is drawn as lines: {d:?}");
        let expected: Vec<_> = p
            .windows(2)
            .map(|s| (s[0], s[1], LinearRgba::from(color)))
            .collect();
        assert_eq!(d.lines, expected, "frame {frame}");
    }
    // It sagged: the lines followed the particles, not the first pose.
    assert!(particles(&app, rope)[6].y < 1.9);
}

#[test]
fn segments_are_coloured_by_tension() {
    let mut app = app();
    // A chain hanging from its top: the tension grows toward the top.
    let mut chain =
        Cable::line(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 1.0, 0.0), 2.0, 10).expect("valid");
    chain.desc.attach_end = false;
    let chain = app.world_mut().spawn((chain, CableTension::default())).id();
    // Plain colour for a cable without the readout.
    let plain = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(3.0, 3.0, 0.0), Vec3::new(5.0, 3.0, 0.0), 2.5, 4).expect("valid"),
        )
        .id();
    let colors = CableTensionColors {
        full_scale: 60.0,
        ..CableTensionColors::default()
    };
    let cable_color = Color::WHITE;
    {
        let mut store = config(&mut app);
        let cables = store.config_mut::<CableGizmos>().1;
        cables.cable_color = Some(cable_color);
        cables.tension = Some(colors);
    }
    for _ in 0..120 {
        app.update();
    }
    let t = app
        .world()
        .get::<CableTension>(chain)
        .expect("inserted")
        .segments
        .clone();
    assert_eq!(t.len(), 10);
    let d = drawn(&app);
    let p = particles(&app, chain);
    let chain_lines: Vec<_> = d
        .lines
        .iter()
        .filter(|(a, b, _)| p.contains(a) && p.contains(b))
        .collect();
    assert_eq!(chain_lines.len(), 10);
    for (i, (a, b, c)) in chain_lines.iter().enumerate() {
        assert_eq!((*a, *b), (p[i], p[i + 1]));
        assert_eq!(
            *c,
            LinearRgba::from(colors.color(t[i], 60.0)),
            "segment {i}"
        );
    }
    // Ten particles of 1 kg below the top segment: about 98 N, past the
    // full scale; the bottom one holds about 9.8 N.
    assert_eq!(chain_lines[0].2, LinearRgba::from(colors.taut));
    let bottom = chain_lines[9].2;
    assert_ne!(bottom, LinearRgba::from(colors.taut));
    assert_ne!(bottom, LinearRgba::from(colors.slack));
    let q = particles(&app, plain);
    let plain_lines: Vec<_> = d
        .lines
        .iter()
        .filter(|(a, b, _)| q.contains(a) && q.contains(b))
        .collect();
    assert_eq!(plain_lines.len(), 4);
    assert!(
        plain_lines
            .iter()
            .all(|(_, _, c)| *c == LinearRgba::from(cable_color))
    );

    // A cable with a break tension is scaled by it.
    let mut weak =
        Cable::line(Vec3::new(8.0, 3.0, 0.0), Vec3::new(8.0, 1.0, 0.0), 2.0, 10).expect("valid");
    weak.desc.attach_end = false;
    weak.desc.params.break_tension = Some(1000.0);
    let weak = app.world_mut().spawn((weak, CableTension::default())).id();
    for _ in 0..60 {
        app.update();
    }
    let t = app
        .world()
        .get::<CableTension>(weak)
        .expect("inserted")
        .segments
        .clone();
    let p = particles(&app, weak);
    let d = drawn(&app);
    let top = d
        .lines
        .iter()
        .find(|(a, b, _)| (*a, *b) == (p[0], p[1]))
        .expect("the top segment is drawn");
    assert!(t[0] > 60.0, "{t:?}");
    assert_eq!(top.2, LinearRgba::from(colors.color(t[0], 1000.0)));
    assert_ne!(top.2, LinearRgba::from(colors.taut));
}

#[test]
fn a_broken_segment_is_not_drawn() {
    let mut app = app();
    let mut weak =
        Cable::line(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 1.0, 0.0), 2.0, 20).expect("valid");
    weak.desc.attach_end = false;
    weak.desc.params.break_tension = Some(5.0);
    let weak = app.world_mut().spawn(weak).id();
    for _ in 0..60 {
        app.update();
    }
    let p = particles(&app, weak);
    assert_eq!(p.len(), 21);
    let lines = drawn(&app)
        .lines
        .iter()
        .filter(|(a, b, _)| p.contains(a) && p.contains(b))
        .count();
    assert!(0 < lines && lines < 20, "{lines} of 20 segments drawn");
}

/// One collider at a turned, moved pose; the cable gizmos off. Returns
/// every vertex drawn, in the collider's local frame, after the collider
/// reached the pool.
fn collider_vertices(collider: CableCollider) -> Vec<Vec3> {
    let mut app = app();
    let rotation = Quat::from_euler(bevy_math::EulerRot::XYZ, 0.3, -0.7, 0.2);
    let translation = Vec3::new(1.0, 2.0, -3.0);
    app.world_mut().spawn((
        collider,
        Transform::from_translation(translation).with_rotation(rotation),
    ));
    // A cable, not drawn: only the collider is.
    app.world_mut().spawn(
        Cable::line(Vec3::new(0.0, 9.0, 0.0), Vec3::new(2.0, 9.0, 0.0), 2.5, 8).expect("valid"),
    );
    config(&mut app).config_mut::<CableGizmos>().1.cable_color = None;
    for _ in 0..3 {
        app.update();
    }
    let d = drawn(&app);
    assert!(!d.is_empty());
    d.vertices()
        .into_iter()
        .map(|v| rotation.inverse() * (v - translation))
        .collect()
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-4
}

/// Some vertex is near `p` (local frame).
fn reaches(vertices: &[Vec3], p: Vec3) -> bool {
    vertices.iter().any(|v| v.distance(p) < 1e-3)
}

#[test]
fn a_sphere_is_drawn_on_its_surface() {
    let v = collider_vertices(CableCollider::sphere(0.75).expect("valid"));
    assert!(v.len() > 20);
    assert!(v.iter().all(|p| close(p.length(), 0.75)), "{v:?}");
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        assert!(
            reaches(&v, axis * 0.75) && reaches(&v, -axis * 0.75),
            "{axis}"
        );
    }
}

#[test]
fn a_capsule_is_drawn_on_its_surface() {
    let (h, r) = (1.0, 0.25);
    let v = collider_vertices(CableCollider::capsule_y(h, r).expect("valid"));
    assert!(v.len() > 20);
    let to_axis = |p: &Vec3| p.distance(Vec3::new(0.0, p.y.clamp(-h, h), 0.0));
    assert!(v.iter().all(|p| close(to_axis(p), r)), "{v:?}");
    // Both caps' tips, and the rings where the caps meet the sides.
    assert!(reaches(&v, Vec3::Y * (h + r)) && reaches(&v, -Vec3::Y * (h + r)));
    for y in [h, -h] {
        assert!(
            v.iter().filter(|p| close(p.y, y)).count() > 8,
            "ring at {y}"
        );
    }
}

#[test]
fn a_box_is_drawn_on_its_edges() {
    let half = Vec3::new(0.5, 0.25, 1.0);
    let v = collider_vertices(CableCollider::cuboid(half).expect("valid"));
    // Every vertex on an edge: at least two coordinates at the extent.
    for p in &v {
        let at = (0..3).filter(|&k| close(p[k].abs(), half[k])).count();
        assert!(at >= 2 && (p.abs() - half).max_element() < 1e-4, "{p}");
    }
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                assert!(reaches(&v, half * Vec3::new(sx, sy, sz)));
            }
        }
    }
}

#[test]
fn a_half_space_is_drawn_in_its_plane_with_its_normal() {
    let v = collider_vertices(CableCollider::half_space());
    let size = CableGizmos::default().half_space_size;
    let tip = Vec3::Y * size * 0.5;
    // In the plane within the square, but for the normal's tip.
    assert!(
        v.iter().all(
            |p| (close(p.y, 0.0) && p.x.abs() <= size + 1e-4 && p.z.abs() <= size + 1e-4)
                || p.distance(tip) < 1e-4
        ),
        "{v:?}"
    );
    assert!(reaches(&v, tip));
    for corner in [
        Vec3::new(size, 0.0, size),
        Vec3::new(-size, 0.0, size),
        Vec3::new(size, 0.0, -size),
        Vec3::new(-size, 0.0, -size),
    ] {
        assert!(reaches(&v, corner), "{corner}");
    }
}

#[test]
fn switching_it_off_draws_nothing() {
    let mut app = app();
    let rope = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(0.0, 2.0, 0.0), Vec3::new(2.0, 2.0, 0.0), 2.5, 6).expect("valid"),
        )
        .id();
    app.world_mut().spawn((
        CableCollider::sphere(0.5).expect("valid"),
        Transform::from_xyz(5.0, 0.0, 0.0),
    ));
    app.update();
    app.update();
    let both = drawn(&app);
    let p = particles(&app, rope);
    let is_cable = |(a, b, _): &(Vec3, Vec3, LinearRgba)| p.contains(a) && p.contains(b);
    assert_eq!(both.lines.iter().filter(|l| is_cable(l)).count(), 6);
    assert!(both.vertices().len() > 12, "the sphere is drawn too");

    // The whole group off.
    config(&mut app).config_mut::<CableGizmos>().0.enabled = false;
    for _ in 0..2 {
        app.update();
        assert!(drawn(&app).is_empty(), "{:?}", drawn(&app));
    }

    // On again, cables only.
    {
        let mut store = config(&mut app);
        let (config, cables) = store.config_mut::<CableGizmos>();
        config.enabled = true;
        cables.collider_color = None;
    }
    app.update();
    let d = drawn(&app);
    let p = particles(&app, rope);
    assert_eq!(d.lines.len(), 6);
    assert!(d.strips.is_empty());
    assert!(
        d.lines
            .iter()
            .all(|(a, b, _)| p.contains(a) && p.contains(b))
    );

    // Colliders only.
    {
        let mut store = config(&mut app);
        let cables = store.config_mut::<CableGizmos>().1;
        cables.collider_color = Some(Color::WHITE);
        cables.cable_color = None;
    }
    app.update();
    let d = drawn(&app);
    assert!(!d.is_empty());
    assert!(
        d.vertices()
            .iter()
            .all(|v| close(v.distance(Vec3::new(5.0, 0.0, 0.0)), 0.5))
    );

    // Both parts off.
    config(&mut app)
        .config_mut::<CableGizmos>()
        .1
        .collider_color = None;
    app.update();
    assert!(drawn(&app).is_empty());
}
