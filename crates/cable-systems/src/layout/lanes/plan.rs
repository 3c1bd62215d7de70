//! How cables are grouped into lanes: the group and bundle widths and
//! the [`Key`] of cables that may share a lane group.

use cable_core::CableRef;

use crate::params::SolverParams;

/// Cables per lane group.
pub const LANES: usize = 8;

/// Most lane groups of one bundle.
pub const GROUPS_IN_FLIGHT: usize = 4;

/// A key's last, partial lane group is built only when it holds at least
/// this many cables; fewer run on the one-lane path (a nearly empty group
/// costs as much as a full one).
pub const MIN_GROUP_FILL: usize = 3;

/// A padding lane of [`Bundle::cables`]; while planning, a one-lane cable.
pub(super) const SCALAR: u32 = u32::MAX;

/// Cables that may share a lane group: the same length and the same
/// costly constraint kinds. Cheap kinds (tethers, tension tracking) do not
/// split groups: a group runs them when any lane has them, masked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub(super) segs: usize,
    pub(super) iterations: u32,
    pub(super) stiff: bool,
    /// The cables are compliant (their multipliers are kept).
    pub soft: bool,
    pub(super) curv: bool,
    pub(super) friction: bool,
}

impl Key {
    pub(super) fn of(c: &CableRef<'_>, params: &SolverParams) -> Self {
        let n = c.pos.len();
        Self {
            segs: n - 1,
            iterations: c.params.iterations.unwrap_or(params.iterations),
            stiff: c.params.stiffness && n >= 3,
            soft: c.params.compliance != 0.0,
            curv: c.row_const.iter().any(|k| k.bend_compliance > 0.0),
            friction: c.params.friction.unwrap_or(params.friction) > 0.0,
        }
    }
}

/// Slots of one bundle in [`LanesWorld::views`]: the widest bundle's lanes
/// (a narrower bundle leaves the rest `None`).
pub(super) const STRIDE: usize = LANES * GROUPS_IN_FLIGHT;
