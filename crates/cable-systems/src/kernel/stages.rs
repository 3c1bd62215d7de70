//! Which stages of a substep run ([`Stages`]). It lives in the kernel,
//! which reads it, so that the kernel never imports the layouts; the
//! layouts and the stepper pass it down.

/// Which stages of a substep run: all of them normally; benchmarks and
/// profiling time one stage alone ([`crate::Stepper::run_stages`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    /// 1. attachments.
    pub attach: bool,
    /// 2. integrate.
    pub integrate: bool,
    /// 4. the constraint sweeps (distance, bending).
    pub constraints: bool,
    /// 3–5. contacts: broad phase, sweeps, contact passes, friction.
    pub collide: bool,
}

impl Stages {
    /// The whole substep.
    pub const ALL: Stages = Stages {
        attach: true,
        integrate: true,
        constraints: true,
        collide: true,
    };
    /// Integrate alone.
    pub const INTEGRATE: Stages = Stages {
        attach: false,
        integrate: true,
        constraints: false,
        collide: false,
    };
    /// Constraints alone (no contacts).
    pub const CONSTRAINTS: Stages = Stages {
        attach: false,
        integrate: false,
        constraints: true,
        collide: false,
    };
}

impl Default for Stages {
    fn default() -> Self {
        Self::ALL
    }
}
