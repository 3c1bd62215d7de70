//! The README's picture, `docs/demo.png`, is the demo's still as the code
//! draws it now: `cable demo --seconds 4 --svg-still`, rasterised
//! in-process with resvg at twice the SVG's pixel size. The PNG carries
//! the hash of the SVG it was rendered from (a `tEXt` chunk); the test
//! draws the still again and fails when the hashes differ, so the picture
//! cannot go stale (it once showed 5 % stretch where the demo gave 0.5 %).
//!
//! Refresh it after a change that moves the demo:
//!
//! ```sh
//! CABLE_UPDATE_DEMO_PNG=1 cargo test -p cable-cli --test demo_png
//! ```
//!
//! (labels use the system's fonts: DejaVu Sans on Debian, package
//! `fonts-dejavu-core`).

mod common;

use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;

/// The `tEXt` keyword holding the hash of the SVG the PNG was drawn from.
const KEY: &str = "cable-demo-svg-fnv1a64";
/// Pixels per SVG pixel.
const SCALE: f32 = 2.0;

fn png_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/demo.png")
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

/// The SVG rasterised on white at `scale` pixels per SVG pixel, with the
/// system's fonts for the labels.
fn rasterise(svg: &str, scale: f32) -> resvg::tiny_skia::Pixmap {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("the demo's SVG parses");
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .expect("a picture of non-zero size");
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("non-zero size");
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
}

/// The PNG's text chunks.
fn text_chunks(png_bytes: &[u8]) -> Vec<(String, String)> {
    let reader = png::Decoder::new(Cursor::new(png_bytes))
        .read_info()
        .expect("docs/demo.png is a PNG");
    reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .map(|t| (t.keyword.clone(), t.text.clone()))
        .collect()
}

/// Encodes `pixmap` (opaque: premultiplied equals straight alpha) with the
/// hash chunk.
fn encode(pixmap: &resvg::tiny_skia::Pixmap, hash: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_text_chunk(KEY.to_owned(), hash.to_owned())
            .expect("an ASCII keyword and text");
        let mut w = enc.write_header().expect("PNG header");
        w.write_image_data(pixmap.data()).expect("PNG data");
    }
    bytes
}

#[test]
fn the_readme_picture_is_the_demo_as_it_draws_now() {
    let svg = demo_svg();
    let hash = fnv1a64(svg.as_bytes());
    if std::env::var_os("CABLE_UPDATE_DEMO_PNG").is_some() {
        let png_bytes = encode(&rasterise(&svg, SCALE), &hash);
        std::fs::write(png_path(), png_bytes).expect("write docs/demo.png");
        return;
    }
    let png_bytes = std::fs::read(png_path()).expect("docs/demo.png exists");
    let drawn_from = text_chunks(&png_bytes)
        .into_iter()
        .find(|(k, _)| k == KEY)
        .map(|(_, v)| v);
    assert_eq!(
        drawn_from.as_deref(),
        Some(hash.as_str()),
        "docs/demo.png is not the demo as it draws now; refresh it with \
         `CABLE_UPDATE_DEMO_PNG=1 cargo test -p cable-cli --test demo_png`"
    );
}

#[test]
fn the_demo_still_rasterises_with_its_cables_and_colliders_in_view() {
    let svg = demo_svg();
    let pixmap = rasterise(&svg, 1.0);
    // Not blank: the cables and colliders cover a good share of the
    // picture, and not all of it.
    let inked = pixmap
        .pixels()
        .iter()
        .filter(|p| p.red() < 200 || p.green() < 200 || p.blue() < 200)
        .count();
    let all = pixmap.pixels().len();
    assert!(
        inked * 100 > all && inked * 2 < all,
        "{inked} of {all} pixels inked"
    );
    // The same SVG gives the same pixels (the refresh is reproducible).
    assert_eq!(rasterise(&svg, 1.0).data(), pixmap.data());
}
