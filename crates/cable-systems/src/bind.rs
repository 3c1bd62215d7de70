//! What the ECS layers share: the hecs layer (`ecs`, feature `hecs`) and
//! the Bevy plugin (`cable-bevy`, which builds this crate without the
//! `hecs` feature) keep the same components in different ECSs, and make
//! the same decisions about them here, once:
//!
//! - [`apply_controls`]: a cable's visibility and winch order into the
//!   pool, each order given once (compared bit for bit), a refused one
//!   reported once, the order the winch runs finished when it is done.
//!
//! An engine with its own ECS can call them too.

use cable_core::{CableError, CableHandle, ParticlePool, Winch};

/// The winch orders of one cable as an ECS layer gave them: the last order
/// its winch component held (accepted or not) and the last one the pool
/// accepted, the one its winch runs. Kept between frames by the layer and
/// updated by [`apply_controls`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WinchOrders {
    /// The order the component held when last applied, `None` for no
    /// component; a frame whose order is this one, bit for bit, gives the
    /// pool nothing new.
    pub given: Option<Winch>,
    /// The last order the pool accepted ([`ParticlePool::set_winch`]):
    /// the one the cable's winch runs (`None`: stopped by a removed
    /// component).
    pub running: Option<Winch>,
}

impl WinchOrders {
    /// The orders of a cable whose winch runs `order`, given and accepted
    /// (a cable just restored from a save, whose pool holds the order).
    #[must_use]
    pub const fn accepted(order: Option<Winch>) -> Self {
        Self {
            given: order,
            running: order,
        }
    }
}

/// Why [`apply_controls`] did not apply a cable's controls.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ControlError {
    /// The handle names no live cable: nothing was changed.
    #[error("the cable's controls were not applied: {0}")]
    Stale(CableError),
    /// The pool refused a new winch order (a target length or speed out of
    /// range, NaN included): the cable's winch keeps the order it ran.
    /// Returned once per order: the same order again, bit for bit, is not
    /// given to the pool again.
    #[error("the winch order was refused: {0}")]
    WinchRefused(CableError),
}

/// Whether two orders are the same, bit for bit (an order holding a NaN is
/// the same order as itself).
fn same_order(a: Option<Winch>, b: Option<Winch>) -> bool {
    let bits = |o: Option<Winch>| o.map(|w| (w.target_length.to_bits(), w.speed.to_bits()));
    bits(a) == bits(b)
}

/// Applies one cable's controls for this frame: `hidden` into the pool's
/// visibility ([`ParticlePool::set_visible`]); then the winch `order` (the
/// winch component, `None` without one). An order that differs, bit for
/// bit, from the last one given (`orders.given`) goes to the pool
/// ([`ParticlePool::set_winch`]; `None` stops the winch where it is) and
/// becomes `orders.running` if the pool accepts it. The same order again
/// is not given again: instead the running order is finished once it is
/// done ([`ParticlePool::finish_winch`] with its own target length), so
/// the cable can sleep with its component on, even when a later order was
/// refused.
///
/// # Errors
/// [`ControlError::Stale`] when `handle` names no live cable (nothing is
/// changed); [`ControlError::WinchRefused`] when the pool refuses a new
/// order, once per order (`orders.given` records it, so the same order
/// next frame is not retried; the visibility was applied).
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, Winch};
/// use cable_systems::bind::{ControlError, WinchOrders, apply_controls};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8)?)?;
/// let mut orders = WinchOrders::default();
/// let reel = Some(Winch { target_length: 1.5, speed: 1.0 });
/// apply_controls(&mut pool, h, &mut orders, reel, false)?;
/// assert_eq!(orders.running, reel);
/// // A NaN order is refused once, then it is the same order as before.
/// let nan = Some(Winch { target_length: f32::NAN, speed: 1.0 });
/// let refused = apply_controls(&mut pool, h, &mut orders, nan, false);
/// assert!(matches!(refused, Err(ControlError::WinchRefused(_))));
/// apply_controls(&mut pool, h, &mut orders, nan, false)?;
/// assert_eq!(orders.running, reel); // still reeling to 1.5 m
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apply_controls(
    pool: &mut ParticlePool,
    handle: CableHandle,
    orders: &mut WinchOrders,
    order: Option<Winch>,
    hidden: bool,
) -> Result<(), ControlError> {
    pool.set_visible(handle, !hidden)
        .map_err(ControlError::Stale)?;
    if same_order(order, orders.given) {
        if let Some(w) = orders.running {
            // Done: stopped, so the cable can sleep and steps whole again
            // (the component stays; a changed order starts it anew). The
            // handle is live (`set_visible` took it).
            let _ = pool.finish_winch(handle, w.target_length);
        }
        return Ok(());
    }
    orders.given = order;
    pool.set_winch(handle, order)
        .map_err(ControlError::WinchRefused)?;
    orders.running = order;
    Ok(())
}
