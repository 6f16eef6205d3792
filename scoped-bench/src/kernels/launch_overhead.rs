//! Launch overhead: the time to launch an empty kernel of 1 or 1024 work
//! groups, against rayon's `par_iter` over the same count with an empty
//! body.

use std::hint::black_box;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use scoped::prelude::*;

/// The group counts measured.
pub(crate) const GROUP_COUNTS: [usize; 2] = [1, 1024];

#[kernel]
fn empty(group: WorkGroup<1>) {
    black_box(group.group_linear_id());
}

/// One launch of the empty kernel: `groups` work groups of one item.
pub(crate) fn scoped_launch(queue: &Queue, groups: usize) {
    queue.parallel(groups, 1, empty).expect("empty launch");
}

/// Mean time of one launch of the empty kernel over `batch` launches
/// submitted inside one `Queue::scope`, from its start to its end.
pub(crate) fn time_scope_batch(batch: usize, queue: &Queue, groups: usize) -> Duration {
    let start = Instant::now();
    queue.scope(|s| {
        for _ in 0..batch {
            s.parallel(groups, 1, empty).expect("empty launch");
        }
    });
    start.elapsed() / batch as u32
}

/// The peer: `(0..groups).into_par_iter().for_each(...)` with an empty
/// body, on the current rayon pool.
pub(crate) fn rayon_launch(groups: usize) {
    (0..groups).into_par_iter().for_each(|i| {
        black_box(i);
    });
}

/// Mean time of one call of `launch` over a batch of `batch` calls.
pub(crate) fn time_batch(batch: usize, mut launch: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..batch {
        launch();
    }
    start.elapsed() / batch as u32
}
