//! Axis-aligned bounding boxes and a small bounding volume hierarchy: the
//! broad phase between cables and colliders.
//!
//! The tree is rebuilt from scratch once per substep (a few hundred
//! colliders take microseconds) by median splits along the longest axis
//! (O(n log n)); ties are broken by item id, so the tree depends on the
//! boxes alone.

use glam::Vec3;

/// An axis-aligned box, metres. `min > max` on some axis means empty.
///
/// # Example
/// ```
/// use cable_core::Aabb;
/// use glam::Vec3;
///
/// let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
/// assert!(a.overlaps(&Aabb::new(Vec3::splat(0.5), Vec3::splat(2.0))));
/// assert!(!a.overlaps(&Aabb::new(Vec3::splat(1.5), Vec3::splat(2.0))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box: grows to the first point added.
    pub const EMPTY: Self = Self {
        min: Vec3::INFINITY,
        max: Vec3::NEG_INFINITY,
    };

    /// The box covering all of space (for half-spaces).
    pub const EVERYTHING: Self = Self {
        min: Vec3::NEG_INFINITY,
        max: Vec3::INFINITY,
    };

    /// A box from its two corners.
    #[inline]
    #[must_use]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The box around two points.
    #[inline]
    #[must_use]
    pub fn from_points(a: Vec3, b: Vec3) -> Self {
        Self {
            min: a.min(b),
            max: a.max(b),
        }
    }

    /// The smallest box holding every point of `points` (empty for none).
    #[must_use]
    pub fn of_points(points: &[Vec3]) -> Self {
        points.iter().fold(Self::EMPTY, |b, &p| b.with_point(p))
    }

    /// True when the box holds no point (as [`Aabb::EMPTY`] and boxes
    /// grown from it stay until a point is added).
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// This box grown to contain `p`.
    #[inline]
    #[must_use]
    pub fn with_point(self, p: Vec3) -> Self {
        Self {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// The smallest box containing both.
    #[inline]
    #[must_use]
    pub fn union(self, o: Self) -> Self {
        Self {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// This box grown by `margin` metres on every side (an empty box stays
    /// empty: its infinite corners do not move).
    #[inline]
    #[must_use]
    pub fn expand(self, margin: f32) -> Self {
        Self {
            min: self.min - Vec3::splat(margin),
            max: self.max + Vec3::splat(margin),
        }
    }

    /// True when the two boxes share a point (touching counts).
    #[inline]
    #[must_use]
    pub fn overlaps(&self, o: &Self) -> bool {
        self.min.cmple(o.max).all() && o.min.cmple(self.max).all()
    }

    /// True when `p` lies in the box (the boundary counts).
    #[inline]
    #[must_use]
    pub fn contains(&self, p: Vec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// Centre of the box.
    #[inline]
    #[must_use]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
}

/// The order of a split along `axis`: box centre, then id.
#[inline]
fn split_order(a: &(Aabb, u32), b: &(Aabb, u32), axis: usize) -> std::cmp::Ordering {
    let ca = a.0.min[axis] + a.0.max[axis];
    let cb = b.0.min[axis] + b.0.max[axis];
    ca.total_cmp(&cb).then(a.1.cmp(&b.1))
}

/// Most items in one leaf.
const LEAF_SIZE: usize = 4;

#[derive(Debug, Clone, Copy)]
struct Node {
    aabb: Aabb,
    /// Leaf: first item; inner: index of the right child (the left is next).
    first_or_right: u32,
    /// Leaf: number of items (> 0); inner: 0.
    count: u32,
}

/// A bounding volume hierarchy over boxes tagged with `u32` ids.
///
/// # Example
/// ```
/// use cable_core::{Aabb, Bvh};
/// use glam::Vec3;
///
/// let boxes: Vec<(Aabb, u32)> = (0..100)
///     .map(|i| (Aabb::new(Vec3::new(i as f32, 0.0, 0.0), Vec3::new(i as f32 + 0.5, 1.0, 1.0)), i))
///     .collect();
/// let mut bvh = Bvh::default();
/// bvh.build(&boxes);
/// let mut hits = Vec::new();
/// bvh.query(&Aabb::new(Vec3::new(10.2, 0.0, 0.0), Vec3::new(11.2, 1.0, 1.0)), |id| hits.push(id));
/// hits.sort();
/// assert_eq!(hits, [10, 11]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Bvh {
    nodes: Vec<Node>,
    items: Vec<(Aabb, u32)>,
    scratch: Vec<(Aabb, u32)>,
}

impl Bvh {
    /// Rebuilds the tree over `boxes` (box, id); previous content is dropped.
    pub fn build(&mut self, boxes: &[(Aabb, u32)]) {
        self.nodes.clear();
        self.items.clear();
        self.scratch.clear();
        self.scratch.extend_from_slice(boxes);
        if boxes.is_empty() {
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        self.build_node(&mut scratch, None);
        self.scratch = scratch;
    }

    /// Builds the node over `items`, split from its parent along
    /// `parent_axis` (`None` at the root).
    fn build_node(&mut self, items: &mut [(Aabb, u32)], parent_axis: Option<usize>) -> usize {
        let aabb = items.iter().fold(Aabb::EMPTY, |a, (b, _)| a.union(*b));
        let me = self.nodes.len();
        if items.len() <= LEAF_SIZE {
            if let Some(axis) = parent_axis {
                items.sort_unstable_by(|a, b| split_order(a, b, axis));
            }
            self.nodes.push(Node {
                aabb,
                first_or_right: self.items.len() as u32,
                count: items.len() as u32,
            });
            self.items.extend_from_slice(items);
            return me;
        }
        self.nodes.push(Node {
            aabb,
            first_or_right: 0,
            count: 0,
        });
        let ext = aabb.max - aabb.min;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        // A median split: the half below the median (centre, then id: a
        // total order) goes left. Partitioning (O(n)) instead of sorting
        // leaves each half's order unspecified, so a leaf sorts its items
        // by its parent's order: the tree, items' order included, is the
        // one sorting at every level gives.
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| split_order(a, b, axis));
        let (left, right) = items.split_at_mut(mid);
        self.build_node(left, Some(axis));
        let r = self.build_node(right, Some(axis));
        self.nodes[me].first_or_right = r as u32;
        me
    }

    /// Moves the boxes of the items to `box_of(id)` and grows or shrinks
    /// every node to fit, keeping the tree's shape: O(n), for items that
    /// moved a little since [`Bvh::build`]. Queries stay exact; only their
    /// speed suffers when items moved far (rebuild then). Ids must be those
    /// of the last build.
    ///
    /// # Example
    /// ```
    /// use cable_core::{Aabb, Bvh};
    /// use glam::Vec3;
    ///
    /// let at = |x: f32| Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 0.5, 1.0, 1.0));
    /// let mut bvh = Bvh::default();
    /// bvh.build(&(0..10).map(|i| (at(i as f32), i)).collect::<Vec<_>>());
    /// bvh.refit(|id| at(id as f32 + 100.0)); // everything moved 100 m along x
    /// let mut hits = Vec::new();
    /// bvh.query(&at(103.0), |id| hits.push(id));
    /// assert_eq!(hits, [3]);
    /// ```
    pub fn refit(&mut self, mut box_of: impl FnMut(u32) -> Aabb) {
        for (b, id) in &mut self.items {
            *b = box_of(*id);
        }
        // Children follow their parent in `nodes`, so a reverse pass sees
        // every child before its parent.
        for at in (0..self.nodes.len()).rev() {
            let node = self.nodes[at];
            self.nodes[at].aabb = if node.count > 0 {
                let first = node.first_or_right as usize;
                self.items[first..first + node.count as usize]
                    .iter()
                    .fold(Aabb::EMPTY, |a, (b, _)| a.union(*b))
            } else {
                let (l, r) = (at + 1, node.first_or_right as usize);
                self.nodes[l].aabb.union(self.nodes[r].aabb)
            };
        }
    }

    /// The sum of the half surface areas (xy + yz + zx) of every node, m²:
    /// proportional to how many nodes a random ray visits (the surface
    /// area heuristic), so its growth after [`Bvh::refit`] tells when a
    /// rebuild pays. 0 for an empty tree.
    #[must_use]
    pub fn cost(&self) -> f32 {
        self.nodes
            .iter()
            .map(|n| {
                let e = (n.aabb.max - n.aabb.min).max(Vec3::ZERO);
                e.x * e.y + e.y * e.z + e.z * e.x
            })
            .sum()
    }

    /// Calls `f` with the id of every box that overlaps `q`, each once, in
    /// an order that depends on the tree alone.
    #[inline]
    pub fn query(&self, q: &Aabb, mut f: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        // Depth is at most log2(items / LEAF_SIZE) + 1 for median splits,
        // far below 64 for any item count that fits in u32.
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let at = stack[top] as usize;
            let node = &self.nodes[at];
            if !node.aabb.overlaps(q) {
                continue;
            }
            if node.count > 0 {
                let first = node.first_or_right as usize;
                for (b, id) in &self.items[first..first + node.count as usize] {
                    if b.overlaps(q) {
                        f(*id);
                    }
                }
            } else {
                stack[top] = node.first_or_right;
                stack[top + 1] = (at + 1) as u32;
                top += 2;
            }
        }
    }

    /// Visits the items nearest first, for a query that keeps its best
    /// answer so far (a ray's first hit, a point's nearest neighbour).
    ///
    /// `bound(b)` is a lower bound on the key (a ray distance, a squared
    /// distance) of anything inside box `b`, or `None` when nothing in it
    /// can be reached. Nodes and items whose bound exceeds the current
    /// cutoff are skipped; `item(id)` tests one item whose bound does not,
    /// and returns the new cutoff (the best key so far). Items whose bound
    /// *equals* the cutoff are still visited, so a caller can break ties
    /// between equal keys by id. A `NaN` bound never passes. The order of
    /// the visit depends on the tree and the bounds alone.
    ///
    /// # Example
    /// ```
    /// use cable_core::{Aabb, Bvh};
    /// use glam::Vec3;
    ///
    /// let boxes: Vec<(Aabb, u32)> = (0..100)
    ///     .map(|i| (Aabb::new(Vec3::new(i as f32, 0.0, 0.0), Vec3::new(i as f32 + 0.5, 1.0, 1.0)), i))
    ///     .collect();
    /// let mut bvh = Bvh::default();
    /// bvh.build(&boxes);
    /// // The box nearest to a point: squared distances as keys.
    /// let p = Vec3::new(41.8, 0.5, 0.5);
    /// let dist2 = |b: &Aabb| Some((b.min - p).max(p - b.max).max(Vec3::ZERO).length_squared());
    /// let mut best = (f32::INFINITY, u32::MAX);
    /// bvh.visit_nearest(f32::INFINITY, dist2, |id| {
    ///     let d = dist2(&boxes[id as usize].0).unwrap_or(f32::INFINITY);
    ///     if (d, id) < best {
    ///         best = (d, id);
    ///     }
    ///     best.0
    /// });
    /// assert_eq!(best.1, 42);
    /// ```
    pub fn visit_nearest(
        &self,
        mut cutoff: f32,
        mut bound: impl FnMut(&Aabb) -> Option<f32>,
        mut item: impl FnMut(u32) -> f32,
    ) {
        let Some(root) = self.nodes.first() else {
            return;
        };
        let passes = |key: Option<f32>, cutoff: f32| key.filter(|&k| k <= cutoff);
        let Some(key) = passes(bound(&root.aabb), cutoff) else {
            return;
        };
        // As in `query`: the depth of a median-split tree is far below 64,
        // and each level leaves at most one sibling on the stack.
        let mut stack = [(0u32, 0.0f32); 64];
        stack[0] = (0, key);
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (at, key) = stack[top];
            if key > cutoff {
                continue; // the cutoff shrank since this node was pushed
            }
            let node = &self.nodes[at as usize];
            if node.count > 0 {
                let first = node.first_or_right as usize;
                for (b, id) in &self.items[first..first + node.count as usize] {
                    if passes(bound(b), cutoff).is_some() {
                        cutoff = item(*id);
                    }
                }
                continue;
            }
            let (left, right) = (at + 1, node.first_or_right);
            let kl = passes(bound(&self.nodes[left as usize].aabb), cutoff);
            let kr = passes(bound(&self.nodes[right as usize].aabb), cutoff);
            // Push the farther child first so the nearer is visited first;
            // on equal keys the left child goes first.
            let mut push = |n: u32, k: Option<f32>| {
                if let Some(k) = k {
                    stack[top] = (n, k);
                    top += 1;
                }
            };
            match (kl, kr) {
                (Some(l), Some(r)) if r < l => {
                    push(left, kl);
                    push(right, kr);
                }
                _ => {
                    push(right, kr);
                    push(left, kl);
                }
            }
        }
    }

    /// True when the tree holds nothing.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn aabb() -> impl Strategy<Value = Aabb> {
        (
            (-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0),
            (0.0f32..3.0, 0.0f32..3.0, 0.0f32..3.0),
        )
            .prop_map(|(m, e)| {
                let min = Vec3::new(m.0, m.1, m.2);
                Aabb::new(min, min + Vec3::new(e.0, e.1, e.2))
            })
    }

    /// The build before partitioning: a full sort at every level.
    fn sorted_build(out: &mut Vec<(Aabb, u32, u32, u32)>, items: &mut [(Aabb, u32)]) -> usize {
        let aabb = items.iter().fold(Aabb::EMPTY, |a, (b, _)| a.union(*b));
        let me = out.len();
        out.push((aabb, 0, 0, 0));
        if items.len() <= LEAF_SIZE {
            let ids = items
                .iter()
                .fold(0u32, |h, (_, id)| h.wrapping_mul(31).wrapping_add(*id));
            out[me] = (aabb, items.len() as u32, ids, 0);
            return me;
        }
        let ext = aabb.max - aabb.min;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        items.sort_unstable_by(|a, b| split_order(a, b, axis));
        let mid = items.len() / 2;
        let (left, right) = items.split_at_mut(mid);
        sorted_build(out, left);
        let r = sorted_build(out, right);
        out[me].3 = r as u32;
        me
    }

    proptest! {
        /// Partitioning builds the very tree full sorts built, leaves'
        /// item order included (collider queries report in that order).
        #[test]
        fn build_matches_the_full_sort_build(boxes in prop::collection::vec(aabb(), 0..200)) {
            let mut tagged: Vec<(Aabb, u32)> = boxes.iter().copied().zip(0..).collect();
            let mut bvh = Bvh::default();
            bvh.build(&tagged);
            let got: Vec<_> = bvh.nodes.iter().map(|n| {
                if n.count > 0 {
                    let f = n.first_or_right as usize;
                    let items = &bvh.items[f..f + n.count as usize];
                    let ids = items.iter().fold(0u32, |h, (_, id)| h.wrapping_mul(31).wrapping_add(*id));
                    (n.aabb, n.count, ids, 0)
                } else {
                    (n.aabb, 0, 0, n.first_or_right)
                }
            }).collect();
            let mut want = Vec::new();
            if !tagged.is_empty() {
                sorted_build(&mut want, &mut tagged);
            }
            prop_assert_eq!(got, want);
        }

        /// A refitted tree reports what a tree built on the new boxes does.
        #[test]
        fn refit_matches_a_fresh_build(
            boxes in prop::collection::vec((aabb(), aabb()), 0..80),
            q in aabb(),
        ) {
            let old: Vec<(Aabb, u32)> = boxes.iter().map(|b| b.0).zip(0..).collect();
            let new: Vec<(Aabb, u32)> = boxes.iter().map(|b| b.1).zip(0..).collect();
            let mut bvh = Bvh::default();
            bvh.build(&old);
            bvh.refit(|id| new[id as usize].0);
            let mut got = Vec::new();
            bvh.query(&q, |id| got.push(id));
            got.sort_unstable();
            let want: Vec<u32> = new.iter().filter(|(b, _)| b.overlaps(&q)).map(|(_, i)| *i).collect();
            prop_assert_eq!(got, want);
        }

        /// The tree reports exactly the overlapping boxes, each once.
        #[test]
        fn query_matches_brute_force(boxes in prop::collection::vec(aabb(), 0..80), q in aabb()) {
            let tagged: Vec<(Aabb, u32)> = boxes.iter().copied().zip(0..).collect();
            let mut bvh = Bvh::default();
            bvh.build(&tagged);
            let mut got = Vec::new();
            bvh.query(&q, |id| got.push(id));
            got.sort_unstable();
            let want: Vec<u32> = tagged.iter().filter(|(b, _)| b.overlaps(&q)).map(|(_, i)| *i).collect();
            prop_assert_eq!(got, want);
        }

        /// Nearest-first visits find the nearest box (lowest id on ties),
        /// as a scan of every box does.
        #[test]
        fn visit_nearest_matches_brute_force(
            boxes in prop::collection::vec(aabb(), 0..80),
            p in (-12.0f32..12.0, -12.0f32..12.0, -12.0f32..12.0),
        ) {
            let p = Vec3::new(p.0, p.1, p.2);
            let tagged: Vec<(Aabb, u32)> = boxes.iter().copied().zip(0..).collect();
            let mut bvh = Bvh::default();
            bvh.build(&tagged);
            let dist2 = |b: &Aabb| (b.min - p).max(p - b.max).max(Vec3::ZERO).length_squared();
            let mut best = (f32::INFINITY, u32::MAX);
            bvh.visit_nearest(f32::INFINITY, |b| Some(dist2(b)), |id| {
                let d = dist2(&tagged[id as usize].0);
                if (d, id) < best {
                    best = (d, id);
                }
                best.0
            });
            let want = tagged
                .iter()
                .map(|(b, id)| (dist2(b), *id))
                .fold((f32::INFINITY, u32::MAX), |a, b| if b < a { b } else { a });
            prop_assert_eq!(best, want);
        }
    }
}
