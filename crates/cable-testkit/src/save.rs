//! Edits of a saved state's JSON, number by number: what hostile-input
//! tests (`cable-systems/tests/save_hostile.rs`) and the `restore_state`
//! fuzz target damage a save with.

use serde_json::{Number, Value};

/// The JSON pointer (RFC 6901, as [`Value::pointer`] takes it) of every
/// number in `json`, in document order.
///
/// ```
/// let v = serde_json::json!({"pool": {"pos": [[1.0, 2.0]], "id": 3}, "name": "x"});
/// assert_eq!(
///     cable_testkit::save::number_paths(&v),
///     ["/pool/id", "/pool/pos/0/0", "/pool/pos/0/1"],
/// );
/// ```
pub fn number_paths(json: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect(json, String::new(), &mut out);
    out
}

fn collect(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Number(_) => out.push(at),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                collect(x, format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                collect(x, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// Replaces what `pointer` names in `json` with `value`, and returns what
/// was there. JSON has no NaN and no infinity: a non-finite `value` is
/// written as `null` (a value a restore must refuse as well). Panics if
/// `pointer` names nothing (take it from [`number_paths`]).
///
/// ```
/// use serde_json::json;
/// let mut v = json!({"rest": [0.5, 0.5]});
/// let old = cable_testkit::save::set_number(&mut v, "/rest/1", -1.0);
/// assert_eq!((old, v), (json!(0.5), json!({"rest": [0.5, -1.0]})));
/// ```
pub fn set_number(json: &mut Value, pointer: &str, value: f64) -> Value {
    let slot = json
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer} names nothing in the save"));
    let new = Number::from_f64(value).map_or(Value::Null, Value::Number);
    std::mem::replace(slot, new)
}
