//! The profiler spans of the `tracing` feature: each stage of a frame opens
//! its span, nested where it runs, and a frame opens a handful of spans,
//! never one per cable or particle. Run with
//!
//! ```sh
//! cargo test -p cable-systems --features tracing --test tracing_spans
//! ```
//!
//! The subscriber is written here against `tracing`'s `Subscriber` trait
//! (no tracing-subscriber): it records each span's name and the name of
//! the span it was opened in.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_core::{CableDesc, CableParams, Collider, ParticlePool};
use cable_systems::ecs::{
    AttachTarget, CableAttachments, CableParticles, CableSpec, CableWorld, ColliderSpec,
};
use cable_systems::query::{CableQuery, Ray};
use cable_systems::snapshot::snapshot_channel;
use cable_systems::trace::tracing;
use cable_systems::{Layout, SolverParams, Stepper};
use glam::Vec3;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Spans seen: (name, name of the span entered when it was opened).
type Seen = Arc<Mutex<Vec<(&'static str, Option<&'static str>)>>>;

/// A subscriber that records span names and their parents, on one thread.
struct Recorder {
    seen: Seen,
    /// Names by span id − 1.
    names: Mutex<Vec<&'static str>>,
    /// Ids entered and not yet exited, innermost last.
    stack: Mutex<Vec<u64>>,
    next: AtomicU64,
}

impl Recorder {
    fn new() -> (Self, Seen) {
        let seen = Seen::default();
        let r = Self {
            seen: Arc::clone(&seen),
            names: Mutex::default(),
            stack: Mutex::default(),
            next: AtomicU64::new(1),
        };
        (r, seen)
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let name = span.metadata().name();
        let mut names = self.names.lock().unwrap();
        let parent = self
            .stack
            .lock()
            .unwrap()
            .last()
            .map(|&id| names[id as usize - 1]);
        names.push(name);
        self.seen.lock().unwrap().push((name, parent));
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed))
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        self.stack.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, _: &Id) {
        self.stack.lock().unwrap().pop();
    }
}

/// Runs `f` with a fresh recorder as this thread's subscriber; returns
/// the spans it opened.
fn record(f: impl FnOnce()) -> Vec<(&'static str, Option<&'static str>)> {
    let (recorder, seen) = Recorder::new();
    tracing::subscriber::with_default(recorder, f);
    seen.lock().unwrap().clone()
}

fn names(seen: &[(&'static str, Option<&'static str>)]) -> Vec<&'static str> {
    seen.iter().map(|s| s.0).collect()
}

fn pool_of(cables: usize) -> ParticlePool {
    let mut pool = ParticlePool::new();
    for i in 0..cables {
        let z = i as f32 * 0.3;
        let mut desc =
            CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(3.0, 0.0, z), 3.5, 16).unwrap();
        if i == 0 {
            desc.params = CableParams {
                break_tension: Some(1.0e6),
                ..CableParams::default()
            };
        }
        pool.add_cable(&desc).unwrap();
    }
    pool
}

#[test]
fn every_stage_of_a_frame_opens_its_span_inside_the_step() {
    let mut pool = pool_of(20);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let seen = record(|| {
        stepper.advance(&mut pool, 4.0 / 60.0).unwrap();
    });
    let n = names(&seen);
    for want in [
        "cable.step",
        "cable.layout",
        "cable.layout.lanes8",
        "cable.break",
    ] {
        assert!(n.contains(&want), "no {want} in {n:?}");
    }
    assert!(
        seen.contains(&("cable.layout", Some("cable.step"))),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("cable.layout.lanes8", Some("cable.layout"))),
        "{seen:?}"
    );
    // Coarse: with a breakable cable the 4 substeps run one at a time,
    // each a layout run and a break pass; 20 cables add nothing.
    assert_eq!(
        n.iter().filter(|&&s| s == "cable.layout.lanes8").count(),
        4,
        "{n:?}"
    );
    assert!(n.len() <= 2 + 4 * 2, "{n:?}");
}

#[test]
fn each_layout_and_substep_entry_point_has_a_span() {
    let mut pool = pool_of(3);
    let seen = record(|| {
        for layout in Layout::ALL {
            let mut stepper = Stepper::with_layout(SolverParams::default(), layout).unwrap();
            stepper.run_substeps(&mut pool, 2);
        }
        cable_systems::substep(&mut pool, &SolverParams::default());
    });
    let n = names(&seen);
    for want in [
        "cable.run_substeps",
        "cable.layout.aos",
        "cable.layout.soa",
        "cable.layout.lanes8",
        "cable.substep",
    ] {
        assert!(n.contains(&want), "no {want} in {n:?}");
    }
    assert!(
        seen.contains(&("cable.layout", Some("cable.run_substeps"))),
        "{seen:?}"
    );
}

#[test]
fn meshes_snapshots_and_queries_have_spans() {
    let mut pool = pool_of(5);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 0.1).unwrap();
    let (mut publisher, _reader) = snapshot_channel();
    let mut mesh = MeshBuffers::new();
    let mut query = CableQuery::new();
    let seen = record(|| {
        cable_systems::mesh::build_meshes(&pool, &MeshOptions::default(), &mut mesh).unwrap();
        publisher.publish(&pool, 1, 0.1, Some(&mesh));
        query.update(&pool);
        let mut hits = Vec::new();
        query.raycast_many(
            &[Ray::new(Vec3::new(1.0, 5.0, 0.0), Vec3::NEG_Y, 10.0).unwrap()],
            &mut hits,
        );
        let mut near = Vec::new();
        query.closest_points(&[Vec3::ONE], 1.0, &mut near).unwrap();
    });
    assert_eq!(
        names(&seen),
        [
            "cable.mesh",
            "cable.snapshot.publish",
            "cable.query.update",
            "cable.query.raycast_many",
            "cable.query.closest_points"
        ]
    );
}

#[test]
fn the_ecs_step_and_its_sync_phases_have_spans() {
    let mut world = hecs::World::new();
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    world.spawn((ColliderSpec(Collider::plane(Vec3::Y, -5.0).unwrap()),));
    world.spawn((
        CableSpec::new(CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.5, 8).unwrap()),
        CableAttachments {
            start: AttachTarget::Point(Vec3::ZERO),
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));
    let seen = record(|| {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    });
    for (name, parent) in [
        ("cable.ecs.step", None),
        ("cable.ecs.sync", Some("cable.ecs.step")),
        ("cable.ecs.spawn", Some("cable.ecs.sync")),
        ("cable.ecs.colliders", Some("cable.ecs.sync")),
        ("cable.ecs.cables", Some("cable.ecs.sync")),
        ("cable.step", Some("cable.ecs.step")),
        ("cable.ecs.write_back", Some("cable.ecs.step")),
    ] {
        assert!(
            seen.contains(&(name, parent)),
            "no {name} in {parent:?}: {seen:?}"
        );
    }
}
