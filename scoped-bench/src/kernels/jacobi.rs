//! Kernel 5, 2-D 5-point Jacobi stencil: a 4096×4096 `f32` grid, 10
//! sweeps. Each sweep sets every interior point to the mean of its four
//! neighbours in the previous grid, `0.25 · ((north + south) + (west +
//! east))`, and keeps the boundary. Sweeps alternate between two grids; the
//! first reads the initial grid, which stays untouched.
//!
//! * `scoped`, GPU form: the 2-D tiled stencil of SYCL and CUDA code
//!   bases, ported as written. Work groups of [`GPU_ROWS`]×[`GPU_COLS`]
//!   items (required, `group_size`), one per tile; every item copies its
//!   point of the old grid into a local tile with a one-point halo, the
//!   items on the tile's edges the halo points beside them as well (zero
//!   outside the grid), a barrier, then every item computes its point
//!   from the tile, or keeps it on the grid's boundary. The lowering runs
//!   the halo loads on their edges alone and copies the tile's rows and
//!   halo rows as vectors (AMD EPYC, AVX-512, one thread: 2.2× the peer
//!   at 1024×1024, 1.5× at 4096×4096; item by item, 12× and 3.9×), and
//!   takes the boundary test's branch once per row of 16 items where they
//!   agree (build without flags, Intel Xeon, one thread: 1.56–1.64× →
//!   1.28–1.31× at v3, 1.63–1.68× → 1.40–1.44× at v4), and fetches each
//!   tile row of the next group ahead while it copies this group's
//!   (Intel Xeon, one thread, build without flags: 1.21–1.25× → 1.09–1.12×
//!   at v3, 1.36–1.38× → 1.18–1.20× at v4, 1.88–2.03× → 1.58–1.70× at the
//!   baseline). Each group reads 18 rows of 256 bytes into its tile, then
//!   writes 16: short streams that the hardware prefetchers leave to
//!   demand fetches. The lowering keeps the copy:
//!   written by hand in the same order of groups, neither filling each
//!   tile row just ahead of the compute (1.45–2.0× the peer) nor reading
//!   the old grid in place (1.1–1.6×) reaches 1.1× (AMD EPYC Zen 4, v3
//!   and v4); the rest is the short rows and their order.
//! * `scoped`, row bands: one launch per sweep, one work group per band of
//!   [`BAND`] rows, one item per column. The group keeps a two-row tile
//!   with a one-point halo in local memory, the rows above and at the row
//!   it computes (row `r` in slot `r % 2`), and walks down its band: at
//!   each row every item reads its point of the row below from the old
//!   grid, computes its point from that and the tile, and stages the point
//!   below in place of the one above, which only this item reads. Each
//!   point of the old grid is read once per sweep and each point of the
//!   new one written once, as in the peer, and the tile (32 KiB for 4096
//!   columns) stays in the L1 and L2 caches. A three-row tile with a slot
//!   for the row below measured 1.1–1.2× the peer (48 KiB); the kernel
//!   requires its group size (`group_size = W`), so the tile indices are
//!   provably in bounds and the item loop is one vector loop. The two
//!   boundary columns are put back by one item after each row.
//! * `scoped`, 2-D tiles: the GPU formulation, work groups of 16×128
//!   points, each staging its whole tile with halo before a barrier, then
//!   computing from it. On a CPU this costs 1.6–2× the peer, which is why
//!   the band form exists. Measured causes: a group runs its load phase
//!   and its store phase one after the other, each touching 16 rows of 512
//!   bytes, so the loads and the stores no longer overlap and most lines
//!   are fetched on demand rather than by the hardware prefetcher (4× the
//!   peer's demand fills from memory); software prefetches of the next
//!   group's rows and other tile shapes (8×512 to 1×4096) did not help.
//!   On top of that the tile is zero-filled and written once more by the
//!   copies, so every point is stored three times per sweep. Its twin, the
//!   same tiles staged by hand in a [`HaloTile`] with `copy_from_slice`
//!   (one task per band of tiles), is as slow or slower (`scoped`/twin
//!   0.89–0.91): the cost is the algorithm's, not the lowering's.
//! * peer: `par_chunks_mut` over the rows of the new grid, each row from
//!   the three rows around it in the old one.
//!
//! All compute the same expression, so they agree bit for bit with the
//! reference. Bytes counted per sweep: the grid read once, written once.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "jacobi";
const SWEEPS: usize = 10;
/// Rows of the grid each work group of the row-band kernel computes.
const BAND: usize = 64;
/// Rows and columns of a work group's tile in the 2-D tile kernel.
const TILE_ROWS: usize = 16;
const TILE_COLS: usize = 128;

/// Rows and columns of a work group's tile in the GPU form: 1024 items,
/// the most a GPU work group commonly holds.
const GPU_ROWS: usize = 16;
const GPU_COLS: usize = 64;

/// The GPU form's tile with its halo.
type GpuTile = [[f32; GPU_COLS + 2]; GPU_ROWS + 2];

/// A tile with its halo: one extra row above and below, one extra column
/// left and right.
type HaloTile = [[f32; TILE_COLS + 2]; TILE_ROWS + 2];

#[inline(always)]
fn stencil(north: f32, south: f32, west: f32, east: f32) -> f32 {
    0.25 * ((north + south) + (west + east))
}

#[kernel(group_size = [GPU_ROWS, GPU_COLS])]
fn jacobi_gpu(group: WorkGroup<2>, old: &[f32], n: usize, mut new: ItemsWindow<'_, f32, 2>) {
    memory_environment!(group, require_local_mem::<GpuTile>(), |tile| {
        distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
            tile[r + 1][c + 1] = old[i * n + j];
            // Halo: the points beside the tile's edge items, zero outside
            // the grid.
            if r == 0 {
                tile[0][c + 1] = if i > 0 { old[(i - 1) * n + j] } else { 0.0 };
            }
            if r == GPU_ROWS - 1 {
                tile[GPU_ROWS + 1][c + 1] = if i + 1 < n { old[(i + 1) * n + j] } else { 0.0 };
            }
            if c == 0 {
                tile[r + 1][0] = if j > 0 { old[i * n + j - 1] } else { 0.0 };
            }
            if c == GPU_COLS - 1 {
                tile[r + 1][GPU_COLS + 1] = if j + 1 < n { old[i * n + j + 1] } else { 0.0 };
            }
        });
        distribute_items!(group, |idx| {
            let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
            new[idx] = if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                tile[r + 1][c + 1]
            } else {
                stencil(
                    tile[r][c + 1],
                    tile[r + 2][c + 1],
                    tile[r + 1][c],
                    tile[r + 1][c + 2],
                )
            };
        });
    });
}

/// One sweep of a `W`×`W` grid in bands of [`BAND`] rows; `W2` is `W + 2`
/// (a tile row with its halo), spelled out because array lengths cannot
/// be computed from a const parameter.
// One item per column, required: every tile index below is then
// provably in bounds.
#[kernel(group_size = W)]
fn jacobi_band<const W: usize, const W2: usize>(
    group: WorkGroup<1>,
    old: &[f32],
    mut new: ChunkWindow<'_, f32>,
) {
    const { assert!(W2 == W + 2, "W2 must be W + 2") };
    let n = W;
    let first_row = group.group_id_dim(0) * BAND;
    memory_environment!(group, require_local_mem::<[[f32; W2]; 2]>(), |tile| {
        // The rows above and at the band's first row, as far as the grid
        // reaches.
        for row in first_row.saturating_sub(1)..=first_row {
            group
                .async_work_group_copy(&mut tile[row % 2][1..], &old[row * n..], W)
                .wait();
        }
        for row in first_row..first_row + BAND {
            let (mid, north) = (row % 2, (row + 1) % 2);
            // The row below (for the last row, itself: staged, unused).
            let below = &old[(row + 1).min(n - 1) * n..][..W];
            let out = row * n;
            if row == 0 || row == n - 1 {
                distribute_items_and_wait!(group, |idx| {
                    let c = idx.innermost_local_id_dim(0);
                    tile[north][c + 1] = below[c];
                    new[out + c] = tile[mid][c + 1];
                });
            } else {
                distribute_items_and_wait!(group, |idx| {
                    let c = idx.innermost_local_id_dim(0);
                    let north_point = tile[north][c + 1];
                    let south_point = below[c];
                    tile[north][c + 1] = south_point;
                    new[out + c] =
                        stencil(north_point, south_point, tile[mid][c], tile[mid][c + 2]);
                });
                // The boundary columns keep their values: one item puts
                // them back, so that the loop above has no condition.
                single_item!(group, || {
                    new[out] = tile[mid][1];
                    new[out + W - 1] = tile[mid][W];
                });
            }
        }
    });
}

// The group shape required: every tile index below is then provably in
// bounds.
#[kernel(group_size = [TILE_ROWS, TILE_COLS])]
fn jacobi_tiles(
    group: WorkGroup<2>,
    n: usize,
    (old, mut new): (ItemsRefWindow<'_, f32, 2>, ItemsWindow<'_, f32, 2>),
) {
    memory_environment!(group, require_local_mem::<HaloTile>(), |tile| {
        let row0 = group.group_id_dim(0) * TILE_ROWS;
        let col0 = group.group_id_dim(1) * TILE_COLS;
        // The tile: every item copies its own point.
        distribute_items!(group, |idx| {
            let (r, c) = (idx.innermost_local_id_dim(0), idx.innermost_local_id_dim(1));
            tile[r + 1][c + 1] = old[idx];
        });
        // The halo, as far as the grid reaches; outside the grid it stays
        // zero (and is never used: boundary points are copied, not
        // averaged). Rows above and below: one group copy each.
        let grid = old.as_slice();
        if row0 > 0 {
            let above = &grid[(row0 - 1) * n + col0..];
            group
                .async_work_group_copy(&mut tile[0][1..], above, TILE_COLS)
                .wait();
        }
        if row0 + TILE_ROWS < n {
            let below = &grid[(row0 + TILE_ROWS) * n + col0..];
            group
                .async_work_group_copy(&mut tile[TILE_ROWS + 1][1..], below, TILE_COLS)
                .wait();
        }
        // Columns left and right: one point per row.
        single_item!(group, || {
            for r in 0..TILE_ROWS {
                let i = row0 + r;
                if col0 > 0 {
                    tile[r + 1][0] = old[Id::new([i, col0 - 1])];
                }
                if col0 + TILE_COLS < n {
                    tile[r + 1][TILE_COLS + 1] = old[Id::new([i, col0 + TILE_COLS])];
                }
            }
        });
        group_barrier(group);
        distribute_items!(group, |idx| {
            let (r, c) = (idx.innermost_local_id_dim(0), idx.innermost_local_id_dim(1));
            new[idx] = stencil(
                tile[r][c + 1],
                tile[r + 2][c + 1],
                tile[r + 1][c],
                tile[r + 1][c + 2],
            );
        });
        // Points on the grid's boundary keep their values: one item
        // copies those of this tile, if any, so that the loop above has no
        // per-point condition.
        single_item!(group, || {
            boundary_points(row0, col0, n, |r, c| {
                new[Id::new([row0 + r, col0 + c])] = tile[r + 1][c + 1];
            });
        });
    });
}

/// Calls `keep(r, c)` for every point (row `r`, column `c`, relative to
/// the tile) of the tile at `row0`, `col0` that lies on the boundary of the
/// `n`×`n` grid, whose value a sweep keeps.
fn boundary_points(row0: usize, col0: usize, n: usize, mut keep: impl FnMut(usize, usize)) {
    for c in 0..TILE_COLS {
        if row0 == 0 {
            keep(0, c);
        }
        if row0 + TILE_ROWS == n {
            keep(TILE_ROWS - 1, c);
        }
    }
    for r in 0..TILE_ROWS {
        if col0 == 0 {
            keep(r, 0);
        }
        if col0 + TILE_COLS == n {
            keep(r, TILE_COLS - 1);
        }
    }
}

/// Launches one row-band sweep of a `W`×`W` grid.
fn sweep_bands<const W: usize, const W2: usize>(
    queue: &Queue,
    old: &[f32],
    new: &mut [f32],
) -> Result<(), scoped::LaunchError> {
    let bands = ChunksMut::new(new, BAND * W);
    queue.parallel_with(W / BAND, W, bands, |g, w| jacobi_band::<W, W2>(g, old, w))
}

/// One sweep of the hand-written peer.
fn sweep_peer(old: &[f32], new: &mut [f32], n: usize) {
    new.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        let mid = &old[i * n..][..n];
        if i == 0 || i == n - 1 {
            row.copy_from_slice(mid);
            return;
        }
        let north = &old[(i - 1) * n..][..n];
        let south = &old[(i + 1) * n..][..n];
        row[0] = mid[0];
        row[n - 1] = mid[n - 1];
        for j in 1..n - 1 {
            row[j] = stencil(north[j], south[j], mid[j - 1], mid[j + 1]);
        }
    });
}

/// One sweep of the twin of the 2-D tile kernel: the same algorithm by
/// hand. Every band of [`TILE_ROWS`] rows is a task; each of its tiles is
/// staged with its halo in a zeroed [`HaloTile`] and computed from it, the
/// grid's boundary points copied from the tile afterwards.
fn sweep_tiles_by_hand(old: &[f32], new: &mut [f32], n: usize) {
    new.par_chunks_mut(TILE_ROWS * n)
        .enumerate()
        .for_each(|(band, rows)| {
            let row0 = band * TILE_ROWS;
            for col0 in (0..n).step_by(TILE_COLS) {
                let mut tile: HaloTile = [[0.0; TILE_COLS + 2]; TILE_ROWS + 2];
                for r in 0..TILE_ROWS {
                    let from = &old[(row0 + r) * n + col0..][..TILE_COLS];
                    tile[r + 1][1..=TILE_COLS].copy_from_slice(from);
                }
                if row0 > 0 {
                    let above = &old[(row0 - 1) * n + col0..][..TILE_COLS];
                    tile[0][1..=TILE_COLS].copy_from_slice(above);
                }
                if row0 + TILE_ROWS < n {
                    let below = &old[(row0 + TILE_ROWS) * n + col0..][..TILE_COLS];
                    tile[TILE_ROWS + 1][1..=TILE_COLS].copy_from_slice(below);
                }
                for r in 0..TILE_ROWS {
                    let i = row0 + r;
                    if col0 > 0 {
                        tile[r + 1][0] = old[i * n + col0 - 1];
                    }
                    if col0 + TILE_COLS < n {
                        tile[r + 1][TILE_COLS + 1] = old[i * n + col0 + TILE_COLS];
                    }
                }
                for r in 0..TILE_ROWS {
                    let out = &mut rows[r * n + col0..][..TILE_COLS];
                    for (c, point) in out.iter_mut().enumerate() {
                        *point = stencil(
                            tile[r][c + 1],
                            tile[r + 2][c + 1],
                            tile[r + 1][c],
                            tile[r + 1][c + 2],
                        );
                    }
                }
                boundary_points(row0, col0, n, |r, c| {
                    rows[r * n + col0 + c] = tile[r + 1][c + 1];
                });
            }
        });
}

/// One sweep of the serial reference.
fn sweep_reference(old: &[f32], new: &mut [f32], n: usize) {
    for i in 0..n {
        for j in 0..n {
            new[i * n + j] = if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                old[i * n + j]
            } else {
                stencil(
                    old[(i - 1) * n + j],
                    old[(i + 1) * n + j],
                    old[i * n + j - 1],
                    old[i * n + j + 1],
                )
            };
        }
    }
}

/// Runs `SWEEPS` sweeps from `initial`, alternating between `a` and `b`;
/// returns which one holds the result.
fn sweeps<'a>(
    initial: &[f32],
    a: &'a mut [f32],
    b: &'a mut [f32],
    mut sweep: impl FnMut(&[f32], &mut [f32]),
) -> &'a [f32] {
    sweep(initial, a);
    for s in 1..SWEEPS {
        if s & 1 == 1 {
            sweep(a, b);
        } else {
            sweep(b, a);
        }
    }
    if SWEEPS & 1 == 0 {
        b
    } else {
        a
    }
}

pub(crate) struct Jacobi {
    n: usize,
    initial: Vec<f32>,
    /// The two grids every version sweeps between (see [`Kernel`]).
    grids: [Vec<f32>; 2],
    reference: Vec<f32>,
}

impl Jacobi {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 4096,
            Scale::Quick => 1024,
            Scale::Test => 256,
        };
        let initial = floats(n * n, 0.0, 1.0, 10);
        let (mut a, mut b) = (vec![0.0; n * n], vec![0.0; n * n]);
        let reference = sweeps(&initial, &mut a, &mut b, |old, new| {
            sweep_reference(old, new, n)
        })
        .to_vec();
        Self {
            n,
            initial,
            grids: [a, b],
            reference,
        }
    }

    fn result(grids: &[Vec<f32>; 2]) -> &[f32] {
        &grids[if SWEEPS & 1 == 0 { 1 } else { 0 }]
    }
}

impl Kernel for Jacobi {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{0}x{0} f32, {SWEEPS} sweeps", self.n)
    }

    fn work(&self) -> Work {
        let grid = (SWEEPS * 4 * self.n * self.n) as f64;
        Work::Bytes {
            read: grid,
            written: grid,
            largest_array: (4 * self.n * self.n) as f64,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["GPU form", "row bands", "2-D tiles"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        let n = self.n;
        let [a, b] = &mut self.grids;
        sweeps(&self.initial, a, b, |old, new| {
            let launched = if variant == 0 {
                let groups = (n / GPU_ROWS, n / GPU_COLS);
                let new = ItemsMut::new(new);
                queue.parallel_with(groups, (GPU_ROWS, GPU_COLS), new, |g, w| {
                    jacobi_gpu(g, old, n, w)
                })
            } else if variant == 1 {
                match n {
                    4096 => sweep_bands::<4096, 4098>(queue, old, new),
                    1024 => sweep_bands::<1024, 1026>(queue, old, new),
                    256 => sweep_bands::<256, 258>(queue, old, new),
                    _ => unreachable!("no row-band kernel for a {n}x{n} grid"),
                }
            } else {
                let grids = (ItemsRef::new(old), ItemsMut::new(new));
                let groups = (n / TILE_ROWS, n / TILE_COLS);
                queue.parallel_with(groups, (TILE_ROWS, TILE_COLS), grids, |g, w| {
                    jacobi_tiles(g, n, w)
                })
            };
            launched.expect("jacobi launch");
        });
    }

    fn run_peer(&mut self) {
        let n = self.n;
        let [a, b] = &mut self.grids;
        sweeps(&self.initial, a, b, |old, new| sweep_peer(old, new, n));
    }

    fn run_twin(&mut self, variant: usize) -> bool {
        if variant != 2 {
            return false;
        }
        let n = self.n;
        let [a, b] = &mut self.grids;
        sweeps(&self.initial, a, b, |old, new| {
            sweep_tiles_by_hand(old, new, n)
        });
        true
    }

    fn clear(&mut self) {
        for v in &mut self.grids {
            v.fill(f32::NAN);
        }
    }

    fn check(&self) -> Result<(), String> {
        check_equal("grid", Self::result(&self.grids), &self.reference)
    }
}
