//! `distribute_items!` whose items each walk a tile with group-stride loops,
//! one per dimension from the item's local id (the halo fill of GPU
//! stencil code): the lowering runs them as rounds of item loops.
//!
//! Each kernel records the order of its points, checked against the rounds
//! computed here (the shortcut was taken) or the item-by-item order (the
//! plain loop), and its results against a serial loop: 2-D tiles with a
//! halo (partial last rounds), `for … step_by` loops in 1-D and 3-D (a
//! stride wider than the group), the `_and_wait` form, and the
//! fallbacks (a stride narrower than the group, a zero limit).

use std::sync::Mutex;

use scoped::prelude::*;

/// One visit: (local linear id, point).
type Visit = (usize, [usize; 3]);

/// The points each group visited, in order.
struct Trace(Mutex<Vec<Vec<Visit>>>);

impl Trace {
    fn new(groups: usize) -> Self {
        Self(Mutex::new(vec![Vec::new(); groups]))
    }

    fn hit(&self, group: usize, item: usize, point: [usize; 3]) {
        self.0.lock().unwrap()[group].push((item, point));
    }

    fn into_inner(self) -> Vec<Vec<Visit>> {
        self.0.into_inner().unwrap()
    }
}

/// The order of the points of a group of `range` items (row-major) whose
/// item `id` visits `id[k] + t·strides[k] < limits[k]`: in rounds of
/// offsets (`rounds`), or item by item.
fn order(range: [usize; 3], limits: [usize; 3], strides: [usize; 3], rounds: bool) -> Vec<Visit> {
    let items: Vec<[usize; 3]> = (0..range[0])
        .flat_map(|a| (0..range[1]).flat_map(move |b| (0..range[2]).map(move |c| [a, b, c])))
        .collect();
    let steps = |k: usize, from: usize| (from..limits[k]).step_by(strides[k]);
    let mut order = Vec::new();
    if rounds {
        for o0 in steps(0, 0) {
            for o1 in steps(1, 0) {
                for o2 in steps(2, 0) {
                    for (linear, id) in items.iter().enumerate() {
                        let p = [id[0] + o0, id[1] + o1, id[2] + o2];
                        if (0..3).all(|k| p[k] < limits[k]) {
                            order.push((linear, p));
                        }
                    }
                }
            }
        }
    } else {
        for (linear, id) in items.iter().enumerate() {
            for a in steps(0, id[0]) {
                for b in steps(1, id[1]) {
                    for c in steps(2, id[2]) {
                        order.push((linear, [a, b, c]));
                    }
                }
            }
        }
    }
    order
}

const ROWS: usize = 4;
const COLS: usize = 8;
const HALO: usize = 2;
type Tile = [[i64; COLS + 2 * HALO]; ROWS + 2 * HALO];

/// A 5-point stencil over a halo tile, filled as GPU code fills it: each
/// item loads its point and every `stride`-th after it in both
/// dimensions, zero outside the grid.
#[kernel]
fn stencil(
    group: WorkGroup<2>,
    grid: &[i64],
    (n, strides, trace): (usize, [usize; 2], &Trace),
    mut out: ItemsWindow<'_, i64, 2>,
) {
    memory_environment!(group, require_local_mem::<Tile>(), |tile| {
        let row0 = (group.group_id_dim(0) * ROWS).wrapping_sub(HALO);
        let col0 = (group.group_id_dim(1) * COLS).wrapping_sub(HALO);
        let [s0, s1] = strides;
        let g = group.group_linear_id();
        distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            let mut tr = r;
            while tr < ROWS + 2 * HALO {
                let mut tc = c;
                while tc < COLS + 2 * HALO {
                    let (i, j) = (row0.wrapping_add(tr), col0.wrapping_add(tc));
                    tile[tr][tc] = if i < n && j < n { grid[i * n + j] } else { 0 };
                    trace.hit(g, idx.local_linear_id(&group), [tr, tc, 0]);
                    tc += s1;
                }
                tr += s0;
            }
        });
        distribute_items!(group, |idx| {
            let (r, c) = (
                idx.local_id_dim(&group, 0) + HALO,
                idx.local_id_dim(&group, 1) + HALO,
            );
            out[idx] = tile[r][c]
                + 10 * tile[r - 1][c]
                + 100 * tile[r + 2][c]
                + 1000 * tile[r][c - 2]
                + 10000 * tile[r][c + 1];
        });
    });
}

fn stencil_reference(grid: &[i64], n: usize) -> Vec<i64> {
    let at = |i: isize, j: isize| {
        let inside = (0..n as isize).contains(&i) && (0..n as isize).contains(&j);
        if inside {
            grid[i as usize * n + j as usize]
        } else {
            0
        }
    };
    let mut out = vec![0; n * n];
    for i in 0..n as isize {
        for j in 0..n as isize {
            out[i as usize * n + j as usize] = at(i, j)
                + 10 * at(i - 1, j)
                + 100 * at(i + 2, j)
                + 1000 * at(i, j - 2)
                + 10000 * at(i, j + 1);
        }
    }
    out
}

fn values(len: usize) -> Vec<i64> {
    (0..len as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

/// `stencil` over an `n`×`n` grid on `threads` threads: its output and
/// each group's visits.
fn run_stencil(
    grid: &[i64],
    n: usize,
    strides: [usize; 2],
    threads: usize,
) -> (Vec<i64>, Vec<Vec<Visit>>) {
    let trace = Trace::new((n / ROWS) * (n / COLS));
    let mut out = vec![0; n * n];
    Queue::with_threads(threads)
        .unwrap()
        .parallel_with(
            (n / ROWS, n / COLS),
            (ROWS, COLS),
            ItemsMut::new(&mut out),
            |g, o| stencil(g, grid, (n, strides, &trace), o),
        )
        .unwrap();
    (out, trace.into_inner())
}

#[test]
fn halo_tiles_fill_in_rounds() {
    let n = 16;
    let grid = values(n * n);
    let expected = stencil_reference(&grid, n);
    let limits = [ROWS + 2 * HALO, COLS + 2 * HALO, 1];
    // Strides of the group's extent: the last rounds partial.
    let strides = [ROWS, COLS];
    for threads in [1, 2] {
        let (out, visits) = run_stencil(&grid, n, strides, threads);
        assert_eq!(out, expected, "strides {strides:?}, {threads} threads");
        let want = order([ROWS, COLS, 1], limits, [strides[0], strides[1], 1], true);
        for (g, got) in visits.iter().enumerate() {
            assert_eq!(*got, want, "group {g}, strides {strides:?}");
        }
    }
}

#[test]
fn strides_narrower_than_the_group_keep_the_plain_loop() {
    // Two items would reach one point: each item runs its own loops.
    let n = 16;
    let grid = values(n * n);
    let expected = stencil_reference(&grid, n);
    let (out, visits) = run_stencil(&grid, n, [ROWS - 1, COLS], 1);
    assert_eq!(out, expected);
    let limits = [ROWS + 2 * HALO, COLS + 2 * HALO, 1];
    let want = order([ROWS, COLS, 1], limits, [ROWS - 1, COLS, 1], false);
    for got in visits {
        assert_eq!(got, want);
    }
}

/// 1-D: each item copies every `stride`-th element from its id, `len` of
/// them, then the group sums its copy with weights; `for … step_by` form.
#[kernel]
fn copy_1d(
    group: WorkGroup<1>,
    data: &[i64],
    (len, stride, trace): (usize, usize, &Trace),
    mut out: ItemsWindow<'_, i64>,
) {
    memory_environment!(group, require_local_mem::<[i64; 64]>(), |copy| {
        let g = group.group_linear_id();
        distribute_items!(group, |idx| {
            for k in (idx.local_id_dim(&group, 0)..len).step_by(stride) {
                copy[k] = 3 * data[g * len + k];
                trace.hit(g, idx.local_linear_id(&group), [k, 0, 0]);
            }
        });
        distribute_items!(group, |idx| {
            let l = idx.local_id_dim(&group, 0);
            out[idx] = (0..len).map(|k| copy[k] * (k + l) as i64).sum();
        });
    });
}

#[test]
fn one_dimension_and_empty_nests() {
    let items = 8;
    let groups = 3;
    for (len, stride, rounds) in [(64, 8, true), (20, 8, true), (5, 8, true), (0, 8, false)] {
        let data = values(groups * len);
        let expected: Vec<i64> = (0..groups * items)
            .map(|gid| {
                let (g, l) = (gid / items, gid % items);
                (0..len)
                    .map(|k| 3 * data[g * len + k] * (k + l) as i64)
                    .sum()
            })
            .collect();
        let trace = Trace::new(groups);
        let mut out = vec![0; groups * items];
        Queue::with_threads(2)
            .unwrap()
            .parallel_with(groups, items, ItemsMut::new(&mut out), |g, o| {
                copy_1d(g, &data, (len, stride, &trace), o)
            })
            .unwrap();
        assert_eq!(out, expected, "len {len}");
        let want = order([items, 1, 1], [len, 1, 1], [stride, 1, 1], rounds);
        for got in trace.into_inner() {
            assert_eq!(got, want, "len {len}");
        }
    }
}

/// 3-D: every item marks the points of a `limits` box it reaches.
#[kernel]
fn box_3d(
    group: WorkGroup<3>,
    (limits, trace): ([usize; 3], &Trace),
    mut out: ItemsWindow<'_, u32, 3>,
) {
    memory_environment!(group, require_local_mem::<[[[u32; 5]; 5]; 5]>(), |cube| {
        let [l0, l1, l2] = limits;
        distribute_items_and_wait!(group, |idx| {
            let (a, b, c) = (
                idx.local_id_dim(&group, 0),
                idx.local_id_dim(&group, 1),
                idx.local_id_dim(&group, 2),
            );
            for i in (a..l0).step_by(2) {
                for j in (b..l1).step_by(2) {
                    for k in (c..l2).step_by(4) {
                        cube[i][j][k] += 1 + (i * 25 + j * 5 + k) as u32;
                        trace.hit(0, idx.local_linear_id(&group), [i, j, k]);
                    }
                }
            }
        });
        distribute_items!(group, |idx| {
            let l = idx.local_linear_id(&group);
            out[idx] = cube.iter().flatten().flatten().sum::<u32>() + l as u32;
        });
    });
}

#[test]
fn three_dimensions_in_rounds() {
    // Strides as wide as the group, and one wider (no item reaches k = 3).
    let limits = [5, 3, 5];
    let range = [2, 2, 3];
    let strides = [2, 2, 4];
    let trace = Trace::new(1);
    let mut out = vec![0u32; 12];
    Queue::with_threads(1)
        .unwrap()
        .parallel_with((1, 1, 1), (2, 2, 3), ItemsMut::new(&mut out), |g, o| {
            box_3d(g, (limits, &trace), o)
        })
        .unwrap();
    let reached = order(range, limits, strides, false);
    let total: u32 = reached
        .iter()
        .map(|(_, [i, j, k])| 1 + (i * 25 + j * 5 + k) as u32)
        .sum();
    let expected: Vec<u32> = (0..12).map(|l| total + l).collect();
    assert_eq!(out, expected);
    assert_eq!(trace.into_inner()[0], order(range, limits, strides, true));
}
