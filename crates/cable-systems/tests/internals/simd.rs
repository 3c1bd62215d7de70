use cable_systems::simd::{RUNS, Simd, Wide, active, available, detected, force};

/// Held by the tests that `force` a path: the choice is the whole
/// process's, and a test reading it back must not see another's.
pub(crate) static FORCING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Forcing a path the CPU has makes it the one the kernel runs on,
/// through the door of that path (not another wide one); forcing one
/// it lacks falls back to the best it has.
#[test]
fn forcing_a_path_runs_that_path() {
    let _one_at_a_time = FORCING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in Simd::ALL {
        force(Some(path));
        let want = if path.supported() { path } else { detected() };
        assert_eq!(active(), want, "{path:?}");
        assert_eq!(
            Wide::active().map(Wide::simd),
            (want != Simd::Baseline).then_some(want),
            "{path:?}"
        );
        // Through the door: the function compiled for `want` runs on
        // this thread, and no other wide path's.
        let count = || RUNS.with(|r| r.each_ref().map(std::cell::Cell::get));
        let before = count();
        let on = Wide::on_path(Wide::active(), || 7);
        let after = count();
        assert_eq!(on, 7);
        for (k, s) in Simd::ALL.into_iter().enumerate().skip(1) {
            let ran = after[k] - before[k];
            assert_eq!(ran, u64::from(s == want), "{path:?}: {s:?} ran {ran} times");
        }
        force(None);
    }
    assert_eq!(active(), detected());
    assert_eq!(available().last(), Some(&detected()));
    for path in Simd::ALL {
        assert_eq!(Simd::from_name(path.name()), Some(path));
    }
}
