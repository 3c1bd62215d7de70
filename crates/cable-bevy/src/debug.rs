//! Debug drawing with Bevy gizmos (feature `gizmos`): [`CableDebugPlugin`]
//! and its gizmo group [`CableGizmos`].

use bevy_app::{App, Plugin, PostUpdate};
use bevy_color::{Color, LinearRgba, Mix};
use bevy_ecs::prelude::*;
use bevy_gizmos::config::GizmoConfigGroup;
#[cfg(doc)]
use bevy_gizmos::config::GizmoConfigStore;
use bevy_gizmos::gizmos::Gizmos;
use bevy_gizmos::primitives::dim3::GizmoPrimitive3d;
use bevy_gizmos::{AppGizmoBuilder, GizmoPlugin};
use bevy_math::{Isometry3d, Quat, UVec2, Vec2, Vec3};
use bevy_reflect::Reflect;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_shape::{Capsule3d, Cuboid};
use cable_core::Shape;

use crate::components::{Cable, CableBody, CableInterpolated, CableParticles, CableTension};
use crate::convert::to_bevy;
use crate::plugin::CableSystems;
use crate::simulation::{CableSimulation, log_error};

/// Draws every cable's segments and every collider with Bevy gizmos each
/// frame, as `bevy_rapier`'s `RapierDebugRenderPlugin` and avian's
/// `PhysicsDebugPlugin` draw theirs. Feature `gizmos`.
///
/// Add it after [`CablePlugin`](crate::CablePlugin) and Bevy's
/// [`GizmoPlugin`] (in `DefaultPlugins`; a headless app adds `AssetPlugin`
/// and `GizmoPlugin` itself). What is drawn, in which colours, is the
/// gizmo group [`CableGizmos`], kept in Bevy's [`GizmoConfigStore`]
/// resource: `GizmoConfig::enabled` switches the whole drawing on and off,
/// the group's fields each part.
///
/// The lines are drawn in `PostUpdate`, after the plugin's write-back and
/// interpolation ([`CableSystems::Writeback`], [`CableSystems::Interpolate`]):
///
/// - a cable: one line per intact segment, from particle to particle, at
///   its [`CableInterpolated`] positions when it has that readout, else its
///   [`CableParticles`]; a broken segment is not drawn. With a
///   [`CableTension`] readout and [`CableGizmos::tension`] set, each
///   segment is coloured by its tension;
/// - a collider: every collider of the pool (those of
///   [`CableCollider`](crate::CableCollider) entities and any added
///   through [`CableSimulation::pool_mut`]) at the pose the solver last
///   gave it: a sphere as a wire sphere, a capsule as a wire capsule, a
///   box as a wire box, a half-space as a square grid in its plane with a
///   line along its outward normal.
///
/// # Example
/// ```
/// use bevy_app::App;
/// use bevy_asset::AssetPlugin;
/// use bevy_gizmos::{GizmoPlugin, config::GizmoConfigStore};
/// use cable_bevy::{CableDebugPlugin, CableGizmos, CablePlugin};
///
/// let mut app = App::new();
/// // In a game: app.add_plugins((DefaultPlugins, CablePlugin::default(), CableDebugPlugin)).
/// app.add_plugins((AssetPlugin::default(), GizmoPlugin, CablePlugin::default(), CableDebugPlugin));
/// let mut store = app.world_mut().resource_mut::<GizmoConfigStore>();
/// let (config, cables) = store.config_mut::<CableGizmos>();
/// config.line.width = 1.0; // Bevy's own settings: width, depth bias, enabled…
/// cables.collider_color = None; // cables only
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CableDebugPlugin;

impl Plugin for CableDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_gizmo_group::<CableGizmos>()
            .register_type::<CableGizmos>()
            .register_type::<CableTensionColors>()
            .configure_sets(
                PostUpdate,
                CableDebugSystems
                    .after(CableSystems::Writeback)
                    .after(CableSystems::Interpolate),
            )
            .add_systems(
                PostUpdate,
                (draw_cables, draw_colliders).in_set(CableDebugSystems),
            );
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<GizmoPlugin>() {
            // Bevy's gizmo systems would then fail for want of their
            // assets; say why, once, in the plugin's words.
            log_error(
                "cable-bevy: CableDebugPlugin needs Bevy's GizmoPlugin (in DefaultPlugins, \
                 or add AssetPlugin and GizmoPlugin)",
            );
        }
    }
}

/// The system set of [`CableDebugPlugin`]'s drawing, in `PostUpdate` after
/// [`CableSystems::Writeback`] and [`CableSystems::Interpolate`]; order
/// your own systems that move what it draws before it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CableDebugSystems;

/// What [`CableDebugPlugin`] draws and in which colours: a gizmo
/// configuration group, in Bevy's [`GizmoConfigStore`] next to its
/// `GizmoConfig` (line width, depth bias, render layers, and `enabled`,
/// which switches all of it off). `None` in a colour leaves that part out.
///
/// # Example
/// ```
/// use bevy_color::Color;
/// use bevy_ecs::prelude::*;
/// use bevy_gizmos::config::GizmoConfigStore;
/// use cable_bevy::{CableGizmos, CableTensionColors};
///
/// fn debug_view(mut store: ResMut<GizmoConfigStore>) {
///     let (config, cables) = store.config_mut::<CableGizmos>();
///     config.enabled = true;
///     cables.cable_color = Some(Color::WHITE);
///     cables.tension = Some(CableTensionColors { full_scale: 500.0, ..Default::default() });
///     cables.collider_color = None;
/// }
/// # bevy_ecs::system::assert_is_system(debug_view);
/// ```
#[derive(Debug, Clone, PartialEq, Reflect)]
#[reflect(Default, Debug, Clone)]
pub struct CableGizmos {
    /// Colour of the cables' segments; `None`: cables are not drawn.
    /// Default a light orange.
    pub cable_color: Option<Color>,
    /// Colours of the segments of cables that have a [`CableTension`]
    /// readout, by tension (instead of [`CableGizmos::cable_color`]);
    /// `None`: those cables take `cable_color` too. Default
    /// [`CableTensionColors::default`]. Ignored while `cable_color` is
    /// `None`.
    pub tension: Option<CableTensionColors>,
    /// Colour of the colliders; `None`: colliders are not drawn. Default a
    /// light blue.
    pub collider_color: Option<Color>,
    /// Half the side of the square grid drawn for a half-space, metres
    /// (a half-space has no edge). Default 5.
    pub half_space_size: f32,
}

impl Default for CableGizmos {
    fn default() -> Self {
        Self {
            cable_color: Some(Color::srgb(1.0, 0.75, 0.3)),
            tension: Some(CableTensionColors::default()),
            collider_color: Some(Color::srgb(0.35, 0.75, 1.0)),
            half_space_size: 5.0,
        }
    }
}

impl GizmoConfigGroup for CableGizmos {}

/// How [`CableDebugPlugin`] colours a segment by its tension: `slack` at 0
/// N (and for a segment pushed, a negative tension), `taut` at the full
/// scale and above, mixed linearly between. The full scale is the cable's
/// `break_tension` when it has one (so a segment turns `taut` as it is
/// about to break), else [`CableTensionColors::full_scale`].
#[derive(Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Default, Debug, Clone)]
pub struct CableTensionColors {
    /// Colour at 0 N. Default green.
    pub slack: Color,
    /// Colour at the full scale. Default red.
    pub taut: Color,
    /// Full scale, newtons, for cables without a `break_tension`
    /// (at most 0: every pulled segment is `taut`). Default 1000 N.
    pub full_scale: f32,
}

impl Default for CableTensionColors {
    fn default() -> Self {
        Self {
            slack: Color::srgb(0.2, 0.9, 0.2),
            taut: Color::srgb(1.0, 0.1, 0.1),
            full_scale: 1000.0,
        }
    }
}

impl CableTensionColors {
    /// The colour of a segment pulled with `tension` newtons, on a scale
    /// whose top is `full_scale` newtons.
    ///
    /// # Example
    /// ```
    /// use bevy_color::Color;
    /// use cable_bevy::CableTensionColors;
    ///
    /// let colors = CableTensionColors::default();
    /// assert_eq!(colors.color(0.0, 100.0), colors.slack);
    /// assert_eq!(colors.color(250.0, 100.0), colors.taut);
    /// ```
    #[must_use]
    pub fn color(&self, tension: f32, full_scale: f32) -> Color {
        let f = if full_scale > 0.0 {
            tension / full_scale
        } else if tension > 0.0 {
            1.0
        } else {
            0.0
        };
        // NaN (no tension known) reads as slack.
        let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
        if f <= 0.0 {
            self.slack
        } else if f >= 1.0 {
            self.taut
        } else {
            LinearRgba::from(self.slack)
                .mix(&LinearRgba::from(self.taut), f)
                .into()
        }
    }
}

/// What [`draw_cables`] reads of a cable entity.
type DrawnCable<'a> = (
    &'a Cable,
    &'a CableParticles,
    Option<&'a CableInterpolated>,
    Option<&'a CableBody>,
    Option<&'a CableTension>,
);

/// Each cable's intact segments as lines.
fn draw_cables(
    mut gizmos: Gizmos<CableGizmos>,
    sim: Res<CableSimulation>,
    cables: Query<DrawnCable<'_>>,
) {
    let Some(color) = gizmos.config_ext.cable_color else {
        return;
    };
    if !gizmos.config.enabled {
        return;
    }
    let by_tension = gizmos.config_ext.tension;
    for (cable, particles, interpolated, body, tension) in &cables {
        let positions = match interpolated {
            Some(i) if i.positions.len() == particles.positions.len() => &i.positions,
            _ => &particles.positions,
        };
        // Which segments are intact (all of them when the pool does not
        // know the cable, or the readout has another particle count).
        let rows = body
            .and_then(|b| sim.pool().row_consts(b.handle).ok())
            .filter(|rows| rows.len() == positions.len());
        let tensions = tension
            .map(|t| t.segments.as_slice())
            .filter(|t| t.len() + 1 == positions.len());
        let scale = by_tension.map(|colors| {
            let full = cable.desc.params.break_tension.unwrap_or(colors.full_scale);
            (colors, full)
        });
        for (i, pair) in positions.windows(2).enumerate() {
            if rows.is_some_and(|rows| rows.get(i).is_some_and(|r| !r.linked)) {
                continue;
            }
            let segment_color = match (scale, tensions) {
                (Some((colors, full)), Some(t)) => {
                    colors.color(t.get(i).copied().unwrap_or(0.0), full)
                }
                _ => color,
            };
            gizmos.line(pair[0], pair[1], segment_color);
        }
    }
}

/// Every collider of the pool, at the pose the solver last gave it.
fn draw_colliders(mut gizmos: Gizmos<CableGizmos>, sim: Res<CableSimulation>) {
    let Some(color) = gizmos.config_ext.collider_color else {
        return;
    };
    if !gizmos.config.enabled {
        return;
    }
    let half = gizmos.config_ext.half_space_size;
    let colliders = sim.pool().colliders();
    for handle in colliders.handles() {
        let Ok(collider) = colliders.get(handle) else {
            continue;
        };
        let rotation = Quat::from_array(collider.rotation().to_array());
        let position = to_bevy(collider.position());
        let pose = Isometry3d::new(position, rotation);
        match collider.shape() {
            Shape::Sphere { radius } => {
                gizmos.sphere(pose, radius, color);
            }
            Shape::Capsule {
                half_length,
                radius,
            } => {
                gizmos.primitive_3d(
                    &Capsule3d {
                        radius,
                        half_length,
                    },
                    pose,
                    color,
                );
            }
            Shape::Cuboid { half_extents } => {
                let half_size = to_bevy(half_extents);
                gizmos.primitive_3d(&Cuboid { half_size }, pose, color);
            }
            Shape::Plane => {
                draw_half_space(&mut gizmos, pose, half, color);
            }
        }
    }
}

/// A half-space (solid below the local XZ plane): a square grid of
/// `2 half` metres a side in its plane and its outward normal, `half / 2`
/// long, from the centre.
fn draw_half_space(gizmos: &mut Gizmos<CableGizmos>, pose: Isometry3d, half: f32, color: Color) {
    if !(half.is_finite() && half > 0.0) {
        return;
    }
    const CELLS: u32 = 10;
    // Bevy's grid lies in its local XY plane; turn that onto local XZ.
    let grid = Isometry3d::new(
        pose.translation,
        pose.rotation * Quat::from_rotation_x(-core::f32::consts::FRAC_PI_2),
    );
    let spacing = 2.0 * half / CELLS as f32;
    gizmos
        .grid(grid, UVec2::splat(CELLS), Vec2::splat(spacing), color)
        .outer_edges();
    let centre = Vec3::from(pose.translation);
    gizmos.line(
        centre,
        centre + pose.rotation * (Vec3::Y * half * 0.5),
        color,
    );
}
