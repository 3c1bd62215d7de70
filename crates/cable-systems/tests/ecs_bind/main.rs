//! What the hecs layer shares with the Bevy plugin (`cable_systems::bind`),
//! checked through the hecs layer: winch orders, new colliders and cable
//! creation behave as the plugin's do. One module per shared piece.
#![cfg(feature = "hecs")]

mod colliders;
mod refused;
mod spawn;
mod winch;
