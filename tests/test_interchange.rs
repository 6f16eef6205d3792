//! `distribute_items!` whose body is statements, a loop with the same
//! iterations for every item, and more statements: the lowering runs the
//! loop outside and the items (chunks of `INTERCHANGE_LANES`) inside it.
//!
//! Every kernel here checks its results against a serial loop that runs
//! the same operations per item, bit for bit (floats included), and where
//! it matters the order in which the statements ran: each item in its own
//! order, items of a full chunk interleaved in the loop (the shortcut was
//! taken), the rest item after item (the plain loop). Groups whose size is
//! not a multiple of the lane count, 2-D groups and sub-groups; each
//! fallback shape runs the plain loop.

use std::sync::Mutex;

use scoped::__private::INTERCHANGE_LANES as W;
use scoped::prelude::*;

const SOFTENING: f32 = 1e-3;

/// The n-body interaction, the same operations everywhere.
#[inline(always)]
fn pull(xi: f32, xj: f32, mj: f32) -> f32 {
    let d = xj - xi;
    let d2 = d.mul_add(d, SOFTENING);
    let inv = 1.0 / d2.sqrt();
    mj * d * inv * inv * inv
}

fn bodies(n: usize) -> (Vec<f32>, Vec<f32>) {
    let x = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
        .collect();
    let m = (0..n).map(|i| 0.5 + (i * 13 % 7) as f32 / 7.0).collect();
    (x, m)
}

/// Item `i`'s acceleration from every body `j` of `x`, in increasing `j`.
fn reference(x: &[f32], m: &[f32], i: usize) -> f32 {
    let mut a = 0.0f32;
    for j in 0..x.len() {
        a += pull(x[i], x[j], m[j]);
    }
    a * 0.5
}

/// The GPU Gems form: the `j` loop inside the item, its sum an item local.
#[kernel]
fn nbody_items(
    group: WorkGroup<1>,
    ((x, m), mut out): (
        (ItemsRefWindow<'_, f32>, ItemsRefWindow<'_, f32>),
        ItemsWindow<'_, f32>,
    ),
) {
    let all = x.as_slice();
    let masses = m.as_slice();
    let n = all.len();
    distribute_items!(group, |idx| {
        let i = idx.global_linear_id();
        let xi = all[i];
        let mut a = 0.0f32;
        for j in 0..n {
            a += pull(xi, all[j], masses[j]);
        }
        out[idx] = a * 0.5;
    });
}

fn run_nbody(groups: usize, size: usize) -> Vec<f32> {
    let n = groups * size;
    let (x, m) = bodies(n);
    let mut out = vec![f32::NAN; n];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(
            groups,
            size,
            (
                (ItemsRef::new(&x), ItemsRef::new(&m)),
                ItemsMut::new(&mut out),
            ),
            nbody_items,
        )
        .unwrap();
    for (i, got) in out.iter().enumerate() {
        let want = reference(&x, &m, i);
        assert_eq!(got.to_bits(), want.to_bits(), "item {i}: {got} vs {want}");
    }
    out
}

#[test]
fn nbody_in_items_is_bit_for_bit_the_serial_sum() {
    // Group sizes below, at and above multiples of the lane count.
    for size in [1, W - 1, W, W + 3, 3 * W, 3 * W + 5] {
        run_nbody(3, size);
    }
}

/// Loop iterations in the traced kernels: more than
/// `INTERCHANGE_MAX_PLAIN_TRIPS`, so that full chunks are interchanged.
const STEPS: usize = 20;

/// What each group's body did, in the order it did it: (local linear id,
/// step).
struct Trace(Mutex<Vec<Vec<(usize, usize)>>>);

impl Trace {
    fn new(groups: usize) -> Self {
        Self(Mutex::new(vec![Vec::new(); groups]))
    }

    fn hit(&self, group: usize, item: usize, step: usize) {
        self.0.lock().unwrap()[group].push((item, step));
    }

    fn into_inner(self) -> Vec<Vec<(usize, usize)>> {
        self.0.into_inner().unwrap()
    }
}

/// A run of the interchanged lowering: lanes that run together (local
/// linear ids), or an item alone.
enum Run {
    Lanes(std::ops::Range<usize>),
    Item(usize),
}

/// The runs of the interchanged lowering for rows of `len` items, the
/// first row's first local linear id `first`, in the order they run. The
/// traced bodies carry at most one value through their loop: two full
/// chunks next to each other in a row run as one wide step of `2 W` lanes,
/// and two wide steps one after the other (rows included) as one pair,
/// its lanes in order.
fn lane_runs(first: usize, len: usize, rows: usize) -> Vec<Run> {
    // Runs of lanes (wide or not) and items alone, in the order they run.
    enum Step {
        Lanes(std::ops::Range<usize>, bool),
        Item(usize),
    }
    let mut runs = Vec::new();
    for row in 0..rows {
        let start = first + row * len;
        let full = len - len % W;
        let mut chunk = 0;
        while chunk < full {
            let wide = chunk + 2 * W <= full;
            let lanes = if wide { 2 * W } else { W };
            runs.push(Step::Lanes(start + chunk..start + chunk + lanes, wide));
            chunk += lanes;
        }
        runs.extend((start + full..start + len).map(Step::Item));
    }
    let mut merged = Vec::new();
    let mut waiting: Option<std::ops::Range<usize>> = None;
    for run in runs {
        match run {
            Step::Lanes(lanes, true) => match waiting.take() {
                Some(before) => merged.push(Run::Lanes(before.start..lanes.end)),
                None => waiting = Some(lanes),
            },
            other => {
                if let Some(before) = waiting.take() {
                    merged.push(Run::Lanes(before));
                }
                merged.push(match other {
                    Step::Lanes(lanes, _) => Run::Lanes(lanes),
                    Step::Item(l) => Run::Item(l),
                });
            }
        }
    }
    if let Some(before) = waiting {
        merged.push(Run::Lanes(before));
    }
    merged
}

/// The order of the interchanged lowering for rows of `len` items
/// ([`lane_runs`]), `steps` loop iterations, step 0 before the loop,
/// steps `1..=steps` in the loop, `steps + 1` after it.
fn interchanged_rows(first: usize, len: usize, rows: usize, steps: usize) -> Vec<(usize, usize)> {
    let mut order = Vec::new();
    for run in lane_runs(first, len, rows) {
        match run {
            Run::Lanes(lanes) => {
                for s in 0..=steps + 1 {
                    order.extend(lanes.clone().map(|l| (l, s)));
                }
            }
            Run::Item(l) => order.extend((0..=steps + 1).map(|s| (l, s))),
        }
    }
    order
}

/// [`interchanged_rows`] for one row.
fn interchanged_row(first: usize, len: usize, steps: usize) -> Vec<(usize, usize)> {
    interchanged_rows(first, len, 1, steps)
}

/// The plain loop's order: item after item.
fn plain_row(first: usize, len: usize, steps: usize) -> Vec<(usize, usize)> {
    (first..first + len)
        .flat_map(|l| (0..=steps + 1).map(move |s| (l, s)))
        .collect()
}

#[kernel]
fn traced_1d(group: WorkGroup<1>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        trace.hit(g, l, 0);
        let mut step = 1;
        for _ in 0..steps {
            trace.hit(g, l, step);
            step += 1;
        }
        trace.hit(g, l, step);
    });
}

/// The loop walks a slice declared outside the items.
#[kernel]
fn traced_slice(group: WorkGroup<1>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    let numbers: Vec<usize> = (1..=steps).collect();
    let numbers = numbers.as_slice();
    distribute_items!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        trace.hit(g, l, 0);
        for step in numbers.iter() {
            trace.hit(g, l, *step);
        }
        trace.hit(g, l, numbers.len() + 1);
    });
}

#[test]
fn full_chunks_interleave_in_the_loop_and_the_rest_runs_item_by_item() {
    let size = W + 3;
    let trace = Trace::new(2);
    Queue::with_threads(2)
        .unwrap()
        .parallel(2, size, |g| traced_slice(g, STEPS, &trace))
        .unwrap();
    for got in trace.into_inner() {
        assert_eq!(got, interchanged_row(0, size, STEPS), "slice");
    }
    for size in [3, W, W + 3, 2 * W + 1, 3 * W + 2, 4 * W, 5 * W + 1, 6 * W] {
        let trace = Trace::new(2);
        Queue::with_threads(2)
            .unwrap()
            .parallel(2, size, |g| traced_1d(g, STEPS, &trace))
            .unwrap();
        for got in trace.into_inner() {
            assert_eq!(got, interchanged_row(0, size, STEPS), "group size {size}");
        }
    }
}

/// A 2-D group: chunks run along each row.
#[kernel]
fn traced_2d(group: WorkGroup<2>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        trace.hit(g, l, 0);
        let mut step = 1;
        for _ in 0..steps {
            trace.hit(g, l, step);
            step += 1;
        }
        trace.hit(g, l, step);
    });
}

#[test]
fn two_dimensional_groups_interchange_each_row() {
    // Rows of one chunk, of one chunk each (never made wide across rows),
    // of a wide step and a chunk, and of one wide step each (paired across
    // rows, the last alone).
    for columns in [W + 2, W, 3 * W + 1, 2 * W] {
        let rows = 3;
        let trace = Trace::new(4);
        Queue::with_threads(2)
            .unwrap()
            .parallel([2, 2], [rows, columns], |g| traced_2d(g, STEPS, &trace))
            .unwrap();
        let want = interchanged_rows(0, columns, rows, STEPS);
        for got in trace.into_inner() {
            assert_eq!(got, want, "rows of {columns}");
        }
    }
}

/// Sub-groups of `W` lanes: each full sub-group is one chunk.
#[kernel]
fn traced_sub_groups(group: WorkGroup<1, W>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let l = idx.local_linear_id(&group);
            trace.hit(g, l, 0);
            let mut step = 1;
            for _ in 0..steps {
                trace.hit(g, l, step);
                step += 1;
            }
            trace.hit(g, l, step);
        });
    });
}

#[test]
fn sub_groups_interchange_full_sub_groups() {
    let size = 2 * W + 3;
    let trace = Trace::new(2);
    Queue::with_threads(2)
        .unwrap()
        .parallel(2, size, |g| traced_sub_groups(g, STEPS, &trace))
        .unwrap();
    let mut want = interchanged_row(0, W, STEPS);
    want.extend(interchanged_row(W, W, STEPS));
    want.extend(plain_row(2 * W, 3, STEPS));
    for got in trace.into_inner() {
        assert_eq!(got, want);
    }
}

/// Sub-groups of two chunks' lanes.
const PAIR: usize = 2 * W;

/// Sub-groups of `2 W` lanes: each full sub-group is one step of `2 W`
/// lanes; a partial one runs item by item.
#[kernel]
fn traced_pair_sub_groups(group: WorkGroup<1, PAIR>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let l = idx.local_linear_id(&group);
            trace.hit(g, l, 0);
            let mut step = 1;
            for _ in 0..steps {
                trace.hit(g, l, step);
                step += 1;
            }
            trace.hit(g, l, step);
        });
    });
}

#[test]
fn sub_groups_of_two_chunks_run_whole_steps_and_partial_ones_item_by_item() {
    // A full sub-group, then one of `W + 3` items.
    let size = PAIR + W + 3;
    let trace = Trace::new(2);
    Queue::with_threads(2)
        .unwrap()
        .parallel(2, size, |g| traced_pair_sub_groups(g, STEPS, &trace))
        .unwrap();
    let mut want = interchanged_row(0, PAIR, STEPS);
    want.extend(plain_row(PAIR, W + 3, STEPS));
    for got in trace.into_inner() {
        assert_eq!(got, want);
    }
}

/// n-body on sub-groups of `W` lanes, a partial last sub-group included.
#[kernel]
fn nbody_sub_groups(
    group: WorkGroup<1, W>,
    ((x, m), mut out): (
        (ItemsRefWindow<'_, f32>, ItemsRefWindow<'_, f32>),
        ItemsWindow<'_, f32>,
    ),
) {
    let all = x.as_slice();
    let masses = m.as_slice();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let i = idx.global_linear_id();
            let xi = all[i];
            let mut a = 0.0f32;
            for (xj, mj) in all.iter().zip(masses.iter()) {
                a += pull(xi, *xj, *mj);
            }
            out[idx] = a * 0.5;
        });
    });
}

#[test]
fn nbody_on_sub_groups_is_bit_for_bit_the_serial_sum() {
    let (groups, size) = (2, 2 * W + 3);
    let n = groups * size;
    let (x, m) = bodies(n);
    let mut out = vec![f32::NAN; n];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(
            groups,
            size,
            (
                (ItemsRef::new(&x), ItemsRef::new(&m)),
                ItemsMut::new(&mut out),
            ),
            nbody_sub_groups,
        )
        .unwrap();
    for (i, got) in out.iter().enumerate() {
        assert_eq!(got.to_bits(), reference(&x, &m, i).to_bits(), "item {i}");
    }
}

const K: usize = 21;

/// A 2-D matrix product, the `k` loop inside the item (`_and_wait`).
#[kernel]
fn matmul_items(group: WorkGroup<2>, (a, b): (&[f32], &[f32]), mut c: ItemsWindow<'_, f32, 2>) {
    let columns = group.logical_local_range_dim(1) * group.group_range_dim(1);
    distribute_items_and_wait!(group, |idx| {
        let (r, col) = (idx.global_id_dim(0), idx.global_id_dim(1));
        let mut sum = 0.0f32;
        for k in 0..K {
            sum = a[r * K + k].mul_add(b[k * columns + col], sum);
        }
        c[idx] = sum;
    });
}

#[test]
fn two_dimensional_matrix_product_is_bit_for_bit_the_serial_one() {
    let (groups, size) = ([2, 3], [3, W + 5]);
    let (rows, columns) = (groups[0] * size[0], groups[1] * size[1]);
    let a: Vec<f32> = (0..rows * K).map(|v| (v % 13) as f32 / 3.0 - 2.0).collect();
    let b: Vec<f32> = (0..K * columns)
        .map(|v| (v % 11) as f32 / 7.0 - 0.5)
        .collect();
    let mut c = vec![f32::NAN; rows * columns];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(groups, size, ItemsMut::new(&mut c), |g, c| {
            matmul_items(g, (&a, &b), c)
        })
        .unwrap();
    for r in 0..rows {
        for col in 0..columns {
            let mut want = 0.0f32;
            for k in 0..K {
                want = a[r * K + k].mul_add(b[k * columns + col], want);
            }
            let got = c[r * columns + col];
            assert_eq!(got.to_bits(), want.to_bits(), "({r}, {col})");
        }
    }
}

/// Bindings that are not `Copy`, changed in the loop and moved after it.
#[kernel]
fn strings(
    group: WorkGroup<1>,
    letters: &[String],
    steps: usize,
    mut out: ItemsWindow<'_, String>,
) {
    distribute_items!(group, |idx| {
        let mut text = idx.global_linear_id().to_string() + ":";
        let l = idx.innermost_local_linear_id();
        for letter in letters.iter().take(steps) {
            text.push_str(letter);
            text.push(if l % 2 == 0 { 'e' } else { 'o' });
        }
        out[idx] = text;
    });
}

#[test]
fn bindings_that_are_not_copy_move_through_the_lanes() {
    let letters: Vec<String> = ('a'..='z').map(String::from).collect();
    let (groups, size) = (2, W + 3);
    let mut out = vec![String::new(); groups * size];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(groups, size, ItemsMut::new(&mut out), |g, o| {
            strings(g, &letters, STEPS, o)
        })
        .unwrap();
    for (i, got) in out.iter().enumerate() {
        let parity = if (i % size) % 2 == 0 { 'e' } else { 'o' };
        let pairs: String = letters[..STEPS]
            .iter()
            .flat_map(|letter| [letter.clone(), parity.to_string()])
            .collect();
        assert_eq!(*got, format!("{i}:{pairs}"), "item {i}");
    }
}

/// Bodies that keep the plain loop: each item runs whole, in increasing
/// linear id, and computes what the serial loop does.
#[kernel]
fn fallbacks(group: WorkGroup<1>, case: usize, trace: &Trace) {
    let g = group.group_linear_id();
    let steps = STEPS;
    memory_environment!(group, require_local_mem::<[usize; 1]>(), |bound| {
        bound[0] = steps;
        match case {
            // The iterations depend on the item.
            0 => distribute_items!(group, |idx| {
                let l = idx.innermost_local_linear_id();
                trace.hit(g, l, 0);
                for s in 0..steps.min(l + steps) {
                    trace.hit(g, l, s + 1);
                }
                trace.hit(g, l, steps + 1);
            }),
            // The loop may end early.
            1 => distribute_items!(group, |idx| {
                let l = idx.innermost_local_linear_id();
                trace.hit(g, l, 0);
                for s in 0..steps + 5 {
                    if s == steps {
                        break;
                    }
                    trace.hit(g, l, s + 1);
                }
                trace.hit(g, l, steps + 1);
            }),
            // The bound is written in the body (it stays the same value).
            2 => distribute_items!(group, |idx| {
                let l = idx.innermost_local_linear_id();
                trace.hit(g, l, 0);
                for s in 0..bound[0] {
                    trace.hit(g, l, s + 1);
                }
                bound[0] = steps;
                trace.hit(g, l, steps + 1);
            }),
            // A binding from before the loop is shadowed inside it.
            _ => distribute_items!(group, |idx| {
                let l = idx.innermost_local_linear_id();
                trace.hit(g, l, 0);
                for s in 0..steps {
                    let l = std::hint::black_box(l);
                    trace.hit(g, l, s + 1);
                }
                trace.hit(g, l, steps + 1);
            }),
        }
    });
}

/// A loop of at most `INTERCHANGE_MAX_PLAIN_TRIPS` iterations keeps the
/// plain order.
#[test]
fn short_loops_run_item_by_item() {
    let size = 2 * W + 1;
    let trace = Trace::new(2);
    Queue::with_threads(2)
        .unwrap()
        .parallel(2, size, |g| traced_1d(g, 16, &trace))
        .unwrap();
    for got in trace.into_inner() {
        assert_eq!(got, plain_row(0, size, 16));
    }
}

/// A kernel with a required group size: its range is a constant, and a
/// loop of any length runs interchanged on its group (two wide steps and
/// an item alone at 8 lanes).
#[kernel(group_size = 19)]
fn traced_required(group: WorkGroup<1>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        trace.hit(g, l, 0);
        let mut step = 1;
        for _ in 0..steps {
            trace.hit(g, l, step);
            step += 1;
        }
        trace.hit(g, l, step);
    });
}

/// The same loop on the sub-groups of a kernel with a required size:
/// not the kernel's group, so a short loop keeps the plain order.
#[kernel(group_size = 19)]
fn traced_required_sub_groups(group: WorkGroup<1, W>, steps: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let l = idx.local_linear_id(&group);
            trace.hit(g, l, 0);
            let mut step = 1;
            for _ in 0..steps {
                trace.hit(g, l, step);
                step += 1;
            }
            trace.hit(g, l, step);
        });
    });
}

#[test]
fn short_loops_interchange_on_the_group_of_a_required_size() {
    for steps in [0, 1, 3, 16, STEPS] {
        let trace = Trace::new(2);
        Queue::with_threads(2)
            .unwrap()
            .parallel(2, 19, |g| traced_required(g, steps, &trace))
            .unwrap();
        for got in trace.into_inner() {
            assert_eq!(got, interchanged_row(0, 19, steps), "{steps} steps");
        }
    }
    // Sub-groups: long loops interchanged per full sub-group, short ones
    // item by item.
    for (steps, interchanged) in [(16, false), (STEPS, true)] {
        let trace = Trace::new(2);
        Queue::with_threads(2)
            .unwrap()
            .parallel(2, 19, |g| traced_required_sub_groups(g, steps, &trace))
            .unwrap();
        let full = 19 - 19 % W;
        let mut want = Vec::new();
        for first in (0..full).step_by(W) {
            want.extend(if interchanged {
                interchanged_row(first, W, steps)
            } else {
                plain_row(first, W, steps)
            });
        }
        want.extend(plain_row(full, 19 % W, steps));
        for got in trace.into_inner() {
            assert_eq!(got, want, "{steps} steps");
        }
    }
}

/// Tiles of `TILE_K` columns of `a` and rows of `b` in local memory, each
/// item's sum in private memory between tiles and in a local variable
/// over the 16 steps of a tile: GPU-form matrix product on groups of a
/// required size, rows of two wide steps at 8 lanes.
const TILE_K: usize = 16;

/// Copies the tiles of `a` and `b` that step `k0` of the group's tile of
/// the product needs into local memory, then waits for all of it.
#[group_function]
fn load_tiles(
    group: WorkGroup<2>,
    (a_tile, b_tile): (&mut [[f32; TILE_K]; 3], &mut [[f32; 16]; TILE_K]),
    (a, b, k_len): (&[f32], &[f32], usize),
    k0: usize,
) {
    let columns = 16 * group.group_range_dim(1);
    single_item!(group, || {
        let (i0, j0) = (group.group_id_dim(0) * 3, group.group_id_dim(1) * 16);
        for (r, row) in a_tile.iter_mut().enumerate() {
            row.copy_from_slice(&a[(i0 + r) * k_len + k0..][..TILE_K]);
        }
        for (k, row) in b_tile.iter_mut().enumerate() {
            row.copy_from_slice(&b[(k0 + k) * columns + j0..][..16]);
        }
    });
    group_barrier(group);
}

#[kernel(group_size = [3, 16])]
fn matmul_required(
    group: WorkGroup<2>,
    (a, b, k_len): (&[f32], &[f32], usize),
    mut c: ItemsWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<[[f32; TILE_K]; 3]>(),
        require_local_mem::<[[f32; 16]; TILE_K]>(),
        require_private_mem::<f32>(),
        |a_tile, b_tile, acc| {
            distribute_items!(group, |idx| acc[idx] = 0.0);
            for k0 in (0..k_len).step_by(TILE_K) {
                load_tiles(group, (a_tile, b_tile), (a, b, k_len), k0);
                distribute_items_and_wait!(group, |idx| {
                    let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                    let mut s = acc[idx];
                    for k in 0..TILE_K {
                        s = a_tile[r][k].mul_add(b_tile[k][col], s);
                    }
                    acc[idx] = s;
                });
            }
            distribute_items!(group, |idx| c[idx] = acc[idx]);
        }
    );
}

/// [`matmul_required`] with the sums in a local tile, read into the `k`
/// loop's local variable at `[r][col]` and stored back after it: the
/// statements before the loop read local memory by both ids (pairs of
/// steps run each step's lanes in a loop of its own).
#[kernel(group_size = [3, 16])]
fn matmul_required_local_sums(
    group: WorkGroup<2>,
    (a, b, k_len): (&[f32], &[f32], usize),
    mut c: ItemsWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<[[f32; TILE_K]; 3]>(),
        require_local_mem::<[[f32; 16]; TILE_K]>(),
        require_local_mem::<[[f32; 16]; 3]>(),
        |a_tile, b_tile, sum| {
            for k0 in (0..k_len).step_by(TILE_K) {
                load_tiles(group, (a_tile, b_tile), (a, b, k_len), k0);
                distribute_items_and_wait!(group, |idx| {
                    let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                    let mut s = sum[r][col];
                    for k in 0..TILE_K {
                        s = a_tile[r][k].mul_add(b_tile[k][col], s);
                    }
                    sum[r][col] = s;
                });
            }
            distribute_items!(group, |idx| {
                c[idx] = sum[idx.local_id_dim(&group, 0)][idx.local_id_dim(&group, 1)]
            });
        }
    );
}

#[test]
fn required_size_matrix_product_is_bit_for_bit_the_serial_one() {
    let (groups, size) = ([2, 2], [3, 16]);
    let (rows, columns, k_len) = (groups[0] * size[0], groups[1] * size[1], 2 * TILE_K);
    let a: Vec<f32> = (0..rows * k_len)
        .map(|v| (v % 13) as f32 / 3.0 - 2.0)
        .collect();
    let b: Vec<f32> = (0..k_len * columns)
        .map(|v| (v % 11) as f32 / 7.0 - 0.5)
        .collect();
    let queue = Queue::with_threads(2).unwrap();
    let (mut c, mut local) = (
        vec![f32::NAN; rows * columns],
        vec![f32::NAN; rows * columns],
    );
    queue
        .parallel_with(groups, size, ItemsMut::new(&mut c), |g, c| {
            matmul_required(g, (&a, &b, k_len), c)
        })
        .unwrap();
    queue
        .parallel_with(groups, size, ItemsMut::new(&mut local), |g, c| {
            matmul_required_local_sums(g, (&a, &b, k_len), c)
        })
        .unwrap();
    for r in 0..rows {
        for col in 0..columns {
            let mut want = 0.0f32;
            for k in 0..k_len {
                want = a[r * k_len + k].mul_add(b[k * columns + col], want);
            }
            let got = c[r * columns + col];
            assert_eq!(got.to_bits(), want.to_bits(), "({r}, {col})");
            let got = local[r * columns + col];
            assert_eq!(got.to_bits(), want.to_bits(), "local sums ({r}, {col})");
        }
    }
}

#[test]
fn other_bodies_run_item_by_item() {
    for case in 0..4 {
        let size = W + 3;
        let trace = Trace::new(2);
        Queue::with_threads(2)
            .unwrap()
            .parallel(2, size, |g| fallbacks(g, case, &trace))
            .unwrap();
        for got in trace.into_inner() {
            assert_eq!(got, plain_row(0, size, STEPS), "case {case}");
        }
    }
}

/// Rows of `cols` values, `S` lanes a row, each lane summing its strided
/// values: reads of a local sub-slice and of slice parameters, writes to a
/// `ChunkWindow`, at indices the loop body computes (checked ahead for
/// every lane of a chunk).
#[kernel]
fn strided_rows(
    group: WorkGroup<2, 16>,
    input: &[f32],
    gamma: &[f32],
    mut out: ChunkWindow<'_, f32>,
) {
    let cols = out.len() / 2;
    distribute_groups!(group, |sg| {
        let row = group.group_id_dim(0) * 2 + sg.group_id_dim(0);
        let x = &input[row * cols..][..cols];
        distribute_items!(sg, |idx| {
            let lane = idx.innermost_local_id_dim(1);
            let mut sum = 0.0f32;
            for k in 0..cols / 16 {
                let c = k * 16 + lane;
                sum = x[c].mul_add(gamma[c], sum);
                out[row * cols + c] = sum;
            }
        });
    });
}

/// The same sums and writes, one lane after the other.
fn strided_reference(input: &[f32], gamma: &[f32], cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; input.len()];
    for (row, x) in input.chunks(cols).enumerate() {
        for lane in 0..16 {
            let mut sum = 0.0f32;
            for k in 0..cols / 16 {
                let c = k * 16 + lane;
                sum = x[c].mul_add(gamma[c], sum);
                out[row * cols + c] = sum;
            }
        }
    }
    out
}

fn run_strided(rows: usize, cols: usize, gamma_len: usize) -> Vec<f32> {
    let input: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 29 % 83) as f32 - 41.0) / 13.0)
        .collect();
    let gamma: Vec<f32> = (0..gamma_len).map(|i| 0.5 + (i % 9) as f32 / 9.0).collect();
    let mut out = vec![f32::NAN; rows * cols];
    Queue::new()
        .parallel_with(
            (rows / 2, 1),
            (2, 16),
            ChunksMut::new(&mut out, 2 * cols),
            |g, out| strided_rows(g, &input, &gamma, out),
        )
        .expect("launch");
    let want = strided_reference(&input, &gamma, cols);
    for (i, (got, want)) in out.iter().zip(&want).enumerate() {
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "element {i}: {got} vs {want}"
        );
    }
    out
}

#[test]
fn reads_and_window_writes_checked_ahead_are_bit_for_bit_the_serial_loop() {
    // 18 chunks of 16 columns: interchanged, every fold holds.
    run_strided(8, 288, 288);
}

#[test]
fn a_fold_that_fails_runs_the_same_loop_and_panics_at_the_same_read() {
    // `gamma` one short of a row: the last column's read fails, in the
    // last step of lane 15, as in the plain loop.
    let panic = std::panic::catch_unwind(|| run_strided(2, 288, 287)).expect_err("panics");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains("index out of bounds: the len is 287 but the index is 287"),
        "{message}"
    );
}

/// Rows of `cols` values in 1-D groups of `cols` items, each item summing
/// `x[k * cols + item * m]` over the rows and writing the running sum to a
/// `ChunkWindow`: with `m == 1` every step's reads are consecutive and go
/// through windows (16 lanes a step, a carried value), with `m == 2` no
/// step's are and every step runs checked.
#[kernel]
fn column_sums(
    group: WorkGroup<1>,
    x: &[f32],
    (m, rows, cols): (usize, usize, usize),
    mut out: ChunkWindow<'_, f32>,
) {
    let base = group.group_linear_id() * rows * cols;
    distribute_items!(group, |idx| {
        let c = idx.local_linear_id(&group);
        let mut sum = 0.0f32;
        for k in 0..rows {
            sum = x[k * cols + c * m].mul_add(0.5, sum);
            out[base + k * cols + c] = sum;
        }
    });
}

/// The same, `out` named twice in the loop body: no `&mut` window is
/// taken for it, the reads of `x` still go through theirs.
#[kernel]
fn column_sums_twice(
    group: WorkGroup<1>,
    x: &[f32],
    (m, rows, cols): (usize, usize, usize),
    mut out: ChunkWindow<'_, f32>,
) {
    let base = group.group_linear_id() * rows * cols;
    distribute_items!(group, |idx| {
        let c = idx.local_linear_id(&group);
        let mut sum = 0.0f32;
        for k in 0..rows {
            sum = x[k * cols + c * m].mul_add(0.5, sum);
            out[base + k * cols + c] = 0.0;
            out[base + k * cols + c] += sum;
        }
    });
}

fn column_sums_reference(x: &[f32], m: usize, rows: usize, cols: usize, groups: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; groups * rows * cols];
    for g in 0..groups {
        for c in 0..cols {
            let mut sum = 0.0f32;
            for k in 0..rows {
                sum = x[k * cols + c * m].mul_add(0.5, sum);
                out[g * rows * cols + k * cols + c] = sum;
            }
        }
    }
    out
}

#[test]
fn windowed_and_checked_steps_are_bit_for_bit_the_serial_loop() {
    let rows = 20;
    for cols in [W, 2 * W, 3 * W, 3 * W + 5] {
        for m in [1, 2] {
            let x: Vec<f32> = (0..rows * cols * 2)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect();
            let want = column_sums_reference(&x, m, rows, cols, 2);
            for twice in [false, true] {
                let mut out = vec![f32::NAN; 2 * rows * cols];
                Queue::with_threads(2)
                    .unwrap()
                    .parallel_with(2, cols, ChunksMut::new(&mut out, rows * cols), |g, out| {
                        if twice {
                            column_sums_twice(g, &x, (m, rows, cols), out)
                        } else {
                            column_sums(g, &x, (m, rows, cols), out)
                        }
                    })
                    .expect("launch");
                for (i, (got, want)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "cols {cols}, m {m}, twice {twice}, element {i}"
                    );
                }
            }
        }
    }
}

/// Iterations of the nested traced loops: `OUTER * INNER` more than
/// `INTERCHANGE_MAX_PLAIN_TRIPS`, each loop alone at most.
const OUTER: usize = 4;
const INNER: usize = 5;

/// A loop whose whole body is a loop with the same iterations for every
/// item: the lanes run innermost in both (`nested`), or, where the inner
/// loop's range depends on the outer variable, the inner loop stays in
/// each lane (`!nested`: `OUTER * INNER` outer iterations, inner ones
/// `a % 3`).
#[kernel]
fn traced_nested(group: WorkGroup<2>, nested: bool, trace: &Trace) {
    let g = group.group_linear_id();
    if nested {
        distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            trace.hit(g, l, 0);
            for a in 0..OUTER {
                for b in 0..INNER {
                    trace.hit(g, l, 1 + a * INNER + b);
                }
            }
            trace.hit(g, l, OUTER * INNER + 1);
        });
    } else {
        distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            trace.hit(g, l, 0);
            for a in 0..OUTER * INNER {
                for b in 0..a % 3 {
                    trace.hit(g, l, triangle_step(a, b));
                }
            }
            trace.hit(g, l, triangle_step(OUTER * INNER, 0));
        });
    }
}

/// The step of iteration `(a, b)` of the triangular loops, counted from 1
/// in each item's own order.
fn triangle_step(a: usize, b: usize) -> usize {
    1 + (0..a).map(|x| x % 3).sum::<usize>() + b
}

/// The order of the triangular loops: the outer loop outside the lanes,
/// the inner one inside each lane.
fn triangle_rows(len: usize, rows: usize) -> Vec<(usize, usize)> {
    let mut order = Vec::new();
    let last = triangle_step(OUTER * INNER, 0);
    for run in lane_runs(0, len, rows) {
        match run {
            Run::Lanes(lanes) => {
                order.extend(lanes.clone().map(|l| (l, 0)));
                for a in 0..OUTER * INNER {
                    for l in lanes.clone() {
                        order.extend((0..a % 3).map(|b| (l, triangle_step(a, b))));
                    }
                }
                order.extend(lanes.map(|l| (l, last)));
            }
            Run::Item(l) => {
                order.push((l, 0));
                for a in 0..OUTER * INNER {
                    order.extend((0..a % 3).map(|b| (l, triangle_step(a, b))));
                }
                order.push((l, last));
            }
        }
    }
    order
}

#[test]
fn nested_loops_run_the_lanes_innermost_in_both() {
    // Rows of a chunk and some items, of wide steps paired across rows, of
    // a wide step and a chunk, and of two wide steps.
    for columns in [W + 2, 2 * W, 3 * W + 1, 4 * W] {
        let rows = 3;
        for nested in [true, false] {
            let trace = Trace::new(4);
            Queue::with_threads(2)
                .unwrap()
                .parallel([2, 2], [rows, columns], |g| {
                    traced_nested(g, nested, &trace)
                })
                .unwrap();
            let want = if nested {
                interchanged_rows(0, columns, rows, OUTER * INNER)
            } else {
                triangle_rows(columns, rows)
            };
            for got in trace.into_inner() {
                assert_eq!(got, want, "rows of {columns}, nested {nested}");
            }
        }
    }
}

const TAPS: usize = 5;
/// The largest group the filter's tile holds: 8 rows of `4 W + 3`.
type Tile = [[f32; 4 * W + 3 + TAPS - 1]; 8 + TAPS - 1];
type Taps = [[f32; TAPS]; TAPS];

/// Which form of the filter's item body runs.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// Both tap loops interchanged, the lanes innermost.
    Nested,
    /// The inner loop's range depends on the outer variable: only the
    /// outer loop is interchanged.
    Triangle,
    /// A labelled loop: the shortcut is not taken.
    Plain,
}

/// A 5×5 filter (taps `(dy, dx)`, `dx <= dy` for `Triangle`) over a tile
/// of the image in local memory, zero outside the image, as the GPU form
/// writes it: 25 taps with 5 in each loop.
#[allow(clippy::needless_range_loop)]
#[kernel]
fn filter(
    group: WorkGroup<2>,
    (image, taps, columns): (&[f32], &Taps, usize),
    form: Form,
    mut out: ItemsWindow<'_, f32, 2>,
) {
    let image_rows = image.len() / columns;
    let (rows, cols) = (
        group.logical_local_range_dim(0),
        group.logical_local_range_dim(1),
    );
    let (r0, c0) = (group.group_id_dim(0) * rows, group.group_id_dim(1) * cols);
    memory_environment!(group, require_local_mem::<Tile>(), |tile| {
        for tr in 0..rows + TAPS - 1 {
            for tc in 0..cols + TAPS - 1 {
                let (i, j) = (r0 + tr, c0 + tc);
                tile[tr][tc] = if i < image_rows && j < columns {
                    image[i * columns + j]
                } else {
                    0.0
                };
            }
        }
        match form {
            Form::Nested => distribute_items!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                let mut s = 0.0f32;
                for dy in 0..TAPS {
                    for dx in 0..TAPS {
                        s = taps[dy][dx].mul_add(tile[r + dy][c + dx], s);
                    }
                }
                out[idx] = s;
            }),
            Form::Triangle => distribute_items!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                let mut s = 0.0f32;
                for dy in 0..TAPS * TAPS {
                    for dx in 0..=dy % TAPS {
                        s = taps[dy % TAPS][dx].mul_add(tile[r + dy % TAPS][c + dx], s);
                    }
                }
                out[idx] = s;
            }),
            Form::Plain => distribute_items!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                let mut s = 0.0f32;
                'taps: for dy in 0..TAPS {
                    for dx in 0..TAPS {
                        s = taps[dy][dx].mul_add(tile[r + dy][c + dx], s);
                    }
                    if dy == TAPS {
                        break 'taps;
                    }
                }
                out[idx] = s;
            }),
        }
    });
}

/// The filter's serial loop for the point `(i, j)`.
#[allow(clippy::needless_range_loop)]
fn filter_point(image: &[f32], taps: &Taps, columns: usize, i: usize, j: usize, form: Form) -> f32 {
    let rows = image.len() / columns;
    let at = |y: usize, x: usize| {
        if y < rows && x < columns {
            image[y * columns + x]
        } else {
            0.0
        }
    };
    let mut s = 0.0f32;
    match form {
        Form::Triangle => {
            for dy in 0..TAPS * TAPS {
                for dx in 0..=dy % TAPS {
                    s = taps[dy % TAPS][dx].mul_add(at(i + dy % TAPS, j + dx), s);
                }
            }
        }
        Form::Nested | Form::Plain => {
            for dy in 0..TAPS {
                for dx in 0..TAPS {
                    s = taps[dy][dx].mul_add(at(i + dy, j + dx), s);
                }
            }
        }
    }
    s
}

#[test]
fn nested_tap_loops_are_bit_for_bit_the_serial_filter_and_the_plain_form() {
    let taps: Taps =
        std::array::from_fn(|dy| std::array::from_fn(|dx| (dy * 7 + dx * 3) as f32 / 9.0 - 1.3));
    // Odd widths, rows of a chunk and items, of wide steps paired within
    // and across rows, one row.
    for size in [
        [3, 2 * W + 1],
        [2, 4 * W],
        [4, 2 * W],
        [1, W],
        [5, W + 3],
        [3, 4 * W + 3],
    ] {
        let groups = [2, 3];
        let (rows, columns) = (groups[0] * size[0], groups[1] * size[1]);
        let image: Vec<f32> = (0..rows * columns)
            .map(|v| ((v * 37) % 101) as f32 / 13.0 - 3.0)
            .collect();
        let run = |form: Form| {
            let mut out = vec![f32::NAN; rows * columns];
            Queue::with_threads(2)
                .unwrap()
                .parallel_with(groups, size, ItemsMut::new(&mut out), |g, o| {
                    filter(g, (&image, &taps, columns), form, o)
                })
                .unwrap();
            out
        };
        let (nested, plain, triangle) = (run(Form::Nested), run(Form::Plain), run(Form::Triangle));
        for i in 0..rows {
            for j in 0..columns {
                let at = i * columns + j;
                let want = filter_point(&image, &taps, columns, i, j, Form::Nested);
                assert_eq!(nested[at].to_bits(), want.to_bits(), "{size:?} ({i}, {j})");
                assert_eq!(
                    plain[at].to_bits(),
                    want.to_bits(),
                    "{size:?} ({i}, {j}) plain"
                );
                let want = filter_point(&image, &taps, columns, i, j, Form::Triangle);
                assert_eq!(
                    triangle[at].to_bits(),
                    want.to_bits(),
                    "{size:?} ({i}, {j}) triangle"
                );
            }
        }
    }
}

/// Per-item values made before the loops and only read in them (a mean
/// and a scale in private memory, as a layer norm's butterfly form keeps
/// them): one only read beside one carried value (wide steps), two only
/// read with a window write (narrow steps). Their lanes are read back
/// from memory before each loop; with `m == 1` steps go through windows
/// (the last one ending at the slice's end), with `m == 2` they run
/// checked.
#[kernel]
fn centred_columns(
    group: WorkGroup<1>,
    x: &[f32],
    (m, rows, cols): (usize, usize, usize),
    mut out: ChunkWindow<'_, f32>,
) {
    let base = group.group_linear_id() * rows * cols;
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |mean, scale| {
            distribute_items!(group, |idx| {
                let c = idx.local_linear_id(&group);
                mean[idx] = x[c] * 0.25;
                scale[idx] = 1.0 + x[c + 1] * 0.125;
            });
            distribute_items!(group, |idx| {
                let c = idx.local_linear_id(&group);
                let mu = mean[idx];
                let mut sum = 0.0f32;
                for k in 0..rows {
                    let d = x[k * cols + c * m] - mu;
                    sum = d.mul_add(d, sum);
                }
                scale[idx] += sum;
            });
            distribute_items!(group, |idx| {
                let c = idx.local_linear_id(&group);
                let (mu, s) = (mean[idx], scale[idx]);
                for k in 0..rows {
                    out[base + k * cols + c] = (x[k * cols + c * m] - mu) * s;
                }
            });
        }
    );
}

fn centred_columns_reference(x: &[f32], m: usize, rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    for c in 0..cols {
        let mu = x[c] * 0.25;
        let mut sum = 0.0f32;
        for k in 0..rows {
            let d = x[k * cols + c * m] - mu;
            sum = d.mul_add(d, sum);
        }
        let s = (1.0 + x[c + 1] * 0.125) + sum;
        for k in 0..rows {
            out[k * cols + c] = (x[k * cols + c * m] - mu) * s;
        }
    }
    out
}

#[test]
fn values_only_read_in_the_loop_are_bit_for_bit_the_serial_loop() {
    // 10 rows: the plain loop; 20: interchanged.
    for rows in [10, 20] {
        for cols in [W, 2 * W, 3 * W + 5] {
            for m in [1, 2] {
                // With `m == 1`, exactly the elements read.
                let len = rows * cols + (m - 1) * cols;
                let x: Vec<f32> = (0..len)
                    .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                    .collect();
                let want = centred_columns_reference(&x, m, rows, cols);
                let mut out = vec![f32::NAN; 2 * rows * cols];
                Queue::with_threads(2)
                    .unwrap()
                    .parallel_with(2, cols, ChunksMut::new(&mut out, rows * cols), |g, out| {
                        centred_columns(g, &x, (m, rows, cols), out)
                    })
                    .expect("launch");
                for (i, got) in out.iter().enumerate() {
                    let want = want[i % (rows * cols)];
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "rows {rows}, cols {cols}, m {m}, element {i}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
