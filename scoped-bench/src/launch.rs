//! The launch overhead: batches of launches of the empty kernel and of
//! rayon's empty `par_iter`, alternately.

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
            LaunchRow {
                groups,
                threads,
                scoped: median(&mut scoped),
                rayon: median(&mut rayon),
                ratio: median_ratio(&mut ratios),
            }
        })
        .collect()
}
