//! Per-item windows indexed by the item's global id (SYCL's
//! `acc[item.get_global_id()]`), which the lowering reaches through the
//! item: every read and write gives what indexing by that id gives, at
//! every level, against serial references; where the id is not the
//! window's group's, it panics or writes as the plain loop does.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use scoped::prelude::*;
use scoped::Isa;

/// The spec's staging, read and written in place: each item doubles its
/// element, adds its neighbour's in local memory, and keeps a copy in
/// private memory.
#[kernel]
fn stage_and_update(
    group: WorkGroup<1>,
    input: ItemsRefWindow<'_, i64>,
    mut data: ItemsWindow<'_, i64>,
) {
    assert_eq!(group.logical_local_range_dim(0), 32);
    memory_environment!(
        group,
        require_local_mem::<[i64; 32]>(),
        require_private_mem::<i64>(),
        |scratch, private_mem| {
            distribute_items_and_wait!(group, |idx| {
                scratch[idx.local_id_dim(&group, 0)] = data[idx.global_id_dim(0)];
                private_mem[idx] = input[idx.global_linear_id()];
            });
            distribute_items!(group, |idx| {
                let gid = idx.global_linear_id();
                let lid = idx.local_id_dim(&group, 0);
                data[gid] = 2 * data[gid] + scratch[(lid + 1) % 32] + private_mem[idx];
                data[idx.global_id()] += 1;
            });
        }
    );
}

/// Two dimensions, by `Id`, in sub-groups.
#[kernel]
fn scale_2d(
    group: WorkGroup<2, 4>,
    input: ItemsRefWindow<'_, f32, 2>,
    mut out: ItemsWindow<'_, f32, 2>,
) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| {
            let id = idx.global_id();
            out[id] = input[idx.global_id()] * 0.5 + id[0] as f32;
        });
    });
}

/// An inner loop the same for every item (run interchanged, the items in
/// the lanes), its input and output windows at the global id.
#[allow(clippy::needless_range_loop)] // the GPU form, as written
#[kernel(group_size = 16)]
fn weighted_by_gid(
    group: WorkGroup<1>,
    w: &[f32],
    x: ItemsRefWindow<'_, f32>,
    mut out: ItemsWindow<'_, f32>,
) {
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        let mut s = 0.0f32;
        for k in 0..w.len() {
            s += w[k] * x[gid] + k as f32;
        }
        out[gid] = s;
    });
}

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

fn staged_reference(input: &[i64], data: &[i64]) -> Vec<i64> {
    (0..data.len())
        .map(|g| {
            let (group, lid) = (g / 32, g % 32);
            2 * data[g] + data[group * 32 + (lid + 1) % 32] + input[g] + 1
        })
        .collect()
}

#[test]
fn windows_at_the_global_id_match_a_serial_loop_at_every_level() {
    let n = 9 * 32;
    let (input, original) = (values(n), values(n + 3)[3..].to_vec());
    let expected = staged_reference(&input, &original);
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut data = original.clone();
        let args = (ItemsRef::new(&input), ItemsMut::new(&mut data));
        queue
            .parallel_with(9, 32, args, |g, (i, d)| stage_and_update(g, i, d))
            .unwrap();
        assert_eq!(data, expected, "level {isa}");
    }
}

#[test]
fn two_dimensional_windows_by_id_match_a_serial_loop() {
    let (rows, cols) = (6, 24);
    let input: Vec<f32> = (0..rows * cols).map(|i| (i % 13) as f32 - 4.0).collect();
    let expected: Vec<f32> = input
        .iter()
        .enumerate()
        .map(|(k, x)| x * 0.5 + (k / cols) as f32)
        .collect();
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let mut out = vec![f32::NAN; rows * cols];
        let args = (ItemsRef::new(&input), ItemsMut::new(&mut out));
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with((3, 2), (2, 12), args, |g, (i, o)| scale_2d(g, i, o))
            .unwrap();
        assert_eq!(out, expected, "level {isa}");
    }
}

#[test]
fn interchanged_loops_with_windows_at_the_global_id_match_a_serial_loop() {
    let w: Vec<f32> = (0..37).map(|k| (k % 5) as f32 - 1.5).collect();
    let x: Vec<f32> = (0..5 * 16).map(|i| (i % 9) as f32 * 0.25).collect();
    let expected: Vec<f32> = x
        .iter()
        .map(|&x| {
            let mut s = 0.0f32;
            for (k, w) in w.iter().enumerate() {
                s += w * x + k as f32;
            }
            s
        })
        .collect();
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let mut out = vec![f32::NAN; x.len()];
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(
                5,
                16,
                (ItemsRef::new(&x), ItemsMut::new(&mut out)),
                |g, (x, o)| weighted_by_gid(g, &w, x, o),
            )
            .unwrap();
        assert_eq!(out, expected, "level {isa}");
    }
}

/// Writes `other` (an outer launch's window) at the item's global id.
#[kernel]
fn write_other_at_global_id(group: WorkGroup<1>, other: &mut ItemsWindow<'_, i32>) {
    distribute_items!(group, |idx| other[idx.global_linear_id()] = 4);
}

fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the launch must panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("the panic has a message")
}

/// Runs `write_other_at_global_id` in a launch of `inner_groups` groups
/// of 16 inside a launch of one group of 16, on that group's window.
fn write_into_outer_window(inner_groups: usize) -> Vec<i32> {
    let queue = Queue::with_threads(1).unwrap();
    let mut outer = vec![0; 16];
    queue
        .parallel_with(
            1,
            16,
            ItemsMut::new(&mut outer),
            |_: WorkGroup<1>, other| {
                let other = Mutex::new(other);
                queue
                    .parallel(inner_groups, 16, |g| {
                        write_other_at_global_id(g, &mut other.lock().unwrap())
                    })
                    .unwrap();
            },
        )
        .unwrap();
    outer
}

#[test]
fn a_window_of_another_launch_is_indexed_as_written() {
    // The inner items' global ids 0..16 lie in the outer window: written
    // as by `other[gid]`, where `other[idx]` would have panicked.
    assert_eq!(write_into_outer_window(1), vec![4; 16]);
    // Ids 16.. do not: the plain loop's panic.
    let message = panic_message(|| {
        write_into_outer_window(2);
    });
    assert_eq!(
        message,
        "global id 16 is outside this work group's window of ItemsMut (global ids 0 ..= 15), or \
         is an item of another launch"
    );
}
