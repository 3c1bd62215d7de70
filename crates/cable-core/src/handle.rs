//! The names the pool hands out: generational [`CableHandle`]s and
//! [`ColliderHandle`]s, and the process-wide source of the identities of
//! pools and collider sets that every handle carries. A leaf: the error
//! type names handles, and everything else names both.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

/// Source of the identities of pools and collider sets.
struct Owners {
    /// The next identity to issue. 64 bits wide, so it never wraps:
    /// identities are `u32`, and going past `u32::MAX` is exhaustion,
    /// never reuse.
    next: u64,
    /// Identities of restored pools and sets that the counter had not
    /// reached when they were restored: skipped when it reaches them.
    restored: BTreeSet<u32>,
}

static OWNERS: Mutex<Owners> = Mutex::new(Owners {
    next: 1,
    restored: BTreeSet::new(),
});

/// The identity source, whatever a panicking thread left (its state is
/// consistent after each statement).
fn owners() -> std::sync::MutexGuard<'static, Owners> {
    OWNERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fresh identity for a new [`crate::ParticlePool`] or
/// [`crate::ColliderSet`]: one no pool or set of the process has had,
/// restored ones included (the counter never wraps, and skips the
/// identities restored ahead of it).
///
/// # Panics
/// When the process has used up the 2³² − 1 identities (created that
/// many pools and sets), as `std::thread::ThreadId` does when its space is
/// used up: reusing one would let a pool accept another's handles.
pub(crate) fn next_owner_id() -> u32 {
    let mut o = owners();
    loop {
        let Ok(id) = u32::try_from(o.next) else {
            panic!(
                "cable-core: every pool and collider set identity of this process is used (2^32 - 1 pools and sets created)"
            );
        };
        o.next += 1;
        if !o.restored.remove(&id) {
            return id;
        }
    }
}

/// Keeps `id`, the identity of a restored pool or collider set, from
/// being issued to a pool or set created afterwards in this process: an
/// identity the counter has not reached yet is skipped when it gets there
/// (the counter does not jump, so a save holding `u32::MAX` uses up
/// nothing). An identity the counter has passed was issued to a pool of
/// this process, or never (0): the restored pool is then a snapshot of
/// that pool, as a clone is, or has an identity no fresh pool takes. (The
/// counter is per process: a save restored in another process carries an
/// identity that process may have issued too.)
#[cfg(feature = "serde")]
pub(crate) fn reserve_owner_id(id: u32) {
    let mut o = owners();
    if u64::from(id) >= o.next {
        o.restored.insert(id);
    }
}

/// The slot accessors both handle types share: a handle is a slot index,
/// the slot's generation when it was issued, and its issuer's identity.
macro_rules! slot_accessors {
    ($handle:ident) => {
        impl $handle {
            /// Slot index of the handle (reused after removal; pair it with
            #[doc = concat!("[`", stringify!($handle), "::generation`]")]
            /// to name one object uniquely).
            #[inline]
            #[must_use]
            pub fn index(self) -> u32 {
                self.index
            }

            /// Generation of the slot when the handle was issued.
            #[inline]
            #[must_use]
            pub fn generation(self) -> u32 {
                self.generation
            }
        }
    };
}

/// Stable, generational name of a cable in a [`crate::ParticlePool`].
///
/// A handle stays valid until its cable is removed; after that every pool
/// method refuses it with [`CableError::StaleHandle`](crate::CableError::StaleHandle), even when a new cable
/// reuses the slot (the generation differs). A handle also carries the
/// identity of the pool that issued it ([`CableHandle::pool_id`]), so
/// another pool refuses it the same way, whatever its slots hold; a clone
/// of a pool keeps the identity and accepts its original's handles (see
/// [`crate::ParticlePool`]). Handles are `Copy`, 12 bytes, and hashable, so
/// they fit in ECS components and maps; with the `serde` feature they
/// serialise, so a game saves the handles it holds with its own state and
/// they name the same cables in a restored pool.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, CableError, ParticlePool};
/// use glam::Vec3;
///
/// let desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
/// let (mut a, mut b) = (ParticlePool::new(), ParticlePool::new());
/// let ha = a.add_cable(&desc)?;
/// let _hb = b.add_cable(&desc)?; // same slot and generation in `b`
/// assert_eq!(b.positions(ha), Err(CableError::StaleHandle(ha)));
/// # Ok::<(), CableError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CableHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    /// Identity of the issuing pool ([`crate::ParticlePool::id`]).
    pub(crate) pool: u32,
}

impl CableHandle {
    /// Identity of the pool that issued the handle
    /// ([`crate::ParticlePool::id`]).
    #[inline]
    #[must_use]
    pub fn pool_id(self) -> u32 {
        self.pool
    }
}

slot_accessors!(CableHandle);

/// Stable, generational name of a collider in a [`crate::ColliderSet`]; refused
/// once the collider is removed, even if its slot is reused, and by every
/// other set (it carries the identity of the set that issued it,
/// [`ColliderHandle::set_id`]; a clone of a set keeps the identity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderHandle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
    pub(crate) set: u32,
}

impl ColliderHandle {
    /// Identity of the set that issued the handle ([`crate::ColliderSet::id`]).
    #[inline]
    #[must_use]
    pub fn set_id(self) -> u32 {
        self.set
    }
}

slot_accessors!(ColliderHandle);
