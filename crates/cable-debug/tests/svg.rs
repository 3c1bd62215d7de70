//! SVG views parsed back as XML: the viewBox holds every particle, each
//! cable is one element, the animation holds every recorded frame.

use cable_core::{CableDesc, ParticlePool};
use cable_debug::{
    CableFrame, Frame, Recorder, RenderError, Shape, StrainScale, SvgOptions, render_animation,
    render_svg,
};
use cable_systems::{SolverParams, Stepper};
use glam::{Vec2, Vec3};

/// Three cables: a sagging rope, a pendulum chain, a cable in the wind.
fn scene() -> ParticlePool {
    let mut pool = ParticlePool::new();
    pool.add_cable(
        &CableDesc::line(Vec3::new(-5.0, 2.0, 0.0), Vec3::new(0.0, 2.0, 0.0), 6.0, 20).unwrap(),
    )
    .unwrap();
    let mut chain =
        CableDesc::line(Vec3::new(1.0, 2.0, 0.0), Vec3::new(4.0, 2.0, 0.0), 3.0, 12).unwrap();
    chain.attach_end = false;
    pool.add_cable(&chain).unwrap();
    let mut wind =
        CableDesc::line(Vec3::new(5.0, 2.0, 0.0), Vec3::new(5.0, -1.0, 1.0), 3.2, 10).unwrap();
    wind.attach_end = false;
    wind.params.force = Vec3::new(5.0, 0.0, 0.0);
    pool.add_cable(&wind).unwrap();
    pool
}

fn record(frames: u32, capacity: usize) -> (ParticlePool, Recorder) {
    let mut pool = scene();
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let mut rec = Recorder::new(capacity);
    rec.offer(&pool, 0.0);
    for _ in 0..frames {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        rec.offer(&pool, stepper.time());
    }
    rec.finish(&pool, stepper.time());
    (pool, rec)
}

fn view_box(doc: &roxmltree::Document<'_>) -> [f32; 4] {
    let vb: Vec<f32> = doc
        .root_element()
        .attribute("viewBox")
        .unwrap()
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    [vb[0], vb[1], vb[2], vb[3]]
}

fn assert_inside(vb: [f32; 4], p: Vec3) {
    // User units are view metres with y flipped.
    let (x, y) = (p.x, -p.y);
    assert!(
        x >= vb[0] && x <= vb[0] + vb[2] && y >= vb[1] && y <= vb[1] + vb[3],
        "particle {p} outside viewBox {vb:?}"
    );
}

/// The points of path data "M x y L x y ...".
fn path_points(d: &str) -> Vec<Vec2> {
    let nums: Vec<f32> = d
        .split(|c: char| c == 'M' || c == 'L' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    nums.chunks(2).map(|c| Vec2::new(c[0], c[1])).collect()
}

#[test]
fn static_svg_is_xml_whose_view_box_holds_every_particle_with_one_element_per_cable() {
    let (pool, _) = record(90, 10);
    let frame = Frame::capture(&pool, 1.5).with_shapes(vec![Shape::Sphere {
        center: Vec3::new(2.0, -3.0, 0.0),
        radius: 0.5,
    }]);
    for strain in [false, true] {
        let svg = render_svg(
            &frame,
            &SvgOptions {
                strain,
                ..SvgOptions::default()
            },
        )
        .unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let vb = view_box(&doc);
        for p in frame.cables.iter().flat_map(|c| &c.points) {
            assert_inside(vb, *p);
        }
        let cables: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("cable"))
            .collect();
        assert_eq!(cables.len(), 3, "strain {strain}");
        if strain {
            for (c, node) in frame.cables.iter().zip(&cables) {
                assert_eq!(node.tag_name().name(), "g");
                assert_eq!(
                    node.children().filter(|n| n.has_tag_name("line")).count(),
                    c.points.len() - 1
                );
            }
            assert!(
                doc.descendants()
                    .any(|n| n.attribute("class") == Some("legend"))
            );
        } else {
            for (c, node) in frame.cables.iter().zip(&cables) {
                let pts = path_points(node.attribute("d").unwrap());
                assert_eq!(pts.len(), c.points.len());
                for (a, b) in pts.iter().zip(&c.points) {
                    assert!(
                        (a.x - b.x).abs() < 1e-3 && (a.y + b.y).abs() < 1e-3,
                        "{a} vs {b}"
                    );
                }
            }
        }
        // The rope's two pinned ends and the pinned starts of the others: four dots.
        assert_eq!(
            doc.descendants()
                .filter(|n| n.attribute("class") == Some("pin"))
                .count(),
            4
        );
        // The sphere collider is a circle of its radius.
        let colliders = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("colliders"))
            .unwrap();
        let circle = colliders
            .descendants()
            .find(|n| n.has_tag_name("circle"))
            .unwrap();
        assert_eq!(circle.attribute("r"), Some("0.5"));
        // The cable's width is its diameter (0.1 m) unless thinner than 1.5 px.
        let px_per_m: f32 = doc
            .root_element()
            .attribute("width")
            .unwrap()
            .parse::<f32>()
            .unwrap()
            / vb[2];
        let w: f32 = cables[0]
            .attribute("stroke-width")
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (w - 0.1f32.max(1.5 / px_per_m)).abs() < 1e-3,
            "stroke width {w}"
        );
    }
}

#[test]
fn strain_colours_mark_the_stretched_segment() {
    // Rest lengths 1 m; the middle segment is stretched to 1.1 m.
    let mut c = CableFrame::from_points(
        vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.1, Vec3::X * 3.1],
        true,
        true,
        0.02,
    );
    c.rest = vec![1.0, 1.0, 1.0];
    let frame = Frame {
        cables: vec![c],
        ..Frame::default()
    };
    let svg = render_svg(
        &frame,
        &SvgOptions {
            strain: true,
            strain_scale: StrainScale::Largest,
            ..SvgOptions::default()
        },
    )
    .unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let strokes: Vec<&str> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("line") && n.parent().and_then(|p| p.attribute("class")) == Some("cable")
        })
        .map(|n| n.attribute("stroke").unwrap())
        .collect();
    let red = |s: &str| u8::from_str_radix(&s[1..3], 16).unwrap();
    assert_eq!(strokes.len(), 3);
    assert!(
        red(strokes[1]) > red(strokes[0]) + 30 && red(strokes[1]) > red(strokes[2]) + 30,
        "{strokes:?}"
    );
    assert!(svg.contains("+10.00 %"), "legend shows the largest strain");
}

#[test]
fn animation_holds_every_recorded_frame() {
    let (_, rec) = record(120, 50);
    let frames = rec.frames();
    assert!(
        frames.len() >= 25 && frames.len() <= 51,
        "{} frames",
        frames.len()
    );
    let svg = render_animation(frames, &SvgOptions::default()).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let vb = view_box(&doc);
    for p in frames
        .iter()
        .flat_map(|f| f.cables.iter().flat_map(|c| &c.points))
    {
        assert_inside(vb, *p);
    }
    let cables: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cable"))
        .collect();
    assert_eq!(cables.len(), 3);
    for (i, node) in cables.iter().enumerate() {
        let anim = node.children().find(|n| n.has_tag_name("animate")).unwrap();
        assert_eq!(anim.attribute("attributeName"), Some("d"));
        let values: Vec<&str> = anim.attribute("values").unwrap().split(';').collect();
        let keys: Vec<f64> = anim
            .attribute("keyTimes")
            .unwrap()
            .split(';')
            .map(|k| k.parse().unwrap())
            .collect();
        assert_eq!(values.len(), frames.len());
        assert_eq!(keys.len(), frames.len());
        assert_eq!(keys[0], 0.0);
        assert!(keys.windows(2).all(|w| w[0] < w[1]) && keys[keys.len() - 1] <= 1.0);
        for (v, f) in values.iter().zip(frames) {
            let pts = path_points(v);
            let want = &f.cables[i].points;
            assert_eq!(pts.len(), want.len());
            for (a, b) in pts.iter().zip(want) {
                assert!(
                    (a.x - b.x).abs() < 1e-3 && (a.y + b.y).abs() < 1e-3,
                    "{a} vs {b}"
                );
            }
        }
    }
    // Pinned particles follow with cx/cy animations of every frame.
    let pins: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("pin"))
        .collect();
    assert_eq!(pins.len(), 4);
    for pin in pins {
        let n = pin.children().filter(|n| n.has_tag_name("animate")).count();
        assert_eq!(n, 2);
        for a in pin.children().filter(|n| n.has_tag_name("animate")) {
            assert_eq!(
                a.attribute("values").unwrap().split(';').count(),
                frames.len()
            );
        }
    }
}

#[test]
fn recorder_keeps_evenly_spaced_frames_within_capacity_and_the_last_one() {
    let (_, rec) = record(1000, 64);
    let t: Vec<f64> = rec.frames().iter().map(|f| f.time).collect();
    assert!(t.len() <= 65 && t.len() > 32, "{} frames", t.len());
    assert_eq!(t[0], 0.0);
    assert!((t[t.len() - 1] - 1000.0 / 60.0).abs() < 1e-6);
    // All but the final frame are evenly spaced.
    let step = t[1] - t[0];
    for w in t[..t.len() - 1].windows(2) {
        assert!((w[1] - w[0] - step).abs() < 1e-9, "{t:?}");
    }
}

#[test]
fn titles_are_escaped_and_bad_input_is_refused() {
    let (pool, rec) = record(2, 10);
    let f = Frame::capture(&pool, 0.0);
    let svg = render_svg(
        &f,
        &SvgOptions {
            title: Some("a < b & \"c\"".into()),
            ..SvgOptions::default()
        },
    )
    .unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let title = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("title"))
        .unwrap();
    assert_eq!(title.text(), Some("a < b & \"c\""));
    let e = render_svg(
        &f,
        &SvgOptions {
            width: 5,
            ..SvgOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, RenderError::Option { field: "width", .. }));
    assert_eq!(
        render_animation(&[], &SvgOptions::default()).unwrap_err(),
        RenderError::NoFrames
    );
    assert!(matches!(
        rec.frame_svg(99, &SvgOptions::default()),
        Err(RenderError::FrameOutOfRange { index: 99, .. })
    ));
    let bad = f.with_shapes(vec![Shape::Capsule {
        a: Vec3::ZERO,
        b: Vec3::X,
        radius: f32::NAN,
    }]);
    assert_eq!(
        render_svg(&bad, &SvgOptions::default())
            .unwrap_err()
            .to_string(),
        "shapes[0].radius: must be greater than 0, got NaN"
    );
}

#[test]
fn a_trail_draws_earlier_frames_faintly_inside_the_view_box() {
    let (_, rec) = record(120, 40);
    let frames = rec.frames();
    let svg = cable_debug::render_trail(
        frames,
        6,
        &SvgOptions {
            strain: true,
            ..SvgOptions::default()
        },
    )
    .unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let vb = view_box(&doc);
    let ghosts: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("ghost"))
        .collect();
    // 6 earlier frames × 3 cables, none of them the last frame.
    assert_eq!(ghosts.len(), 18);
    let last = frames[frames.len() - 1].time;
    for g in &ghosts {
        let t: f64 = g.attribute("data-time").unwrap().parse().unwrap();
        assert!(t < last);
    }
    for p in frames
        .iter()
        .flat_map(|f| f.cables.iter().flat_map(|c| &c.points))
    {
        assert_inside(vb, *p);
    }
    // Still one drawn element per cable.
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("cable"))
            .count(),
        3
    );
}

/// The stroke colours of the strain-coloured segments of a still.
fn segment_strokes(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("line") && n.parent().and_then(|p| p.attribute("class")) == Some("cable")
        })
        .map(|n| n.attribute("stroke").unwrap().to_string())
        .collect()
}

/// One cable of three 1 m segments whose middle one is stretched by `strain`.
fn stretched(strain: f32) -> Frame {
    let x2 = 2.0 + strain;
    let mut c = CableFrame::from_points(
        vec![Vec3::ZERO, Vec3::X, Vec3::X * x2, Vec3::X * (x2 + 1.0)],
        true,
        true,
        0.02,
    );
    c.rest = vec![1.0, 1.0, 1.0];
    Frame {
        cables: vec![c],
        ..Frame::default()
    }
}

#[test]
fn the_default_strain_scale_is_fixed_so_a_small_strain_stays_nearly_grey() {
    let red = |s: &str| u8::from_str_radix(&s[1..3], 16).unwrap();
    let strain = SvgOptions {
        strain: true,
        ..SvgOptions::default()
    };
    assert_eq!(strain.strain_scale, StrainScale::Fixed(0.05));
    // 1 % strain on the fixed ±5 % scale: a fifth of the way from grey
    // (150) to red (200); normalised to the largest strain it is full red.
    let fixed = segment_strokes(&render_svg(&stretched(0.01), &strain).unwrap());
    assert!((155..=165).contains(&red(&fixed[1])), "{fixed:?}");
    assert!(
        render_svg(&stretched(0.01), &strain)
            .unwrap()
            .contains("+5.00 %")
    );
    let largest = SvgOptions {
        strain_scale: StrainScale::Largest,
        ..strain.clone()
    };
    let norm = segment_strokes(&render_svg(&stretched(0.01), &largest).unwrap());
    assert_eq!(norm[1], "#c8182b", "full red at the largest strain");
    // Two pictures on the fixed scale compare: more strain, more red.
    let big = segment_strokes(&render_svg(&stretched(0.04), &strain).unwrap());
    assert!(red(&big[1]) > red(&fixed[1]) + 20, "{big:?} vs {fixed:?}");
    // A fixed scale must be a usable number.
    for bad in [0.0, -0.1, f32::NAN, f32::INFINITY] {
        let opts = SvgOptions {
            strain_scale: StrainScale::Fixed(bad),
            ..strain.clone()
        };
        assert!(
            matches!(
                render_svg(&stretched(0.01), &opts),
                Err(RenderError::Option { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn a_still_of_the_recording_is_its_final_frame_and_the_animation_falls_back_to_it() {
    let (_, rec) = record(60, 50);
    let last = rec.frames().last().unwrap();
    let still = rec.still_svg(&SvgOptions::default()).unwrap();
    assert!(!still.contains("<animate"));
    assert_eq!(still, render_svg(last, &SvgOptions::default()).unwrap());
    // The animation's static `d` (what rsvg and image converters show) is
    // the final frame too, drawn in the same view as the animation.
    let anim = rec.to_svg(&SvgOptions::default()).unwrap();
    let doc = roxmltree::Document::parse(&anim).unwrap();
    let cables: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cable"))
        .collect();
    assert_eq!(cables.len(), 3);
    for node in cables {
        let values = node
            .children()
            .find(|n| n.has_tag_name("animate"))
            .and_then(|a| a.attribute("values"))
            .unwrap();
        assert_eq!(node.attribute("d"), values.split(';').next_back());
        assert_ne!(node.attribute("d"), values.split(';').next());
    }
    assert!(matches!(
        Recorder::new(4).still_svg(&SvgOptions::default()),
        Err(RenderError::NoFrames)
    ));
}
