//! Rasterises the demo's SVG still into the README's picture.
//!
//! ```sh
//! cargo run --release -- demo --seconds 4 --no-ascii --svg-still --svg target/demo.svg
//! cargo run --release --manifest-path tools/demo-png/Cargo.toml -- target/demo.svg docs/demo.png
//! ```
//!
//! The PNG is the SVG drawn on white at twice its pixel size, with the
//! system's fonts for the labels (DejaVu Sans on Debian, package
//! `fonts-dejavu-core`), and carries the FNV-1a hash of the SVG in a `tEXt`
//! chunk (`cable-demo-svg-fnv1a64`). `crates/cable-cli/tests/demo_png.rs`
//! draws the still again and fails when the hashes differ.

use std::process::ExitCode;

/// The `tEXt` keyword holding the hash of the SVG the PNG was drawn from.
const KEY: &str = "cable-demo-svg-fnv1a64";
/// Pixels per SVG pixel.
const SCALE: f32 = 2.0;

/// FNV-1a, 64 bits, as the test computes it.
fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn run(svg_path: &str, png_path: &str) -> Result<(), String> {
    let svg = std::fs::read_to_string(svg_path).map_err(|e| format!("cannot read {svg_path}: {e}"))?;
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(&svg, &opt)
        .map_err(|e| format!("{svg_path} is not an SVG resvg reads: {e}"))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(SCALE)
        .ok_or_else(|| format!("{svg_path} has no size"))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| format!("{svg_path} has no size"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    // Opaque (drawn on white): premultiplied equals straight alpha.
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_text_chunk(KEY.to_owned(), fnv1a64(svg.as_bytes()))
            .map_err(|e| format!("PNG text chunk: {e}"))?;
        let mut w = enc.write_header().map_err(|e| format!("PNG header: {e}"))?;
        w.write_image_data(pixmap.data())
            .map_err(|e| format!("PNG data: {e}"))?;
    }
    std::fs::write(png_path, bytes).map_err(|e| format!("cannot write {png_path}: {e}"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [svg, png] = args.as_slice() else {
        eprintln!("usage: demo-png <demo.svg> <demo.png>");
        return ExitCode::from(2);
    };
    match run(svg, png) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
