//! The forms of `kernel_closure!`: typed and untyped groups, an explicit
//! sub-group size, `_`, a `move` closure, reducers typed as parameters,
//! and collectives at every level; it runs and checks its results.

use scoped::prelude::*;

fn main() {
    let queue = Queue::new();
    let mut out = vec![0usize; 64];
    queue
        .parallel_with(4, 16, ItemsMut::new(&mut out), kernel_closure!(|group: WorkGroup<1, 4>, mut out| {
            distribute_groups!(group, |sub| {
                distribute_items!(sub, |idx| out[idx] = sub.group_linear_id());
            });
        }))
        .unwrap();
    assert_eq!(out[15], 3);

    let mut sum = 0u64;
    let data: Vec<u64> = (0..64).collect();
    queue
        .parallel_with(
            4,
            16,
            reduction(&mut sum, plus()),
            kernel_closure!(move |group, mut sum: Reducer<'_, u64, Plus>| {
                memory_environment!(group, require_local_mem::<[u64; 1]>(), |local| {
                    distribute_items!(group, |idx| {
                        local[0] += data[idx.global_linear_id()];
                        sum += 1;
                    });
                    single_item!(group, || sum.combine(local[0]));
                });
            }),
        )
        .unwrap();
    assert_eq!(sum, 64 + (0..64).sum::<u64>());

    queue.parallel(2, 2, kernel_closure!(|_| {})).unwrap();
}
