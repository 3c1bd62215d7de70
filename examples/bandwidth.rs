//! What this machine's memory can move, for reading the one-substep-per-frame
//! figures (`docs/performance-history.md`): one thread streaming over
//! arrays larger than the caches, in the two patterns a one-substep frame has.
//!
//! - **in place**: read and write every element of one array (the lane rows
//!   a substep reads and writes back); traffic counts both directions;
//! - **copy into a cold array**: the pool's write-back; traffic counts the
//!   read of the source, the destination lines fetched before they are
//!   written (write-allocate) and their write.
//!
//! ```sh
//! cargo run --release --example bandwidth            # 64 and 256 MB arrays
//! cargo run --release --example bandwidth -- 1024    # one size, in MB
//! ```

use std::hint::black_box;
use std::time::Instant;

/// Best of this many passes of each pattern.
const PASSES: usize = 7;

fn measure(mb: usize) {
    let n = mb * 1024 * 1024 / 4;
    let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 1.0e-7).collect();
    let mut b = vec![0.0f32; n];
    let (mut in_place, mut copy) = (f64::MAX, f64::MAX);
    for _ in 0..PASSES {
        let t = Instant::now();
        for x in a.iter_mut() {
            *x = *x * 1.000_000_1 + 1.0e-9;
        }
        black_box(&mut a);
        in_place = in_place.min(t.elapsed().as_secs_f64());
        // Evict `b` from the caches: `a` is larger than the last level.
        let t = Instant::now();
        b.copy_from_slice(&a);
        black_box(&mut b);
        copy = copy.min(t.elapsed().as_secs_f64());
    }
    let bytes = (n * 4) as f64;
    println!(
        "{mb:>5} MB: in place {:.1} GB/s of traffic; copy into a cold array {:.1} GB/s copied ({:.1} GB/s of traffic)",
        2.0 * bytes / in_place / 1e9,
        bytes / copy / 1e9,
        3.0 * bytes / copy / 1e9,
    );
}

fn main() {
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(s) => match s.parse() {
            Ok(mb) if mb > 0 => vec![mb],
            _ => {
                eprintln!("usage: bandwidth [MB]  (a positive whole number of megabytes)");
                std::process::exit(2);
            }
        },
        None => vec![64, 256],
    };
    for mb in sizes {
        measure(mb);
    }
}
