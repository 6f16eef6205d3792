//! The reduction kernel of the scoped-parallelism spec (scoped
//! parallelism v2, "Example code"), the main job's own kernel
//! (`examples/reduction/kernel.rs`), at small sizes: each work group of 128
//! items leaves the sum of its inputs in its first element and every other
//! element unchanged. Checked against a serial loop. That it compiles
//! shows that the nesting-rule checks accept the spec's own example.

use scoped::prelude::*;

#[path = "../examples/reduction/kernel.rs"]
mod kernel;

use kernel::{reduce, GROUP_SIZE};

/// Runs the spec's reduction over `input` on `queue` and checks every
/// element against a serial loop: group sums in the first element of each
/// group, the other elements as they were.
fn check(queue: &Queue, input: &[i32]) {
    assert_eq!(input.len() % GROUP_SIZE, 0);
    let groups = input.len() / GROUP_SIZE;
    let mut data = input.to_vec();
    queue
        .parallel_with(groups, GROUP_SIZE, ItemsMut::new(&mut data), reduce)
        .unwrap();
    for group in 0..groups {
        let mut sum = 0i32;
        for value in &input[group * GROUP_SIZE..(group + 1) * GROUP_SIZE] {
            sum += value;
        }
        assert_eq!(data[group * GROUP_SIZE], sum, "sum of group {group}");
        for i in group * GROUP_SIZE + 1..(group + 1) * GROUP_SIZE {
            assert_eq!(data[i], input[i], "element {i} must be left unchanged");
        }
    }
}

fn ascending(n: usize) -> Vec<i32> {
    (0..n as i32).collect()
}

/// Inputs in -1000..=1000 from a multiplicative hash (as the example).
fn mixed(n: usize) -> Vec<i32> {
    (0..n)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 7) % 2001) as i32 - 1000)
        .collect()
}

#[test]
fn spec_reduction_of_0_to_1024_in_groups_of_128() {
    let input = ascending(1024);
    check(&Queue::new(), &input);
    // The closed form as a cross-check of the serial loop: group g sums
    // 128 g * 128 + (0 + ... + 127).
    let mut data = input.clone();
    Queue::new()
        .parallel_with(8, GROUP_SIZE, ItemsMut::new(&mut data), reduce)
        .unwrap();
    for g in 0..8 {
        let expected = (128 * g * 128 + 127 * 128 / 2) as i32;
        assert_eq!(data[g * 128], expected);
    }
}

#[test]
fn spec_reduction_on_two_threads() {
    let queue = Queue::with_threads(2).unwrap();
    check(&queue, &ascending(1024));
    // The same queue again, reusing its threads' memory.
    check(&queue, &mixed(1024));
}

#[test]
fn spec_reduction_of_mixed_signs_on_one_thread() {
    let queue = Queue::with_threads(1).unwrap();
    check(&queue, &mixed(4096));
}

#[test]
fn spec_reduction_of_one_group() {
    check(&Queue::new(), &mixed(GROUP_SIZE));
}
