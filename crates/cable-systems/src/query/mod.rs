//! Ray casts and closest-point queries against every cable of a pool, for
//! picking, line of sight, hit scans and "grab the rope nearest the hand".
//!
//! A cable is a tube: each intact segment is a capsule of the cable's
//! [`cable_core::CableParams::radius`] around the segment between its two
//! particles (a cylinder with a half-sphere at each end), so joints are
//! round and the tube is closed at both ends. Broken segments
//! ([`ParticlePool::break_segment`]) are gaps that nothing hits. Distances
//! are in metres, along a unit direction.
//!
//! [`CableQuery`] holds a copy of the cables' particles and a bounding
//! volume hierarchy ([`cable_core::Bvh`]) over runs of up to
//! [`QUERY_CHUNK`] segments; update it with [`CableQuery::update`] after
//! each step (O(particles), parallel; the tree is refitted while the same
//! cables move), then ask it as many questions as the frame needs, from
//! any thread. The one-off functions [`raycast`],
//! [`raycast_many`] and [`closest_point`] build one each call.
//!
//! # Determinism
//! Every answer is the smallest of all candidates under a total order:
//! distance, then the cable's index among the live cables of the pool
//! (the order of [`ParticlePool::handles`]), then the segment. Batches
//! run each query on its own, in pieces of [`QUERY_GRAIN`] queries, so
//! results are bitwise identical whatever the thread count.
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::query::{CableQuery, Ray};
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
//! let query = CableQuery::from_pool(&pool);
//! // Straight down onto the rope (default radius 0.05 m) from 2 m above.
//! let hit = query.raycast(Ray::new(Vec3::new(1.1, 2.0, 0.0), Vec3::NEG_Y, 10.0)?).expect("a hit");
//! assert_eq!((hit.cable, hit.segment), (rope, 4));
//! assert!((hit.distance - 1.95).abs() < 1e-5);
//! assert!(hit.normal.abs_diff_eq(Vec3::Y, 1e-5));
//! # Ok::<(), cable_core::CableError>(())
//! ```

use cable_core::error::check_vec3;
use cable_core::{Aabb, Bvh, CableError, CableHandle, ParticlePool};
use glam::Vec3;
use rayon::prelude::*;

// The exact tests (ray against box, cylinder, sphere; point against
// segment) and the candidates a search keeps: a child module, so this file
// stays about the queries.
mod exact;
mod ray;
use exact::{PointCand, RayProbe, closest_on_segment, ray_box};
pub use ray::Ray;
use ray::check_max_dist;

/// Most segments one leaf item of [`CableQuery`]'s tree covers: a long
/// cable is split into runs of this many segments, each with its own box.
pub const QUERY_CHUNK: usize = 8;

/// Queries of a batch ([`CableQuery::raycast_many`],
/// [`CableQuery::closest_points`]) handed to one rayon task; fixed, so the
/// split depends on the batch alone.
pub const QUERY_GRAIN: usize = 64;

/// [`CableQuery::update`] rebuilds its tree instead of refitting it once
/// refitting has made the tree this many times costlier to search
/// ([`Bvh::cost`]) than when it was built.
pub const REBUILD_COST: f32 = 1.5;

/// Boxes of [`CableQuery::update`] computed by one rayon task.
const BOX_GRAIN: usize = 1024;

/// Where a ray first meets a cable's tube.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The cable hit.
    pub cable: CableHandle,
    /// The segment hit: particles `segment` and `segment + 1`. A hit on the
    /// round joint at a particle belongs to the lower of its two segments.
    pub segment: usize,
    /// Where along the segment the hit lies, 0 at particle `segment`, 1 at
    /// the next: the foot of the hit point on the segment.
    pub t_along_segment: f32,
    /// The hit point on the tube's surface, metres (the origin when the ray
    /// starts inside the tube).
    pub point: Vec3,
    /// Unit outward normal of the surface at `point`; minus the ray's
    /// direction when the ray starts inside the tube.
    pub normal: Vec3,
    /// Metres from the ray's origin to `point` (0 when it starts inside).
    pub distance: f32,
}

/// The point of the cables' centre lines nearest to a query point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestPoint {
    /// The cable.
    pub cable: CableHandle,
    /// The segment: particles `segment` and `segment + 1` (the lower one
    /// when the point is a particle shared by two).
    pub segment: usize,
    /// Where along the segment `point` lies, 0 at particle `segment`, 1 at
    /// the next.
    pub t_along_segment: f32,
    /// The nearest point of the centre line, metres.
    pub point: Vec3,
    /// Metres from the query point to `point`.
    pub distance: f32,
    /// Metres from the query point to the tube's surface: `distance` minus
    /// the cable's radius, negative inside the tube.
    pub surface_distance: f32,
}

/// One cable of a [`CableQuery`]: where its particles are in the copy.
#[derive(Debug, Clone, Copy)]
struct QueryCable {
    handle: CableHandle,
    first: u32,
    count: u32,
    radius: f32,
}

/// A run of at most [`QUERY_CHUNK`] segments of one cable: a leaf item of
/// the tree.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    cable: u32,
    first_segment: u32,
    segments: u32,
}

/// The cables of a pool, copied and indexed for ray and closest-point
/// queries: build it after a step, query it any number of times.
///
/// It is a snapshot: queries see the pool as it was at
/// [`CableQuery::update`] ([`CableQuery::is_current`] tells whether the
/// pool changed since), so it can be sent to another thread while the
/// pool steps on. See the module docs for what a hit means.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::query::{CableQuery, Ray};
/// use cable_systems::{SolverParams, Stepper};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16)?)?;
/// let mut stepper = Stepper::new(SolverParams::default())?;
/// let mut query = CableQuery::new();
/// let rays = [Ray::new(Vec3::new(2.0, 5.0, 0.0), Vec3::NEG_Y, 20.0)?];
/// let mut hits = Vec::new();
/// for _frame in 0..10 {
///     stepper.advance(&mut pool, 1.0 / 60.0)?;
///     query.update(&pool); // reuses its buffers
///     query.raycast_many(&rays, &mut hits);
/// }
/// assert!(hits[0].is_some_and(|h| h.point.y < 0.0)); // the rope sags
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CableQuery {
    cables: Vec<QueryCable>,
    points: Vec<Vec3>,
    /// Per particle: the segment to the next particle is intact.
    linked: Vec<bool>,
    chunks: Vec<Chunk>,
    boxes: Vec<(Aabb, u32)>,
    bvh: Bvh,
    /// [`Bvh::cost`] when the tree was last built.
    built_cost: f32,
    revision: Option<u64>,
}

impl CableQuery {
    /// An empty query (no cables); fill it with [`CableQuery::update`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A query over the live cables of `pool` as they are now.
    #[must_use]
    pub fn from_pool(pool: &ParticlePool) -> Self {
        let mut q = Self::new();
        q.update(pool);
        q
    }

    /// Copies the live cables of `pool` and updates the tree, reusing this
    /// query's buffers: O(particles) to copy and box (the boxes in
    /// parallel). When the cables are those of the last update with the
    /// same particle counts, the tree keeps its shape and only its boxes
    /// move ([`Bvh::refit`], O(n) for n runs of [`QUERY_CHUNK`] segments);
    /// otherwise, or once refitting has made it [`REBUILD_COST`] times
    /// costlier to search than when built, it is rebuilt (O(n log n)). The
    /// answers never depend on the tree's shape, only their speed does.
    pub fn update(&mut self, pool: &ParticlePool) {
        crate::trace::span!("cable.query.update");
        let mut same = pool.cable_count() == self.cables.len();
        self.points.clear();
        self.linked.clear();
        let mut k = 0;
        for handle in pool.handles() {
            // Handles come from the pool itself, so the look-ups succeed.
            let (Ok(pos), Ok(rows), Ok(params)) = (
                pool.positions(handle),
                pool.row_consts(handle),
                pool.params(handle),
            ) else {
                continue;
            };
            let cable = QueryCable {
                handle,
                first: self.points.len() as u32,
                count: pos.len() as u32,
                radius: params.radius,
            };
            match self.cables.get_mut(k) {
                Some(old) if same && old.handle == handle && old.count == cable.count => {
                    *old = cable;
                }
                _ => {
                    same = false;
                    self.cables.truncate(k);
                    self.cables.push(cable);
                }
            }
            k += 1;
            self.points.extend_from_slice(pos);
            self.linked.extend(rows.iter().map(|r| r.linked));
        }
        self.cables.truncate(k);
        if !same {
            self.chunks.clear();
            for (i, c) in self.cables.iter().enumerate() {
                let segments = (c.count as usize).saturating_sub(1);
                for first in (0..segments).step_by(QUERY_CHUNK) {
                    self.chunks.push(Chunk {
                        cable: i as u32,
                        first_segment: first as u32,
                        segments: QUERY_CHUNK.min(segments - first) as u32,
                    });
                }
            }
        }
        self.boxes.clear();
        self.boxes
            .resize(self.chunks.len(), (Aabb::EMPTY, u32::MAX));
        let (cables, points, chunks) = (&self.cables, &self.points, &self.chunks);
        self.boxes
            .par_chunks_mut(BOX_GRAIN)
            .zip(chunks.par_chunks(BOX_GRAIN))
            .enumerate()
            .for_each(|(k, (boxes, chunks))| {
                for (j, (slot, c)) in boxes.iter_mut().zip(chunks).enumerate() {
                    let cable = &cables[c.cable as usize];
                    let first = (cable.first + c.first_segment) as usize;
                    let pts = &points[first..=first + c.segments as usize];
                    *slot = (chunk_box(pts, cable.radius), (k * BOX_GRAIN + j) as u32);
                }
            });
        let refitted = same && self.revision.is_some() && {
            let boxes = &self.boxes;
            self.bvh
                .refit(|id| boxes.get(id as usize).map_or(Aabb::EMPTY, |b| b.0));
            // NaN (a blown-up pool) compares false: rebuilt.
            self.bvh.cost() <= self.built_cost * REBUILD_COST
        };
        if !refitted {
            self.bvh.build(&self.boxes);
            self.built_cost = self.bvh.cost();
        }
        self.revision = Some(pool.revision());
    }

    /// True when `pool` is unchanged since the last [`CableQuery::update`]
    /// from it ([`ParticlePool::revision`]): the answers are those of the
    /// pool as it is.
    #[must_use]
    pub fn is_current(&self, pool: &ParticlePool) -> bool {
        self.revision == Some(pool.revision())
    }

    /// Number of cables copied.
    #[must_use]
    pub fn cable_count(&self) -> usize {
        self.cables.len()
    }

    /// The first point where `ray` meets a cable's tube, within the ray's
    /// `max_dist`; `None` when it meets none. A ray starting inside a tube
    /// hits it at distance 0. Ties go to the lowest cable index, then the
    /// lowest segment.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_systems::query::{CableQuery, Ray};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
    /// let query = CableQuery::from_pool(&pool);
    /// // Along the axis into the round end cap at x = 0 (radius 0.05 m).
    /// let hit = query.raycast(Ray::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::X, 5.0)?).expect("a hit");
    /// assert_eq!((hit.segment, hit.t_along_segment), (0, 0.0));
    /// assert!((hit.distance - 0.95).abs() < 1e-6);
    /// // Too short to reach it.
    /// assert!(query.raycast(Ray::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::X, 0.9)?).is_none());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn raycast(&self, ray: Ray) -> Option<RayHit> {
        let RayProbe { best, .. } = self.probe_ray(ray);
        let best = best?;
        let cable = self.cables.get(best.cable as usize)?;
        let point = ray.at(best.t);
        let normal = if best.t > 0.0 {
            (point - best.foot).normalize_or(-ray.dir)
        } else {
            -ray.dir
        };
        Some(RayHit {
            cable: cable.handle,
            segment: best.segment as usize,
            t_along_segment: best.along,
            point: if best.t > 0.0 { point } else { ray.origin },
            normal,
            distance: best.t,
        })
    }

    /// [`CableQuery::raycast`] of every ray of `rays`, in parallel, into
    /// `out` (cleared first; `out[i]` answers `rays[i]`). Bitwise the same
    /// whatever the thread count.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_systems::query::{CableQuery, Ray};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
    /// let query = CableQuery::from_pool(&pool);
    /// let rays: Vec<Ray> = (0..8)
    ///     .map(|i| Ray::new(Vec3::new(i as f32, 1.0, 0.0), Vec3::NEG_Y, 2.0))
    ///     .collect::<Result<_, _>>()?;
    /// let mut hits = Vec::new();
    /// query.raycast_many(&rays, &mut hits);
    /// assert_eq!(hits.iter().filter(|h| h.is_some()).count(), 5); // x = 0..=4
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn raycast_many(&self, rays: &[Ray], out: &mut Vec<Option<RayHit>>) {
        crate::trace::span!("cable.query.raycast_many", rays = rays.len());
        out.clear();
        out.resize(rays.len(), None);
        out.par_chunks_mut(QUERY_GRAIN)
            .zip(rays.par_chunks(QUERY_GRAIN))
            .for_each(|(out, rays)| {
                for (o, r) in out.iter_mut().zip(rays) {
                    *o = self.raycast(*r);
                }
            });
    }

    /// The point of any cable's centre line nearest to `point`, no farther
    /// than `max_dist` metres from it (`f32::INFINITY`: no limit); `None`
    /// when there is none. Ties go to the lowest cable index, then the
    /// lowest segment. The nearest centre line is also the nearest surface
    /// when all cables share one radius; `surface_distance` gives the
    /// distance to the surface.
    ///
    /// # Errors
    /// `point` not finite or beyond ±[`cable_core::MAX_COORDINATE`]
    /// (naming `point`), `max_dist` negative or NaN (naming `max_dist`).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_systems::query::CableQuery;
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
    /// let query = CableQuery::from_pool(&pool);
    /// let c = query.closest_point(Vec3::new(1.125, 0.0, 2.0), 5.0)?.expect("within 5 m");
    /// assert_eq!((c.point, c.segment, c.t_along_segment), (Vec3::new(1.125, 0.0, 0.0), 4, 0.5));
    /// assert!((c.surface_distance - 1.95).abs() < 1e-6);
    /// assert!(query.closest_point(Vec3::new(1.125, 0.0, 2.0), 1.0)?.is_none());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn closest_point(
        &self,
        point: Vec3,
        max_dist: f32,
    ) -> Result<Option<ClosestPoint>, CableError> {
        let point = check_vec3("point", point)?;
        let max_dist = check_max_dist(max_dist)?;
        Ok(self.nearest(point, max_dist))
    }

    /// [`CableQuery::closest_point`] of every point of `points`, in
    /// parallel, into `out` (cleared first; `out[i]` answers `points[i]`).
    /// Bitwise the same whatever the thread count.
    ///
    /// # Errors
    /// As [`CableQuery::closest_point`]; a bad point is named by its index
    /// ([`CableError::InList`], e.g. `points[3].y: must be a finite number,
    /// got NaN`), and `out` is left empty.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_systems::query::CableQuery;
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
    /// let query = CableQuery::from_pool(&pool);
    /// let mut out = Vec::new();
    /// query.closest_points(&[Vec3::new(2.0, 1.0, 0.0), Vec3::splat(50.0)], 10.0, &mut out)?;
    /// assert_eq!(out[0].map(|c| c.point), Some(Vec3::new(2.0, 0.0, 0.0)));
    /// assert!(out[1].is_none());
    /// let err = query.closest_points(&[Vec3::new(0.0, f32::NAN, 0.0)], 1.0, &mut out).unwrap_err();
    /// assert_eq!(err.to_string(), "points[0].y: must be a finite number, got NaN");
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn closest_points(
        &self,
        points: &[Vec3],
        max_dist: f32,
        out: &mut Vec<Option<ClosestPoint>>,
    ) -> Result<(), CableError> {
        crate::trace::span!("cable.query.closest_points", points = points.len());
        out.clear();
        let max_dist = check_max_dist(max_dist)?;
        for (index, p) in points.iter().enumerate() {
            check_point(*p).map_err(|e| CableError::InList {
                list: "points",
                index,
                source: Box::new(e),
            })?;
        }
        out.resize(points.len(), None);
        out.par_chunks_mut(QUERY_GRAIN)
            .zip(points.par_chunks(QUERY_GRAIN))
            .for_each(|(out, points)| {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = self.nearest(*p, max_dist);
                }
            });
        Ok(())
    }

    /// A leaf item: its run of segments, its cable's radius, and the
    /// cable's particles and link flags.
    #[inline]
    fn chunk(&self, id: u32) -> Option<(Chunk, f32, &[Vec3], &[bool])> {
        let c = *self.chunks.get(id as usize)?;
        let cable = self.cables.get(c.cable as usize)?;
        let rows = cable.first as usize..(cable.first + cable.count) as usize;
        Some((
            c,
            cable.radius,
            self.points.get(rows.clone())?,
            self.linked.get(rows)?,
        ))
    }

    /// The best ray candidate of the whole tree.
    fn probe_ray(&self, ray: Ray) -> RayProbe {
        let inv = ray.dir.recip();
        let mut probe = RayProbe {
            ray,
            best: None,
            cutoff: ray.max_dist,
        };
        self.bvh.visit_nearest(
            ray.max_dist,
            |b| ray_box(&ray, inv, b),
            |id| {
                if let Some((c, radius, pts, linked)) = self.chunk(id) {
                    let first = c.first_segment as usize;
                    let segs = first..first + c.segments as usize;
                    probe.chunk(c.cable, radius, pts, linked, segs);
                }
                probe.cutoff
            },
        );
        probe
    }

    /// The nearest centre-line point within `max_dist` (validated).
    fn nearest(&self, p: Vec3, max_dist: f32) -> Option<ClosestPoint> {
        let mut best: Option<PointCand> = None;
        let mut cutoff = max_dist * max_dist;
        let box_dist2 =
            |b: &Aabb| Some((b.min - p).max(p - b.max).max(Vec3::ZERO).length_squared());
        self.bvh.visit_nearest(cutoff, box_dist2, |id| {
            let Some((chunk, _, pts, linked)) = self.chunk(id) else {
                return cutoff;
            };
            let first = chunk.first_segment as usize;
            for s in first..first + chunk.segments as usize {
                if !linked.get(s).copied().unwrap_or(false) {
                    continue;
                }
                let (q, along) = closest_on_segment(p, pts[s], pts[s + 1]);
                let d2 = p.distance_squared(q);
                let cand = PointCand {
                    d2,
                    cable: chunk.cable,
                    segment: s as u32,
                    along,
                    point: q,
                };
                if d2 <= cutoff && best.is_none_or(|b| cand.key() < b.key()) {
                    best = Some(cand);
                    cutoff = d2;
                }
            }
            cutoff
        });
        let best = best?;
        let cable = self.cables.get(best.cable as usize)?;
        let distance = best.d2.sqrt();
        Some(ClosestPoint {
            cable: cable.handle,
            segment: best.segment as usize,
            t_along_segment: best.along,
            point: best.point,
            distance,
            surface_distance: distance - cable.radius,
        })
    }
}

/// [`CableQuery::raycast`] on a query built for this one ray: O(particles).
/// Keep a [`CableQuery`] to cast more than one ray at the same pool.
///
/// # Errors
/// As [`Ray::new`].
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::query::raycast;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
/// let hit = raycast(&pool, Vec3::new(2.0, 0.0, -3.0), Vec3::Z, 10.0)?.expect("a hit");
/// assert_eq!(hit.cable, rope);
/// assert!((hit.point.z + 0.05).abs() < 1e-6); // the near side of the 5 cm tube
/// assert!(raycast(&pool, Vec3::ZERO, Vec3::ZERO, 1.0).is_err()); // no direction
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn raycast(
    pool: &ParticlePool,
    origin: Vec3,
    direction: Vec3,
    max_dist: f32,
) -> Result<Option<RayHit>, CableError> {
    let ray = Ray::new(origin, direction, max_dist)?;
    Ok(CableQuery::from_pool(pool).raycast(ray))
}

/// [`CableQuery::raycast_many`] on a query built for these rays.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::query::{Ray, raycast_many};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
/// let rays = [
///     Ray::new(Vec3::new(1.0, 1.0, 0.0), Vec3::NEG_Y, 2.0)?,
///     Ray::new(Vec3::new(9.0, 1.0, 0.0), Vec3::NEG_Y, 2.0)?,
/// ];
/// let mut hits = Vec::new();
/// raycast_many(&pool, &rays, &mut hits);
/// assert!(hits[0].is_some() && hits[1].is_none());
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn raycast_many(pool: &ParticlePool, rays: &[Ray], out: &mut Vec<Option<RayHit>>) {
    CableQuery::from_pool(pool).raycast_many(rays, out);
}

/// [`CableQuery::closest_point`] on a query built for this one point:
/// O(particles). Keep a [`CableQuery`] for more than one.
///
/// # Errors
/// As [`CableQuery::closest_point`].
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::query::closest_point;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 16)?)?;
/// let c = closest_point(&pool, Vec3::new(-3.0, 4.0, 0.0), f32::INFINITY)?.expect("a cable");
/// assert_eq!((c.point, c.distance, c.segment), (Vec3::ZERO, 5.0, 0));
/// assert!(closest_point(&pool, Vec3::ZERO, -1.0).is_err()); // negative distance
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn closest_point(
    pool: &ParticlePool,
    point: Vec3,
    max_dist: f32,
) -> Result<Option<ClosestPoint>, CableError> {
    let point = check_vec3("point", point)?;
    let max_dist = check_max_dist(max_dist)?;
    Ok(CableQuery::from_pool(pool).nearest(point, max_dist))
}

/// A query point, each coordinate checked under its own name (`x`, `y`,
/// `z`), for errors about an entry of a list.
fn check_point(p: Vec3) -> Result<Vec3, CableError> {
    for (field, c) in ["x", "y", "z"].into_iter().zip(p.to_array()) {
        check_vec3(field, Vec3::splat(c))?;
    }
    Ok(p)
}

/// The box of a run of particles grown by the radius, plus a margin that
/// keeps the box's bounds below any distance the exact tests compute (their
/// rounding differs).
fn chunk_box(pts: &[Vec3], radius: f32) -> Aabb {
    let b = Aabb::of_points(pts);
    let size = b.min.abs().max(b.max.abs()).max_element();
    b.expand(radius + radius * 1.0e-3 + (1.0 + size) * 1.0e-6)
}
