//! The launch overhead: batches of launches of the empty kernel and of
//! rayon's empty `par_iter`, alternately.

use std::time::Duration;

use scoped::Queue;

use crate::kernels::launch_overhead;
use crate::measure::{median, median_ratio};
use crate::results::LaunchRow;

/// Launch overhead at `threads` threads: batches of launches of the empty
/// kernel and of rayon's empty `par_iter`, alternately.
pub(crate) fn measure_launch(threads: usize, runs: usize) -> Vec<LaunchRow> {
    const BATCH: usize = 200;
    // Both run on this one pool, entered from this thread every time: with
    // a pool each, the idle threads of the one that ran last still spin on
    // the cores while the other wakes up, which is most of a launch's few
    // microseconds. (A queue's own pool is a plain rayon pool: alternated
    // with one, it launches in the same time.) `Queue::new()` launches on
    // the pool it is called in.
    let queue = Queue::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    launch_overhead::GROUP_COUNTS
        .iter()
        .map(|&groups| {
            let (mut scoped, mut rayon, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            // One untimed round to wake the threads up.
            for round in 0..=runs {
                let scoped_batch = || {
                    launch_overhead::time_batch(BATCH, || {
                        pool.install(|| launch_overhead::scoped_launch(&queue, groups))
                    })
                };
                let rayon_batch = || {
                    launch_overhead::time_batch(BATCH, || {
                        pool.install(|| launch_overhead::rayon_launch(groups))
                    })
                };
                // Alternating which goes first, as for the kernels: the
                // pool that ran last may still be spinning on the cores.
                let (s, r) = if round % 2 == 0 {
                    let s = scoped_batch();
                    (s, rayon_batch())
                } else {
                    let r = rayon_batch();
                    (scoped_batch(), r)
                };
                if round > 0 {
                    scoped.push(s);
                    rayon.push(r);
                    ratios.push(s.as_secs_f64() / r.as_secs_f64());
                }
            }
            let (in_scope, scope_ratio) = measure_scope(threads, runs, groups);
            LaunchRow {
                groups,
                threads,
                scoped: median(&mut scoped),
                rayon: median(&mut rayon),
                ratio: median_ratio(&mut ratios),
                in_scope,
                scope_ratio,
            }
        })
        .collect()
}

/// Launches inside a `Queue::scope` against blocking ones, alternately, on
/// one queue with a pool of its own (a scope runs its launches from a
/// thread of its own, so on the queue's pool, not on the pool it is opened
/// in): the median in-scope time per launch and the median ratio.
fn measure_scope(threads: usize, runs: usize, groups: usize) -> (Duration, f64) {
    const BATCH: usize = 200;
    let queue = Queue::with_threads(threads).expect("queue");
    let (mut in_scope, mut ratios) = (Vec::new(), Vec::new());
    for round in 0..=runs {
        let blocking_batch = || {
            launch_overhead::time_batch(BATCH, || launch_overhead::scoped_launch(&queue, groups))
        };
        let scope_batch = || launch_overhead::time_scope_batch(BATCH, &queue, groups);
        let (b, s) = if round % 2 == 0 {
            let b = blocking_batch();
            (b, scope_batch())
        } else {
            let s = scope_batch();
            (blocking_batch(), s)
        };
        if round > 0 {
            in_scope.push(s);
            ratios.push(s.as_secs_f64() / b.as_secs_f64());
        }
    }
    (median(&mut in_scope), median_ratio(&mut ratios))
}
