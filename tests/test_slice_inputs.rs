//! Shared-slice parameters read at the item's global id (the accessor
//! form): every read gives `slice[index]` and every out-of-range read
//! panics as indexing does, whether the slice covers the group or not,
//! against serial references.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;

#[kernel]
fn weighted_sum(group: WorkGroup<1>, a: &[i64], b: &[i64], mut out: ItemsWindow<'_, i64>) {
    distribute_items_and_wait!(group, |idx| {
        let gid = idx.global_linear_id();
        out[idx] = 3 * a[gid] + b[idx.global_id_dim(0)];
    });
}

/// A launch rounded up to whole groups, guarded as SYCL code is.
#[kernel]
fn guarded_copy(group: WorkGroup<1>, a: &[i64], mut out: ItemsWindow<'_, i64>) {
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        if gid < a.len() {
            out[idx] = a[gid];
        }
    });
}

/// No guard: the last group reads past the slice.
#[kernel]
fn unguarded_copy(group: WorkGroup<1>, a: &[i64], mut out: ItemsWindow<'_, i64>) {
    distribute_items!(group, |idx| out[idx] = a[idx.global_linear_id()]);
}

/// Elements that are not `Copy`, read by reference and by method.
#[kernel]
fn name_lengths(group: WorkGroup<1>, names: &[String], mut out: ItemsWindow<'_, usize>) {
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        let name: &String = &names[gid];
        out[idx] = names[gid].len() + name.len();
    });
}

/// Sub-group items, and a two-dimensional launch (where the shortcut reads
/// the slice as written).
#[kernel]
fn sub_group_copy(group: WorkGroup<1, 4>, a: &[i64], mut out: ItemsWindow<'_, i64>) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| out[idx] = a[idx.global_linear_id()]);
        single_item!(sub_group, || {});
    });
}

#[kernel]
fn copy_2d(group: WorkGroup<2>, a: &[i64], mut out: ItemsWindow<'_, i64, 2>) {
    distribute_items!(group, |idx| out[idx] = a[idx.global_linear_id()] - 1);
}

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn reads_at_the_global_id_give_the_slice_elements() {
    let n = 7 * 64;
    let (a, b) = (values(n), values(n + 5));
    let mut out = vec![0; n];
    Queue::new()
        .parallel_with(7, 64, ItemsMut::new(&mut out), |g, o| {
            weighted_sum(g, &a, &b, o)
        })
        .unwrap();
    let expected: Vec<i64> = (0..n).map(|i| 3 * a[i] + b[i]).collect();
    assert_eq!(out, expected);
}

#[test]
fn a_guarded_last_group_past_the_slice_runs_as_written() {
    let n = 1000;
    let a = values(n);
    let mut out = vec![-1; 4 * 256];
    Queue::new()
        .parallel_with(4, 256, ItemsMut::new(&mut out), |g, o| {
            guarded_copy(g, &a, o)
        })
        .unwrap();
    assert_eq!(out[..n], a[..]);
    assert!(
        out[n..].iter().all(|&v| v == -1),
        "items past the slice wrote"
    );
}

#[test]
fn an_unguarded_read_past_the_slice_panics_with_index_and_length() {
    let a = values(1000);
    let mut out = vec![-1; 4 * 256];
    let result = catch_unwind(AssertUnwindSafe(|| {
        Queue::with_threads(1)
            .unwrap()
            .parallel_with(4, 256, ItemsMut::new(&mut out), |g, o| {
                unguarded_copy(g, &a, o)
            })
    }));
    let message = message(&*result.expect_err("no panic"));
    assert_eq!(
        message,
        "index out of bounds: the len is 1000 but the index is 1000"
    );
    // The last group wrote its items up to the first bad read, in order.
    assert_eq!(out[768..1000], a[768..]);
    assert!(out[1000..].iter().all(|&v| v == -1));
}

#[test]
fn elements_are_read_in_place() {
    let names: Vec<String> = (0..96).map(|i| "x".repeat(i % 11)).collect();
    let mut out = vec![0; 96];
    Queue::new()
        .parallel_with(3, 32, ItemsMut::new(&mut out), |g, o| {
            name_lengths(g, &names, o)
        })
        .unwrap();
    let expected: Vec<usize> = names.iter().map(|s| 2 * s.len()).collect();
    assert_eq!(out, expected);
}

#[test]
fn sub_groups_and_two_dimensions_read_the_same_elements() {
    let a = values(6 * 10);
    let mut out = vec![0; 60];
    Queue::new()
        .parallel_with(6, 10, ItemsMut::new(&mut out), |g, o| {
            sub_group_copy(g, &a, o)
        })
        .unwrap();
    assert_eq!(out, a);

    let (rows, cols) = (6, 8);
    let mut out = vec![0; rows * cols];
    Queue::new()
        .parallel_with([2, 2], [3, 4], ItemsMut::new(&mut out), |g, o| {
            copy_2d(g, &a, o)
        })
        .unwrap();
    let expected: Vec<i64> = a[..rows * cols].iter().map(|v| v - 1).collect();
    assert_eq!(out, expected);
}
