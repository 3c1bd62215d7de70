//! Which cables collide with which ([`CollisionGroups`], as rapier's
//! `InteractionGroups`): a cable's membership bits and the bits it
//! collides with, for cable–cable contact.

/// Which cables a cable collides with when cable–cable contact is on
/// (`cable_systems::SolverParams::cable_collision`): two cables (or a
/// cable and itself) collide when each one's
/// [`memberships`](CollisionGroups::memberships) share a bit with the
/// other's [`filter`](CollisionGroups::filter), as rapier's
/// `InteractionGroups`. The default, [`CollisionGroups::ALL`], collides
/// with every cable; [`CollisionGroups::NONE`] opts a cable out.
///
/// # Example
/// ```
/// use cable_core::CollisionGroups;
///
/// let rope = CollisionGroups::ALL;
/// // In group 2, colliding with group 2 only: `rope` is in every group.
/// let hose = CollisionGroups { memberships: 0b10, filter: 0b10 };
/// assert!(hose.interacts_with(rope));
/// let ghost = CollisionGroups { memberships: 0b100, filter: 0b100 };
/// assert!(!hose.interacts_with(ghost));
/// assert!(!CollisionGroups::NONE.interacts_with(rope));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct CollisionGroups {
    /// The groups this cable belongs to, one bit each.
    pub memberships: u32,
    /// The groups this cable collides with.
    pub filter: u32,
}

impl CollisionGroups {
    /// Every group, colliding with every group: the default.
    pub const ALL: Self = Self {
        memberships: u32::MAX,
        filter: u32::MAX,
    };
    /// No group: collides with no cable, itself included.
    pub const NONE: Self = Self {
        memberships: 0,
        filter: 0,
    };

    /// True when cables with these groups and `other`'s collide: each one's
    /// memberships meet the other's filter.
    #[inline]
    #[must_use]
    pub const fn interacts_with(self, other: Self) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}
