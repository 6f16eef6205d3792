//! A `distribute_items!` body ending in `out[idx] = value` stores a row of
//! lanes at a time where `out` is a window of 4- or 8-byte numbers, and
//! item by item otherwise: every output gets exactly the values of the
//! plain lowering (a trailing statement keeps a copy of each body plain),
//! bit for bit, in full chunks of 16 and in the items after a row's last
//! full chunk, against serial references; rows of 2 and 4 chunks, whose
//! chunks are written out rather than looped, as well as rows of 3 chunks
//! and of 2 chunks and 8 items.

use std::sync::Mutex;

use scoped::prelude::*;

/// Groups of 3 × 20 items: a chunk of 16 per row and 4 items after it.
const ROWS: usize = 3;
const COLS: usize = 20;

/// A tile of bits that includes NaN payloads, infinities and `-0.0`.
fn bits(n: usize) -> Vec<f32> {
    (0..n as u32)
        .map(|i| match i % 7 {
            0 => f32::from_bits(0x7fc0_0000 | i),
            1 => -0.0,
            2 => f32::INFINITY,
            _ => (i as f32 - 300.0) * 0.37,
        })
        .collect()
}

/// The GPU transpose's store: each item writes the tile's element across
/// the diagonal, read down a column of local memory.
#[kernel(group_size = [3, 20])]
fn transposed(group: WorkGroup<2>, a: &[f32], mut b: ItemsWindow<'_, f32, 2>) {
    memory_environment!(group, require_local_mem::<[[f32; ROWS]; COLS]>(), |tile| {
        distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            tile[c][r] = a[idx.global_linear_id()];
        });
        distribute_items!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            b[idx] = tile[c][r];
        });
    });
}

/// `transposed` with a trailing statement: the plain lowering.
#[kernel(group_size = [3, 20])]
fn transposed_plain(group: WorkGroup<2>, a: &[f32], mut b: ItemsWindow<'_, f32, 2>) {
    memory_environment!(group, require_local_mem::<[[f32; ROWS]; COLS]>(), |tile| {
        distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            tile[c][r] = a[idx.global_linear_id()];
        });
        distribute_items!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            b[idx] = tile[c][r];
            let _plain = ();
        });
    });
}

#[test]
fn a_transposed_tile_is_stored_bit_for_bit() {
    let groups = (4, 3);
    let (rows, cols) = (groups.0 * ROWS, groups.1 * COLS);
    let a = bits(rows * cols);
    // Serially: the group's item (r, c) takes the tile's element (c, r),
    // which item (r', c') with c' * ROWS + r' = r * COLS + c... filled.
    let mut expected = vec![0.0f32; rows * cols];
    for gi in 0..groups.0 {
        for gj in 0..groups.1 {
            let mut tile = [[0.0f32; ROWS]; COLS];
            for r in 0..ROWS {
                for c in 0..COLS {
                    tile[c][r] = a[(gi * ROWS + r) * cols + gj * COLS + c];
                }
            }
            for r in 0..ROWS {
                for c in 0..COLS {
                    expected[(gi * ROWS + r) * cols + gj * COLS + c] = tile[c][r];
                }
            }
        }
    }
    for threads in [1, 2] {
        let queue = Queue::with_threads(threads).unwrap();
        let (mut got, mut plain) = (vec![f32::NAN; rows * cols], vec![1.0f32; rows * cols]);
        queue
            .parallel_with(groups, (ROWS, COLS), ItemsMut::new(&mut got), |g, b| {
                transposed(g, &a, b)
            })
            .unwrap();
        queue
            .parallel_with(groups, (ROWS, COLS), ItemsMut::new(&mut plain), |g, b| {
                transposed_plain(g, &a, b)
            })
            .unwrap();
        let (got, plain) = (
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            plain.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        );
        assert_eq!(got, plain, "{threads} threads");
        assert_eq!(
            got,
            expected.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

/// Every element type of both widths, and one that is neither, in groups
/// of 2 × 20; `wide` is a `&mut` parameter.
#[kernel(group_size = [2, 20])]
fn typed(
    group: WorkGroup<2>,
    (mut small, mut large, wide): (
        ItemsWindow<'_, i32, 2>,
        ItemsWindow<'_, u64, 2>,
        &mut ItemsWindow<'_, f64, 2>,
    ),
    mut bytes: ItemsWindow<'_, u8, 2>,
) {
    distribute_items!(group, |idx| small[idx] =
        7 - 3 * idx.global_linear_id() as i32);
    distribute_items!(group, |idx| {
        // The element type inferred from the output, as in the plain form.
        let gid = idx.global_linear_id() as u32;
        large[idx] = (gid | gid << 20).into();
    });
    distribute_items!(group, |idx| wide[idx] =
        idx.global_linear_id() as f64 * -0.1);
    distribute_items!(group, |idx| bytes[idx] =
        (idx.global_linear_id() % 251) as u8);
}

#[test]
fn numbers_of_every_width_are_stored_by_lane() {
    let n = 6 * 60;
    let (mut small, mut large, mut wide, mut bytes) =
        (vec![0i32; n], vec![0u64; n], vec![0f64; n], vec![0u8; n]);
    Queue::new()
        .parallel_with(
            (3, 3),
            (2, 20),
            (
                ItemsMut::new(&mut small),
                ItemsMut::new(&mut large),
                ItemsMut::new(&mut wide),
                ItemsMut::new(&mut bytes),
            ),
            |g, (s, l, mut w, b)| typed(g, (s, l, &mut w), b),
        )
        .unwrap();
    for i in 0..n {
        assert_eq!(small[i], 7 - 3 * i as i32);
        assert_eq!(large[i], (i | i << 20) as u64);
        assert_eq!(wide[i].to_bits(), (i as f64 * -0.1).to_bits());
        assert_eq!(bytes[i], (i % 251) as u8);
    }
}

/// Outputs that give no row: elements that are not `Copy`, a generic
/// element, private memory.
#[kernel(group_size = [2, 20])]
fn fallbacks<T: Clone + Send>(
    group: WorkGroup<2>,
    mut names: ItemsWindow<'_, String, 2>,
    (mut copies, fill): (ItemsWindow<'_, T, 2>, &T),
    mut sums: ItemsWindow<'_, u32, 2>,
) {
    distribute_items!(group, |idx| names[idx] =
        format!("n{}", idx.global_linear_id()));
    distribute_items!(group, |idx| copies[idx] = fill.clone());
    memory_environment!(group, require_private_mem::<u32>(), |private| {
        distribute_items!(group, |idx| private[idx] =
            2 * idx.global_linear_id() as u32);
        distribute_items!(group, |idx| sums[idx] = private[idx] + 1);
    });
}

#[test]
fn other_outputs_store_item_by_item() {
    let n = 2 * 2 * 20;
    let (mut names, mut copies, mut sums) = (vec![String::new(); n], vec![0i16; n], vec![0u32; n]);
    Queue::new()
        .parallel_with(
            (1, 2),
            (2, 20),
            (
                ItemsMut::new(&mut names),
                ItemsMut::new(&mut copies),
                ItemsMut::new(&mut sums),
            ),
            |g, (a, b, c)| fallbacks(g, a, (b, &-5i16), c),
        )
        .unwrap();
    for i in 0..n {
        assert_eq!(names[i], format!("n{i}"));
        assert_eq!(copies[i], -5);
        assert_eq!(sums[i], 2 * i as u32 + 1);
    }
}

/// Groups of one dimension, and sub-groups, store item by item.
#[kernel(group_size = 40)]
fn one_dimension(group: WorkGroup<1>, mut out: ItemsWindow<'_, f32, 1>) {
    distribute_items!(group, |idx| out[idx] = idx.global_id_dim(0) as f32 * 0.5);
}

#[kernel]
fn sub_groups(group: WorkGroup<1, 32>, mut out: ItemsWindow<'_, u32, 1>) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| out[idx] = 3 * idx.global_id_dim(0) as u32);
    });
}

#[test]
fn one_dimension_and_sub_groups_store_item_by_item() {
    let (mut halves, mut triples) = (vec![0.0f32; 3 * 40], vec![0u32; 2 * 48]);
    let queue = Queue::new();
    queue
        .parallel_with(3, 40, ItemsMut::new(&mut halves), one_dimension)
        .unwrap();
    queue
        .parallel_with(2, 48, ItemsMut::new(&mut triples), sub_groups)
        .unwrap();
    assert!(halves.iter().enumerate().all(|(i, &x)| x == i as f32 * 0.5));
    assert!(triples.iter().enumerate().all(|(i, &x)| x == 3 * i as u32));
}

/// Statements before the store run in item order, lane by lane: in rows
/// of a chunk and 2 items, and in rows of 4 chunks, written out.
macro_rules! logged {
    ($($cols:literal: $name:ident;)*) => {$(
        #[kernel(group_size = [2, $cols])]
        fn $name(group: WorkGroup<2>, log: &Mutex<Vec<usize>>, mut out: ItemsWindow<'_, usize, 2>) {
            distribute_items!(group, |idx| {
                let id = idx.global_linear_id();
                log.lock().unwrap().push(id);
                out[idx] = 3 * id;
            });
        }
    )*};
}

logged! {
    18: logged_18;
    64: logged_64;
}

type Logged = fn(WorkGroup<2>, &Mutex<Vec<usize>>, ItemsWindow<'_, usize, 2>);

#[test]
fn statements_before_the_store_run_in_item_order() {
    let kernels: [(usize, Logged); 2] = [(18, logged_18), (64, logged_64)];
    for (cols, kernel) in kernels {
        let n = 4 * cols;
        let (log, mut out) = (Mutex::new(Vec::new()), vec![0usize; n]);
        Queue::with_threads(1)
            .unwrap()
            .parallel_with((2, 1), (2, cols), ItemsMut::new(&mut out), |g, o| {
                kernel(g, &log, o)
            })
            .unwrap();
        let expected: Vec<usize> = (0..n).collect();
        assert_eq!(log.into_inner().unwrap(), expected, "rows of {cols}");
        assert_eq!(out, expected.iter().map(|i| 3 * i).collect::<Vec<_>>());
    }
}

/// A boundary stencil's store, as in a GPU-form Jacobi sweep: the grid's
/// edge points kept, the others from their neighbours, in groups of 2
/// rows of `$cols` items; `$plain` is the same with a trailing statement
/// (the plain lowering).
macro_rules! boundary_stencils {
    ($($cols:literal: $name:ident, $plain:ident;)*) => {$(
        boundary_stencils!(@kernel $cols, $name,);
        boundary_stencils!(@kernel $cols, $plain, let _plain = (););
    )*};
    (@kernel $cols:literal, $name:ident, $($after:stmt;)?) => {
        #[kernel(group_size = [2, $cols])]
        fn $name(group: WorkGroup<2>, old: &[f32], (m, n): (usize, usize), mut new: ItemsWindow<'_, f32, 2>) {
            distribute_items!(group, |idx| {
                let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
                new[idx] = if i == 0 || j == 0 || i == m - 1 || j == n - 1 {
                    old[i * n + j]
                } else {
                    0.25 * ((old[(i - 1) * n + j] + old[(i + 1) * n + j])
                        + (old[i * n + j - 1] + old[i * n + j + 1]))
                };
                $($after;)?
            });
        }
    };
}

boundary_stencils! {
    32: stencil_32, stencil_32_plain;
    40: stencil_40, stencil_40_plain;
    48: stencil_48, stencil_48_plain;
    64: stencil_64, stencil_64_plain;
}

type Stencil = fn(WorkGroup<2>, &[f32], (usize, usize), ItemsWindow<'_, f32, 2>);

#[test]
fn rows_of_two_three_and_four_chunks_store_what_the_plain_loop_does() {
    let kernels: [(usize, Stencil, Stencil); 4] = [
        (32, stencil_32, stencil_32_plain),
        (40, stencil_40, stencil_40_plain),
        (48, stencil_48, stencil_48_plain),
        (64, stencil_64, stencil_64_plain),
    ];
    for (cols, fast, plain) in kernels {
        // Four groups down, three across: every group has boundary
        // chunks, and the middle ones interior chunks.
        let n = 3 * cols;
        let (groups, rows) = ((4, 3), 8);
        let old: Vec<f32> = (0..rows * n)
            .map(|k| ((k * 37) % 101) as f32 * 0.01 - 0.5)
            .collect();
        let grid = |i: usize, j: usize| old[i * n + j];
        let mut expected = vec![0.0f32; rows * n];
        for i in 0..rows {
            for j in 0..n {
                expected[i * n + j] = if i == 0 || j == 0 || i == rows - 1 || j == n - 1 {
                    grid(i, j)
                } else {
                    0.25 * ((grid(i - 1, j) + grid(i + 1, j)) + (grid(i, j - 1) + grid(i, j + 1)))
                };
            }
        }
        for threads in [1, 2] {
            let queue = Queue::with_threads(threads).unwrap();
            let (mut got, mut by_plain) = (vec![f32::NAN; rows * n], vec![f32::NAN; rows * n]);
            let old = &old[..];
            queue
                .parallel_with(groups, (2, cols), ItemsMut::new(&mut got), |g, w| {
                    fast(g, old, (rows, n), w)
                })
                .unwrap();
            queue
                .parallel_with(groups, (2, cols), ItemsMut::new(&mut by_plain), |g, w| {
                    plain(g, old, (rows, n), w)
                })
                .unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got),
                bits(&by_plain),
                "rows of {cols}, {threads} threads"
            );
            assert_eq!(
                bits(&got),
                bits(&expected),
                "rows of {cols}, {threads} threads"
            );
        }
    }
}

/// The `u32` grid `kernel` writes, launched on `threads` threads in
/// `groups` work groups of 2 × 32 items.
fn in_rows_of_32(
    threads: usize,
    groups: (usize, usize),
    kernel: impl Fn(WorkGroup<2>, ItemsWindow<'_, u32, 2>) + Sync,
) -> Vec<u32> {
    let mut got = vec![0u32; groups.0 * 2 * groups.1 * 32];
    Queue::with_threads(threads)
        .unwrap()
        .parallel_with(groups, (2, 32), ItemsMut::new(&mut got), kernel)
        .unwrap();
    got
}

/// A band of columns `[lo, hi)` and an edge row, tested with `!`, `&&`
/// and `||`, a constant and a query in the condition, and an `else if`:
/// chunks of 16 columns inside the band, outside it, and across its edges.
// The condition as a port might write it.
#[allow(clippy::nonminimal_bool, clippy::identity_op)]
#[kernel(group_size = [2, 32])]
fn banded(group: WorkGroup<2>, (lo, hi): (usize, usize), mut out: ItemsWindow<'_, u32, 2>) {
    distribute_items!(group, |idx| {
        let i = idx.global_id_dim(0);
        out[idx] = if !(idx.global_id_dim(1) < lo) && idx.global_id_dim(1) < hi * 1 || i == EDGE {
            (i * 1000 + idx.global_id_dim(1)) as u32
        } else if i == 1 {
            7
        } else {
            u32::MAX - idx.global_id_dim(1) as u32
        };
    });
}

const EDGE: usize = 3;

fn banded_reference((rows, n): (usize, usize), (lo, hi): (usize, usize)) -> Vec<u32> {
    let mut expected = vec![0; rows * n];
    for i in 0..rows {
        for j in 0..n {
            expected[i * n + j] = if (j >= lo && j < hi) || i == EDGE {
                (i * 1000 + j) as u32
            } else if i == 1 {
                7
            } else {
                u32::MAX - j as u32
            };
        }
    }
    expected
}

#[test]
fn an_if_on_the_ids_stores_each_items_branch_in_every_kind_of_chunk() {
    let (rows, n) = (4, 64);
    // Bands that cover whole chunks, none, part of one, and all columns.
    for band in [(16, 48), (70, 80), (5, 21), (0, 64), (17, 17)] {
        for threads in [1, 2] {
            let got = in_rows_of_32(threads, (2, 2), |g, w| banded(g, band, w));
            assert_eq!(
                got,
                banded_reference((rows, n), band),
                "band {band:?}, {threads} threads"
            );
        }
    }
}

/// Every kind of comparison on ids rising along a row (`j`, the local and
/// global linear ids) and fixed along it (`i`, `r`), against values that
/// meet a row of 16 at its first lane, its last, inside it and past it:
/// decided from each chunk's first and last lanes, or lane by lane where
/// the lanes differ.
#[allow(clippy::nonminimal_bool)]
#[kernel(group_size = [2, 32])]
fn marked(group: WorkGroup<2>, (a, b, c): (usize, usize, usize), mut out: ItemsWindow<'_, u32, 2>) {
    distribute_items!(group, |idx| {
        let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
        let (r, l) = (idx.local_id_dim(&group, 0), idx.local_linear_id(&group));
        out[idx] = if j == a
            || b != j && (j <= c || l > 40) && !(i >= 2 && r == 0)
            || idx.global_linear_id() == a + 5
        {
            1
        } else {
            2
        };
    });
}

#[test]
fn comparisons_on_rising_and_fixed_ids_pick_each_items_branch() {
    let (rows, n) = (4, 64);
    for a in [0, 15, 16, 31, 47, 63] {
        for b in [0, 16, 30] {
            for c in [0, 15, 16, 33] {
                let expected: Vec<u32> = (0..rows * n)
                    .map(|k| {
                        let (i, j) = (k / n, k % n);
                        let (r, l) = (i % 2, (i % 2) * 32 + j % 32);
                        let marked = j == a
                            || b != j && (j <= c || l > 40) && !(i >= 2 && r == 0)
                            || k == a + 5;
                        if marked {
                            1
                        } else {
                            2
                        }
                    })
                    .collect();
                for threads in [1, 2] {
                    let got = in_rows_of_32(threads, (2, 2), |g, w| marked(g, (a, b, c), w));
                    assert_eq!(got, expected, "a {a}, b {b}, c {c}, {threads} threads");
                }
            }
        }
    }
}

/// `j == n - 1` with `n == 0` is only reached where the band test before
/// it fails, which it never does here: with overflow checks on it would
/// panic if evaluated, and in an optimised build the chunk's first pass
/// evaluates it wrapped, to the value the `if` would compute.
#[kernel(group_size = [2, 32])]
fn skipped_overflow(
    group: WorkGroup<2>,
    (hi, n): (usize, usize),
    mut out: ItemsWindow<'_, u32, 2>,
) {
    distribute_items!(group, |idx| {
        let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
        out[idx] = if j < hi || j == n - 1 {
            (i + j) as u32
        } else {
            0
        };
    });
}

#[test]
fn a_skipped_operand_that_would_overflow_changes_nothing() {
    let got = in_rows_of_32(1, (2, 2), |g, w| skipped_overflow(g, (64, 0), w));
    let expected: Vec<u32> = (0..4 * 64).map(|k| (k / 64 + k % 64) as u32).collect();
    assert_eq!(got, expected);
}

/// A bound of the user's type: its comparison may run any code, so each
/// item compares once, as written (the chunk's first pass is left out).
#[derive(Clone, Copy)]
struct Counted(usize);

static COMPARISONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl PartialEq<Counted> for usize {
    fn eq(&self, other: &Counted) -> bool {
        *self == other.0
    }
}

impl PartialOrd<Counted> for usize {
    fn partial_cmp(&self, other: &Counted) -> Option<std::cmp::Ordering> {
        COMPARISONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.partial_cmp(&other.0)
    }
}

#[kernel(group_size = [2, 32])]
fn counted_bound(group: WorkGroup<2>, bound: Counted, mut out: ItemsWindow<'_, u32, 2>) {
    distribute_items!(group, |idx| {
        let j = idx.global_id_dim(1);
        out[idx] = if j < bound { 1 } else { 2 };
    });
}

#[test]
fn a_bound_of_the_users_type_is_compared_once_per_item() {
    let got = in_rows_of_32(1, (1, 2), |g, w| counted_bound(g, Counted(20), w));
    let expected: Vec<u32> = (0..2 * 64)
        .map(|k| if k % 64 < 20 { 1 } else { 2 })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(
        COMPARISONS.load(std::sync::atomic::Ordering::Relaxed),
        2 * 64
    );
}

/// A literal and `!` in the condition: rows of 16 items split at column 5.
#[allow(clippy::nonminimal_bool)]
#[kernel(group_size = [2, 32])]
fn from_column_5(group: WorkGroup<2>, mut out: ItemsWindow<'_, u32, 2>) {
    distribute_items!(group, |idx| {
        out[idx] = if false || !(idx.global_id_dim(1) < 5) {
            1
        } else {
            2
        };
    });
}

#[test]
fn a_condition_with_a_literal_and_a_negation_picks_each_items_branch() {
    let got = in_rows_of_32(1, (1, 1), from_column_5);
    let expected: Vec<u32> = (0..2 * 32)
        .map(|k| if k % 32 >= 5 { 1 } else { 2 })
        .collect();
    assert_eq!(got, expected);
}
