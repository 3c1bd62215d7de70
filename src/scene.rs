//! The scene file: JSON parsing and validation (`docs/scene-format.md`).
//!
//! Every error names its place in the file, as `scene.cables[1].segments`
//! for a bad value or `scene line 7 column 12` for bad JSON, and the reason.

use std::fmt;

use cable_core::{CableDesc, CableHandle, CableParams, Collider, End, ParticlePool};
use cable_systems::{Solver, SolverParams, check_direct_bending};
use serde::Deserialize;

pub use crate::scene_values::SceneError;
use crate::scene_values::{f32_of, vec3};

/// Most particles a scene may hold: 2²⁴ (16.7 million, about 700 MiB of state).
pub const SCENE_PARTICLE_BUDGET: usize = 1 << 24;

/// Most bytes of scene text read or parsed: 64 MiB. A longer input is
/// refused (`Scene::from_slice`, and `cable run` stops reading there), so a
/// scene named `/dev/zero` cannot exhaust memory.
pub const MAX_SCENE_BYTES: usize = 64 << 20;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScene {
    gravity: Option<[f64; 3]>,
    substep: Option<f64>,
    iterations: Option<u64>,
    max_substeps: Option<u64>,
    damping: Option<f64>,
    friction: Option<f64>,
    solver: Option<Loose>,
    cable_collision: Option<bool>,
    cables: Vec<Obj<RawCable>>,
    colliders: Option<Vec<StrictValue>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCable {
    start: Option<[f64; 3]>,
    end: Option<[f64; 3]>,
    length: Option<f64>,
    segments: Option<u64>,
    points: Option<Vec<[f64; 3]>>,
    attach_start: Option<bool>,
    attach_end: Option<bool>,
    gravity_scale: Option<f64>,
    force: Option<[f64; 3]>,
    stiffness: Option<bool>,
    compliance: Option<f64>,
    radius: Option<f64>,
    sides: Option<u64>,
    tile: Option<f64>,
    // The rod keys are read without a type and checked by `cable_desc`, so
    // that a wrong type gets the same one-line message as a wrong value.
    tethers: Option<Loose>,
    pins: Option<Pins>,
    mass_per_length: Option<Loose>,
    bend_stiffness: Option<Loose>,
    reel_speed: Option<Loose>,
    reel_accel: Option<Loose>,
    reel_force: Option<Loose>,
    reel_end: Option<Loose>,
    min_length: Option<Loose>,
    max_length: Option<Loose>,
    break_tension: Option<Loose>,
    clamp_start: Option<Loose>,
    clamp_end: Option<Loose>,
    twist_stiffness: Option<Loose>,
}

/// A validated scene: solver parameters, cable descriptions and colliders,
/// in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The top-level solver parameters.
    pub params: SolverParams,
    /// The cables, in the order of the file.
    pub cables: Vec<CableDesc>,
    /// The colliders, in the order of the file.
    pub colliders: Vec<Collider>,
}

impl Scene {
    /// Parses and validates a scene from JSON text.
    ///
    /// # Errors
    /// A [`SceneError`] naming the place and the reason.
    ///
    /// # Example
    /// ```
    /// let scene = cable::scene::Scene::from_json(
    ///     r#"{"cables": [{"start": [0, 0, 0], "end": [4, 0, 0], "length": 5}]}"#,
    /// )?;
    /// assert_eq!(scene.cables[0].particle_count(), 17);
    /// let err = cable::scene::Scene::from_json(r#"{"cables": [{"start": [0,0,0]}]}"#).unwrap_err();
    /// assert_eq!(err.place, "scene.cables[0].end");
    /// # Ok::<(), cable::scene::SceneError>(())
    /// ```
    ///
    /// The text must be exactly one JSON object: trailing content, an array
    /// in place of an object (the scene, a cable, a collider) and a key
    /// given twice in any object are refused.
    pub fn from_json(text: &str) -> Result<Self, SceneError> {
        if text.len() > MAX_SCENE_BYTES {
            return Err(too_long());
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw: Obj<RawScene> = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let path = e.path().to_string();
            json_error(&path, &e.into_inner())
        })?;
        // Exactly one value: only white space may follow it.
        de.end().map_err(|e| json_error("", &e))?;
        Self::from_raw(raw.0)
    }

    /// Parses and validates a scene from bytes: UTF-8 JSON text of at most
    /// [`MAX_SCENE_BYTES`], as [`Scene::from_json`].
    ///
    /// # Errors
    /// A [`SceneError`] naming the place and the reason; the place is
    /// `scene` for text that is too long or not UTF-8.
    ///
    /// # Example
    /// ```
    /// let err = cable::scene::Scene::from_slice(b"{\"cables\": []} {}").unwrap_err();
    /// assert!(err.reason.contains("trailing"), "{err}");
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Self, SceneError> {
        if bytes.len() > MAX_SCENE_BYTES {
            return Err(too_long());
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            SceneError::at(
                "scene",
                format!("not UTF-8 text (byte {})", e.valid_up_to()),
            )
        })?;
        Self::from_json(text)
    }

    fn from_raw(raw: RawScene) -> Result<Self, SceneError> {
        let d = SolverParams::default();
        let params = SolverParams {
            gravity: match raw.gravity {
                Some(g) => vec3("scene.gravity", g)?,
                None => d.gravity,
            },
            substep: opt_f32("scene.substep", raw.substep, d.substep)?,
            iterations: opt_u32("scene.iterations", raw.iterations, d.iterations)?,
            max_substeps: opt_u32("scene.max_substeps", raw.max_substeps, d.max_substeps)?,
            damping: opt_f32("scene.damping", raw.damping, d.damping)?,
            friction: opt_f32("scene.friction", raw.friction, d.friction)?,
            solver: match raw.solver {
                None => d.solver,
                Some(v) => solver("scene.solver", &v)?,
            },
            cable_collision: raw.cable_collision.unwrap_or(d.cable_collision),
        };
        params
            .validate()
            .map_err(|e| SceneError::from_cable("scene", &e))?;
        if raw.cables.is_empty() {
            return Err(SceneError::at(
                "scene.cables",
                "needs at least 1 cable, got 0",
            ));
        }
        let colliders = raw
            .colliders
            .as_deref()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, v)| crate::scene_colliders::collider(&format!("scene.colliders[{i}]"), &v.0))
            .collect::<Result<Vec<_>, _>>()?;
        let mut cables = Vec::with_capacity(raw.cables.len());
        let mut total = 0usize;
        // The most particles the cables can have, their winches paid out.
        let mut most = 0usize;
        for (i, Obj(rc)) in raw.cables.into_iter().enumerate() {
            let base = format!("scene.cables[{i}]");
            // Check the budget before allocating the cable's particles.
            let count = match (&rc.points, rc.segments) {
                (Some(p), _) => p.len(),
                (None, Some(s)) => usize::try_from(s).unwrap_or(usize::MAX).saturating_add(1),
                (None, None) => 17,
            };
            if count > SCENE_PARTICLE_BUDGET - total {
                let key = if rc.points.is_some() {
                    "points"
                } else {
                    "segments"
                };
                return Err(SceneError::at(
                    format!("{base}.{key}"),
                    format!(
                        "the scene needs more than {SCENE_PARTICLE_BUDGET} particles, the most a scene may hold"
                    ),
                ));
            }
            let desc = cable_desc(&base, rc)?;
            total += desc.particle_count();
            if total > SCENE_PARTICLE_BUDGET {
                return Err(SceneError::at(
                    base,
                    format!(
                        "the scene needs more than {SCENE_PARTICLE_BUDGET} particles, the most a scene may hold"
                    ),
                ));
            }
            // Compliance and bending compliance over substep² (the solver's
            // arithmetic would overflow into NaN).
            desc.validate_for_substep(params.substep)
                .map_err(|e| SceneError::from_cable(&base, &e))?;
            // A winch paying out adds a particle per winch segment up to its
            // `max_length`: the scene must hold them all from the start, so
            // that no run stops at the budget after minutes of work.
            let (reach, seg, max) = winch_reach(&desc);
            most = most.saturating_add(reach);
            if most > SCENE_PARTICLE_BUDGET {
                let key = if desc.params.max_length.is_some() {
                    "max_length"
                } else {
                    "reel_speed"
                };
                return Err(SceneError::at(
                    format!("{base}.{key}"),
                    format!(
                        "a winch paying out to {max} m in segments of {seg} m makes the cable up to {reach} particles long, and the scene up to {most}: more than {SCENE_PARTICLE_BUDGET}, the most a scene may hold (a shorter max_length or longer segments fit)"
                    ),
                ));
            }
            cables.push(desc);
        }
        Ok(Self {
            params,
            cables,
            colliders,
        })
    }

    /// Adds every cable and collider to a new pool, returning the pool and
    /// the cable handles in scene order.
    ///
    /// # Errors
    /// A [`SceneError`] when a cable is refused by the pool (its budget) or
    /// by the direct solver ([`check_direct_bending`]).
    pub fn build_pool(&self) -> Result<(ParticlePool, Vec<CableHandle>), SceneError> {
        let mut pool = ParticlePool::with_budget(SCENE_PARTICLE_BUDGET);
        let mut handles = Vec::with_capacity(self.cables.len());
        for (i, desc) in self.cables.iter().enumerate() {
            let at = |e| SceneError::from_cable(&format!("scene.cables[{i}]"), &e);
            let h = pool.add_cable(desc).map_err(at)?;
            if self.params.solver == Solver::Direct {
                check_direct_bending(&pool, h, self.params.substep).map_err(at)?;
            }
            handles.push(h);
        }
        for c in &self.colliders {
            pool.colliders_mut().add(*c);
        }
        Ok((pool, handles))
    }

    /// Total particles of the scene.
    #[must_use]
    pub fn particle_count(&self) -> usize {
        self.cables.iter().map(CableDesc::particle_count).sum()
    }
}

/// The most particles a cable can have (its winch, if it pays out, at its
/// `max_length`: one particle per winch segment, plus the one the pool's
/// split leaves room for), with the winch segment and that length, metres.
/// A cable without a paying-out winch keeps its particle count (one that
/// reels in pays out when it slips under its `reel_force`).
fn winch_reach(desc: &CableDesc) -> (usize, f64, f64) {
    let count = desc.particle_count();
    let length = f64::from(desc.length());
    let p = &desc.params;
    if !(p.reel_speed > 0.0 || (p.reel_speed < 0.0 && p.reel_force.is_some())) {
        return (count, 0.0, length);
    }
    // The pool's defaults (`ParticlePool::add_cable`): four times the
    // initial length, a winch segment of the mean segment.
    let max = desc.params.max_length.map_or(4.0 * length, f64::from);
    let seg = length / (count - 1) as f64;
    // `as` saturates: a reach beyond usize is refused all the same.
    let added = ((max - length) / seg).ceil().max(0.0) as usize;
    (count.saturating_add(added).saturating_add(1), seg, max)
}

fn cable_desc(base: &str, rc: RawCable) -> Result<CableDesc, SceneError> {
    let mut desc = if let Some(points) = rc.points {
        for (key, given) in [
            ("start", rc.start.is_some()),
            ("end", rc.end.is_some()),
            ("length", rc.length.is_some()),
            ("segments", rc.segments.is_some()),
        ] {
            if given {
                return Err(SceneError::at(
                    format!("{base}.{key}"),
                    "cannot be given together with points",
                ));
            }
        }
        let mut pts = Vec::with_capacity(points.len());
        for (j, p) in points.iter().enumerate() {
            pts.push(vec3(&format!("{base}.points[{j}]"), *p)?);
        }
        CableDesc::from_points(&pts).map_err(|e| SceneError::from_cable(base, &e))?
    } else {
        let start = rc.start.ok_or_else(|| {
            SceneError::at(format!("{base}.start"), "required unless points is given")
        })?;
        let end = rc.end.ok_or_else(|| {
            SceneError::at(format!("{base}.end"), "required unless points is given")
        })?;
        let start = vec3(&format!("{base}.start"), start)?;
        let end = vec3(&format!("{base}.end"), end)?;
        let length = match rc.length {
            Some(l) => f32_of(&format!("{base}.length"), l)?,
            None => {
                let l = start.distance(end);
                if l <= 0.0 {
                    return Err(SceneError::at(
                        format!("{base}.length"),
                        "start and end coincide, so a length greater than 0 must be given",
                    ));
                }
                l
            }
        };
        let segments = match rc.segments {
            Some(s) => u32::try_from(s).map_err(|_| {
                SceneError::at(
                    format!("{base}.segments"),
                    format!("must be at most 16777216, got {s}"),
                )
            })?,
            None => 16,
        };
        CableDesc::line(start, end, length, segments)
            .map_err(|e| SceneError::from_cable(base, &e))?
    };
    desc.attach_start = rc.attach_start.unwrap_or(true);
    desc.attach_end = rc.attach_end.unwrap_or(true);
    let d = CableParams::default();
    let compliance = opt_f32(&format!("{base}.compliance"), rc.compliance, d.compliance)?;
    desc.params = CableParams {
        gravity_scale: opt_f32(
            &format!("{base}.gravity_scale"),
            rc.gravity_scale,
            d.gravity_scale,
        )?,
        force: match rc.force {
            Some(f) => vec3(&format!("{base}.force"), f)?,
            None => d.force,
        },
        stiffness: rc.stiffness.unwrap_or(d.stiffness),
        compliance,
        radius: opt_f32(&format!("{base}.radius"), rc.radius, d.radius)?,
        sides: match rc.sides {
            Some(s) => u32::try_from(s).map_err(|_| {
                SceneError::at(
                    format!("{base}.sides"),
                    format!("must be between 3 and 1024, got {s}"),
                )
            })?,
            None => d.sides,
        },
        tile: opt_f32(&format!("{base}.tile"), rc.tile, d.tile)?,
        // On for a rigid cable, off for a compliant one (tethers would hold
        // it at its rest length: it must be able to stretch).
        tethers: loose_bool(
            &format!("{base}.tethers"),
            rc.tethers.as_ref(),
            d.tethers && compliance == 0.0,
        )?,
        bend_stiffness: loose_f32(
            &format!("{base}.bend_stiffness"),
            rc.bend_stiffness.as_ref(),
        )?
        .unwrap_or(d.bend_stiffness),
        break_tension: loose_f32(&format!("{base}.break_tension"), rc.break_tension.as_ref())?,
        reel_speed: loose_f32(&format!("{base}.reel_speed"), rc.reel_speed.as_ref())?
            .unwrap_or(d.reel_speed),
        reel_end: match rc.reel_end.as_ref() {
            None => d.reel_end,
            Some(v) => reel_end(&format!("{base}.reel_end"), v)?,
        },
        reel_accel: loose_f32(&format!("{base}.reel_accel"), rc.reel_accel.as_ref())?,
        reel_force: loose_f32(&format!("{base}.reel_force"), rc.reel_force.as_ref())?,
        min_length: loose_f32(&format!("{base}.min_length"), rc.min_length.as_ref())?,
        max_length: loose_f32(&format!("{base}.max_length"), rc.max_length.as_ref())?,
        // Not scene keys (the scene contract has none): the library's defaults
        // (sleeping, per-cable solver settings and teleport handling off).
        ..d
    };
    desc.params
        .validate()
        .map_err(|e| SceneError::from_cable(base, &e))?;
    oriented(
        base,
        [rc.clamp_start.as_ref(), rc.clamp_end.as_ref()],
        rc.twist_stiffness.as_ref(),
        &mut desc,
    )?;
    reel_bounds(base, &mut desc)?;
    if let Some(p) = rc.pins {
        desc.pins = pins(base, p, desc.particle_count())?;
    }
    desc.mass_per_length = loose_f32(
        &format!("{base}.mass_per_length"),
        rc.mass_per_length.as_ref(),
    )?;
    // > 0, and every particle's mass finite and positive.
    desc.inverse_masses()
        .map_err(|e| SceneError::from_cable(base, &e))?;
    Ok(desc)
}

/// The keys of oriented rods (`clamp_start`, `clamp_end`,
/// `twist_stiffness`): checked as the contract says (a clamp is a boolean
/// on an attached end, the stiffness a number ≥ 0). A clamp is set on
/// `desc` where the cable can hold it: its bending stiffness above 0 and
/// a straight rest shape (without a material frame a pre-bent cable would
/// roll about its clamp; refused by name rather than simulated wrong). A
/// torsional stiffness above 0 is refused by name: this version does not
/// simulate twist. Their defaults are accepted.
fn oriented(
    base: &str,
    clamps: [Option<&Loose>; 2],
    twist: Option<&Loose>,
    desc: &mut CableDesc,
) -> Result<(), SceneError> {
    for ((key, attached), value) in [
        ("clamp_start", desc.attach_start),
        ("clamp_end", desc.attach_end),
    ]
    .into_iter()
    .zip(clamps)
    {
        let place = format!("{base}.{key}");
        if loose_bool(&place, value, false)? {
            let end = &key["clamp_".len()..];
            if !attached {
                return Err(SceneError::at(
                    place,
                    format!("needs attach_{end}: only an attached end can be clamped"),
                ));
            }
            if desc.params.bend_stiffness <= 0.0 {
                return Err(SceneError::at(
                    place,
                    "needs bend_stiffness above 0: a clamp holds the cable's direction through its bending stiffness",
                ));
            }
            if key == "clamp_start" {
                desc.params.clamp_start = true;
            } else {
                desc.params.clamp_end = true;
            }
            desc.check_clamps()
                .map_err(|e| SceneError::from_cable(base, &e))?;
        }
    }
    let place = format!("{base}.twist_stiffness");
    if let Some(gj) = loose_f32(&place, twist)? {
        if gj < 0.0 {
            return Err(SceneError::at(
                place,
                format!("must be at least 0 (N·m²), got {gj}"),
            ));
        }
        if gj > 0.0 {
            return Err(SceneError::at(
                place,
                format!(
                    "twist is not simulated by this version of cable (no material frame); \
                     only 0 is accepted, got {gj}"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks `min_length` and `max_length` against the cable's initial length
/// (0 < min ≤ initial length ≤ max), naming the key. A bound equal to the
/// initial length to float rounding is taken as the initial length itself,
/// as the pool sums it from the f32 segment lengths.
fn reel_bounds(base: &str, desc: &mut CableDesc) -> Result<(), SceneError> {
    // The initial length as the file gives it: the sum of the segments'
    // rest lengths, without the rounding of an f32 sum.
    let nominal: f64 = desc.rest_lengths().iter().map(|&l| f64::from(l)).sum();
    let tolerance = 1.0e-6 * nominal;
    let pool_length = desc.length();
    let shown = nominal as f32;
    if let Some(lo) = desc.params.min_length {
        if f64::from(lo) > nominal + tolerance {
            return Err(SceneError::at(
                format!("{base}.min_length"),
                format!("must be at most the cable's initial length ({shown}), got {lo}"),
            ));
        }
        desc.params.min_length = Some(lo.min(pool_length));
    }
    if let Some(hi) = desc.params.max_length {
        if f64::from(hi) < nominal - tolerance {
            return Err(SceneError::at(
                format!("{base}.max_length"),
                format!("must be at least the cable's initial length ({shown}), got {hi}"),
            ));
        }
        desc.params.max_length = Some(hi.max(pool_length));
    }
    Ok(())
}

/// The particle indices of `pins`, each checked against the cable's
/// `count` particles; the message names the first bad entry.
fn pins(base: &str, pins: Pins, count: usize) -> Result<Vec<u32>, SceneError> {
    let (ok, bad) = match pins {
        Pins::List { ok, bad } => (ok, bad),
        Pins::NotArray(v) => {
            return Err(SceneError::at(
                format!("{base}.pins"),
                format!("must be an array of particle indices, got {v}"),
            ));
        }
    };
    let too_big = |j: usize, v: &dyn fmt::Display| {
        SceneError::at(
            format!("{base}.pins[{j}]"),
            format!("must be less than the number of particles ({count}), got {v}"),
        )
    };
    if let Some(j) = ok.iter().position(|&p| p as usize >= count) {
        return Err(too_big(j, &ok[j]));
    }
    let Some(v) = bad else {
        return Ok(ok);
    };
    let j = ok.len();
    let place = format!("{base}.pins[{j}]");
    Err(match v {
        Loose::UInt(_) => too_big(j, &v),
        Loose::Int(_) => SceneError::at(place, format!("must be at least 0, got {v}")),
        Loose::Float(f) if f < 0.0 => SceneError::at(place, format!("must be at least 0, got {v}")),
        Loose::Float(f) if f.fract() == 0.0 && f >= count as f64 => too_big(j, &v),
        Loose::Float(f) if f.fract() == 0.0 => SceneError::at(
            place,
            format!("must be a whole number written without a fraction or exponent, got {v}"),
        ),
        Loose::Float(_) => SceneError::at(
            place,
            format!("must be a whole number (a particle index), got {v}"),
        ),
        _ => SceneError::at(
            place,
            format!("must be a particle index (a whole number), got {v}"),
        ),
    })
}

/// The solver a scene's `solver` value names.
fn solver(place: &str, v: &Loose) -> Result<Solver, SceneError> {
    if let Loose::Str(s) = v
        && let Ok(solver) = s.parse()
    {
        return Ok(solver);
    }
    let names = [Solver::GaussSeidel, Solver::Direct].map(|s| format!("\"{}\"", s.name()));
    Err(SceneError::at(
        place,
        format!("must be {}, got {v}", names.join(" or ")),
    ))
}

/// The end a scene's `reel_end` value names: `"start"` or `"end"`.
fn reel_end(place: &str, v: &Loose) -> Result<End, SceneError> {
    match v {
        Loose::Str(s) if s == "start" => Ok(End::Start),
        Loose::Str(s) if s == "end" => Ok(End::End),
        other => Err(SceneError::at(
            place,
            format!(r#"must be "start" or "end", got {other}"#),
        )),
    }
}

/// A `true`/`false` key read without a type: anything else is refused.
fn loose_bool(place: &str, v: Option<&Loose>, default: bool) -> Result<bool, SceneError> {
    match v {
        None => Ok(default),
        Some(Loose::Bool(b)) => Ok(*b),
        Some(other) => Err(SceneError::at(
            place,
            format!("must be true or false, got {other}"),
        )),
    }
}

/// A number key read without a type, as [`f32_of`]; `None` when absent.
fn loose_f32(place: &str, v: Option<&Loose>) -> Result<Option<f32>, SceneError> {
    let x = match v {
        None => return Ok(None),
        Some(Loose::UInt(u)) => *u as f64,
        Some(Loose::Int(i)) => *i as f64,
        Some(Loose::Float(f)) => *f,
        Some(other) => {
            return Err(SceneError::at(
                place,
                format!("must be a number, got {other}"),
            ));
        }
    };
    f32_of(place, x).map(Some)
}

fn opt_f32(place: &str, v: Option<f64>, default: f32) -> Result<f32, SceneError> {
    v.map_or(Ok(default), |v| f32_of(place, v))
}

fn opt_u32(place: &str, v: Option<u64>, default: u32) -> Result<u32, SceneError> {
    match v {
        None => Ok(default),
        // Beyond u32 the value is out of every accepted range: name the range,
        // quoting the value as written.
        Some(v) => u32::try_from(v).map_err(|_| {
            let max = if place.ends_with("iterations") {
                cable_systems::params::MAX_ITERATIONS
            } else {
                cable_systems::params::MAX_SUBSTEPS
            };
            SceneError::at(place, format!("must be between 1 and {max}, got {v}"))
        }),
    }
}

fn too_long() -> SceneError {
    SceneError::at(
        "scene",
        format!("longer than the limit of {} MiB", MAX_SCENE_BYTES >> 20),
    )
}

/// A JSON error at `path` (empty for the top level or bad syntax) as a
/// [`SceneError`]: the place names the key when the reason is about one.
fn json_error(path: &str, inner: &serde_json::Error) -> SceneError {
    let msg = inner.to_string();
    let reason = match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg,
    };
    let at = format!("line {} column {}", inner.line(), inner.column());
    if inner.is_eof() {
        return SceneError::at(format!("scene {at}"), reason);
    }
    // `duplicate field `x``, `unknown field `x`, expected ...`: name the key.
    let key = ["duplicate field `", "unknown field `"]
        .iter()
        .find_map(|p| reason.strip_prefix(p))
        .and_then(|rest| rest.split('`').next())
        .filter(|k| !k.is_empty());
    let path = if path == "." { "" } else { path };
    let place = match (path.is_empty(), key) {
        (true, None) => return SceneError::at(format!("scene {at}"), reason),
        (true, Some(k)) => format!("scene.{k}"),
        (false, None) => format!("scene.{path}"),
        // serde_path_to_error already ends the path with an unknown key.
        (false, Some(k)) if path.rsplit('.').next() == Some(k) => format!("scene.{path}"),
        (false, Some(k)) => format!("scene.{path}.{k}"),
    };
    SceneError::at(format!("{place} ({at})"), reason)
}

/// A value that must be a JSON object (`{...}`), never an array: serde's
/// derived structs also accept a positional array, which would bypass the
/// unknown-key check.
#[derive(Debug)]
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A JSON value read without a type, for the message of a key that holds
/// the wrong one: scalars as written, arrays and objects only by their kind
/// (their contents are skipped, so a huge one costs no memory).
#[derive(Debug, Clone, PartialEq)]
enum Loose {
    Null,
    Bool(bool),
    /// A whole number ≥ 0 written without fraction or exponent.
    UInt(u64),
    /// A negative whole number written without fraction or exponent.
    Int(i64),
    /// Any other number.
    Float(f64),
    Str(String),
    Array,
    Object,
}

/// Longest string quoted in full in a message; longer ones are cut.
const QUOTE_CHARS: usize = 40;

impl fmt::Display for Loose {
    /// As JSON (`1.5`, `"jacobi"`, `true`), or `an array` / `an object`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loose::Null => f.write_str("null"),
            Loose::Bool(b) => write!(f, "{b}"),
            Loose::UInt(u) => write!(f, "{u}"),
            Loose::Int(i) => write!(f, "{i}"),
            // `2.0`, `1.5`, `1e20`: as written, the fraction kept.
            Loose::Float(x) => write!(f, "{x:?}"),
            Loose::Str(s) if s.chars().count() > QUOTE_CHARS => {
                let cut: String = s.chars().take(QUOTE_CHARS).collect();
                let quoted = serde_json::to_string(&cut).map_err(|_| fmt::Error)?;
                write!(f, "{}...\"", &quoted[..quoted.len() - 1])
            }
            Loose::Str(s) => {
                let quoted = serde_json::to_string(s).map_err(|_| fmt::Error)?;
                f.write_str(&quoted)
            }
            Loose::Array => f.write_str("an array"),
            Loose::Object => f.write_str("an object"),
        }
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
}

struct LooseVisitor;

impl<'de> serde::de::Visitor<'de> for LooseVisitor {
    type Value = Loose;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Loose, E> {
        Ok(u64::try_from(v).map_or(Loose::Int(v), Loose::UInt))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::UInt(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_none<E>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Loose::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Loose::Array)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Loose::Object)
    }
}

/// A cable's `pins` as read: the leading entries that are particle indices
/// (4 bytes each), then the first entry that is not, if any (the rest is
/// skipped); or what stood in place of the array.
#[derive(Debug)]
enum Pins {
    List { ok: Vec<u32>, bad: Option<Loose> },
    NotArray(Loose),
}

impl<'de> Deserialize<'de> for Pins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Pins;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of particle indices")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Pins, A::Error> {
                let mut ok = Vec::new();
                while let Some(v) = seq.next_element::<Loose>()? {
                    match v {
                        Loose::UInt(u) if u32::try_from(u).is_ok() => ok.push(u as u32),
                        other => {
                            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                            return Ok(Pins::List {
                                ok,
                                bad: Some(other),
                            });
                        }
                    }
                }
                Ok(Pins::List { ok, bad: None })
            }
            fn visit_bool<E>(self, v: bool) -> Result<Pins, E> {
                Ok(Pins::NotArray(Loose::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Pins, E> {
                Ok(Pins::NotArray(
                    u64::try_from(v).map_or(Loose::Int(v), Loose::UInt),
                ))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Pins, E> {
                Ok(Pins::NotArray(Loose::UInt(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Pins, E> {
                Ok(Pins::NotArray(Loose::Float(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Pins, E> {
                Ok(Pins::NotArray(Loose::Str(v.to_owned())))
            }
            fn visit_unit<E>(self) -> Result<Pins, E> {
                Ok(Pins::NotArray(Loose::Null))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Pins, A::Error> {
                LooseVisitor.visit_map(map).map(Pins::NotArray)
            }
        }
        d.deserialize_any(V)
    }
}

/// Any JSON value, refusing a key given twice in any object within it
/// (`serde_json::Value` keeps the last silently).
#[derive(Debug)]
struct StrictValue(serde_json::Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        // serde_json never yields a non-finite number; `Null` is the safe
        // fallback for the type's sake.
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(serde_json::Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate field `{key}`"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(serde_json::Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::Scene;

    fn cable(keys: &str) -> String {
        format!(r#"{{"cables": [{{"start": [0, 0, 0], "end": [1, 0, 0]{keys}}}]}}"#)
    }

    /// The oriented-rod keys' defaults are accepted and change nothing;
    /// what this version cannot simulate, or a wrong value, is refused
    /// naming the key.
    #[test]
    fn oriented_rod_keys_take_their_defaults_and_refuse_the_rest_by_name() {
        let plain = Scene::from_json(&cable("")).expect("valid");
        for keys in [
            r#", "clamp_start": false"#,
            r#", "clamp_end": false, "twist_stiffness": 0"#,
            r#", "twist_stiffness": 0.0"#,
        ] {
            let s = Scene::from_json(&cable(keys)).expect(keys);
            assert_eq!(s, plain, "{keys}");
        }
        for (keys, place, says) in [
            (
                r#", "clamp_start": true"#,
                "clamp_start",
                "needs bend_stiffness",
            ),
            (
                r#", "clamp_end": true"#,
                "clamp_end",
                "needs bend_stiffness",
            ),
            (
                r#", "attach_end": false, "clamp_end": true"#,
                "clamp_end",
                "needs attach_end",
            ),
            (r#", "clamp_start": 1"#, "clamp_start", "true or false"),
            (
                r#", "twist_stiffness": 2"#,
                "twist_stiffness",
                "not simulated",
            ),
            (
                r#", "twist_stiffness": -1"#,
                "twist_stiffness",
                "at least 0",
            ),
            (r#", "twist_stiffness": "x""#, "twist_stiffness", "a number"),
        ] {
            let e = Scene::from_json(&cable(keys)).expect_err(keys);
            assert_eq!(e.place, format!("scene.cables[0].{place}"), "{keys}");
            assert!(e.to_string().contains(says), "{keys}: {e}");
        }
        // A clamp on a straight rod is set; on a pre-bent one, refused.
        let s = Scene::from_json(&cable(r#", "bend_stiffness": 2, "clamp_end": true"#))
            .expect("a clamped straight rod");
        let p = &s.cables[0].params;
        assert!(p.clamp_end && !p.clamp_start);
        let hook = r#"{"cables": [{"points": [[0, 0, 0], [1, 0, 0], [1.5, 0.5, 0]],
            "bend_stiffness": 2, "clamp_start": true}]}"#;
        let e = Scene::from_json(hook).expect_err("a clamped hook");
        assert_eq!(e.place, "scene.cables[0].clamp_start");
        assert!(e.to_string().contains("straight rest shape"), "{e}");
    }
}
