//! Property test: the pool against a trivial model (a list of live cables
//! and their points) under random sequences of add, remove, compact and
//! attach operations, and of handles used on another pool (refused both
//! ways, nothing of either pool touched: issue 13, case 10).

use cable_core::{CableDesc, CableHandle, End, ParticlePool};
use glam::Vec3;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Add(u8),
    Remove(usize),
    RemoveStale(usize),
    Compact,
    Attach(usize, bool),
    Foreign(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1u8..6).prop_map(Op::Add),
        2 => any::<usize>().prop_map(Op::Remove),
        1 => any::<usize>().prop_map(Op::RemoveStale),
        1 => Just(Op::Compact),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(i, b)| Op::Attach(i, b)),
        1 => any::<usize>().prop_map(Op::Foreign),
    ]
}

proptest! {
    #[test]
    fn pool_matches_model(ops in proptest::collection::vec(op(), 1..200)) {
        let mut pool = ParticlePool::new();
        // Another pool whose cables mirror the first's slots and generations.
        let mut other = ParticlePool::new();
        let mut other_handles: Vec<CableHandle> = Vec::new();
        let mut model: Vec<(CableHandle, Vec<Vec3>)> = Vec::new();
        let mut dead: Vec<CableHandle> = Vec::new();
        let mut tag = 0.0f32;
        for op in ops {
            match op {
                Op::Add(segs) => {
                    tag += 1.0;
                    let pts: Vec<Vec3> = (0..=segs).map(|k| Vec3::new(tag, f32::from(k), 0.0)).collect();
                    let h = pool.add_cable(&CableDesc::from_points(&pts).unwrap()).unwrap();
                    prop_assert!(!model.iter().any(|(m, _)| *m == h));
                    prop_assert!(!dead.contains(&h), "a new handle aliases a removed one");
                    other_handles.push(other.add_cable(&CableDesc::from_points(&pts).unwrap()).unwrap());
                    model.push((h, pts));
                }
                Op::Remove(i) if !model.is_empty() => {
                    let (h, _) = model.remove(i % model.len());
                    pool.remove_cable(h).unwrap();
                    dead.push(h);
                }
                Op::RemoveStale(i) if !dead.is_empty() => {
                    prop_assert!(pool.remove_cable(dead[i % dead.len()]).is_err());
                }
                Op::Compact => pool.compact(),
                Op::Foreign(i) if !model.is_empty() => {
                    let (h, _) = model[i % model.len()];
                    let o = other_handles[i % other_handles.len()];
                    prop_assert!(other.remove_cable(h).is_err());
                    prop_assert!(other.teleport(h, Vec3::Y).is_err());
                    prop_assert!(pool.remove_cable(o).is_err());
                    prop_assert!(pool.set_attachment(o, End::End, None).is_err());
                    prop_assert_eq!(other.cable_count(), other_handles.len());
                }
                Op::Attach(i, on) if !model.is_empty() => {
                    let (h, pts) = &model[i % model.len()];
                    let target = on.then(|| pts[pts.len() - 1]);
                    pool.set_attachment(*h, End::End, target).unwrap();
                    let w = pool.inv_masses(*h).unwrap();
                    prop_assert_eq!(w[w.len() - 1], if on { 0.0 } else { 1.0 });
                }
                _ => {}
            }
            prop_assert_eq!(pool.cable_count(), model.len());
            let handles: Vec<_> = pool.handles().collect();
            let expected: Vec<_> = model.iter().map(|m| m.0).collect();
            prop_assert_eq!(handles, expected, "handles must come in insertion order");
            for (h, pts) in &model {
                prop_assert_eq!(pool.positions(*h).unwrap(), pts.as_slice());
                prop_assert_eq!(pool.rest_lengths(*h).unwrap().len(), pts.len());
            }
            for h in &dead {
                prop_assert!(!pool.contains(*h));
            }
        }
        let total: usize = model.iter().map(|m| m.1.len()).sum();
        prop_assert_eq!(pool.all_positions().len(), total);
    }
}
