//! `distribute_groups!` around a lone `distribute_items!` whose body uses
//! its lanes (one accumulator per lane, the sub-group named) runs through
//! `distribute_groups_lanes`: each result against a serial loop, at every
//! listed sub-group size, every level the CPU has, whole and partial
//! sub-groups, groups of one and two dimensions; and the forms that keep
//! the nested loops (a `move` item closure, the sub-groups of a sub-group).

use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering::Relaxed;

use scoped::prelude::*;
use scoped::Isa;

/// The levels this CPU runs.
fn levels() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
}

/// Per group: one sum per lane, then their total; per item, the order in
/// which it ran and its sub-group's id and size.
#[kernel]
fn lanes_1d<const S: usize>(
    group: WorkGroup<1, S>,
    input: &[i64],
    mut totals: ChunkWindow<'_, i64>,
    mut lane_sums: ChunkWindow<'_, i64>,
    mut seen: ItemsWindow<'_, [usize; 3]>,
) {
    memory_environment!(
        group,
        require_local_mem::<[i64; S]>(),
        require_local_mem::<[usize; 1]>(),
        |lanes, count| {
            distribute_groups!(group, |sub_group| {
                distribute_items!(sub_group, |idx| {
                    let lane = idx.innermost_local_id_dim(0);
                    lanes[lane] += input[idx.global_linear_id()] * (lane as i64 + 1);
                    seen[idx] = [
                        count[0],
                        sub_group.group_linear_id(),
                        sub_group.logical_local_linear_range(),
                    ];
                    count[0] += 1;
                });
            });
            single_item!(group, || {
                let g = group.group_linear_id();
                totals[g] = lanes.iter().sum();
                for (lane, &sum) in lanes.iter().enumerate() {
                    lane_sums[g * S + lane] = sum;
                }
            });
        }
    );
}

/// The serial loops: `(totals, lane sums, seen)` for groups of `size`.
fn lanes_reference(input: &[i64], size: usize, s: usize) -> (Vec<i64>, Vec<i64>, Vec<[usize; 3]>) {
    let (mut totals, mut lane_sums, mut seen) = (Vec::new(), Vec::new(), Vec::new());
    for group in input.chunks(size) {
        let mut lanes = vec![0; s];
        let mut count = 0;
        for (sub, sub_group) in group.chunks(s).enumerate() {
            for (lane, &x) in sub_group.iter().enumerate() {
                lanes[lane] += x * (lane as i64 + 1);
                seen.push([count, sub, sub_group.len()]);
                count += 1;
            }
        }
        totals.push(lanes.iter().sum());
        lane_sums.extend(lanes);
    }
    (totals, lane_sums, seen)
}

fn check_1d<const S: usize>() -> usize {
    // Whole blocks of sub-groups, sub-groups left over after them, a
    // partial sub-group, and fewer sub-groups than a block.
    for size in [128, 5 * S + 3, 40 * S + 1, S, 3] {
        let groups = 3;
        let input: Vec<i64> = (0..(groups * size) as i64)
            .map(|i| i * 7 % 23 - 11)
            .collect();
        let want = lanes_reference(&input, size, S);
        for isa in levels() {
            let (mut totals, mut lane_sums) = (vec![0; groups], vec![0; groups * S]);
            let mut seen = vec![[usize::MAX; 3]; input.len()];
            Queue::new()
                .with_isa(isa)
                .unwrap()
                .parallel_with(
                    groups,
                    size,
                    (
                        ChunksMut::new(&mut totals, 1),
                        ChunksMut::new(&mut lane_sums, S),
                        ItemsMut::new(&mut seen),
                    ),
                    |g, (t, l, v)| lanes_1d::<S>(g, &input, t, l, v),
                )
                .unwrap();
            let got = (totals, lane_sums, seen);
            assert!(got == want, "S = {S}, group of {size}, {isa}");
        }
    }
    S
}

#[test]
fn lane_sums_match_serial_loops_at_every_sub_group_size_and_level() {
    let tested = [
        check_1d::<1>(),
        check_1d::<2>(),
        check_1d::<4>(),
        check_1d::<8>(),
        check_1d::<16>(),
        check_1d::<32>(),
        check_1d::<64>(),
    ];
    assert_eq!(&tested[..], SUB_GROUP_SIZES);
}

/// The bench's shape: a required group size, one accumulator per lane.
#[kernel(group_size = 128)]
fn lanes_required<const S: usize>(
    group: WorkGroup<1, S>,
    (input, mut sums): (ItemsRefWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; S]>(), |lanes| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                lanes[idx.innermost_local_id_dim(0)] += input[idx];
            });
        });
        single_item!(group, || sums[group.group_linear_id()] = lanes.iter().sum());
    });
}

fn check_required<const S: usize>() {
    let input: Vec<i32> = (0..128 * 9).map(|i| i * 31 % 1001 - 500).collect();
    let want: Vec<i32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    for isa in levels() {
        let mut sums = vec![0; 9];
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(
                9,
                128,
                (ItemsRef::new(&input), ChunksMut::new(&mut sums, 1)),
                lanes_required::<S>,
            )
            .unwrap();
        assert_eq!(sums, want, "S = {S}, {isa}");
    }
}

#[test]
fn lane_sums_with_a_required_group_size_match_serial_sums() {
    check_required::<4>();
    check_required::<8>();
    check_required::<16>();
    check_required::<32>();
    check_required::<64>();
}

/// Two dimensions: sub-groups along the last, row by row.
#[kernel]
fn lanes_2d<const S: usize>(
    group: WorkGroup<2, S>,
    input: &[i64],
    mut out: ItemsWindow<'_, [i64; 2], 2>,
) {
    memory_environment!(group, require_local_mem::<[i64; S]>(), |lanes| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                let lane = idx.innermost_local_id_dim(1);
                lanes[lane] += input[idx.global_linear_id()];
                out[idx] = [lanes[lane], sub_group.group_linear_id() as i64];
            });
        });
    });
}

fn check_2d<const S: usize>() {
    let (rows, cols) = (3, 2 * S + 3);
    let groups = 2;
    let n = groups * rows * cols;
    let input: Vec<i64> = (0..n as i64).map(|i| i * 5 % 17 - 8).collect();
    // Group `g` covers rows `g * rows..` of a grid `cols` wide.
    let mut want = Vec::new();
    for group in input.chunks(rows * cols) {
        let mut lanes = vec![0; S];
        let sub_groups_per_row = cols.div_ceil(S);
        for (r, row) in group.chunks(cols).enumerate() {
            for (sub, sub_group) in row.chunks(S).enumerate() {
                for (lane, &x) in sub_group.iter().enumerate() {
                    lanes[lane] += x;
                    want.push([lanes[lane], (r * sub_groups_per_row + sub) as i64]);
                }
            }
        }
    }
    for isa in levels() {
        let mut out = vec![[0; 2]; n];
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(
                (groups, 1),
                (rows, cols),
                ItemsMut::new(&mut out),
                |g, o| lanes_2d::<S>(g, &input, o),
            )
            .unwrap();
        assert_eq!(out, want, "S = {S}, {isa}");
    }
}

#[test]
fn lanes_of_two_dimensional_groups_run_row_by_row() {
    check_2d::<1>();
    check_2d::<4>();
    check_2d::<16>();
    check_2d::<64>();
}

/// Fallbacks: a `move` item closure keeps the nested loops, and so do the
/// sub-groups of a sub-group (the default loop of `GroupLoops`).
#[kernel]
fn nested_forms<const S: usize>(
    group: WorkGroup<1, S>,
    input: &[i64],
    moved: &[AtomicI64],
    mut scalars: ItemsWindow<'_, i64>,
) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, move |idx| {
            let value = input[idx.global_linear_id()] * (sub_group.group_linear_id() as i64 + 1);
            moved[idx.global_linear_id()]
                .store(value + idx.innermost_local_id_dim(0) as i64, Relaxed);
        });
    });
    distribute_groups!(group, |sub_group| {
        distribute_groups!(sub_group, |scalar| {
            distribute_items!(scalar, |idx| {
                scalars[idx] = input[idx.global_linear_id()] + scalar.group_linear_id() as i64;
            });
        });
    });
}

fn check_nested<const S: usize>() {
    let size = 2 * S + 3;
    let input: Vec<i64> = (0..(2 * size) as i64).map(|i| i * 3 % 11 - 5).collect();
    let (mut want_moved, mut want_scalars) = (Vec::new(), Vec::new());
    for group in input.chunks(size) {
        for (sub, sub_group) in group.chunks(S).enumerate() {
            for (lane, &x) in sub_group.iter().enumerate() {
                want_moved.push(x * (sub as i64 + 1) + lane as i64);
                want_scalars.push(x + lane as i64);
            }
        }
    }
    for isa in levels() {
        let moved: Vec<AtomicI64> = (0..input.len()).map(|_| AtomicI64::new(0)).collect();
        let mut scalars = vec![0; input.len()];
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(2, size, ItemsMut::new(&mut scalars), |g, s| {
                nested_forms::<S>(g, &input, &moved, s)
            })
            .unwrap();
        let moved: Vec<i64> = moved.into_iter().map(AtomicI64::into_inner).collect();
        assert_eq!(moved, want_moved, "S = {S}, {isa}");
        assert_eq!(scalars, want_scalars, "S = {S}, {isa}");
    }
}

#[test]
fn move_closures_and_sub_groups_of_sub_groups_keep_the_nested_loops() {
    check_nested::<1>();
    check_nested::<4>();
    check_nested::<16>();
    check_nested::<64>();
}
