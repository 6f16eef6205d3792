//! Kernel 3, matrix multiply `C = A·B`: 1024×1024 `f32`, row-major, with
//! 16×16 tiles of `A` and `B` staged in local memory.
//!
//! Every `scoped` variant makes a 2-D launch of 16×16 work groups, one per
//! tile of `C`. For every tile step the group copies one tile of `A` and
//! one of `B` into local memory, waits, and adds the 16 products of each
//! item's row and column to the item's running sum.
//!
//! * `scoped`, GPU form: the sgemm of every SYCL and CUDA code base,
//!   ported as written. The group size is required (`group_size = [TILE,
//!   TILE]`); each item copies one element of each tile from the inputs
//!   (slices indexed by global position), a barrier, the `k` loop of 16
//!   inside the item with the running sum in a local variable, a barrier;
//!   the sums wait in private memory between steps. The tile loads are
//!   slice reads at computed indices, which the lowering runs a row of 16
//!   items at a time: each read's 16 indices are consecutive, so the row
//!   reads one window of 16 elements per read, copied with vector
//!   instructions and no check per item (2.2× the peer with a check per
//!   item, 2.3× with chunks of 8 whose copies the optimiser split into
//!   pieces, 1.15–1.2× with windows of 16, AMD EPYC, AVX-512). The group
//!   size being required, the `k` loop of 16 runs interchanged: each `k`
//!   runs two rows of 16 items in the lanes, a broadcast of `A`'s element
//!   per row and `B`'s row shared, four chains of FMAs, the sums in
//!   registers (full size, AMD EPYC Zen 4, 1/2 threads: 1.29/1.30× →
//!   1.00/1.00× at AVX2, 1.22/1.22× → 1.06/1.06× at AVX-512). The last
//!   loop, `c[idx] = acc[idx]`, is a row store that fetches the next
//!   group's rows of `C` ahead (run as a plain item loop, it made the
//!   form 1.11–1.14× its peer at v3 and v4, 1 thread, against 1.02–1.08×;
//!   2 threads 1.16 against 1.08–1.10, Intel Xeon). Its compute loop
//!   takes the peer's time (`perf`). The tile loads are the peer's
//!   copies behind a check of both rows' windows, and each row first
//!   fetches its windows of the next step (`k0 + TILE`): `B`'s tile rows
//!   lie 4 KiB apart, a page each, and waiting on them was half of the
//!   form's time (0.96–1.02× → 0.85–0.90× its peer at 1 thread,
//!   1.04–1.10× → 0.97–0.98× at 2, Intel Xeon, v3 and v4).
//!
//! The other two variants copy the tiles row by row with
//! `async_work_group_copy`; their group size is required too, so item
//! loops have constant trip counts and every tile index is provably in
//! bounds.
//!
//! * `scoped`, rows: each row of the group is a sub-group
//!   (`WorkGroup<2, 16>`: sub-groups of 16 items, two AVX2 vectors) that
//!   walks `k` in its own scope, one `distribute_items!` per `k`, with its
//!   16 running sums in the sub-group's private memory. A full sub-group's
//!   private memory is two vectors on the stack, kept in registers across
//!   the `k` loop, so a row costs one broadcast of `A`'s element and two
//!   FMAs on a row of `B` per `k`: the peer's inner loop, with half of
//!   `B`'s tile in registers and the rest read from local memory. Between
//!   tile steps the sums wait in the work group's private memory.
//! * `scoped`, tiled: the `k` loop inside the item body, the sums in a
//!   local-memory tile read before the loop and stored after it, the
//!   group size required. The `k` loop runs interchanged as in the GPU
//!   form, the sums' reads and stores a row of lanes at a time (AMD EPYC
//!   Zen 4, quick size, 1 thread: 1.01× at AVX2, 1.06× at AVX-512; with
//!   the shape stated by `assert_eq!` and the loop inside the item,
//!   1.16–1.26×, the 32 vectors of `B`'s tile spilled). Putting `k`
//!   outside (`for k { distribute_items!(…) }`) keeps 32 vectors of sums
//!   live across `k` and spills more; copying the tiles with
//!   `distribute_items!` reads `A` and `B` through slice indexes checked
//!   per element (~2.5× the instructions of the row copies).
//! * peer: the same algorithm with rayon and slices: `par_chunks_mut` over
//!   blocks of 16 rows of `C`, each task walking its 16×16 tiles with the
//!   tiles of `A` and `B` copied into stack arrays made once per task.
//!
//! Every version sums the products of `C[i][j]` in increasing `k` with
//! `mul_add`, so all agree bit for bit with the serial reference.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, floats, Aligned, Kernel, Scale, Work};

pub(crate) const NAME: &str = "matmul";
const TILE: usize = 16;

type Tile = [[f32; TILE]; TILE];

/// Copies the tiles of `A` and `B` that step `k0` of the group's tile of
/// `C` needs into local memory, row by row, then waits for all of it.
#[group_function]
fn load_tiles<const S: usize>(
    group: WorkGroup<2, S>,
    (a_tile, b_tile): (&mut Tile, &mut Tile),
    (a, b): (&[f32], &[f32]),
    n: usize,
    k0: usize,
) {
    let row0 = group.group_id_dim(0) * TILE;
    let col0 = group.group_id_dim(1) * TILE;
    for r in 0..TILE {
        group
            .async_work_group_copy(&mut a_tile[r], &a[(row0 + r) * n + k0..], TILE)
            .wait();
        group
            .async_work_group_copy(&mut b_tile[r], &b[(k0 + r) * n + col0..], TILE)
            .wait();
    }
    group_barrier(group);
}

#[kernel(group_size = [TILE, TILE])]
fn matmul_gpu(group: WorkGroup<2>, a: &[f32], b: &[f32], n: usize, mut c: ItemsWindow<'_, f32, 2>) {
    memory_environment!(
        group,
        require_local_mem::<Tile>(),
        require_local_mem::<Tile>(),
        require_private_mem::<f32>(),
        |a_tile, b_tile, acc| {
            distribute_items!(group, |idx| acc[idx] = 0.0);
            for step in 0..n / TILE {
                let k0 = step * TILE;
                distribute_items_and_wait!(group, |idx| {
                    let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                    let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
                    a_tile[r][col] = a[i * n + k0 + col];
                    b_tile[r][col] = b[(k0 + r) * n + j];
                });
                distribute_items_and_wait!(group, |idx| {
                    let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                    let mut s = acc[idx];
                    for k in 0..TILE {
                        s = a_tile[r][k].mul_add(b_tile[k][col], s);
                    }
                    acc[idx] = s;
                });
            }
            distribute_items!(group, |idx| c[idx] = acc[idx]);
        }
    );
}

#[kernel(group_size = [TILE, TILE])]
fn matmul_tiled(
    group: WorkGroup<2>,
    a: &[f32],
    b: &[f32],
    n: usize,
    mut c: ItemsWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<Tile>(),
        require_local_mem::<Tile>(),
        require_local_mem::<Tile>(),
        |a_tile, b_tile, sum| {
            for step in 0..n / TILE {
                load_tiles(group, (a_tile, b_tile), (a, b), n, step * TILE);
                distribute_items_and_wait!(group, |idx| {
                    let (r, col) = (idx.innermost_local_id_dim(0), idx.innermost_local_id_dim(1));
                    let mut s = sum[r][col];
                    for k in 0..TILE {
                        s = a_tile[r][k].mul_add(b_tile[k][col], s);
                    }
                    sum[r][col] = s;
                });
            }
            distribute_items!(group, |idx| {
                c[idx] = sum[idx.innermost_local_id_dim(0)][idx.innermost_local_id_dim(1)]
            });
        }
    );
}

#[kernel(group_size = [TILE, TILE])]
fn matmul_rows(
    group: WorkGroup<2, TILE>,
    a: &[f32],
    b: &[f32],
    n: usize,
    mut c: ItemsWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<Tile>(),
        require_local_mem::<Tile>(),
        require_private_mem::<f32>(),
        |a_tile, b_tile, sum| {
            for step in 0..n / TILE {
                load_tiles(group, (a_tile, b_tile), (a, b), n, step * TILE);
                distribute_groups!(group, |row| {
                    memory_environment!(row, require_private_mem::<f32>(), |s| {
                        distribute_items!(row, |idx| s[idx] = sum[idx]);
                        for k in 0..TILE {
                            distribute_items!(row, |idx| {
                                let r = idx.local_id_dim(&group, 0);
                                let col = idx.local_id_dim(&group, 1);
                                s[idx] = a_tile[r][k].mul_add(b_tile[k][col], s[idx]);
                            });
                        }
                        distribute_items!(row, |idx| sum[idx] = s[idx]);
                    });
                });
                group_barrier(group);
            }
            distribute_items!(group, |idx| c[idx] = sum[idx]);
        }
    );
}

/// The hand-written peer: the same tiling with rayon and slices.
fn matmul_peer(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    c.par_chunks_mut(TILE * n)
        .enumerate()
        .for_each(|(block_row, rows)| {
            let row0 = block_row * TILE;
            // Tile buffers made once per task; every step overwrites them.
            let (mut a_buf, mut b_buf) =
                (Aligned([[0.0; TILE]; TILE]), Aligned([[0.0; TILE]; TILE]));
            let (a_tile, b_tile) = (&mut a_buf.0, &mut b_buf.0);
            for col0 in (0..n).step_by(TILE) {
                let mut acc_buf = Aligned([[0.0; TILE]; TILE]);
                let acc = &mut acc_buf.0;
                for k0 in (0..n).step_by(TILE) {
                    for r in 0..TILE {
                        a_tile[r].copy_from_slice(&a[(row0 + r) * n + k0..][..TILE]);
                        b_tile[r].copy_from_slice(&b[(k0 + r) * n + col0..][..TILE]);
                    }
                    for (acc_row, a_row) in acc.iter_mut().zip(a_tile.iter()) {
                        for (&x, b_row) in a_row.iter().zip(b_tile.iter()) {
                            for (s, &y) in acc_row.iter_mut().zip(b_row) {
                                *s = x.mul_add(y, *s);
                            }
                        }
                    }
                }
                for (r, acc_row) in acc.iter().enumerate() {
                    rows[r * n + col0..][..TILE].copy_from_slice(acc_row);
                }
            }
        });
}

/// The serial reference: the i-k-j loop order, sums in increasing `k`.
fn matmul_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for (c_row, a_row) in c.chunks_mut(n).zip(a.chunks(n)) {
        for (&x, b_row) in a_row.iter().zip(b.chunks(n)) {
            for (s, &y) in c_row.iter_mut().zip(b_row) {
                *s = x.mul_add(y, *s);
            }
        }
    }
    c
}

pub(crate) struct Matmul {
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<f32>,
    reference: Vec<f32>,
}

impl Matmul {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1024,
            Scale::Quick => 512,
            Scale::Test => 64,
        };
        let a = floats(n * n, -1.0, 1.0, 4);
        let b = floats(n * n, -1.0, 1.0, 5);
        let reference = matmul_reference(&a, &b, n);
        Self {
            n,
            a,
            b,
            output: vec![0.0; n * n],
            reference,
        }
    }
}

impl Kernel for Matmul {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{0}x{0} f32", self.n)
    }

    fn work(&self) -> Work {
        Work::Flops(2.0 * (self.n as f64).powi(3))
    }

    fn variants(&self) -> &'static [&'static str] {
        &["GPU form", "rows", "tiled"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        let (a, b, n) = (&self.a, &self.b, self.n);
        let tiles = n / TILE;
        let c = ItemsMut::new(&mut self.output);
        let launched = match variant {
            0 => queue.parallel_with((tiles, tiles), (TILE, TILE), c, |g, c| {
                matmul_gpu(g, a, b, n, c)
            }),
            1 => queue.parallel_with((tiles, tiles), (TILE, TILE), c, |g, c| {
                matmul_rows(g, a, b, n, c)
            }),
            _ => queue.parallel_with((tiles, tiles), (TILE, TILE), c, |g, c| {
                matmul_tiled(g, a, b, n, c)
            }),
        };
        launched.expect("matmul launch");
    }

    fn run_peer(&mut self) {
        matmul_peer(&self.a, &self.b, &mut self.output, self.n);
    }

    fn clear(&mut self) {
        self.output.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("C", &self.output, &self.reference)
    }
}
