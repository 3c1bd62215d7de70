//! Text views: snapshots of fixed scenes in braille and plain modes, and
//! geometric checks that do not trust the renderer's own numbers.

use cable_core::{CableDesc, ParticlePool};
use cable_debug::{
    AsciiMode, AsciiOptions, CableFrame, Fit, Frame, RenderError, Shape, ViewDir,
    render_frame_ascii,
};
use cable_systems::{SolverParams, Stepper};
use glam::{Quat, Vec3};

fn simulate(pool: &mut ParticlePool, seconds: f32, damping: f32) {
    let mut stepper = Stepper::new(SolverParams {
        damping,
        ..SolverParams::default()
    })
    .unwrap();
    let frames = (seconds * 60.0).round() as u32;
    for _ in 0..frames {
        stepper.advance(pool, 1.0 / 60.0).unwrap();
    }
}

fn opts(mode: AsciiMode) -> AsciiOptions {
    AsciiOptions {
        width: 60,
        height: 16,
        mode,
        ..AsciiOptions::default()
    }
}

/// Catenary parameter `a` of a chain of length `len` hung between pins
/// `span` apart (`2a·sinh(span / 2a) = len`).
fn catenary_a(span: f32, len: f32) -> f32 {
    cable_testkit::catenary_parameter(f64::from(span), f64::from(len)) as f32
}

/// A chain of 24 equal links 6 m long hanging between pins 4 m apart,
/// started on its catenary (the equilibrium) and simulated for 1 s with the
/// classic step (no damping), so it stays there.
fn hanging_chain() -> Frame {
    let a = catenary_a(4.0, 6.0);
    let on_catenary = |s: f32| {
        let x = a * (s / a).asinh();
        Vec3::new(x, a * (x / a).cosh() - a * (2.0 / a).cosh(), 0.0)
    };
    let pts: Vec<Vec3> = (0..=24)
        .map(|i| on_catenary(-3.0 + 0.25 * i as f32))
        .collect();
    let mut pool = ParticlePool::new();
    pool.add_cable(&CableDesc::from_points(&pts).unwrap())
        .unwrap();
    simulate(&mut pool, 1.0, 0.0);
    let frame = Frame::capture(&pool, 1.0);
    // Physics check: the chain is still on the catenary, within 10 cm (the
    // iterative solver leaves the links stretched by a few per cent, so the
    // chain sags a little lower; that is about one column of the picture).
    for (p, q) in frame.cables[0].points.iter().zip(&pts) {
        assert!(
            p.distance(*q) < 0.1,
            "{p} drifted from the catenary point {q}"
        );
    }
    frame
}

/// A rigid 2 m pendulum released from the horizontal, 0.35 s later.
fn pendulum() -> Frame {
    let mut pool = ParticlePool::new();
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 1).unwrap();
    desc.attach_end = false;
    pool.add_cable(&desc).unwrap();
    simulate(&mut pool, 0.35, 0.0);
    Frame::capture(&pool, 0.35)
}

/// A cable lying over a sphere of radius 1 at the origin: an arc over the
/// top from −60° to +60° and straight tangent pieces hanging down from it.
fn cable_over_sphere() -> Frame {
    let r = 1.05f32;
    let mut pts = Vec::new();
    let tangent = |s: f32| {
        let a = 60f32.to_radians() * s;
        (
            Vec3::new(a.sin(), a.cos(), 0.0) * r,
            Vec3::new(a.cos(), -a.sin(), 0.0),
        )
    };
    let (p, d) = tangent(-1.0);
    for k in (1..=6).rev() {
        pts.push(p - d * (0.3 * k as f32));
    }
    for k in 0..=12 {
        let a = (-60.0 + 10.0 * k as f32).to_radians();
        pts.push(Vec3::new(a.sin(), a.cos(), 0.0) * r);
    }
    let (p, d) = tangent(1.0);
    for k in 1..=6 {
        pts.push(p + d * (0.3 * k as f32));
    }
    Frame {
        time: 0.0,
        cables: vec![CableFrame::from_points(pts, false, false, 0.05)],
        shapes: vec![Shape::Sphere {
            center: Vec3::ZERO,
            radius: 1.0,
        }],
    }
}

#[test]
fn snapshot_hanging_chain() {
    let f = hanging_chain();
    insta::assert_snapshot!(
        "hanging_chain_braille",
        render_frame_ascii(&f, &opts(AsciiMode::Braille)).unwrap()
    );
    insta::assert_snapshot!(
        "hanging_chain_plain",
        render_frame_ascii(&f, &opts(AsciiMode::Plain)).unwrap()
    );
}

#[test]
fn snapshot_pendulum() {
    let f = pendulum();
    insta::assert_snapshot!(
        "pendulum_braille",
        render_frame_ascii(&f, &opts(AsciiMode::Braille)).unwrap()
    );
    insta::assert_snapshot!(
        "pendulum_plain",
        render_frame_ascii(&f, &opts(AsciiMode::Plain)).unwrap()
    );
}

#[test]
fn snapshot_cable_over_sphere() {
    let f = cable_over_sphere();
    insta::assert_snapshot!(
        "over_sphere_braille",
        render_frame_ascii(&f, &opts(AsciiMode::Braille)).unwrap()
    );
    insta::assert_snapshot!(
        "over_sphere_plain",
        render_frame_ascii(&f, &opts(AsciiMode::Plain)).unwrap()
    );
}

#[test]
fn snapshot_every_collider_shape_seen_from_above_and_in_front() {
    let f = Frame {
        time: 0.0,
        cables: vec![CableFrame::from_points(
            vec![
                Vec3::new(-4.0, 2.0, 0.0),
                Vec3::new(0.0, 1.0, 1.0),
                Vec3::new(4.0, 2.0, 0.0),
            ],
            true,
            true,
            0.05,
        )],
        shapes: vec![
            Shape::Sphere {
                center: Vec3::new(-3.0, 0.0, 0.0),
                radius: 0.8,
            },
            Shape::Capsule {
                a: Vec3::new(-1.0, 0.0, -1.0),
                b: Vec3::new(0.5, 0.0, 1.0),
                radius: 0.4,
            },
            Shape::Box {
                center: Vec3::new(3.0, 0.0, 0.0),
                half_extents: Vec3::new(0.6, 0.6, 0.6),
                rotation: Quat::from_rotation_y(0.5),
            },
            Shape::Plane {
                normal: Vec3::Y,
                offset: -1.0,
            },
        ],
    };
    for (name, view) in [("shapes_xy", ViewDir::Xy), ("shapes_xz", ViewDir::Xz)] {
        let o = AsciiOptions {
            view,
            ..opts(AsciiMode::Braille)
        };
        insta::assert_snapshot!(name, render_frame_ascii(&f, &o).unwrap());
    }
}

/// Columns and rows holding any non-blank cell.
fn extent(picture: &str, lines: usize) -> ((usize, usize), (usize, usize)) {
    let (mut c0, mut c1, mut r0, mut r1) = (usize::MAX, 0, usize::MAX, 0);
    for (r, line) in picture.lines().take(lines).enumerate() {
        for (c, ch) in line.chars().enumerate() {
            if ch != ' ' {
                c0 = c0.min(c);
                c1 = c1.max(c);
                r0 = r0.min(r);
                r1 = r1.max(r);
            }
        }
    }
    ((c0, c1), (r0, r1))
}

#[test]
fn a_sphere_stays_round_whatever_the_cell_aspect() {
    let f = Frame {
        shapes: vec![Shape::Sphere {
            center: Vec3::new(5.0, -2.0, 1.0),
            radius: 3.0,
        }],
        ..Frame::default()
    };
    for aspect in [1.0f32, 2.0, 2.5] {
        let o = AsciiOptions {
            width: 70,
            height: 30,
            cell_aspect: aspect,
            scale: false,
            ..AsciiOptions::default()
        };
        let text = render_frame_ascii(&f, &o).unwrap();
        let ((c0, c1), (r0, r1)) = extent(&text, 30);
        let (w, h) = ((c1 - c0 + 1) as f32, (r1 - r0 + 1) as f32 * aspect);
        assert!(
            (w - h).abs() <= 1.5 * aspect + 1.0,
            "aspect {aspect}: {w} columns wide, {h} column-widths tall\n{text}"
        );
    }
}

#[test]
fn a_straight_cable_spans_its_length_on_the_scale() {
    // 7 m cable; the scale bar says how many columns a nice length takes.
    let mut pool = ParticlePool::new();
    pool.add_cable(
        &CableDesc::line(Vec3::new(1.0, 3.0, 0.0), Vec3::new(8.0, 3.0, 0.0), 7.0, 14).unwrap(),
    )
    .unwrap();
    let o = AsciiOptions {
        width: 70,
        height: 5,
        mode: AsciiMode::Plain,
        ..AsciiOptions::default()
    };
    let text = cable_debug::render_ascii(&pool, &o).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let row = lines.iter().find(|l| l.contains('O')).unwrap();
    let pins: Vec<usize> = row.match_indices('O').map(|(i, _)| i).collect();
    assert_eq!(pins.len(), 2, "{text}");
    assert!(
        row[pins[0] + 1..pins[1]].chars().all(|c| c == '-'),
        "{text}"
    );
    // Scale line: "|---...---| L m ..." spans bar_cols columns for L metres.
    let scale = lines.last().unwrap();
    let bar_cols = scale[1..].find('|').unwrap() + 1;
    let metres: f32 = scale[bar_cols + 1..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let per_col = metres / bar_cols as f32;
    let drawn = (pins[1] - pins[0]) as f32 * per_col;
    assert!(
        (drawn - 7.0).abs() <= 1.5 * per_col,
        "7 m drawn as {drawn} m\n{text}"
    );
}

#[test]
fn view_directions_see_a_cable_along_z_as_expected() {
    let f = Frame {
        cables: vec![CableFrame::from_points(
            (0..=8)
                .map(|i| Vec3::new(0.0, 0.0, i as f32 * 0.5))
                .collect(),
            true,
            true,
            0.05,
        )],
        ..Frame::default()
    };
    let plain = |view| {
        let o = AsciiOptions {
            view,
            mode: AsciiMode::Plain,
            scale: false,
            ..opts(AsciiMode::Plain)
        };
        render_frame_ascii(&f, &o).unwrap()
    };
    // z to the right: one row of dashes between the pins.
    let zy = plain(ViewDir::Zy);
    assert_eq!(zy.lines().filter(|l| l.contains('-')).count(), 1, "{zy}");
    // z up: one column of bars.
    let xz = plain(ViewDir::Xz);
    assert!(xz.lines().filter(|l| l.trim() == "|").count() >= 10, "{xz}");
    // Looking along +x is the zy view; along −z is the xy view.
    assert_eq!(plain(ViewDir::Along(Vec3::X)), zy);
    assert_eq!(plain(ViewDir::Along(Vec3::NEG_Z)), plain(ViewDir::Xy));
}

#[test]
fn a_fit_box_frames_that_box_and_clips_the_rest() {
    let f = Frame {
        cables: vec![CableFrame::from_points(
            vec![Vec3::new(10.0, 0.0, 0.0), Vec3::new(12.0, 0.0, 0.0)],
            true,
            true,
            0.05,
        )],
        ..Frame::default()
    };
    let o = AsciiOptions {
        fit: Fit::Box {
            min: Vec3::new(-1.0, -1.0, -1.0),
            max: Vec3::new(1.0, 1.0, 1.0),
        },
        width: 20,
        height: 10,
        scale: false,
        ..AsciiOptions::default()
    };
    let text = render_frame_ascii(&f, &o).unwrap();
    assert_eq!(text.lines().count(), 10);
    assert!(text.chars().all(|c| c == ' ' || c == '\n'), "{text}");
}

#[test]
fn non_finite_particles_are_skipped_and_counted() {
    let f = Frame {
        cables: vec![CableFrame::from_points(
            vec![
                Vec3::ZERO,
                Vec3::X,
                Vec3::NAN,
                Vec3::new(2.0, 1.0, 0.0),
                Vec3::new(3.0, 1.0, 0.0),
            ],
            true,
            false,
            0.05,
        )],
        ..Frame::default()
    };
    let text = render_frame_ascii(&f, &opts(AsciiMode::Plain)).unwrap();
    assert!(
        text.contains("(1 non-finite particles not drawn)"),
        "{text}"
    );
    assert_eq!(text.matches('O').count(), 1);
}

#[test]
fn bad_options_and_shapes_name_the_field() {
    let f = Frame::default();
    let e = render_frame_ascii(
        &f,
        &AsciiOptions {
            width: 0,
            ..AsciiOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, RenderError::Option { field: "width", .. }),
        "{e}"
    );
    let e = render_frame_ascii(
        &f,
        &AsciiOptions {
            cell_aspect: f32::NAN,
            ..AsciiOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            RenderError::Option {
                field: "cell_aspect",
                ..
            }
        ),
        "{e}"
    );
    let e = render_frame_ascii(
        &f,
        &AsciiOptions {
            view: ViewDir::Along(Vec3::ZERO),
            ..AsciiOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, RenderError::Option { field: "view", .. }),
        "{e}"
    );
    let bad = Frame {
        shapes: vec![
            Shape::Sphere {
                center: Vec3::ZERO,
                radius: 1.0,
            },
            Shape::Plane {
                normal: Vec3::ZERO,
                offset: 0.0,
            },
        ],
        ..Frame::default()
    };
    let e = render_frame_ascii(&bad, &AsciiOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "shapes[1].normal: must not be zero");
}

#[test]
fn extreme_coordinates_never_panic() {
    let cases: [&[Vec3]; 5] = [
        &[Vec3::splat(-1.0e30), Vec3::splat(1.0e30)],
        &[Vec3::splat(f32::MAX), Vec3::splat(f32::MIN), Vec3::ZERO],
        &[Vec3::ZERO, Vec3::splat(1.0e-30)],
        &[Vec3::splat(1.0e30), Vec3::splat(1.0e30 + 1.0e24)],
        &[Vec3::INFINITY, Vec3::NAN, Vec3::ONE],
    ];
    for pts in cases {
        let f = Frame {
            cables: vec![CableFrame::from_points(pts.to_vec(), true, true, 0.05)],
            shapes: vec![Shape::Plane {
                normal: Vec3::new(1.0, 1.0, 0.0),
                offset: 1.0e30,
            }],
            ..Frame::default()
        };
        for mode in [AsciiMode::Braille, AsciiMode::Plain] {
            let text = render_frame_ascii(&f, &opts(mode)).unwrap();
            assert!(text.lines().count() >= 2);
        }
        let svg = cable_debug::render_svg(
            &f,
            &cable_debug::SvgOptions {
                strain: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(svg.ends_with("</svg>\n"));
        let anim =
            cable_debug::render_animation(&[f.clone(), f], &cable_debug::SvgOptions::default())
                .unwrap();
        assert!(anim.ends_with("</svg>\n"));
    }
}
