//! The README's picture, `docs/demo.png`, is the demo's still as the code
//! draws it now: `cable demo --seconds 4 --svg-still`, rasterised at twice
//! the SVG's pixel size by `tools/demo-png` (resvg, outside the
//! workspace's builds). The PNG carries the hash of the SVG it was drawn
//! from (a `tEXt` chunk); the test draws the still again and fails when the
//! hashes differ, so the picture cannot go stale (it once showed 5 %
//! stretch where the demo gave 0.5 %).
//!
//! Refresh it after a change that moves the demo:
//!
//! ```sh
//! cargo run --release -- demo --seconds 4 --no-ascii --svg-still --svg target/demo.svg
//! cargo run --release --manifest-path tools/demo-png/Cargo.toml -- target/demo.svg docs/demo.png
//! ```

mod common;

use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;

/// The `tEXt` keyword holding the hash of the SVG the PNG was drawn from.
const KEY: &str = "cable-demo-svg-fnv1a64";

fn png_bytes() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/demo.png");
    std::fs::read(path).expect("docs/demo.png exists")
}

/// The demo's still as the binary draws it now.
fn demo_svg() -> String {
    let dir = common::test_dir("demo_png");
    let svg = dir.join("demo.svg");
    let out = Command::new(common::cable_bin())
        .args([
            "demo",
            "--seconds",
            "4",
            "--no-ascii",
            "--svg-still",
            "--svg",
        ])
        .arg(&svg)
        .output()
        .expect("run cable demo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&svg).expect("the demo wrote its SVG")
}

/// FNV-1a, 64 bits: stable across Rust versions and machines (unlike
/// std's hasher), and enough to tell one drawing from another.
fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A number attribute of the SVG's root element.
fn root_attr(svg: &str, name: &str) -> f64 {
    let doc = roxmltree::Document::parse(svg).expect("the demo's SVG parses");
    doc.root_element()
        .attribute(name)
        .and_then(|v| v.trim_end_matches("px").parse().ok())
        .unwrap_or_else(|| panic!("the SVG root has a numeric {name}"))
}

#[test]
fn the_readme_picture_is_the_demo_as_it_draws_now() {
    let svg = demo_svg();
    let hash = fnv1a64(svg.as_bytes());
    let bytes = png_bytes();
    let reader = png::Decoder::new(Cursor::new(&bytes[..]))
        .read_info()
        .expect("docs/demo.png is a PNG");
    let drawn_from = reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .find(|t| t.keyword == KEY)
        .map(|t| t.text.clone());
    assert_eq!(
        drawn_from.as_deref(),
        Some(hash.as_str()),
        "docs/demo.png is not the demo as it draws now; refresh it with \
         tools/demo-png (see this file's docs)"
    );
    // Twice the SVG's pixel size.
    let (w, h) = (reader.info().width, reader.info().height);
    assert_eq!(f64::from(w), (2.0 * root_attr(&svg, "width")).ceil());
    assert_eq!(f64::from(h), (2.0 * root_attr(&svg, "height")).ceil());
}

#[test]
fn the_picture_shows_cables_and_colliders_not_a_blank_page() {
    let bytes = png_bytes();
    let mut reader = png::Decoder::new(Cursor::new(&bytes[..]))
        .read_info()
        .expect("docs/demo.png is a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let frame = reader.next_frame(&mut buf).expect("the PNG decodes");
    assert_eq!(frame.color_type, png::ColorType::Rgba);
    assert_eq!(frame.bit_depth, png::BitDepth::Eight);
    let pixels = &buf[..frame.buffer_size()];
    let inked = pixels
        .chunks_exact(4)
        .filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200)
        .count();
    let all = pixels.len() / 4;
    // The cables and colliders cover a good share of the picture, and not
    // all of it.
    assert!(
        inked * 100 > all && inked * 2 < all,
        "{inked} of {all} pixels inked"
    );
    // Opaque throughout (drawn on white).
    assert!(pixels.chunks_exact(4).all(|p| p[3] == 255));
}
