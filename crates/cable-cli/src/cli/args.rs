//! The command line's arguments (clap derive): the commands and their
//! options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::view_args::ViewArgs;

/// Data-oriented Verlet cable and rope simulation.
#[derive(Debug, Parser)]
#[command(name = "cable", version, about, propagate_version = true)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Run a built-in scene and draw it in the terminal.
    Demo(DemoArgs),
    /// Run a scene file and write its results.
    Run(RunArgs),
    /// Measure the solver on a synthetic workload.
    Bench(BenchArgs),
}

/// Options of `cable demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Simulated seconds.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Write an SVG of the run to FILE: an animation of at most 300 evenly
    /// spaced frames (or a still with --svg-still).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// With --svg: a still of the final frame, segments coloured by strain,
    /// over faint earlier frames, instead of the animation.
    #[arg(long, requires = "svg")]
    pub svg_still: bool,
    /// Do not draw in the terminal.
    #[arg(long)]
    pub no_ascii: bool,
    /// How the terminal views and the SVG look at the scene.
    #[command(flatten)]
    pub views: ViewArgs,
}

/// Options of `cable run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Scene file (JSON), or `-` for standard input.
    #[arg(value_name = "SCENE")]
    pub scene: String,
    /// Simulated seconds.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Frame length, seconds: time fed to the accumulator per frame.
    #[arg(long = "frame-dt", default_value_t = 1.0 / 60.0, allow_negative_numbers = true)]
    pub frame_dt: f32,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub threads: Option<usize>,
    /// Particle layout: aos, soa or lanes8 (default: lanes8, the fastest;
    /// all give identical results).
    #[arg(long)]
    pub layout: Option<String>,
    /// Write particle positions as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write every K-th frame to --out (the last frame always).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub every: u64,
    /// Write an SVG of the run to FILE: an animation of at most 300 evenly
    /// spaced frames (or a still with --svg-still).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// With --svg: a still of the final frame, segments coloured by strain,
    /// over faint earlier frames, instead of the animation.
    #[arg(long, requires = "svg")]
    pub svg_still: bool,
    /// Draw the run in the terminal (animated on a terminal, else the last
    /// frame).
    #[arg(long)]
    pub ascii: bool,
    /// Write the final tube meshes as Wavefront OBJ to FILE.
    #[arg(long, value_name = "FILE")]
    pub obj: Option<PathBuf>,
    /// With --out: add to every written frame "tension": the tension of
    /// each segment of each cable in newtons (0 for a broken segment).
    /// Without --out it is a usage error (exit 2): there is nowhere to write it.
    #[arg(long)]
    pub tension: bool,
    /// With --out: add to every written frame "collider_forces": for each
    /// collider in scene order, the force [fx, fy, fz] in newtons that the
    /// cables exert on it, averaged over that frame's substeps (contact and
    /// friction together). Without --out it is a usage error (exit 2).
    #[arg(long)]
    pub forces: bool,
    /// Save the simulation's state (JSON) to FILE after the frame that
    /// reaches --save-at seconds (default: the end of the run), to go on
    /// from there with --restore. Written whole or not at all.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// With --save: the simulated time to save at, seconds (0 to --seconds).
    #[arg(
        long = "save-at",
        value_name = "SECONDS",
        requires = "save",
        allow_negative_numbers = true
    )]
    pub save_at: Option<f64>,
    /// Go on from a state written by --save (of the same scene, with the
    /// same --frame-dt) up to --seconds: frames are numbered on from the
    /// saved one, so --out holds the frames an uninterrupted run writes
    /// after it, byte for byte.
    #[arg(long, value_name = "FILE")]
    pub restore: Option<PathBuf>,
    /// How the terminal views and the SVG look at the scene.
    #[command(flatten)]
    pub views: ViewArgs,
}

/// Options of `cable bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Number of cables.
    #[arg(long)]
    pub cables: Option<usize>,
    /// Segments per cable.
    #[arg(long)]
    pub segments: Option<u32>,
    /// Solver iterations per substep.
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Substeps to run.
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Substeps per frame (per call of the stepper's `advance`).
    /// Default: all of them in one frame, the solver's throughput, each
    /// cable hot in cache across its substeps. 1 measures a game running
    /// one substep a frame (add --read-every-frame for what a reader of the
    /// pool costs on top).
    #[arg(long = "frame-substeps")]
    pub frame_substeps: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Particle layout: aos, soa or lanes8 (default: all of them, compared).
    #[arg(long)]
    pub layout: Option<String>,
    /// Print one JSON object on the last line.
    #[arg(long)]
    pub json: bool,
    /// Run each layout R times and keep the fastest (default 1).
    #[arg(long, value_name = "R")]
    pub repeat: Option<u32>,
    /// Write a bar chart of the results as SVG to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Workload: `free` (cables in free air, the default), `contact`
    /// (2,000 cables draped onto a ground plane and 20 spheres unless
    /// --cables says otherwise, friction 0.3), `ground` (the same on the
    /// ground plane alone) or `pile` (2,000 free cables 4 m long dropped in
    /// crossing layers into a 5 m box; add --cable-collision to pile them).
    #[arg(long, value_name = "NAME")]
    pub scene: Option<String>,
    /// Contact between cables on (the scene key `cable_collision`).
    #[arg(long = "cable-collision")]
    pub cable_collision: bool,
    /// Give the cables tethers (scenes have them by default); without it
    /// the workload is the spec's classic step.
    #[arg(long)]
    pub tethers: bool,
    /// After every frame, read every particle's position from the pool,
    /// as a renderer does: the timing includes what the layout copies back
    /// for a reader.
    #[arg(long = "read-every-frame")]
    pub read_every_frame: bool,
    /// SIMD path of the wide kernel: `auto` (the best the CPU has, the
    /// default), `baseline`, `avx2` or `avx512` (AVX-512 F and VL).
    /// Results are identical; speed differs.
    #[arg(long, value_name = "PATH")]
    pub simd: Option<String>,
}

/// Parses a whole number option, with a message that says what is wrong
/// (clap names the option): `-1` is "must be at least 0", not a bad digit.
fn whole<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.trim()
        .parse::<T>()
        .map_err(|_| match s.trim().parse::<i128>() {
            Ok(v) if v < 0 => format!("must be a whole number of at least 1, got {v}"),
            Ok(v) => format!("must be a whole number, at most {}, got {v}", u64::MAX),
            Err(_) => format!("must be a whole number, got `{s}`"),
        })
}
