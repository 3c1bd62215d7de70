//! The per-cable views of one frame and their allocation between frames.

use cable_core::CableMut;

/// The per-cable views of one frame, in bundle order: [`STRIDE`] slots per
/// bundle (`None` for padding), then the one-lane cables in row order.
pub type Views<'a> = Vec<Option<CableMut<'a>>>;

/// An empty `Views` that keeps its allocation for another lifetime: the
/// views of one frame cannot outlive the pool's borrow, their buffer can.
pub fn recycle<'b>(mut v: Views<'_>) -> Views<'b> {
    v.clear();
    // In place: `Vec`'s in-place collection reuses the buffer of a
    // same-layout element type, an optimisation std does not promise;
    // `recycle_keeps_the_allocation` and tests/alloc.rs catch its loss.
    v.into_iter()
        .map(|_| -> Option<CableMut<'b>> { unreachable!("cleared") })
        .collect()
}

/// The allocation of the views between frames ([`recycle`]), always empty.
#[derive(Default)]
pub(crate) struct ViewBuf(pub(crate) Views<'static>);

impl Clone for ViewBuf {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ViewBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ViewBuf(capacity {})", self.0.capacity())
    }
}
