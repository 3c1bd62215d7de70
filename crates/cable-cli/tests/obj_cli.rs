//! `cable run --obj`: the file passes a strict Wavefront OBJ parser written
//! here (counts, 1-based `v/vt/vn` indices in range, unit normals), its tube
//! vertices sit at each cable's radius around the final particles written by
//! `--out`, and failures leave no file behind (bad scene) or exit 1
//! (unwritable file).

mod common;

use std::path::PathBuf;
use std::process::Command;

use glam::Vec3;

/// A parsed OBJ: objects with their vertex data and faces (0-based indices).
#[derive(Debug, Default)]
struct Obj {
    objects: Vec<String>,
    v: Vec<Vec3>,
    vt: Vec<[f32; 2]>,
    vn: Vec<Vec3>,
    /// Faces as (object index, three (v, vt, vn) 0-based index triples).
    f: Vec<(usize, [[usize; 3]; 3])>,
}

fn numbers<const N: usize>(rest: &[&str], line: usize) -> Result<[f32; N], String> {
    if rest.len() != N {
        return Err(format!(
            "line {line}: expected {N} numbers, got {}",
            rest.len()
        ));
    }
    let mut out = [0.0f32; N];
    for (o, s) in out.iter_mut().zip(rest) {
        *o = s.parse().map_err(|e| format!("line {line}: `{s}`: {e}"))?;
        if !o.is_finite() {
            return Err(format!("line {line}: non-finite number"));
        }
    }
    Ok(out)
}

/// Strict: only `#`, `o`, `v x y z`, `vt u v`, `vn x y z` and triangle
/// `f a/b/c a/b/c a/b/c` lines; every index 1-based, referring to an element
/// defined before the face; no negative indices; normals unit length.
fn parse_obj(text: &str) -> Result<Obj, String> {
    let mut obj = Obj::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words: Vec<&str> = raw.split_whitespace().collect();
        let Some((&head, rest)) = words.split_first() else {
            return Err(format!("line {line}: empty line"));
        };
        match head {
            h if h.starts_with('#') => {}
            "o" => {
                if rest.len() != 1 {
                    return Err(format!("line {line}: `o` takes one name"));
                }
                obj.objects.push(rest[0].to_owned());
            }
            "v" => obj.v.push(Vec3::from_array(numbers::<3>(rest, line)?)),
            "vt" => obj.vt.push(numbers::<2>(rest, line)?),
            "vn" => {
                let n = Vec3::from_array(numbers::<3>(rest, line)?);
                if (n.length() - 1.0).abs() > 1e-4 {
                    return Err(format!("line {line}: normal of length {}", n.length()));
                }
                obj.vn.push(n);
            }
            "f" => {
                if obj.objects.is_empty() {
                    return Err(format!("line {line}: face before any object"));
                }
                if rest.len() != 3 {
                    return Err(format!("line {line}: not a triangle"));
                }
                let mut tri = [[0usize; 3]; 3];
                for (corner, word) in tri.iter_mut().zip(rest) {
                    let parts: Vec<&str> = word.split('/').collect();
                    if parts.len() != 3 {
                        return Err(format!("line {line}: `{word}` is not v/vt/vn"));
                    }
                    let limits = [obj.v.len(), obj.vt.len(), obj.vn.len()];
                    for ((slot, part), limit) in corner.iter_mut().zip(&parts).zip(limits) {
                        let k: usize = part
                            .parse()
                            .map_err(|e| format!("line {line}: `{part}`: {e}"))?;
                        if k == 0 || k > limit {
                            return Err(format!("line {line}: index {k} outside 1..={limit}"));
                        }
                        *slot = k - 1;
                    }
                }
                obj.f.push((obj.objects.len() - 1, tri));
            }
            other => return Err(format!("line {line}: unknown statement `{other}`")),
        }
    }
    Ok(obj)
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("obj_cli_{}_{name}", std::process::id()))
}

const SCENE: &str = r#"{
  "cables": [
    { "start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 12, "radius": 0.1, "sides": 6, "tile": 2 },
    { "points": [[6, 0, 0], [6, -1, 0], [6, -2, 0.5]], "attach_end": false, "radius": 0.3, "sides": 5 },
    { "start": [0, 3, 0], "end": [2, 3, 0], "segments": 4 }
  ]
}"#;

#[test]
fn obj_of_a_scene_passes_a_strict_parser() {
    let (scene, obj_path, out_path) = (tmp("scene.json"), tmp("mesh.obj"), tmp("out.json"));
    std::fs::write(&scene, SCENE).unwrap();
    let status = Command::new(common::cable_bin())
        .args(["run", scene.to_str().unwrap(), "--seconds", "0.5", "--obj"])
        .arg(&obj_path)
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let obj = parse_obj(&std::fs::read_to_string(&obj_path).unwrap()).unwrap();

    // (segments, sides, radius) of the three cables, as in the scene.
    let cables = [(12usize, 6usize, 0.1f32), (2, 5, 0.3), (4, 8, 0.05)];
    assert_eq!(obj.objects.len(), 3);
    let verts: usize = cables.iter().map(|&(s, n, _)| (s + 1) * (n + 1)).sum();
    let tris: usize = cables.iter().map(|&(s, n, _)| s * n * 2).sum();
    assert_eq!(
        (obj.v.len(), obj.vt.len(), obj.vn.len(), obj.f.len()),
        (verts, verts, verts, tris)
    );

    // Faces of an object use only that object's vertices; normals agree with winding.
    let mut first = 0;
    let ranges: Vec<_> = cables
        .iter()
        .map(|&(s, n, _)| {
            let r = first..first + (s + 1) * (n + 1);
            first = r.end;
            r
        })
        .collect();
    for (o, tri) in &obj.f {
        for c in tri {
            assert!(ranges[*o].contains(&c[0]) && c[0] == c[1] && c[1] == c[2]);
        }
        let [a, b, c] = tri.map(|c| obj.v[c[0]]);
        let n = tri.iter().map(|c| obj.vn[c[2]]).sum::<Vec3>();
        assert!((b - a).cross(c - a).dot(n) > 0.0, "face wound clockwise");
    }

    // The final frame of --out: each ring's vertices lie at the cable's
    // radius around its particle, or farther along a bend (a mitred ring,
    // at most radius / cos(θ/2)), with outward normals.
    let out: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let last = out["frames"].as_array().unwrap().last().unwrap();
    for (k, &(segments, sides, radius)) in cables.iter().enumerate() {
        let pts: Vec<Vec3> = serde_json::from_value::<Vec<[f32; 3]>>(last["cables"][k].clone())
            .unwrap()
            .into_iter()
            .map(Vec3::from_array)
            .collect();
        assert_eq!(pts.len(), segments + 1);
        for (i, p) in pts.iter().enumerate() {
            for j in 0..=sides {
                let idx = ranges[k].start + i * (sides + 1) + j;
                let off = obj.v[idx] - *p;
                let cos_half = if i > 0 && i + 1 < pts.len() {
                    let d0 = (pts[i] - pts[i - 1]).normalize();
                    let d1 = (pts[i + 1] - pts[i]).normalize();
                    (0.5 * (1.0 + d0.dot(d1))).sqrt().max(0.25)
                } else {
                    1.0
                };
                assert!(
                    off.length() > radius - 1e-4 && off.length() < radius / cos_half * 1.05 + 1e-4,
                    "cable {k} ring {i}: {}",
                    off.length()
                );
                assert!(obj.vn[idx].dot(off) > 0.0);
            }
        }
    }
    for p in [scene, obj_path, out_path] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn bad_scene_writes_no_obj_and_unwritable_obj_exits_1() {
    let (scene, obj_path) = (tmp("bad_scene.json"), tmp("never.obj"));
    std::fs::write(
        &scene,
        r#"{"cables": [{"start": [0,0,0], "end": [1,0,0], "sides": 2}]}"#,
    )
    .unwrap();
    let _ = std::fs::remove_file(&obj_path);
    let o = Command::new(common::cable_bin())
        .args(["run", scene.to_str().unwrap(), "--obj"])
        .arg(&obj_path)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: scene.cables[0].sides"), "{err}");
    assert!(!obj_path.exists(), "an OBJ was written for a bad scene");

    std::fs::write(&scene, SCENE).unwrap();
    let o = Command::new(common::cable_bin())
        .args([
            "run",
            scene.to_str().unwrap(),
            "--seconds",
            "0.1",
            "--obj",
            "/nonexistent-dir/x.obj",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/x.obj"));
    let _ = std::fs::remove_file(scene);
}
