//! Asynchronous launches in `Queue::scope`: submission order, early
//! return of submissions, panics, refused launches, and results against
//! serial loops.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use scoped::prelude::*;

#[test]
fn results_match_serial_loops() {
    let input: Vec<i64> = (0..4096).map(|i| (i * 31) % 1001 - 500).collect();
    let (mut shifted, mut squares) = (vec![0i64; 4096], vec![0i64; 4096]);
    let (mut sum, mut bins) = (10i64, [0u32; 4]);
    let queue = Queue::with_threads(2).unwrap();
    queue.scope(|s| {
        s.parallel_with(
            32,
            128,
            ItemsMut::new(&mut shifted),
            kernel_closure!(|g, mut out| {
                distribute_items!(g, |idx| out[idx] = input[idx.global_linear_id()] + 1);
            }),
        )
        .unwrap();
        s.parallel_with(
            32,
            128,
            (
                ItemsMut::new(&mut squares),
                reduction(&mut sum, plus()),
                reduction_span(&mut bins, plus()),
            ),
            kernel_closure!(|g, (mut out, mut sum, mut bins)| {
                distribute_items!(g, |idx| {
                    let x = input[idx.global_linear_id()];
                    out[idx] = x * x;
                    sum.combine(x);
                    bins.combine(x.rem_euclid(4) as usize, 1);
                });
            }),
        )
        .unwrap();
    });
    assert_eq!(shifted, input.iter().map(|x| x + 1).collect::<Vec<_>>());
    assert_eq!(squares, input.iter().map(|x| x * x).collect::<Vec<_>>());
    assert_eq!(sum, 10 + input.iter().sum::<i64>());
    let mut expected = [0u32; 4];
    input
        .iter()
        .for_each(|x| expected[x.rem_euclid(4) as usize] += 1);
    assert_eq!(bins, expected);
}

/// Every group of launch k ends before any group of launch k + 1 starts.
#[test]
fn launches_run_one_after_the_other_in_submission_order() {
    let log = Mutex::new(Vec::new());
    let queue = Queue::with_threads(2).unwrap();
    queue.scope(|s| {
        for launch in 0..6usize {
            let log = &log;
            s.parallel(4, 1, move |g: WorkGroup<1>| {
                log.lock()
                    .unwrap()
                    .push((launch, "start", g.group_linear_id()));
                // Long enough for a later launch to overlap, were it allowed.
                std::thread::sleep(Duration::from_millis(2));
                log.lock()
                    .unwrap()
                    .push((launch, "end", g.group_linear_id()));
            })
            .unwrap();
        }
    });
    let log = log.into_inner().unwrap();
    assert_eq!(log.len(), 6 * 4 * 2);
    for k in 0..5 {
        let last_end = log.iter().rposition(|e| e.0 == k && e.1 == "end").unwrap();
        let first_start = log.iter().position(|e| e.0 == k + 1).unwrap();
        assert!(
            last_end < first_start,
            "launch {} started before launch {k} ended: {log:?}",
            k + 1
        );
    }
}

/// A submission returns before its kernel has run: the kernel waits for
/// a flag the caller sets after submitting (a blocking submission would
/// time out here instead of hanging).
#[test]
fn submission_returns_before_the_launch_ends() {
    let released = AtomicBool::new(false);
    let saw_release = AtomicBool::new(false);
    Queue::with_threads(2).unwrap().scope(|s| {
        s.parallel(1, 1, |_: WorkGroup<1>| {
            let start = Instant::now();
            while !released.load(Ordering::Acquire) && start.elapsed() < Duration::from_secs(5) {
                std::thread::yield_now();
            }
            saw_release.store(released.load(Ordering::Acquire), Ordering::Relaxed);
        })
        .unwrap();
        released.store(true, Ordering::Release);
    });
    assert!(
        saw_release.into_inner(),
        "the submission blocked until its launch ended"
    );
}

#[test]
fn a_kernel_panic_reaches_the_caller_and_later_launches_do_not_run() {
    let runs = AtomicUsize::new(0);
    let queue = Queue::with_threads(2).unwrap();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        queue.scope(|s| {
            s.parallel(3, 1, |_: WorkGroup<1>| {
                runs.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            s.parallel(3, 1, |g: WorkGroup<1>| {
                assert!(g.group_linear_id() != 1, "group 1 fails");
            })
            .unwrap();
            s.parallel(3, 1, |_: WorkGroup<1>| {
                runs.fetch_add(100, Ordering::Relaxed);
            })
            .unwrap();
        });
    }));
    let payload = result.unwrap_err();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned());
    assert_eq!(message.as_deref(), Some("group 1 fails"));
    assert_eq!(runs.load(Ordering::Relaxed), 3);
    // The queue stays usable.
    queue.scope(|s| {
        s.parallel(2, 1, |_: WorkGroup<1>| {
            runs.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    });
    assert_eq!(runs.into_inner(), 5);
}

#[test]
fn a_panic_in_the_scope_closure_waits_for_submitted_launches() {
    let runs = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        Queue::new().scope(|s| {
            s.parallel(4, 1, |_: WorkGroup<1>| {
                std::thread::sleep(Duration::from_millis(5));
                runs.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            panic!("caller fails");
        })
    }));
    assert_eq!(
        *result.unwrap_err().downcast::<&str>().unwrap(),
        "caller fails"
    );
    assert_eq!(runs.into_inner(), 4);
}

#[test]
fn refused_launches_are_errors_at_submission_and_never_run() {
    let runs = AtomicUsize::new(0);
    let mut short = vec![0u8; 10];
    let value = Queue::new().scope(|s| {
        let zero = s.parallel(0, 4, |_: WorkGroup<1>| {
            runs.fetch_add(1, Ordering::Relaxed);
        });
        assert!(matches!(
            zero,
            Err(scoped::LaunchError::ZeroRange {
                name: "num_groups",
                ..
            })
        ));
        let too_short = s.parallel_with(4, 4, ItemsMut::new(&mut short), |_: WorkGroup<1>, _| {
            runs.fetch_add(1, Ordering::Relaxed);
        });
        assert!(matches!(
            too_short,
            Err(scoped::LaunchError::OutputTooShort {
                len: 10,
                needed: 16,
                ..
            })
        ));
        7
    });
    assert_eq!(value, 7);
    assert_eq!(runs.into_inner(), 0);
    assert_eq!(short, vec![0; 10]);
}

/// The scope's runner is a job of the queue's pool: on a pool of one
/// thread, and for a scope opened on one of the pool's own threads (where
/// that thread must run the runner itself), every launch still runs, in
/// order.
#[test]
fn scopes_run_on_one_thread_pools_and_from_inside_the_pool() {
    #[kernel]
    fn double_and_add(group: WorkGroup<1>, data: &[AtomicU64], step: u64) {
        distribute_items!(group, |idx| {
            let cell = &data[idx.global_linear_id()];
            cell.store(cell.load(Ordering::Relaxed) * 2 + step, Ordering::Relaxed);
        });
    }
    let run = |queue: &Queue| {
        let data: Vec<AtomicU64> = (0..512).map(|_| AtomicU64::new(1)).collect();
        queue.scope(|s| {
            for step in 0..5u64 {
                // Each launch doubles and adds its step: order matters.
                let data = &data;
                s.parallel(4, 128, move |g| double_and_add(g, data, step))
                    .unwrap();
            }
        });
        data.into_iter()
            .map(AtomicU64::into_inner)
            .collect::<Vec<_>>()
    };
    let mut expected = 1u64;
    for step in 0..5 {
        expected = expected * 2 + step;
    }
    let one = Queue::with_threads(1).unwrap();
    assert!(run(&one).iter().all(|&x| x == expected));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let inside = pool.install(|| run(&Queue::new()));
    assert!(inside.iter().all(|&x| x == expected));
    let two = Queue::with_threads(2).unwrap();
    let nested = one.scope(|_| run(&two));
    assert!(nested.iter().all(|&x| x == expected));
}
