//! The `Lanes8` layout: cables grouped by (segments, bending, compliance)
//! into lane groups of 8, stored array-of-structures-of-arrays, and solved
//! by the one kernel ([`crate::kernel::substep`]) on [`Fx`](crate::kernel::lane::Fx) lanes.
//!
//! Lane `l` of a group is one cable, and the Gauss-Seidel sweep runs along
//! the segment index, so every lane does exactly the arithmetic of the
//! one-lane run of its cable: results are bitwise those of the `Soa` and
//! `Aos` layouts. Contacts run in the lanes too (a candidate collider
//! carries a lane mask, [`crate::kernel::contact`]), so a group near colliders
//! stays wide.
//!
//! The chain along a cable is latency bound (a `sqrt` and a division per
//! segment), so up to [`GROUPS_IN_FLIGHT`] groups of the same key form a
//! *bundle* solved as one block of 8 or 32 lanes: the kernel's lane
//! operations on a 32-lane block are four independent 8-wide operations,
//! whose chains overlap in the CPU.
//!
//! # Persistent storage
//! The bundles' rows *are* the lane cables' state between frames: after a
//! frame they are lent to the pool ([`ParticlePool::lend_state`](cable_core::ParticlePool::lend_state)), whose
//! first read or edit of its particles has them copied back, once
//! ([`cable_core::StateHolder::write_back`]). A frame that nothing reads copies nothing. When
//! something did read or edit the pool since the last frame (a game that
//! renders every frame, the ECS write-back, sleeping), the next frame
//! copies its lanes back in the tasks that ran them, while the rows are
//! hot, on every thread, and the reader finds the pool current.
//!
//! # Data flow of one [`advance`]
//! 1. take the bundles back from the pool
//!    ([`ParticlePool::reclaim_state`](cable_core::ParticlePool::reclaim_state)); if an edit that did not read the
//!    pool (parameters, masses, structure) needs particles from it, have
//!    the lanes write back first;
//! 2. plan (only when the pool's structure changed since the last
//!    frame, see [`ParticlePool::structure_revision`](cable_core::ParticlePool::structure_revision), or an edited
//!    cable's key did): cables are sorted by key and cut into
//!    bundles; a key with too few cables to fill a group (fewer than
//!    [`MIN_GROUP_FILL`] in its last group) leaves those cables to the
//!    one-lane kernel;
//! 3. the pool's columns are split into one mutable view per cable
//!    ([`cable_core::Columns::into_cables`]), put in bundle order: each
//!    bundle's lanes, then the one-lane cables;
//! 4. one parallel pass, over bundles beside the one-lane cables:
//!    - a bundle gathers its cables from their views (again only when the
//!      plan was made again or one of its cables' parameters or masses
//!      changed; only an edited cable's particles when just those changed,
//!      [`ParticlePool::state_edits_since`](cable_core::ParticlePool::state_edits_since); only the attachment targets
//!      when just those moved),
//!      runs the substeps while it is hot in cache, with the best SIMD the
//!      CPU has ([`crate::simd`]), and, when the pool was read since the
//!      last frame, copies its lanes back into the views from the same
//!      task;
//!    - a one-lane cable runs its substeps on the pool directly
//!      ([`kernel::advance_cable_with`](crate::kernel::advance_cable_with)), in pieces of about
//!      [`cable_core::PAR_GRAIN`] particles, each piece with a scratch of its own
//!      kept between frames;
//! 5. lend the bundles to the pool.
//!
//! The split is by bundles and cables, that is by the scene alone, and
//! cables are independent within a substep, so results do not depend on
//! the thread count. Buffers are kept between frames (the views' too:
//! only their allocation, emptied and reused under the next frame's
//! lifetime), so a warmed-up step does not allocate.
//!
//! # Files
//!
//! One way, each importing only those before it: `plan.rs` (lane and
//! bundle widths, the grouping key), `views.rs` (the per-cable views of a
//! frame), `rows.rs` (a bundle's lane rows, the kernel's `Store` over
//! them, prefetching), `bundle.rs` (gather, run, scatter of one bundle),
//! `world.rs` (the state between frames and [`advance`]).

// Public only with `internals` (`inner_modules!`, in `lib.rs`).
inner_modules!(bundle, plan, rows, views, world);

// Named by the docs above; public API only with the `internals` feature.
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use plan::{GROUPS_IN_FLIGHT, LANES, MIN_GROUP_FILL};
pub(crate) use views::ViewBuf;
pub use views::recycle;
pub use world::{LanesWorld, advance};
