//! Kernels written as closures at their launch (`kernel_closure!`), and
//! kernels generic over the sub-group size launched without naming it;
//! each checked against a serial loop.

use scoped::prelude::*;
use scoped::DEFAULT_SUB_GROUP_SIZE;

/// Each group's sum of squares of its items, through local memory.
#[test]
fn kernel_closure_matches_a_serial_loop() {
    let input: Vec<i64> = (0..1000).map(|i| (i * 7919) % 103 - 50).collect();
    let mut sums = vec![0i64; 10];
    Queue::new()
        .parallel_with(
            10,
            100,
            ChunksMut::new(&mut sums, 1),
            kernel_closure!(|group: WorkGroup<1>, mut sums| {
                memory_environment!(group, require_local_mem::<[i64; 1]>(), |total| {
                    distribute_items!(group, |idx| {
                        let x = input[idx.global_linear_id()];
                        total[0] += x * x;
                    });
                    single_item!(group, || sums[group.group_linear_id()] = total[0]);
                });
            }),
        )
        .unwrap();
    let expected: Vec<i64> = input
        .chunks(100)
        .map(|c| c.iter().map(|x| x * x).sum())
        .collect();
    assert_eq!(sums, expected);
}

fn sub_groups_of<const D: usize, const S: usize>(_: &WorkGroup<D, S>) -> usize {
    S
}

/// An untyped group has the default sub-group size; sub-groups cover the
/// group's items once, in order.
#[test]
fn untyped_group_gets_the_default_sub_group_size() {
    let mut out = vec![usize::MAX; 3 * 37];
    let mut sizes = vec![0usize; 3];
    Queue::new()
        .parallel_with(
            3,
            37,
            (ItemsMut::new(&mut out), ChunksMut::new(&mut sizes, 1)),
            kernel_closure!(|group, (mut out, mut sizes)| {
                distribute_groups!(group, |sub| {
                    distribute_items!(sub, |idx| {
                        out[idx] = sub.group_linear_id();
                    });
                });
                single_item!(group, || {
                    sizes[group.group_linear_id()] = sub_groups_of(&group);
                });
            }),
        )
        .unwrap();
    let s = DEFAULT_SUB_GROUP_SIZE;
    assert_eq!(sizes, vec![s; 3]);
    let expected: Vec<usize> = (0..3 * 37).map(|i| (i % 37) / s).collect();
    assert_eq!(out, expected);
}

/// `kernel_closure!` in a plain `parallel`, with an untyped group.
#[test]
fn kernel_closure_in_parallel() {
    let hits: Vec<std::sync::atomic::AtomicUsize> = (0..64).map(|_| Default::default()).collect();
    Queue::new()
        .parallel(
            8,
            8,
            kernel_closure!(|g| {
                distribute_items!(g, |idx| {
                    hits[idx.global_linear_id()].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                });
            }),
        )
        .unwrap();
    assert!(hits
        .iter()
        .all(|h| h.load(std::sync::atomic::Ordering::Relaxed) == 1));
}

/// A kernel generic over the sub-group size.
#[kernel]
fn sub_group_ids<const S: usize>(group: WorkGroup<1, S>, mut out: ItemsWindow<'_, usize>) {
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| out[idx] = sub.group_linear_id() * 1000 + S);
    });
}

fn expected_ids(groups: usize, size: usize, s: usize) -> Vec<usize> {
    (0..groups * size)
        .map(|i| (i % size) / s * 1000 + s)
        .collect()
}

/// `|g: WorkGroup<_>, w|` infers the dimension and takes the default
/// sub-group size; `WorkGroup<_, 4>` names only the size.
#[test]
fn generic_sub_group_size_is_fixed_at_the_launch() {
    let mut out = vec![0; 2 * 20];
    Queue::new()
        .parallel_with(2, 20, ItemsMut::new(&mut out), |g: WorkGroup<_>, w| {
            sub_group_ids(g, w)
        })
        .unwrap();
    assert_eq!(out, expected_ids(2, 20, DEFAULT_SUB_GROUP_SIZE));
    Queue::new()
        .parallel_with(2, 20, ItemsMut::new(&mut out), |g: WorkGroup<_, 4>, w| {
            sub_group_ids(g, w)
        })
        .unwrap();
    assert_eq!(out, expected_ids(2, 20, 4));
}
