//! The scene file's `colliders`: parsing and validation of each object.
//!
//! Each collider is a JSON object with a `type` (`sphere`, `capsule`,
//! `plane` or `box`) and that type's keys; any other key is an error naming
//! it, like `scene.colliders[2].radius`.

use cable_core::Collider;
use glam::{Quat, Vec3};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::scene_values::{SceneError, f32_of, vec3};

/// Keys every collider type takes: its kinematic motion.
const MOTION: &[&str] = &["velocity", "angular_velocity"];

/// Keys of each collider type, after `type`; required ones first.
const SPHERE: &[&str] = &["center", "radius"];
const CAPSULE: &[&str] = &["a", "b", "radius"];
const PLANE: &[&str] = &["normal", "offset"];
const BOX: &[&str] = &["center", "half_extents", "rotation"];

/// Parses and validates the collider object `v` found at `base`
/// (e.g. `scene.colliders[2]`).
pub(crate) fn collider(base: &str, v: &Value) -> Result<Collider, SceneError> {
    let obj = v.as_object().ok_or_else(|| {
        SceneError::at(
            base,
            "must be an object such as {\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1}",
        )
    })?;
    let ty = match obj.get("type") {
        None => {
            return Err(SceneError::at(
                format!("{base}.type"),
                "required: one of sphere, capsule, plane, box",
            ));
        }
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(SceneError::at(
                format!("{base}.type"),
                format!("must be a string (sphere, capsule, plane or box), got {other}"),
            ));
        }
    };
    let keys = match ty {
        "sphere" => SPHERE,
        "capsule" => CAPSULE,
        "plane" => PLANE,
        "box" => BOX,
        other => {
            return Err(SceneError::at(
                format!("{base}.type"),
                format!("unknown collider type `{other}`; expected sphere, capsule, plane or box"),
            ));
        }
    };
    for key in obj.keys() {
        if key != "type" && !keys.contains(&key.as_str()) && !MOTION.contains(&key.as_str()) {
            return Err(SceneError::at(
                format!("{base}.{key}"),
                format!(
                    "unknown key for a {ty} collider; expected type, {}, {}",
                    keys.join(", "),
                    MOTION.join(", ")
                ),
            ));
        }
    }
    let f = Fields { base, obj };
    let made = match ty {
        "sphere" => Collider::sphere(f.vec3("center")?, f.num("radius")?),
        "capsule" => Collider::capsule(f.vec3("a")?, f.vec3("b")?, f.num("radius")?),
        "plane" => Collider::plane(
            f.opt_vec3("normal")?.unwrap_or(Vec3::Y),
            f.opt_num("offset")?.unwrap_or(0.0),
        ),
        _ => Collider::cuboid(
            f.vec3("center")?,
            f.vec3("half_extents")?,
            f.opt_quat("rotation")?.unwrap_or(Quat::IDENTITY),
        ),
    };
    let made = made.map_err(|e| SceneError::from_cable(base, &e))?;
    let velocity = f.opt_vec3("velocity")?.unwrap_or(Vec3::ZERO);
    let angular_velocity = f.opt_vec3("angular_velocity")?.unwrap_or(Vec3::ZERO);
    made.with_motion(velocity, angular_velocity)
        .map_err(|e| SceneError::from_cable(base, &e))
}

/// Typed access to the keys of one collider object.
struct Fields<'a> {
    base: &'a str,
    obj: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn place(&self, key: &str) -> String {
        format!("{}.{key}", self.base)
    }

    fn parse<T: for<'de> Deserialize<'de>>(&self, key: &str) -> Result<Option<T>, SceneError> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(v) => T::deserialize(v)
                .map(Some)
                .map_err(|e| SceneError::at(self.place(key), e)),
        }
    }

    fn required<T>(&self, key: &str, v: Option<T>) -> Result<T, SceneError> {
        v.ok_or_else(|| SceneError::at(self.place(key), "required for this collider type"))
    }

    fn opt_num(&self, key: &str) -> Result<Option<f32>, SceneError> {
        self.parse::<f64>(key)?
            .map(|v| f32_of(&self.place(key), v))
            .transpose()
    }

    fn num(&self, key: &str) -> Result<f32, SceneError> {
        let v = self.opt_num(key)?;
        self.required(key, v)
    }

    fn opt_vec3(&self, key: &str) -> Result<Option<Vec3>, SceneError> {
        self.parse::<[f64; 3]>(key)?
            .map(|v| vec3(&self.place(key), v))
            .transpose()
    }

    fn vec3(&self, key: &str) -> Result<Vec3, SceneError> {
        let v = self.opt_vec3(key)?;
        self.required(key, v)
    }

    fn opt_quat(&self, key: &str) -> Result<Option<Quat>, SceneError> {
        let Some(q) = self.parse::<[f64; 4]>(key)? else {
            return Ok(None);
        };
        let mut out = [0f32; 4];
        for (o, c) in out.iter_mut().zip(q) {
            *o = f32_of(&self.place(key), c)?;
        }
        Ok(Some(Quat::from_array(out)))
    }
}
