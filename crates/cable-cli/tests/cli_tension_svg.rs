//! `cable run --tension --svg FILE --svg-still` colours the still by
//! segment tension (issue 12): a chain hanging from its top carries the
//! most at the top, so the top segment is full red and the bottom one
//! nearly grey; without `--tension` the still is coloured by strain.

mod common;

use std::process::Command;

use common::{cable_bin, test_dir};

const SCENE: &str = r#"{ "cables": [ { "start": [0, 0, 0], "end": [0, -2, 0], "length": 2,
  "segments": 10, "attach_end": false, "mass_per_length": 1 } ] }"#;

fn run(dir: &std::path::Path, tension: bool) -> String {
    let scene = dir.join("scene.json");
    std::fs::write(&scene, SCENE).unwrap();
    let (out, svg) = (dir.join("out.json"), dir.join("still.svg"));
    let mut args = vec![
        "run".to_string(),
        scene.display().to_string(),
        "--seconds".into(),
        "3".into(),
        "--out".into(),
        out.display().to_string(),
        "--svg".into(),
        svg.display().to_string(),
        "--svg-still".into(),
    ];
    if tension {
        args.push("--tension".into());
    }
    let o = Command::new(cable_bin()).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(svg).unwrap()
}

/// The stroke colours of the last cable group's segments, top first.
fn segment_colours(svg: &str) -> Vec<String> {
    let start = svg.rfind("<g class=\"cable\"").expect("a segment group");
    svg[start..]
        .lines()
        .take_while(|l| !l.starts_with("</g>"))
        .filter_map(|l| l.split("stroke=\"").nth(1))
        .map(|s| s[..7].to_string())
        .collect()
}

#[test]
fn with_tension_the_still_is_coloured_by_tension() {
    let dir = test_dir("tension_svg");
    let svg = run(&dir, true);
    assert!(svg.contains("coloured by tension"), "title");
    assert!(svg.contains(">tension<"), "legend");
    let colours = segment_colours(&svg);
    assert_eq!(colours.len(), 10, "{colours:?}");
    // Full red at the top (the largest tension), near grey at the bottom
    // (one 0.1 kg particle's weight against 2 kg of chain).
    assert_eq!(colours[0], "#c8182b", "{colours:?}");
    let red = |c: &str| u8::from_str_radix(&c[1..3], 16).unwrap();
    assert!(red(&colours[9]) < 160, "{colours:?}");
    // Monotone: each segment carries the chain below it.
    assert!(
        colours.windows(2).all(|w| red(&w[0]) >= red(&w[1])),
        "{colours:?}"
    );
    let plain = run(&dir, false);
    assert!(plain.contains("coloured by strain") && plain.contains(">strain<"));
}
