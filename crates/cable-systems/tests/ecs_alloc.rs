//! A warmed-up `CableWorld::step` allocates nothing (issue 10): the layer
//! keeps its buffers (motions, reports, scratch lists) between frames and
//! the particle write-back reuses each `CableParticles` buffer. Counted
//! with a global allocator of its own (its own file: it sets
//! `#[global_allocator]`).

// A global allocator is an `unsafe impl`; it only counts and forwards to
// the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use cable_core::{CableDesc, CableParams};
use cable_systems::SolverParams;
use cable_systems::ecs::{
    AttachTarget, CableAttachments, CableHidden, CableParticles, CableSpec, CableWorld, Transform,
};
use glam::{Quat, Vec3};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn a_warmed_up_ecs_step_allocates_nothing() {
    // As tests/alloc.rs: two workers, every one started (thread start-up
    // allocates, concurrently).
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("threads");
    workers.broadcast(|_| ());
    workers.install(ecs_steps_allocate_nothing);
}

fn ecs_steps_allocate_nothing() {
    let mut world = hecs::World::new();
    let mut hands = Vec::new();
    for k in 0..40 {
        let y = k as f32 * 0.5;
        let mut desc = CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(3.0, y, 0.0), 3.5, 12)
            .expect("valid line");
        desc.attach_end = k % 4 == 0;
        // Thresholds the hands never cross: checked every frame, no teleport.
        if k % 3 == 0 {
            desc.params = CableParams {
                teleport_distance: Some(50.0),
                teleport_rotation: Some(3.0),
                ..desc.params
            };
        }
        let hand = world.spawn((Transform::from_translation(Vec3::new(0.0, y, 0.0)),));
        let end = match k % 4 {
            1 => AttachTarget::Point(Vec3::new(3.0, y, 0.0)),
            _ => AttachTarget::Free,
        };
        let attach = CableAttachments {
            start: AttachTarget::Entity {
                entity: hand,
                offset: Vec3::new(0.0, 0.0, 0.1),
            },
            end,
        };
        let rope = world.spawn((CableSpec::new(desc), attach, CableParticles::default()));
        if k % 5 == 2 {
            world.insert_one(rope, CableHidden).expect("live entity");
        }
        hands.push(hand);
    }
    // Two substeps a frame, so moving ends are interpolated.
    let params = SolverParams {
        substep: 1.0 / 120.0,
        ..SolverParams::default()
    };
    let mut cables = CableWorld::new(params).expect("valid parameters");
    let mut frame = |world: &mut hecs::World, f: u32| {
        for (k, &hand) in hands.iter().enumerate() {
            let mut t = world.get::<&mut Transform>(hand).expect("live hand");
            t.translation.x = 0.01 * (f % 50) as f32;
            t.rotation = Quat::from_rotation_y(0.02 * (f + k as u32) as f32);
        }
        cables.step(world, 1.0 / 60.0).expect("finite dt");
        assert!(cables.report().is_empty(), "{:?}", cables.report());
    };
    for f in 0..10 {
        frame(&mut world, f);
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for f in 10..40 {
        frame(&mut world, f);
    }
    let allocated = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(allocated, 0, "a warmed-up step allocated {allocated} times");
}
