//! A broken segment (issue 12's tearing) is a gap in every view.

use cable_core::{CableDesc, ParticlePool};
use cable_debug::{AsciiMode, AsciiOptions, Frame, SvgOptions, render_ascii, render_svg};
use glam::Vec3;

fn torn_line() -> ParticlePool {
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(8.0, 0.0, 0.0), 8.0, 8).unwrap())
        .unwrap();
    pool.break_segment(h, 3).unwrap();
    pool
}

#[test]
fn a_captured_frame_knows_which_segments_broke() {
    let frame = Frame::capture(&torn_line(), 0.0);
    let c = &frame.cables[0];
    assert_eq!(c.intact.len(), 8);
    assert_eq!(c.intact.iter().filter(|&&i| !i).count(), 1);
    assert!(!c.intact[3]);
    assert_eq!(c.drawn_points().filter(|p| p.is_nan()).count(), 1);
}

#[test]
fn the_svg_path_lifts_the_pen_at_the_break() {
    let pool = torn_line();
    let svg = render_svg(&Frame::capture(&pool, 0.0), &SvgOptions::default()).unwrap();
    let path = svg
        .lines()
        .find(|l| l.contains("class=\"cable\""))
        .expect("a cable path");
    // Two pieces: one M at the start, one after the gap.
    assert_eq!(path.matches('M').count(), 2, "{path}");
    // With strain colouring the broken segment is not drawn: 7 lines.
    let strain = SvgOptions {
        strain: true,
        ..SvgOptions::default()
    };
    let svg = render_svg(&Frame::capture(&pool, 0.0), &strain).unwrap();
    assert_eq!(svg.matches("<line ").count() - legend_lines(&svg), 7);
}

/// `<line>` elements outside the cables group (the strain legend's).
fn legend_lines(svg: &str) -> usize {
    let start = svg.find("<g class=\"cables\"").unwrap();
    let end = start + svg[start..].find("<g class=\"pins\"").unwrap();
    svg.matches("<line ").count() - svg[start..end].matches("<line ").count()
}

#[test]
fn the_ascii_view_leaves_a_gap() {
    let opts = AsciiOptions {
        width: 80,
        height: 3,
        mode: AsciiMode::Plain,
        ..AsciiOptions::default()
    };
    let whole = {
        let mut pool = ParticlePool::new();
        pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(8.0, 0.0, 0.0), 8.0, 8).unwrap())
            .unwrap();
        render_ascii(&pool, &opts).unwrap()
    };
    let torn = render_ascii(&torn_line(), &opts).unwrap();
    let ink = |s: &str| {
        s.lines()
            .take(3)
            .flat_map(str::chars)
            .filter(|c| !c.is_whitespace())
            .count()
    };
    assert!(ink(&torn) < ink(&whole), "no gap:\n{torn}\nvs\n{whole}");
}
