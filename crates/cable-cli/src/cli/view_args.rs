//! Options shared by the debug views of `cable run` and `cable demo`.

use cable_debug::{AsciiMode, AsciiOptions, ViewDir};
use clap::Args;
use glam::Vec3;

/// How `--ascii`, the demo's animation and `--svg` look at the scene.
#[derive(Debug, Clone, Args)]
pub struct ViewArgs {
    /// View of --ascii and --svg: xy (x right, y up), xz, zy, or a
    /// direction X,Y,Z to look along (world y up).
    #[arg(long, value_name = "VIEW", default_value = "xy", value_parser = parse_view)]
    pub view: ViewDir,
    /// Draw the terminal views with plain ASCII instead of Unicode braille.
    #[arg(long)]
    pub plain: bool,
}

impl ViewArgs {
    /// Text view options with these choices.
    pub fn ascii(&self) -> AsciiOptions {
        AsciiOptions {
            view: self.view,
            mode: if self.plain {
                AsciiMode::Plain
            } else {
                AsciiMode::Braille
            },
            ..AsciiOptions::default()
        }
    }
}

/// Parses `xy`, `xz`, `zy` or `X,Y,Z`.
fn parse_view(s: &str) -> Result<ViewDir, String> {
    match s.trim() {
        "xy" => Ok(ViewDir::Xy),
        "xz" => Ok(ViewDir::Xz),
        "zy" => Ok(ViewDir::Zy),
        other => {
            let parts: Vec<f32> = other
                .split(',')
                .map(|p| p.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|_| format!("expected xy, xz, zy or a direction X,Y,Z, got `{other}`"))?;
            let [x, y, z] = parts[..] else {
                return Err(format!("a direction needs 3 numbers X,Y,Z, got `{other}`"));
            };
            let d = ViewDir::Along(Vec3::new(x, y, z));
            d.basis().map_err(|e| e.to_string())?;
            Ok(d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_view("xz"), Ok(ViewDir::Xz));
        assert_eq!(
            parse_view("1,0,-1"),
            Ok(ViewDir::Along(Vec3::new(1.0, 0.0, -1.0)))
        );
        assert!(parse_view("0,0,0").unwrap_err().contains("view"));
        assert!(parse_view("1,2").is_err());
        assert!(parse_view("NaN,1,1").is_err());
        assert!(parse_view("yz").is_err());
    }
}
