//! The particle state a layout may keep in its own storage between frames.
//!
//! A layout that solves cables in its own memory (the `Lanes8` layout of
//! `cable-systems` keeps them in 8- or 32-lane rows) would otherwise copy
//! every particle back into the pool's columns after every frame, whether
//! anything reads them or not: at one substep a frame that copy cost about
//! as much as the substep itself. Instead the layout *lends* the pool its
//! storage ([`ParticlePool::lend_state`](crate::ParticlePool::lend_state)): the pool's state columns are
//! then older than the layout's rows, and the first access to them, shared
//! or exclusive, has the layout write its newest state back once
//! ([`StateHolder::write_back`]). The layout takes its storage back at the
//! next step ([`ParticlePool::reclaim_state`](crate::ParticlePool::reclaim_state)); if nothing read the pool in
//! between, nothing was copied.
//!
//! Every access to the state columns goes through [`Lent::get`] or
//! [`Lent::get_mut`], so no reader can see the older columns: the type
//! system, not a convention, keeps them apart. No `unsafe`: the columns
//! live in a [`OnceLock`] that is set while they are current, and a
//! [`Mutex`] holds them while they are not.

use std::any::Any;
use std::fmt;
use std::sync::{Mutex, OnceLock, PoisonError};

use glam::Vec3;

/// The per-particle state columns of a pool: what a step changes. A layout
/// that keeps its own copy writes these back ([`StateHolder::write_back`]);
/// row `i` of each is the pool's particle `i`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParticleState {
    /// Positions, metres.
    pub pos: Vec<Vec3>,
    /// Previous positions (Verlet state), metres.
    pub prev: Vec<Vec3>,
    /// What rounding dropped of each particle's last displacement, metres
    /// ([`ParticlePool::carry`](crate::ParticlePool::carry)).
    pub carry: Vec<Vec3>,
    /// The carry of each particle's previous position, metres
    /// ([`ParticlePool::carry_prev`](crate::ParticlePool::carry_prev)).
    pub carry_prev: Vec<Vec3>,
    /// XPBD multipliers of the distance constraints.
    pub lambda: Vec<f32>,
    /// XPBD multipliers of the bending constraints.
    pub lambda_bend: Vec<f32>,
    /// Multipliers of each particle's tethers and curvature constraint.
    pub lambda_row: Vec<[f32; 3]>,
}

/// A layout's storage that holds a newer state of some of the pool's
/// cables than the pool's columns ([`ParticlePool::lend_state`](crate::ParticlePool::lend_state)).
///
/// # Example
/// A holder that keeps one particle's newer position:
/// ```
/// use cable_core::{CableDesc, ParticlePool, ParticleState, StateHolder};
/// use glam::Vec3;
///
/// #[derive(Debug)]
/// struct One(usize, Vec3);
/// impl StateHolder for One {
///     fn write_back(&self, state: &mut ParticleState) {
///         state.pos[self.0] = self.1;
///     }
///     fn as_any(&self) -> &dyn std::any::Any {
///         self
///     }
///     fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
///         self
///     }
/// }
///
/// let mut pool = ParticlePool::new();
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2)?)?;
/// pool.lend_state(Box::new(One(1, Vec3::Y)));
/// // The first read has the holder write back: the reader sees its state.
/// assert_eq!(pool.positions(h)?[1], Vec3::Y);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub trait StateHolder: Send + Sync + fmt::Debug {
    /// Writes the holder's state into the pool's columns. The rows have
    /// not moved since the holder was lent: any change of the pool's
    /// structure first has the holder write back. Called at most once per
    /// lending, by whichever thread first accesses the pool's state.
    fn write_back(&self, state: &mut ParticleState);

    /// Copies the positions of the pool's cable `cable` (its index in row
    /// order, as [`ParticlePool::cable`](crate::ParticlePool::cable) takes) into `out` (one per
    /// particle), if the holder has them: what [`ParticlePool::copy_positions`](crate::ParticlePool::copy_positions) reads
    /// without a write-back of every cable. Returns where they are; the
    /// default, [`HeldRead::WriteBack`], keeps the write-back. `out` is
    /// left as it was unless this returns [`HeldRead::Copied`].
    fn copy_positions(&self, cable: usize, out: &mut [Vec3]) -> HeldRead {
        let _ = (cable, out);
        HeldRead::WriteBack
    }

    /// The holder as [`Any`], so its layout can tell its own type
    /// ([`ParticlePool::reclaim_state`](crate::ParticlePool::reclaim_state)).
    fn as_any(&self) -> &dyn Any;

    /// The holder as [`Any`], so its layout can take its own type back.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// Where a lent pool finds one cable's positions
/// ([`StateHolder::copy_positions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldRead {
    /// The holder copied them.
    Copied,
    /// The pool's columns are current for this cable (the holder does not
    /// solve it, or has written it back already).
    Columns,
    /// The holder cannot say: the pool has it write back, as for any read.
    WriteBack,
}

/// What [`ParticlePool::reclaim_state`](crate::ParticlePool::reclaim_state) gives back.
#[derive(Debug)]
pub struct Reclaimed {
    /// The storage that was lent.
    pub holder: Box<dyn StateHolder>,
    /// True when the pool's columns are current (something read or edited
    /// the pool, so the holder wrote back); false when they are older than
    /// the holder for its cables, which the caller must then solve from
    /// the holder, or write back into [`ParticlePool::state_columns_mut`](crate::ParticlePool::state_columns_mut)
    /// before reading them.
    pub current: bool,
}

/// The pool's state columns, current or lent (see the module docs).
///
/// # Invariant
/// Exactly one of `now` (set) and `held` (`Some`) holds the columns; while
/// `held` does, `holder` is `Some` and newer for its cables.
pub(crate) struct Lent {
    now: OnceLock<ParticleState>,
    held: Mutex<Option<ParticleState>>,
    holder: Option<Box<dyn StateHolder>>,
}

impl Lent {
    pub(crate) fn new(state: ParticleState) -> Self {
        Self {
            now: OnceLock::from(state),
            held: Mutex::new(None),
            holder: None,
        }
    }

    /// The current columns: the first access after a lending has the
    /// holder write back, on this thread.
    #[inline]
    pub(crate) fn get(&self) -> &ParticleState {
        self.now.get_or_init(|| {
            let mut state = self
                .held
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                // Invariant: `now` is unset only while `held` holds them,
                // and only this initialisation takes them out.
                .expect("lent columns are held");
            if let Some(h) = &self.holder {
                h.write_back(&mut state);
            }
            state
        })
    }

    /// The current columns, mutably (written back first when lent).
    #[inline]
    pub(crate) fn get_mut(&mut self) -> &mut ParticleState {
        if self.now.get().is_none() {
            self.get();
        }
        // Invariant: `get` has set `now`.
        self.now.get_mut().expect("set by get")
    }

    /// Copies the positions of cable `cable` (rows `rows`) into `out`: from
    /// the current columns, else from the holder or the held columns when
    /// the holder says that is where they are, else after a write-back.
    /// Reading one cable this way leaves the pool lent.
    pub(crate) fn copy_positions(
        &self,
        cable: usize,
        rows: std::ops::Range<usize>,
        out: &mut [Vec3],
    ) {
        if let Some(st) = self.now.get() {
            out.copy_from_slice(&st.pos[rows]);
            return;
        }
        let from = self
            .holder
            .as_ref()
            .map_or(HeldRead::WriteBack, |h| h.copy_positions(cable, out));
        match from {
            HeldRead::Copied => return,
            HeldRead::Columns => {
                let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(st) = held.as_ref() {
                    out.copy_from_slice(&st.pos[rows]);
                    return;
                }
                // Another reader has made the columns current meanwhile.
            }
            HeldRead::WriteBack => {}
        }
        out.copy_from_slice(&self.get().pos[rows]);
    }

    /// The columns as they are, current or not (for the layout that holds
    /// the newer state).
    pub(crate) fn as_is_mut(&mut self) -> &mut ParticleState {
        if self.now.get().is_none() {
            let state = self
                .held
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                // Invariant: `now` unset means `held` holds them.
                .expect("lent columns are held");
            // `now` is unset: this cannot fail.
            let _ = self.now.set(state);
        }
        // Invariant: set above.
        self.now.get_mut().expect("set above")
    }

    /// True while a holder is newer than the columns.
    pub(crate) fn is_lent(&self) -> bool {
        self.now.get().is_none()
    }

    pub(crate) fn lend(&mut self, holder: Box<dyn StateHolder>) {
        // A holder still newer than the columns writes back first: its
        // state is not lost, whoever lends next.
        self.get();
        if let Some(state) = self.now.take() {
            *self.held.get_mut().unwrap_or_else(PoisonError::into_inner) = Some(state);
        }
        self.holder = Some(holder);
    }

    pub(crate) fn reclaim(&mut self) -> Option<Reclaimed> {
        let current = !self.is_lent();
        let holder = self.holder.take()?;
        // The columns go back to `now`, older than `holder` if not `current`.
        self.as_is_mut();
        Some(Reclaimed { holder, current })
    }
}

impl Clone for Lent {
    /// A copy of the current columns, not lent.
    fn clone(&self) -> Self {
        Self::new(self.get().clone())
    }
}

impl fmt::Debug for Lent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The current columns (a lent holder writes back first, as for any
        // reader).
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use glam::Vec3;

    use super::{HeldRead, ParticleState, StateHolder};
    use crate::{CableDesc, ParticlePool};

    /// Sets every position's `y` to its value, counting its write-backs.
    #[derive(Debug)]
    struct Lift(f32, &'static AtomicUsize);

    impl StateHolder for Lift {
        fn write_back(&self, state: &mut ParticleState) {
            self.1.fetch_add(1, Ordering::Relaxed);
            for p in &mut state.pos {
                p.y = self.0;
            }
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
            self
        }
    }

    fn pool() -> (ParticlePool, crate::CableHandle) {
        let mut pool = ParticlePool::new();
        let d = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 3).expect("valid");
        let h = pool.add_cable(&d).expect("fits");
        (pool, h)
    }

    /// One write-back per lending, at the first read; none without a read.
    #[test]
    fn the_first_read_writes_back_once() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let (mut pool, h) = pool();
        pool.lend_state(Box::new(Lift(2.0, &COUNT)));
        assert!(pool.is_lent());
        assert_eq!(COUNT.load(Ordering::Relaxed), 0, "lending copies nothing");
        assert!(pool.positions(h).expect("live").iter().all(|p| p.y == 2.0));
        assert!(pool.cable(0).expect("live").pos.iter().all(|p| p.y == 2.0));
        assert!(!pool.is_lent());
        assert_eq!(COUNT.load(Ordering::Relaxed), 1);
        // Taken back after a read: current.
        let back = pool.reclaim_state().expect("lent");
        assert!(back.current);
        // Lent again and taken back unread: the columns are older.
        pool.lend_state(Box::new(Lift(3.0, &COUNT)));
        let back = pool.reclaim_state().expect("lent");
        assert!(!back.current);
        assert_eq!(COUNT.load(Ordering::Relaxed), 1, "nothing read");
        assert!(pool.positions(h).expect("live").iter().all(|p| p.y == 2.0));
        assert!(pool.reclaim_state().is_none());
    }

    /// Copies its one cable's positions (z = 7) when asked for cable 1,
    /// says the columns hold cable 0, and cannot say for the others.
    #[derive(Debug)]
    struct Second(&'static AtomicUsize);

    impl StateHolder for Second {
        fn write_back(&self, _: &mut ParticleState) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        fn copy_positions(&self, cable: usize, out: &mut [Vec3]) -> HeldRead {
            match cable {
                0 => HeldRead::Columns,
                1 => {
                    out.fill(Vec3::Z * 7.0);
                    HeldRead::Copied
                }
                _ => HeldRead::WriteBack,
            }
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
            self
        }
    }

    /// `copy_positions` on a lent pool reads where the holder says the
    /// cable is, and only a holder that cannot say has it write back.
    #[test]
    fn copying_positions_asks_the_holder_first() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let mut pool = ParticlePool::new();
        let handles: Vec<_> = (0..3)
            .map(|k| {
                let y = Vec3::Y * k as f32;
                let d = CableDesc::line(y, y + Vec3::X, 1.0, 2).expect("valid");
                pool.add_cable(&d).expect("fits")
            })
            .collect();
        let columns: Vec<Vec<Vec3>> = handles
            .iter()
            .map(|&h| pool.positions(h).expect("live").to_vec())
            .collect();
        pool.lend_state(Box::new(Second(&COUNT)));
        let mut out = vec![Vec3::NAN; 9];
        pool.copy_positions(handles[0], &mut out).expect("live");
        assert_eq!(out, columns[0], "the held columns, the buffer cleared");
        pool.copy_positions(handles[1], &mut out).expect("live");
        assert_eq!(out, vec![Vec3::Z * 7.0; 3], "the holder's copy");
        assert!(pool.is_lent());
        assert_eq!(COUNT.load(Ordering::Relaxed), 0, "no write-back yet");
        pool.copy_positions(handles[2], &mut out).expect("live");
        assert_eq!(out, columns[2]);
        assert!(!pool.is_lent());
        assert_eq!(
            COUNT.load(Ordering::Relaxed),
            1,
            "a write-back for the third"
        );
        // Current now: the columns, whatever the holder would say.
        pool.copy_positions(handles[1], &mut out).expect("live");
        assert_eq!(out, columns[1]);
        let stale = handles[1];
        pool.remove_cable(stale).expect("live");
        out.clone_from(&columns[0]);
        assert!(pool.copy_positions(stale, &mut out).is_err());
        assert_eq!(out, columns[0], "a stale handle leaves the buffer");
        // The slice form: exactly the cable's length.
        let mut three = [Vec3::NAN; 3];
        pool.copy_positions_to(handles[2], &mut three)
            .expect("fits");
        assert_eq!(three.to_vec(), columns[2]);
        assert!(
            pool.copy_positions_to(handles[2], &mut [Vec3::ZERO; 2])
                .is_err()
        );
    }

    /// Edits, structural changes, clones and the explicit sync see the
    /// holder's state first.
    #[test]
    fn edits_and_clones_see_the_holder_state() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let (mut pool, h) = pool();
        pool.lend_state(Box::new(Lift(1.5, &COUNT)));
        let copy = pool.clone();
        assert!(!copy.is_lent());
        assert!(copy.positions(h).expect("live").iter().all(|p| p.y == 1.5));
        pool.lend_state(Box::new(Lift(4.0, &COUNT)));
        pool.positions_mut(h).expect("live")[0].x = 9.0;
        let p = pool.positions(h).expect("live");
        assert_eq!((p[0].x, p[0].y, p[1].y), (9.0, 4.0, 4.0));
        pool.lend_state(Box::new(Lift(5.0, &COUNT)));
        let d = CableDesc::line(Vec3::ZERO, Vec3::Z, 1.0, 2).expect("valid");
        let g = pool.add_cable(&d).expect("fits");
        assert!(pool.positions(h).expect("live").iter().all(|p| p.y == 5.0));
        assert!(pool.positions(g).expect("live").iter().all(|p| p.y == 0.0));
        pool.lend_state(Box::new(Lift(6.0, &COUNT)));
        pool.sync_state();
        assert!(!pool.is_lent());
        assert_eq!(COUNT.load(Ordering::Relaxed), 4);
    }

    /// Threads reading a lent pool at once: one write-back, every reader
    /// sees it.
    #[test]
    fn concurrent_readers_share_one_write_back() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let (mut pool, h) = pool();
        pool.lend_state(Box::new(Lift(7.0, &COUNT)));
        let pool = &pool;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    assert!(pool.positions(h).expect("live").iter().all(|p| p.y == 7.0));
                });
            }
        });
        assert_eq!(COUNT.load(Ordering::Relaxed), 1);
    }
}
