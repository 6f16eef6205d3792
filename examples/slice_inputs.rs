//! Inputs as plain slices, read at the item's global id: the accessor of a
//! SYCL kernel, ported as written. `distribute_items!` checks each slice
//! once per item loop, so the loop below runs without a bounds check per
//! item and vectorises; a last group that reaches past a slice (the launch
//! is rounded up to whole groups, as SYCL code often does) runs its reads
//! as written, behind the `gid < n` guard. The kernel requires groups of
//! 256 items (`#[kernel(group_size = 256)]`), so its item loop has a
//! constant trip count and a launch of another group size is refused.

use scoped::prelude::*;
use scoped::LaunchError;

/// `out = a · √x + b` for the first `n` items, in groups of 256 items.
#[kernel(group_size = 256)]
fn scaled_roots(
    group: WorkGroup<1>,
    a: &[f32],
    x: &[f32],
    b: &[f32],
    mut out: ItemsWindow<'_, f32>,
) {
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        if gid < a.len() {
            out[idx] = a[gid] * x[gid].sqrt() + b[gid];
        }
    });
}

#[inline(never)]
fn run(
    queue: &Queue,
    a: &[f32],
    x: &[f32],
    b: &[f32],
    out: &mut [f32],
    group_size: usize,
) -> Result<(), LaunchError> {
    let groups = a.len().div_ceil(group_size);
    queue.parallel_with(groups, group_size, ItemsMut::new(out), |group, window| {
        scaled_roots(group, a, x, b, window)
    })
}

fn main() {
    let n: usize = 1_000_003;
    let a: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x: Vec<f32> = (0..n).map(|i| (i % 101) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
    // Room for every item of the rounded-up launch.
    let group_size = 256;
    let mut out = vec![f32::NAN; n.div_ceil(group_size) * group_size];
    let queue = Queue::new();
    // Another group size is refused before any item runs.
    let refused = run(&queue, &a, &x, &b, &mut out, 128).unwrap_err();
    assert!(
        matches!(refused, LaunchError::GroupSize { .. }),
        "{refused}"
    );
    assert!(out.iter().all(|v| v.is_nan()));
    run(&queue, &a, &x, &b, &mut out, group_size).expect("launch");
    for i in 0..n {
        assert_eq!(out[i], a[i] * x[i].sqrt() + b[i], "item {i}");
    }
    assert!(
        out[n..].iter().all(|v| v.is_nan()),
        "items past n are not written"
    );
    println!("slice_inputs: {n} items checked");
}
