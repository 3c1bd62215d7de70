//! Debug views of a cable simulation without any graphics stack.
//!
//! - [`ascii`]: the cables and colliders of a frame as text, in Unicode
//!   braille (2 × 4 dots per character) or plain ASCII, for terminals, CI
//!   logs, bug reports and unit tests.
//! - [`svg`]: a scalable picture of a frame (optionally coloured by strain)
//!   or an animation (SMIL) of recorded frames, for browsers.
//!
//! Which function writes which SVG:
//!
//! | picture | one frame | a [`Recorder`]'s frames |
//! | --- | --- | --- |
//! | still, every viewer shows it alike | [`render_svg`] | [`Recorder::still_svg`] (final frame), [`Recorder::frame_svg`] (any frame) |
//! | still over faint earlier frames | — | [`render_trail`], [`Recorder::trail_svg`] |
//! | animated (SMIL; browsers play it, other viewers show the final frame) | — | [`render_animation`], [`Recorder::to_svg`] |
//!
//! Strain colours ([`SvgOptions::strain`]) use a fixed scale by default
//! ([`StrainScale::Fixed`], full colour at ±5 %), so pictures compare.
//!
//! Both draw a [`Frame`] (a copy of what a [`cable_core::ParticlePool`]
//! holds, plus collider [`Shape`]s) through a [`Projection`] (an
//! orthographic [`ViewDir`] and a [`Fit`]) onto a [`Canvas`], a trait with a
//! single required method, `draw_line`.
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_debug::{AsciiOptions, Frame, Shape, render_frame_ascii};
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! pool.add_cable(&CableDesc::line(Vec3::new(-2.0, 1.0, 0.0), Vec3::new(2.0, 1.0, 0.0), 5.0, 16)?)?;
//! let frame = Frame::capture(&pool, 0.0)
//!     .with_shapes(vec![Shape::Sphere { center: Vec3::ZERO, radius: 0.8 }]);
//! let text = render_frame_ascii(&frame, &AsciiOptions::default())?;
//! println!("{text}");
//! assert!(text.contains('●')); // the pinned ends
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod ascii;
pub mod canvas;
pub mod error;
pub mod frame;
pub mod shape;
pub mod svg;
pub mod view;

pub use ascii::{AsciiCanvas, AsciiMode, AsciiOptions, render_ascii, render_frame_ascii};
pub use canvas::{Canvas, Pen, draw_frame};
pub use error::RenderError;
pub use frame::{CableFrame, Frame, Recorder};
pub use shape::{Outline, Shape, shapes_of};
pub use svg::{StrainScale, SvgOptions, render_animation, render_svg, render_trail};
pub use view::{Fit, Projection, ViewDir};
