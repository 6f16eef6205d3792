//! The sub-group shapes of the benchmark suite at sub-group sizes 16 and
//! 32, at every instruction-set level this CPU has, against serial loops:
//! per-item sums in private memory carried across a loop of the
//! sub-group's (`n`-body's private form, lowered to blocks of 16 items
//! whatever `S`: tested at every size, with partial blocks and sub-groups,
//! and in 2-D), a loop inside the item of a sub-group (its sub-group
//! form), one accumulator per lane in local memory, a fused sub-group loop
//! writing an output, and a scan sub-group by sub-group. Their item loops
//! index windows and private memory by item, the checks of which release
//! builds reduce to the group tag; the looped form still checks the
//! nesting rules.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;
use scoped::{joint_inclusive_scan_with_init, plus, Isa};

/// Items per work group.
const GROUP: usize = 128;
const GROUPS: usize = 6;
/// Bodies `j` per tile of the n-body shapes.
const TILE: usize = 32;

/// The levels this CPU has, lowest first.
fn supported() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
}

fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|i| {
            let x = (i ^ seed).wrapping_mul(0x9E37_79B9).rotate_left(13) ^ seed;
            (x >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

/// What body `j` adds to the accumulators of body `i`, `mul_add`-fused as
/// in every version, so that results are bit for bit the same.
#[inline(always)]
fn interaction(xi: f32, yi: f32, xj: f32, yj: f32) -> [f32; 2] {
    let (dx, dy) = (xj - xi, yj - yi);
    let inv = 1.0 / dx.mul_add(dx, dy.mul_add(dy, 1e-2)).sqrt();
    [dx * inv, dy * inv]
}

/// The n-body accumulations of every item against the first `TILE`
/// bodies of its own group, in increasing `j`.
fn nbody_reference(x: &[f32], y: &[f32]) -> Vec<[f32; 2]> {
    (0..x.len())
        .map(|i| {
            let first = i / GROUP * GROUP;
            let mut sum = [0.0f32; 2];
            for j in first..first + TILE {
                let d = interaction(x[i], y[i], x[j], y[j]);
                sum = [sum[0] + d[0], sum[1] + d[1]];
            }
            sum
        })
        .collect()
}

/// n-body's private form: a `j` loop in sub-group scope, one
/// `distribute_items!` per body, sums in work-group private memory.
#[kernel]
fn private_sums<const S: usize>(
    group: WorkGroup<1, S>,
    (x, y, mut out): (
        ItemsRefWindow<'_, f32>,
        ItemsRefWindow<'_, f32>,
        ItemsWindow<'_, [f32; 2]>,
    ),
) {
    let first = group.group_linear_id() * GROUP;
    let (xs, ys) = (&x.as_slice()[first..], &y.as_slice()[first..]);
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |sx, sy| {
            distribute_groups!(group, |sub_group| {
                for j in 0..TILE {
                    distribute_items!(sub_group, |idx| {
                        let d = interaction(x[idx], y[idx], xs[j], ys[j]);
                        sx[idx] += d[0];
                        sy[idx] += d[1];
                    });
                }
            });
            distribute_items!(group, |idx| out[idx] = [sx[idx], sy[idx]]);
        }
    );
}

/// n-body's sub-group form: the `j` loop inside each item of a sub-group,
/// its sums local memory indexed by the item's id in the work group.
#[kernel]
fn item_loop_sums<const S: usize>(
    group: WorkGroup<1, S>,
    (x, y, mut out): (
        ItemsRefWindow<'_, f32>,
        ItemsRefWindow<'_, f32>,
        ItemsWindow<'_, [f32; 2]>,
    ),
) {
    assert_eq!(group.logical_local_range_dim(0), GROUP);
    let first = group.group_linear_id() * GROUP;
    let (xs, ys) = (&x.as_slice()[first..], &y.as_slice()[first..]);
    memory_environment!(group, require_local_mem::<[[f32; 2]; GROUP]>(), |sums| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                let i = idx.local_id_dim(&group, 0);
                let mut sum = [0.0f32; 2];
                for j in 0..TILE {
                    let d = interaction(x[idx], y[idx], xs[j], ys[j]);
                    sum = [sum[0] + d[0], sum[1] + d[1]];
                }
                sums[i] = sum;
            });
        });
        distribute_items!(group, |idx| out[idx] = sums[idx.local_id_dim(&group, 0)]);
    });
}

fn nbody<const S: usize>() {
    let n = GROUPS * GROUP;
    let (x, y) = (floats(n, 3), floats(n, 5));
    let expected = nbody_reference(&x, &y);
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        for private in [true, false] {
            let mut out = vec![[f32::NAN; 2]; n];
            let args = (
                ItemsRef::new(&x),
                ItemsRef::new(&y),
                ItemsMut::new(&mut out),
            );
            if private {
                queue.parallel_with(GROUPS, GROUP, args, private_sums::<S>)
            } else {
                queue.parallel_with(GROUPS, GROUP, args, item_loop_sums::<S>)
            }
            .unwrap();
            for (i, (got, want)) in out.iter().zip(&expected).enumerate() {
                assert_eq!(
                    got.map(f32::to_bits),
                    want.map(f32::to_bits),
                    "S = {S}, level {isa}, private {private}, item {i}: {got:?} against {want:?}"
                );
            }
        }
    }
}

#[test]
fn nbody_shapes_match_a_serial_loop_at_16_and_32_at_every_level() {
    nbody::<16>();
    nbody::<32>();
}

#[test]
fn the_looped_private_form_matches_a_serial_loop_at_every_size() {
    nbody::<4>();
    nbody::<8>();
    nbody::<64>();
    // Sizes that neither divide a block of 16 nor are divided by it.
    nbody::<12>();
    nbody::<24>();
}

/// The private form in 2-D, over groups whose rows end in a partial block
/// and a partial sub-group: every item adds `w[j] * (its value + j)` for
/// `j` in `0..k`, and records how many `j` it met.
#[kernel]
fn looped_2d<const S: usize>(
    group: WorkGroup<2, S>,
    weights: &[i64],
    k: usize,
    (input, mut out): (ItemsRefWindow<'_, i64, 2>, ItemsWindow<'_, (i64, usize), 2>),
) {
    memory_environment!(
        group,
        require_private_mem::<i64>(),
        require_private_mem::<usize>(),
        |sum, met| {
            distribute_groups!(group, |sub_group| {
                for j in 0..k {
                    distribute_items!(sub_group, |idx| {
                        sum[idx] += weights[j] * (input[idx] + j as i64);
                        met[idx] += 1;
                    });
                }
            });
            distribute_items!(group, |idx| out[idx] = (sum[idx], met[idx]));
        }
    );
}

fn looped_2d_at<const S: usize>() {
    // Groups of 3 × 37 items, 2 × 3 of them: 37 = 2 blocks of 16 and 5.
    let (groups, size) = (Range::new([2, 3]), Range::new([3, 37]));
    let (rows, columns) = (6, 111);
    let input: Vec<i64> = (0..(rows * columns) as i64)
        .map(|i| i * 31 % 97 - 40)
        .collect();
    let weights: Vec<i64> = (0..9).map(|j| 3 - j).collect();
    let k = weights.len();
    let expected: Vec<(i64, usize)> = input
        .iter()
        .map(|&x| ((0..k).map(|j| weights[j] * (x + j as i64)).sum(), k))
        .collect();
    for isa in supported() {
        let mut out = vec![(0, 0); rows * columns];
        let args = (ItemsRef::new(&input), ItemsMut::new(&mut out));
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(groups, size, args, |g, a| looped_2d::<S>(g, &weights, k, a))
            .unwrap();
        assert_eq!(out, expected, "S = {S}, level {isa}");
    }
}

#[test]
fn the_looped_form_matches_a_serial_loop_in_2d_with_partial_blocks() {
    looped_2d_at::<4>();
    looped_2d_at::<16>();
    looped_2d_at::<32>();
}

/// Calls a collective from a helper inside the looped form's items.
#[group_function]
fn barrier_helper<G: ScopedGroup<1>>(group: G) {
    group_barrier(group);
}

#[kernel]
fn collective_in_looped_items(group: WorkGroup<1, 16>) {
    distribute_groups!(group, |sub_group| {
        for _ in 0..2 {
            distribute_items!(sub_group, |_idx| barrier_helper(group));
        }
    });
}

#[test]
fn the_looped_form_keeps_the_run_time_nesting_check() {
    let payload = catch_unwind(AssertUnwindSafe(|| {
        Queue::new()
            .parallel(1, 32, collective_in_looped_items)
            .unwrap();
    }))
    .expect_err("the launch must panic");
    let message = payload.downcast::<String>().map(|m| *m).unwrap_or_default();
    assert!(message.contains("rule 2"), "{message}");
}

/// One accumulator per lane in local memory, summed at the end, and the
/// same elements as a fused sub-group loop writing their doubles.
#[kernel]
fn lanes_and_fused<const S: usize>(
    group: WorkGroup<1, S>,
    (input, mut doubled, mut sums): (
        ItemsRefWindow<'_, i64>,
        ItemsWindow<'_, i64>,
        ChunkWindow<'_, i64>,
    ),
) {
    assert_eq!(group.logical_local_range_dim(0), GROUP);
    memory_environment!(group, require_local_mem::<[i64; S]>(), |lanes| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                lanes[idx.innermost_local_id_dim(0)] += input[idx];
            });
        });
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| doubled[idx] = 2 * input[idx]);
        });
        single_item!(group, || sums[group.group_linear_id()] = lanes.iter().sum());
    });
}

/// An inclusive scan of the group's elements, sub-group by sub-group, each
/// starting from the total of the ones before it.
#[kernel]
fn scan_by_sub_groups<const S: usize>(
    group: WorkGroup<1, S>,
    (input, mut out): (ItemsRefWindow<'_, i64>, ItemsWindow<'_, i64>),
) {
    assert_eq!(group.logical_local_range_dim(0), GROUP);
    let (src, dst) = (input.group_slice(), out.as_mut_slice());
    let mut carry = 0;
    distribute_groups!(group, |sub_group| {
        let first = sub_group.group_linear_id() * S;
        let len = sub_group.logical_local_linear_range();
        let (src, dst) = (&src[first..][..len], &mut dst[first..][..len]);
        joint_inclusive_scan_with_init(sub_group, src, dst, carry, plus());
        carry = dst[len - 1];
    });
}

fn integer_shapes<const S: usize>() {
    let n = GROUPS * GROUP;
    let input: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1013 - 500).collect();
    let sums_expected: Vec<i64> = input.chunks(GROUP).map(|c| c.iter().sum()).collect();
    let doubled_expected: Vec<i64> = input.iter().map(|x| 2 * x).collect();
    let mut scan_expected = Vec::with_capacity(n);
    for group in input.chunks(GROUP) {
        let mut running = 0;
        scan_expected.extend(group.iter().map(|x| {
            running += x;
            running
        }));
    }
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let (mut doubled, mut sums) = (vec![0; n], vec![0; GROUPS]);
        let args = (
            ItemsRef::new(&input),
            ItemsMut::new(&mut doubled),
            ChunksMut::new(&mut sums, 1),
        );
        queue
            .parallel_with(GROUPS, GROUP, args, lanes_and_fused::<S>)
            .unwrap();
        assert_eq!(sums, sums_expected, "lane sums, S = {S}, level {isa}");
        assert_eq!(
            doubled, doubled_expected,
            "fused loop, S = {S}, level {isa}"
        );
        let mut scanned = vec![0; n];
        let args = (ItemsRef::new(&input), ItemsMut::new(&mut scanned));
        queue
            .parallel_with(GROUPS, GROUP, args, scan_by_sub_groups::<S>)
            .unwrap();
        assert_eq!(scanned, scan_expected, "scan, S = {S}, level {isa}");
    }
}

#[test]
fn lane_sums_fused_loops_and_scans_match_serial_loops_at_16_and_32_at_every_level() {
    integer_shapes::<16>();
    integer_shapes::<32>();
}
