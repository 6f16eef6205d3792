//! `#[group_function]` helpers: reusable steps that use collectives on the
//! group they receive, generic over the group type or for one group type,
//! called from kernels in the group's scope and inside `distribute_groups!`.

use scoped::prelude::*;
use scoped::DEFAULT_SUB_GROUP_SIZE;

/// Copies this group's items of `input` into `tile`, in local linear id
/// order, and waits.
#[group_function]
fn load_tile<G: ScopedGroup<1>>(group: G, input: &[f32], tile: &mut [f32]) {
    distribute_items_and_wait!(group, |idx| {
        tile[idx.local_linear_id(&group)] = input[idx.global_linear_id()];
    });
}

/// Doubles every element of the sub-group's part of `tile`.
#[group_function]
fn double_in_sub_group(
    sub_group: SubGroup<1, DEFAULT_SUB_GROUP_SIZE>,
    tile: &mut [f32],
    group: &WorkGroup<1>,
) {
    distribute_items!(sub_group, |idx| {
        tile[idx.local_linear_id(group)] *= 2.0;
    });
    group_barrier(sub_group);
}

/// The sum of `tile`, computed once for the group.
#[group_function]
fn tile_sum(group: impl ScopedGroup<1>, tile: &[f32]) -> f32 {
    single_item!(group, || tile.iter().sum())
}

#[kernel]
fn doubled_sums(group: WorkGroup<1>, input: &[f32], mut sums: ChunkWindow<'_, f32>) {
    local_memory_environment!(group, [f32; 12], |tile| {
        load_tile(group, input, &mut tile[..]);
        distribute_groups_and_wait!(group, |sub_group| {
            double_in_sub_group(sub_group, &mut tile[..], &group);
        });
        sums[group.group_linear_id()] = tile_sum(group, &tile[..]);
    });
}

fn main() {
    let input: Vec<f32> = (0..36).map(|i| i as f32).collect();
    let mut sums = vec![0.0f32; 3];
    Queue::new()
        .parallel_with(3, 12, ChunksMut::new(&mut sums, 1), |g, window| {
            doubled_sums(g, &input, window)
        })
        .unwrap();
    let expected: Vec<f32> = input
        .chunks(12)
        .map(|c| 2.0 * c.iter().sum::<f32>())
        .collect();
    assert_eq!(sums, expected);
}
