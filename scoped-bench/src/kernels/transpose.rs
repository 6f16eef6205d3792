//! Matrix transpose `B = Aᵀ`: 8192×8192 `f32`, row-major, through 16×16
//! tiles.
//!
//! * `scoped`, GPU form: the tiled transpose of SYCL and CUDA code bases,
//!   ported as written. Work groups of 16×16 items (required,
//!   `group_size`), one per tile of `B`; every item copies one element of
//!   the matching tile of `A` into local memory, reading along `A`'s rows,
//!   a barrier, then writes one element of `B` from the tile's column, so
//!   that both global accesses run along rows. The tile has one column of
//!   padding, as on a GPU against bank conflicts; a CPU has no banks, and
//!   its rows of 68 bytes straddle cache lines. Each tile row is copied as
//!   one vector load and store; each row of `B` is stored as vectors
//!   (the row-store lowering: item by item, its 16 scalar stores filled
//!   the store queue: 1.10–1.28× the peer, now 1.0–1.10×, AMD EPYC,
//!   4096×4096). The peer, in either loop order, is not faster.
//! * peer: `par_chunks_mut` over bands of 16 rows of `B`, each 16×16 block
//!   of the band copied from `A`'s rows into a block on the stack, then
//!   written along `B`'s rows from the block's columns.
//!
//! Both copy values, so they agree bit for bit with the serial reference.
//! Bytes counted: `A` read once, `B` written once.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, floats, Aligned, Kernel, Scale, Work};

pub(crate) const NAME: &str = "transpose";
const TILE: usize = 16;

#[kernel(group_size = [TILE, TILE])]
fn transpose_gpu(group: WorkGroup<2>, a: &[f32], n: usize, mut b: ItemsWindow<'_, f32, 2>) {
    memory_environment!(
        group,
        require_local_mem::<[[f32; TILE + 1]; TILE]>(),
        |tile| {
            // The tile of `A` whose transpose is this group's tile of `B`.
            let row0 = group.group_id_dim(1) * TILE;
            let col0 = group.group_id_dim(0) * TILE;
            distribute_items_and_wait!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                tile[r][c] = a[(row0 + r) * n + col0 + c];
            });
            distribute_items!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                b[idx] = tile[c][r];
            });
        }
    );
}

/// The hand-written peer: blocks of 16×16 through a block on the stack,
/// read along `A`'s rows and written along `B`'s (copying straight from
/// `A`'s columns, or down `B`'s, ran 1.5–1.6× slower).
fn transpose_peer(a: &[f32], b: &mut [f32], n: usize) {
    b.par_chunks_mut(TILE * n)
        .enumerate()
        .for_each(|(band, rows)| {
            let col0 = band * TILE;
            let mut aligned = Aligned([[0.0f32; TILE]; TILE]);
            let block = &mut aligned.0;
            for row0 in (0..n).step_by(TILE) {
                for (c, line) in block.iter_mut().enumerate() {
                    line.copy_from_slice(&a[(row0 + c) * n + col0..][..TILE]);
                }
                for (r, row) in rows.chunks_exact_mut(n).enumerate() {
                    for (c, x) in row[row0..][..TILE].iter_mut().enumerate() {
                        *x = block[c][r];
                    }
                }
            }
        });
}

/// The serial reference.
fn transpose_reference(a: &[f32], n: usize) -> Vec<f32> {
    let mut b = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            b[j * n + i] = a[i * n + j];
        }
    }
    b
}

pub(crate) struct Transpose {
    n: usize,
    a: Vec<f32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<f32>,
    reference: Vec<f32>,
}

impl Transpose {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 8192,
            Scale::Quick => 4096,
            Scale::Test => 64,
        };
        let a = floats(n * n, -1.0, 1.0, 20);
        let reference = transpose_reference(&a, n);
        Self {
            n,
            a,
            output: vec![0.0; n * n],
            reference,
        }
    }
}

impl Kernel for Transpose {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{0}x{0} f32", self.n)
    }

    fn work(&self) -> Work {
        let matrix = (4 * self.n * self.n) as f64;
        Work::Bytes {
            read: matrix,
            written: matrix,
            largest_array: matrix,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["GPU form"]
    }

    fn run_scoped(&mut self, queue: &Queue, _variant: usize) {
        let (a, n) = (&self.a, self.n);
        let tiles = n / TILE;
        let b = ItemsMut::new(&mut self.output);
        queue
            .parallel_with((tiles, tiles), (TILE, TILE), b, |g, b| {
                transpose_gpu(g, a, n, b)
            })
            .expect("transpose launch");
    }

    fn run_peer(&mut self) {
        transpose_peer(&self.a, &mut self.output, self.n);
    }

    fn clear(&mut self) {
        self.output.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("B", &self.output, &self.reference)
    }
}
