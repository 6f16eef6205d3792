//! `#[kernel(group_size = ...)]` (SYCL's `reqd_work_group_size`): a launch
//! of the required shape runs as usual; any other shape returns
//! `LaunchError::GroupSize` naming both shapes, and no kernel body runs.

use std::sync::atomic::{AtomicUsize, Ordering};

use scoped::prelude::*;
use scoped::LaunchError;

/// Writes each item's global id plus one; counts the groups whose body ran.
#[kernel(group_size = 128)]
fn ids_128(group: WorkGroup<1>, bodies: &AtomicUsize, mut out: ItemsWindow<'_, usize>) {
    bodies.fetch_add(1, Ordering::Relaxed);
    distribute_items!(group, |idx| out[idx] = idx.global_linear_id() + 1);
}

#[kernel(group_size = [4, 8])]
fn ids_2d(group: WorkGroup<2>, mut out: ItemsWindow<'_, usize, 2>) {
    distribute_items!(group, |idx| out[idx] = idx.global_linear_id() + 1);
}

#[kernel(group_size = [2, 3, 4])]
fn ids_3d(group: WorkGroup<3>, mut out: ItemsWindow<'_, usize, 3>) {
    distribute_items!(group, |idx| out[idx] = idx.global_linear_id() + 1);
}

/// Launches `ids_128` with groups of `inner` items from inside each of its
/// own groups.
#[kernel]
fn launches_inside(group: WorkGroup<1>, inner: usize, results: &std::sync::Mutex<Vec<bool>>) {
    single_item!(group, || {
        let mut out = vec![0; 2 * inner];
        let bodies = AtomicUsize::new(0);
        let launched = Queue::new().parallel_with(2, inner, ItemsMut::new(&mut out), |g, o| {
            ids_128(g, &bodies, o)
        });
        results.lock().unwrap().push(launched.is_ok());
    });
}

fn expected(n: usize) -> Vec<usize> {
    (1..=n).collect()
}

#[test]
fn the_required_shape_runs_every_group() {
    let mut out = vec![0; 5 * 128];
    let bodies = AtomicUsize::new(0);
    Queue::new()
        .parallel_with(5, 128, ItemsMut::new(&mut out), |g, o| {
            ids_128(g, &bodies, o)
        })
        .unwrap();
    assert_eq!(out, expected(5 * 128));
    assert_eq!(bodies.into_inner(), 5);

    let mut out = vec![0; 3 * 4 * 2 * 8];
    Queue::new()
        .parallel_with([3, 2], [4, 8], ItemsMut::new(&mut out), |g, o| ids_2d(g, o))
        .unwrap();
    assert_eq!(out, expected(3 * 4 * 2 * 8));

    let mut out = vec![0; 2 * 3 * 4 * 2];
    Queue::new()
        .parallel_with([1, 1, 2], [2, 3, 4], ItemsMut::new(&mut out), |g, o| {
            ids_3d(g, o)
        })
        .unwrap();
    assert_eq!(out, expected(2 * 3 * 4 * 2));
}

#[test]
fn another_shape_is_refused_before_any_body_runs() {
    for threads in [1, 2] {
        let queue = Queue::with_threads(threads).unwrap();
        let mut out = vec![0; 10 * 64];
        let bodies = AtomicUsize::new(0);
        let error = queue
            .parallel_with(10, 64, ItemsMut::new(&mut out), |g, o| {
                ids_128(g, &bodies, o)
            })
            .unwrap_err();
        assert_eq!(
            error,
            LaunchError::GroupSize {
                required: "128".into(),
                group_size: "64".into()
            }
        );
        assert_eq!(
            error.to_string(),
            "launch refused: the kernel requires group_size = 128 \
             (#[kernel(group_size = ...)]), the launch has group_size = 64"
        );
        assert_eq!(bodies.into_inner(), 0, "{threads} threads");
        assert!(out.iter().all(|&v| v == 0), "an item was written");
        // The queue stays usable.
        let mut out = vec![0; 128];
        let bodies = AtomicUsize::new(0);
        queue
            .parallel_with(1, 128, ItemsMut::new(&mut out), |g, o| {
                ids_128(g, &bodies, o)
            })
            .unwrap();
        assert_eq!(out, expected(128));
    }
}

#[test]
fn shapes_of_more_dimensions_are_compared_whole() {
    let mut out = vec![0; 4 * 8 * 4];
    let error = Queue::new()
        .parallel_with([1, 4], [8, 4], ItemsMut::new(&mut out), |g, o| ids_2d(g, o))
        .unwrap_err();
    assert_eq!(
        error,
        LaunchError::GroupSize {
            required: "[4, 8]".into(),
            group_size: "[8, 4]".into()
        }
    );
    assert!(out.iter().all(|&v| v == 0));

    let mut out = vec![0; 24];
    let error = Queue::new()
        .parallel_with([1, 1, 1], [4, 3, 2], ItemsMut::new(&mut out), |g, o| {
            ids_3d(g, o)
        })
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("requires group_size = [2, 3, 4]")
            && error.to_string().contains("has group_size = [4, 3, 2]"),
        "{error}"
    );
}

#[test]
fn a_refusal_belongs_to_its_own_launch() {
    let results = std::sync::Mutex::new(Vec::new());
    Queue::new()
        .parallel(2, 1, |g: WorkGroup<1>| launches_inside(g, 64, &results))
        .unwrap();
    Queue::new()
        .parallel(2, 1, |g: WorkGroup<1>| launches_inside(g, 128, &results))
        .unwrap();
    assert_eq!(results.into_inner().unwrap(), [false, false, true, true]);
}

#[kernel(group_size = 16)]
fn group_sum_16(group: WorkGroup<1>, input: &[i64], mut sum: Reducer<'_, i64, Plus>) {
    memory_environment!(group, require_private_mem::<i64>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
        sum.combine(reduce_over_group(group, x, plus()));
    });
}

#[test]
fn a_refused_launch_leaves_reduction_targets_alone() {
    let input: Vec<i64> = (0..64).map(|i| i * i - 100).collect();
    let mut sum = 7i64;
    let error = Queue::new()
        .parallel_with(8, 8, reduction(&mut sum, plus()), |g, s| {
            group_sum_16(g, &input, s)
        })
        .unwrap_err();
    assert!(matches!(error, LaunchError::GroupSize { .. }), "{error}");
    assert_eq!(sum, 7);
    Queue::new()
        .parallel_with(4, 16, reduction(&mut sum, plus()), |g, s| {
            group_sum_16(g, &input, s)
        })
        .unwrap();
    assert_eq!(sum, 7 + input.iter().sum::<i64>());
}

#[test]
fn a_refusal_waits_through_a_launch_nested_after_it() {
    let bodies = AtomicUsize::new(0);
    let inner_results = std::sync::Mutex::new(Vec::new());
    let mut outer_out = vec![0; 64];
    let outer = Queue::new().parallel_with(1, 64, ItemsMut::new(&mut outer_out), |g, o| {
        // Refused: the outer launch's error, reported when this group ends.
        ids_128(g, &bodies, o);
        for inner in [128, 32] {
            let mut out = vec![0; inner];
            let launched = Queue::new().parallel_with(1, inner, ItemsMut::new(&mut out), |g, o| {
                ids_128(g, &bodies, o)
            });
            inner_results.lock().unwrap().push(launched.map(|()| out));
        }
    });
    assert_eq!(
        outer,
        Err(LaunchError::GroupSize {
            required: "128".into(),
            group_size: "64".into()
        })
    );
    let inner = inner_results.into_inner().unwrap();
    assert_eq!(inner[0], Ok(expected(128)));
    assert_eq!(
        inner[1],
        Err(LaunchError::GroupSize {
            required: "128".into(),
            group_size: "32".into()
        })
    );
    assert_eq!(bodies.into_inner(), 1);
}

#[test]
fn a_refusal_in_a_scope_panics_at_its_end_and_runs_no_body() {
    let bodies = AtomicUsize::new(0);
    let mut out = vec![0; 4 * 64];
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Queue::new().scope(|s| {
            s.parallel_with(4, 64, ItemsMut::new(&mut out), |g, o| {
                ids_128(g, &bodies, o)
            })
            .unwrap();
        })
    }));
    let payload = result.expect_err("the scope did not panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        message,
        LaunchError::GroupSize {
            required: "128".into(),
            group_size: "64".into()
        }
        .to_string()
    );
    assert_eq!(bodies.into_inner(), 0);
    assert!(out.iter().all(|&v| v == 0));
}

/// Items per group of the kernels sized by constants.
const WIDTH: usize = 32;

/// A tile of `W` columns: the group size a const generic parameter, as
/// a kernel templated on its tile width states it in SYCL
/// (`reqd_work_group_size(W)`).
#[kernel(group_size = W)]
fn ids_generic<const W: usize>(group: WorkGroup<1>, mut out: ItemsWindow<'_, usize>) {
    distribute_items!(group, |idx| out[idx] = idx.global_linear_id() + 1);
}

/// Extents from a `const` item, arithmetic on it, and a literal.
#[kernel(group_size = [WIDTH / 8, (WIDTH), 2])]
fn ids_constants(group: WorkGroup<3>, mut out: ItemsWindow<'_, usize, 3>) {
    distribute_items!(group, |idx| out[idx] = idx.global_linear_id() + 1);
}

#[test]
fn constant_extents_are_required_like_literals() {
    /// `ids_generic::<W>` on `groups` groups of `size` items.
    fn launch<const W: usize>(groups: usize, size: usize) -> (Result<(), LaunchError>, Vec<usize>) {
        let mut out = vec![0; groups * size];
        let ran = Queue::new().parallel_with(groups, size, ItemsMut::new(&mut out), |g, o| {
            ids_generic::<W>(g, o)
        });
        (ran, out)
    }
    for (ran, out) in [launch::<16>(3, 16), launch::<64>(2, 64)] {
        ran.unwrap();
        assert_eq!(out, expected(out.len()));
    }
    let (ran, out) = launch::<WIDTH>(3, 16);
    let error = ran.unwrap_err();
    assert_eq!(
        error,
        LaunchError::GroupSize {
            required: "32".into(),
            group_size: "16".into()
        }
    );
    assert!(out.iter().all(|&v| v == 0));

    let mut out = vec![0; 2 * 4 * 32 * 2];
    Queue::new()
        .parallel_with([1, 1, 2], [4, 32, 2], ItemsMut::new(&mut out), |g, o| {
            ids_constants(g, o)
        })
        .unwrap();
    assert_eq!(out, expected(2 * 4 * 32 * 2));
    let error = Queue::new()
        .parallel_with([1, 1, 2], [4, 2, 32], ItemsMut::new(&mut out), |g, o| {
            ids_constants(g, o)
        })
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("requires group_size = [4, 32, 2]"),
        "{error}"
    );
}
