//! Whatever the frame and options, the views return text or an error and
//! never panic; valid options always render.

use cable_debug::{
    AsciiMode, AsciiOptions, CableFrame, Fit, Frame, Shape, SvgOptions, ViewDir, render_animation,
    render_frame_ascii, render_svg,
};
use glam::{Quat, Vec3};
use proptest::prelude::*;

fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -1.0e3f32..1.0e3,
        1 => -1.0e6f32..1.0e6,
        1 => prop::sample::select(vec![f32::NAN, f32::INFINITY, -1.0e30, 1.0e-30, 0.0]),
    ]
}

fn vec3() -> impl Strategy<Value = Vec3> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (vec3(), coord()).prop_map(|(center, radius)| Shape::Sphere { center, radius }),
        (vec3(), vec3(), coord()).prop_map(|(a, b, radius)| Shape::Capsule { a, b, radius }),
        (vec3(), coord()).prop_map(|(normal, offset)| Shape::Plane { normal, offset }),
        (vec3(), vec3(), -3.0f32..3.0).prop_map(|(center, h, angle)| Shape::Box {
            center,
            half_extents: h.abs(),
            rotation: Quat::from_rotation_z(angle),
        }),
    ]
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        prop::collection::vec(prop::collection::vec(vec3(), 2..12), 0..4),
        prop::collection::vec(shape(), 0..3),
    )
        .prop_map(|(cables, shapes)| Frame {
            time: 0.0,
            cables: cables
                .into_iter()
                .map(|p| CableFrame::from_points(p, true, false, 0.05))
                .collect(),
            shapes,
        })
}

fn view() -> impl Strategy<Value = ViewDir> {
    prop_oneof![
        Just(ViewDir::Xy),
        Just(ViewDir::Xz),
        Just(ViewDir::Zy),
        vec3().prop_map(ViewDir::Along),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn views_never_panic(
        f in frame(),
        v in view(),
        width in 0usize..300,
        height in 0usize..80,
        aspect in 0.0f32..10.0,
        plain in any::<bool>(),
        boxed in prop::option::of((vec3(), vec3())),
    ) {
        let fit = boxed.map_or(Fit::Bounds, |(a, b)| Fit::Box { min: a.min(b), max: a.max(b) });
        let o = AsciiOptions {
            width,
            height,
            cell_aspect: aspect,
            mode: if plain { AsciiMode::Plain } else { AsciiMode::Braille },
            view: v,
            fit,
            scale: true,
        };
        let valid_shapes = f.validate().is_ok() && v.basis().is_ok();
        match render_frame_ascii(&f, &o) {
            Ok(text) => prop_assert!(text.lines().count() >= 1),
            Err(_) => prop_assert!(o.validate().is_err() || !valid_shapes || boxed.is_some()),
        }
        let so = SvgOptions { view: v, fit, strain: plain, ..SvgOptions::default() };
        if let Ok(svg) = render_svg(&f, &so) {
            prop_assert!(svg.ends_with("</svg>\n"));
        }
        let _ = render_animation(&[f.clone(), f], &so);
    }
}
