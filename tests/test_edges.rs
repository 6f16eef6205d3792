//! `distribute_items!` bodies that end in statements for the items on one
//! edge of the group (`if r == 0 { .. }`, the halo loads of GPU tiles),
//! which the lowering runs on that edge alone after one loop of the rest:
//! tiles with halos in 2-D and 1-D, edges along the fastest dimension (in
//! chunks) and across it (item by item), values written first or second,
//! from constants, parameters and casts, a value of a user's type (every
//! item tests its own guard), an edge no item is on, edges of sub-groups,
//! an out-of-range read on an edge, and edges whose reads at computed
//! indices are checked a chunk at a time (elements `Copy` or not), against
//! serial references.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;

/// Groups of 3 × 20 items: each row is one chunk of 16 lanes and 4 items
/// after it, or two chunks of 8 and 4 items.
const ROWS: usize = 3;
const COLS: usize = 20;

type Tile = [[i64; COLS + 2]; ROWS + 2];

/// A GPU stencil tile: every item stages its point, the items on the
/// tile's edges the halo beside them (-1 outside the grid), then every
/// item sums its five points. `last` is `COLS - 1`, passed in.
#[kernel]
fn halo(
    group: WorkGroup<2>,
    grid: &[i64],
    (n, last): (usize, u32),
    mut out: ItemsWindow<'_, i64, 2>,
) {
    memory_environment!(group, require_local_mem::<Tile>(), |tile| {
        distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
            tile[r + 1][c + 1] = grid[i * n + j];
            if r == 0 {
                tile[0][c + 1] = if i > 0 { grid[(i - 1) * n + j] } else { -1 };
            }
            if ROWS - 1 == r {
                tile[ROWS + 1][c + 1] = if i + 1 < n { grid[(i + 1) * n + j] } else { -1 };
            }
            if c == 0 {
                tile[r + 1][0] = if j > 0 { grid[i * n + j - 1] } else { -1 };
            }
            if c == last as usize {
                tile[r + 1][COLS + 1] = if j + 1 < n { grid[i * n + j + 1] } else { -1 };
            }
        });
        distribute_items!(group, |idx| {
            let (r, c) = (idx.innermost_local_id_dim(0), idx.innermost_local_id_dim(1));
            out[idx] = tile[r + 1][c + 1]
                + 10 * tile[r][c + 1]
                + 100 * tile[r + 2][c + 1]
                + 1000 * tile[r + 1][c]
                + 10000 * tile[r + 1][c + 2];
        });
    });
}

/// `halo`, serially: the five points of every point of an `n`×`n` grid.
fn halo_reference(grid: &[i64], n: usize) -> Vec<i64> {
    let at = |i: isize, j: isize| {
        if i < 0 || j < 0 || i >= n as isize || j >= n as isize {
            -1
        } else {
            grid[i as usize * n + j as usize]
        }
    };
    let mut out = vec![0; n * n];
    for i in 0..n as isize {
        for j in 0..n as isize {
            out[i as usize * n + j as usize] = at(i, j)
                + 10 * at(i - 1, j)
                + 100 * at(i + 1, j)
                + 1000 * at(i, j - 1)
                + 10000 * at(i, j + 1);
        }
    }
    out
}

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

#[test]
fn halo_tiles_read_what_the_items_staged() {
    // 4 × 3 groups: a 12 × 60 block of a 60-column grid.
    let n = 60;
    let grid = values(n * n);
    let expected = halo_reference(&grid, n);
    for threads in [1, 2] {
        let mut out = vec![0; n * n];
        let groups = (n / ROWS, n / COLS);
        Queue::with_threads(threads)
            .unwrap()
            .parallel_with(groups, (ROWS, COLS), ItemsMut::new(&mut out), |g, o| {
                halo(g, &grid, (n, COLS as u32 - 1), o)
            })
            .unwrap();
        assert_eq!(out, expected, "{threads} threads");
    }
}

/// A value of a user's type that compares with a `usize`.
#[derive(Clone, Copy)]
struct Edge(usize);

impl PartialEq<Edge> for usize {
    fn eq(&self, other: &Edge) -> bool {
        *self == other.0
    }
}

/// A 1-D tile with a halo of one on each side, the items on the tile's
/// ends staging them; `edge` is the last item, `nowhere` an id no item has.
#[kernel]
fn ends(
    group: WorkGroup<1>,
    data: &[i64],
    (edge, nowhere): (Edge, usize),
    mut out: ItemsWindow<'_, i64>,
) {
    let n = data.len();
    memory_environment!(group, require_local_mem::<[i64; 42]>(), |tile| {
        distribute_items_and_wait!(group, |idx| {
            let l = idx.local_id_dim(&group, 0);
            let g = idx.global_id_dim(0);
            tile[l + 1] = 2 * data[g];
            if l == 0 {
                tile[0] = if g > 0 { data[g - 1] } else { 0 };
            }
            if l == edge {
                tile[l + 2] = if g + 1 < n { data[g + 1] } else { 0 };
            }
            if l == nowhere {
                tile[l] = 99;
            }
        });
        distribute_items!(group, |idx| {
            let l = idx.local_id_dim(&group, 0);
            out[idx] = tile[l] + 10 * tile[l + 1] + 100 * tile[l + 2];
        });
    });
}

#[test]
fn ends_of_one_dimensional_tiles_and_values_of_other_types() {
    let (groups, size) = (5, 40);
    let n = groups * size;
    let data = values(n);
    let at = |g: isize| {
        if g < 0 || g >= n as isize {
            0
        } else {
            data[g as usize]
        }
    };
    let expected: Vec<i64> = (0..n as isize)
        .map(|g| {
            let l = g as usize % size;
            // The items inside the tile see their neighbours' doubled
            // values, the ends the halo as staged.
            let west = if l == 0 { at(g - 1) } else { 2 * at(g - 1) };
            let east = if l == size - 1 {
                at(g + 1)
            } else {
                2 * at(g + 1)
            };
            west + 10 * 2 * at(g) + 100 * east
        })
        .collect();
    for threads in [1, 2] {
        let mut out = vec![0; n];
        Queue::with_threads(threads)
            .unwrap()
            .parallel_with(groups, size, ItemsMut::new(&mut out), |g, o| {
                ends(g, &data, (Edge(size - 1), 1000), o)
            })
            .unwrap();
        assert_eq!(out, expected, "{threads} threads");
    }
}

/// The first item of every sub-group of 8 marks its sub-group's slot; the
/// others write their own.
#[kernel]
fn sub_group_edges(group: WorkGroup<1, 8>, mut out: ItemsWindow<'_, u32>) {
    memory_environment!(group, require_local_mem::<[u32; 64]>(), |marks| {
        distribute_groups_and_wait!(group, |sub_group| {
            let first = 0;
            distribute_items!(sub_group, |idx| {
                let l = idx.innermost_local_id_dim(0);
                let w = idx.local_id_dim(&group, 0);
                marks[w] += 1;
                if l == first {
                    marks[w] += 100;
                }
            });
        });
        distribute_items!(group, |idx| {
            out[idx] = marks[idx.local_id_dim(&group, 0)];
        });
    });
}

#[test]
fn edges_of_sub_groups_are_their_first_items() {
    let mut out = vec![0; 2 * 64];
    Queue::new()
        .parallel_with(2, 64, ItemsMut::new(&mut out), sub_group_edges)
        .unwrap();
    let expected: Vec<u32> = (0..2 * 64)
        .map(|i| if i % 8 == 0 { 101 } else { 1 })
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn an_out_of_range_read_on_an_edge_panics_as_indexing_does() {
    // The grid is one row short: the bottom halo of the last row of
    // groups reads past it.
    let n = 60;
    let grid = values(n * n - n);
    let mut out = vec![0; n * n];
    let result = catch_unwind(AssertUnwindSafe(|| {
        Queue::with_threads(1).unwrap().parallel_with(
            (n / ROWS, n / COLS),
            (ROWS, COLS),
            ItemsMut::new(&mut out),
            |g, o| halo(g, &grid, (n, COLS as u32 - 1), o),
        )
    }));
    let payload = result.expect_err("no panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.starts_with(&format!("index out of bounds: the len is {}", n * n - n)),
        "{message}"
    );
}

/// The lengths of the strings above and below a tile, staged by the items
/// on its first and last rows: reads of elements that are not `Copy`, on
/// edges along the fastest dimension.
#[kernel]
fn lengths_around(
    group: WorkGroup<2>,
    names: &[String],
    n: usize,
    mut out: ItemsWindow<'_, usize, 2>,
) {
    memory_environment!(group, require_local_mem::<[[usize; COLS]; 2]>(), |rims| {
        distribute_items_and_wait!(group, |idx| {
            let r = idx.local_id_dim(&group, 0);
            let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
            if r == 0 {
                rims[0][j % COLS] = if i > 0 {
                    names[(i - 1) * n + j].len()
                } else {
                    0
                };
            }
            if r == ROWS - 1 {
                rims[1][j % COLS] = if i + 1 < n {
                    names[(i + 1) * n + j].len()
                } else {
                    0
                };
            }
        });
        distribute_items!(group, |idx| {
            let c = idx.local_id_dim(&group, 1);
            out[idx] = rims[0][c] + 100 * rims[1][c];
        });
    });
}

#[test]
fn edges_read_elements_that_are_not_copy_in_place() {
    let n = 60;
    let names: Vec<String> = (0..n * n).map(|k| "y".repeat(k % 17)).collect();
    let mut out = vec![0; n * n];
    Queue::new()
        .parallel_with(
            (n / ROWS, n / COLS),
            (ROWS, COLS),
            ItemsMut::new(&mut out),
            |g, o| lengths_around(g, &names, n, o),
        )
        .unwrap();
    let len = |i: usize, j: usize| names[i * n + j].len();
    for i in 0..n {
        let (top, bottom) = (i - i % ROWS, i - i % ROWS + ROWS - 1);
        for j in 0..n {
            let above = if top > 0 { len(top - 1, j) } else { 0 };
            let below = if bottom + 1 < n {
                len(bottom + 1, j)
            } else {
                0
            };
            assert_eq!(out[i * n + j], above + 100 * below, "({i}, {j})");
        }
    }
}
