//! Run-time-sized local memory, `require_local_mem_slice::<T>(len)` (SYCL
//! 2020 `local_accessor<T, 1>` with a run-time range), and compile-time
//! sized local memory in const-generic kernels.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;
use scoped::{LOCAL_SLICE_STACK_BYTES, MAX_LOCAL_MEM_SLICE_BYTES};

/// Each group sums its chunk of `input` by staging `tile` elements at a
/// time in local memory: the items load the tile in a strided loop, then
/// one item adds it up. `tile` is a run-time value.
#[kernel]
fn tiled_sum(group: WorkGroup<1>, input: &[f64], tile: usize, mut sums: ChunkWindow<'_, f64>) {
    let chunk = input.len() / group.group_range_dim(0);
    let start = group.group_linear_id() * chunk;
    let size = group.logical_local_range_dim(0);
    memory_environment!(group, require_local_mem_slice::<f64>(tile), |staged| {
        let mut base = 0;
        while base < chunk {
            let n = tile.min(chunk - base);
            distribute_items!(group, |idx| {
                let mut i = idx.innermost_local_linear_id();
                while i < n {
                    staged[i] = input[start + base + i];
                    i += size;
                }
            });
            single_item!(group, || {
                sums[group.group_linear_id()] += staged[..n].iter().sum::<f64>();
            });
            base += tile;
        }
    });
}

fn check_tiled_sum(tile: usize) {
    let (groups, chunk) = (6, 10_000);
    let input: Vec<f64> = (0..groups * chunk).map(|i| (i % 97) as f64 * 0.5).collect();
    let mut sums = vec![0.0; groups];
    Queue::new()
        .parallel_with(groups, 32, ChunksMut::new(&mut sums, 1), |g, w| {
            tiled_sum(g, &input, tile, w)
        })
        .unwrap();
    for (group, &sum) in sums.iter().enumerate() {
        // The same association as the kernel: tile by tile.
        let expected = input[group * chunk..(group + 1) * chunk]
            .chunks(tile)
            .fold(0.0, |acc, t| acc + t.iter().sum::<f64>());
        assert_eq!(sum, expected, "group {group}, tile {tile}");
    }
}

#[test]
fn tiled_sum_with_a_run_time_tile_on_the_stack() {
    for tile in [1, 7, 100, LOCAL_SLICE_STACK_BYTES / 8] {
        check_tiled_sum(tile);
    }
}

#[test]
fn tiled_sum_with_a_large_tile_in_the_arena() {
    // 4097 and 3000 f64s do not fit in the stack room: arena blocks, reused
    // by the groups each thread runs.
    for tile in [LOCAL_SLICE_STACK_BYTES / 8 + 1, 3000, 10_000] {
        check_tiled_sum(tile);
    }
}

/// Every group finds its slices at their initial values (zero, and
/// `init`), although a reused arena block held the previous group's
/// values; two large slices of one environment do not overlap.
#[kernel]
fn fresh_per_group(group: WorkGroup<1>, len: usize, mut out: ChunkWindow<'_, u32>) {
    memory_environment!(
        group,
        require_local_mem_slice::<u32>(len),
        require_local_mem_slice::<u32>(len, 5),
        |zeroed, filled: &mut [u32]| {
            single_item!(group, || {
                let g = group.group_linear_id();
                let fresh = zeroed.len() == len
                    && filled.len() == len
                    && zeroed.iter().all(|&x| x == 0)
                    && filled.iter().all(|&x| x == 5);
                zeroed.fill(100 + g as u32);
                filled.fill(200 + g as u32);
                let apart = zeroed.iter().all(|&x| x == 100 + g as u32);
                out[g] = u32::from(fresh) + 2 * u32::from(apart);
            });
        }
    );
}

#[test]
fn slices_start_fresh_in_every_group_and_do_not_overlap() {
    for len in [0, 3, 1024, 1025, 50_000] {
        let groups = 40;
        let mut out = vec![0; groups];
        Queue::with_threads(2)
            .unwrap()
            .parallel_with(groups, 4, ChunksMut::new(&mut out, 1), |g, w| {
                fresh_per_group(g, len, w)
            })
            .unwrap();
        assert_eq!(out, vec![3; groups], "len {len}");
    }
}

/// Slices on sub-groups, nested in a work-group environment, as with
/// `require_local_mem`: each sub-group reverses its own items' values.
#[kernel]
fn reverse_sub_groups(group: WorkGroup<1, 4>, input: &[i32], mut out: ItemsWindow<'_, i32>) {
    distribute_groups!(group, |sg| {
        let n = sg.logical_local_range_dim(0);
        memory_environment!(sg, require_local_mem_slice::<i32>(n), |values| {
            distribute_items!(sg, |idx| {
                values[idx.innermost_local_linear_id()] = input[idx.global_linear_id()];
            });
            distribute_items!(sg, |idx| {
                out[idx] = values[n - 1 - idx.innermost_local_linear_id()];
            });
        });
    });
}

#[test]
fn slices_on_sub_groups_with_a_partial_last_one() {
    let input: Vec<i32> = (0..22).collect();
    let mut out = vec![0; 22];
    Queue::new()
        .parallel_with(2, 11, ItemsMut::new(&mut out), |g, w| {
            reverse_sub_groups(g, &input, w)
        })
        .unwrap();
    // Sub-groups of 4, 4 and 3 items in each group of 11.
    let mut expected = Vec::new();
    for group in input.chunks(11) {
        for sub_group in group.chunks(4) {
            expected.extend(sub_group.iter().rev());
        }
    }
    assert_eq!(out, expected);
}

#[kernel]
fn asks_for(group: WorkGroup<1>, len: usize) {
    memory_environment!(group, require_local_mem_slice::<f32>(len), |x| {
        single_item!(group, || x.fill(1.0));
    });
}

#[test]
fn a_request_above_the_limit_panics_naming_the_size_and_the_queue_stays_usable() {
    let queue = Queue::new();
    let len = MAX_LOCAL_MEM_SLICE_BYTES / 4 + 1;
    let panic = catch_unwind(AssertUnwindSafe(|| {
        queue.parallel(2, 8, |g| asks_for(g, len)).unwrap();
    }))
    .expect_err("the launch panics");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains(&format!("{len} elements of 4 bytes exceed")),
        "{message}"
    );
    queue.parallel(2, 8, |g| asks_for(g, 1000)).unwrap();
}

// ---------------------------------------------------------------------------
// Const-generic kernels: compile-time local memory sized by a parameter.

/// Sums each group's items through a local `[f32; N]`, `N` the group size
/// the kernel is instantiated for.
#[kernel]
fn group_sums<const N: usize>(group: WorkGroup<1>, input: &[f32], mut sums: ChunkWindow<'_, f32>) {
    assert_eq!(group.logical_local_range_dim(0), N);
    memory_environment!(group, require_local_mem::<[f32; N]>(), |values| {
        distribute_items!(group, |idx| {
            values[idx.innermost_local_linear_id()] = input[idx.global_linear_id()];
        });
        single_item!(group, || {
            sums[group.group_linear_id()] = values.iter().sum();
        });
    });
}

fn check_group_sums<const N: usize>() {
    let groups = 5;
    let input: Vec<f32> = (0..groups * N).map(|i| (i % 13) as f32).collect();
    let mut sums = vec![0.0; groups];
    Queue::new()
        .parallel_with(groups, N, ChunksMut::new(&mut sums, 1), |g, w| {
            group_sums::<N>(g, &input, w)
        })
        .unwrap();
    let expected: Vec<f32> = input.chunks(N).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, expected, "N = {N}");
}

#[test]
fn const_generic_kernels_size_local_memory() {
    check_group_sums::<1>();
    check_group_sums::<8>();
    check_group_sums::<100>();
    check_group_sums::<4096>();
}
