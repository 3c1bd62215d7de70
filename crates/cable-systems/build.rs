//! Tells the crate whether it is compiled without optimisation.
//!
//! Unoptimised (`opt-level = 0`, Cargo's default `dev` profile), the
//! lane kernel inlined into one function keeps every temporary in its own
//! stack slot: a 32-lane bundle's substep then needs about 2 MB of stack,
//! more than a rayon worker's 2 MiB default. With `cable_unoptimized` set,
//! `Bundle::run` grows the stack when too little is left
//! (`stacker::maybe_grow`); optimised builds compile no such check.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(cable_unoptimized)");
    println!("cargo::rerun-if-changed=build.rs");
    // Cargo sets OPT_LEVEL to the opt-level this package is compiled with
    // (its profile and any per-package override).
    if std::env::var("OPT_LEVEL").as_deref() == Ok("0") {
        println!("cargo::rustc-cfg=cable_unoptimized");
    }
}
