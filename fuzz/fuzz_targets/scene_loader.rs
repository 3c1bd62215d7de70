//! Bytes → `Scene::from_slice`: never a panic; an error always names a
//! place in the scene; an accepted scene is within its budgets.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match cable::Scene::from_slice(data) {
        Ok(scene) => {
            assert!(!scene.cables.is_empty());
            assert!(scene.particle_count() <= cable::scene::SCENE_PARTICLE_BUDGET);
            assert!(scene.params.validate().is_ok());
            for c in &scene.cables {
                assert!(c.validate_for_substep(scene.params.substep).is_ok());
                assert!(c.points().iter().all(|p| p.is_finite()));
            }
        }
        Err(e) => {
            assert!(e.place.starts_with("scene"), "{e}");
            assert!(!e.reason.is_empty() && !e.reason.contains('\n'), "{e:?}");
        }
    }
});
