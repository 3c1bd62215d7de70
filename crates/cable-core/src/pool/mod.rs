//! The structure-of-arrays particle pool that holds every particle of every
//! cable.
//!
//! One type, [`ParticlePool`], whose jobs live in files of their own, each
//! an `impl ParticlePool` block over the data defined in `store`:
//!
//! | file | job |
//! | --- | --- |
//! | `store` | the struct, its records and constants, counts |
//! | `revisions` | the revision numbers, private, changed only through named edits (a leaf) |
//! | `cables` | adding, removing, finding cables; compaction |
//! | `edit` | one cable's columns and parameters, read and edited |
//! | `attach` | attached ends and their targets |
//! | `motion`, `teleport` | moving whole cables; teleports detected and undone |
//! | `columns` | disjoint borrows for the solver, parallel iteration |
//! | `access` | revisions, indexed iteration, read-only views |
//! | `lent`, `lending` | the state columns a layout may hold between frames |
//! | `sleep` | sleeping cables and waking them |
//! | `reel` | the winch: paying out and reeling in |
//! | `reaches` | derived row constants (tether reaches, bending), whole or after a winch turn |
//! | `rows` | every cable's rows at once, for passes that couple cables |
//! | `check` | invariant checks (`ParticlePool::validate`) |
//! | `matching` | whether a restored pool is a run of a given scene |
//! | `save` | serialisation (feature `serde`) |
//!
//! `store` imports none of the others; they import `store` (and `lent`,
//! `columns` for the types they lend), never each other in a circle.

mod access;
mod attach;
mod cables;
mod check;
mod columns;
mod edit;
mod lending;
mod lent;
mod matching;
mod motion;
mod reaches;
mod reel;
mod revisions;
mod rows;
#[cfg(feature = "serde")]
mod save;
mod sleep;
mod store;
mod teleport;

pub use access::{CableRef, StepMark};
pub use check::MAX_STATE_COORDINATE;
pub use columns::{CableMut, Columns, IntoCables, PAR_GRAIN};
pub use lent::{HeldRead, ParticleState, Reclaimed, StateHolder};
pub use matching::SetupMismatch;
pub use rows::PoolRows;
pub use store::{
    DEFAULT_PARTICLE_BUDGET, NO_ANCHOR, ParticlePool, RowConst, RowsCable, WAKE_MARGIN,
};
