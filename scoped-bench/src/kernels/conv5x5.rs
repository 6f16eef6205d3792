//! 2-D 5×5 filter: a 4096×4096 `f32` image convolved with a 5×5 filter,
//! zero outside the image: `out[i][j] = Σ w[dy][dx] · in[i+dy-2][j+dx-2]`,
//! summed with `mul_add` in increasing `dy`, then `dx`, from zero.
//!
//! * `scoped`, GPU form: the tiled filter of SYCL and CUDA code bases,
//!   ported as written. Work groups of 16×16 items (required,
//!   `group_size`), one per tile of the output; the items copy the input
//!   tile with its halo of two points (20×20, zero outside the image)
//!   into local memory, each the points at its own position and every
//!   16th row and column after it, a barrier, then each item sums its 25
//!   products from the tile. The filter is a shared input, as constant
//!   memory on a GPU. The fill's two `while` loops run as rounds of
//!   item loops (`stride_nest`), a tile row per row of items, the rounds
//!   every item takes part in without the loops' bound, and each round's
//!   reads of the image checked a chunk at a time (`chunk_check`), so the
//!   fill is vector copies: about the peer's time (AMD EPYC Zen 4,
//!   baseline, AVX2 and AVX-512); with each item's loops run in turn,
//!   1.3–1.5×. The sums' two tap loops (25 taps) run outside the items,
//!   two rows of 16 items in the lanes at each tap (`interchange.rs`,
//!   pairs): four chains of FMAs and one broadcast per weight for both
//!   rows, 0.87–0.91× the peer at 1 thread (AVX2, AVX-512); each item's
//!   25 taps in turn, vectorised along a row, 1.06–1.19/0.97–0.99×.
//! * peer: `par_chunks_mut` over the output's rows; each row sums the 25
//!   shifted input rows into it, vectorised along the row, with the edge
//!   points and the rows near the image's edges taking the zeros
//!   explicitly.
//!
//! Every version adds the same products in the same order, zeros
//! included, so all agree bit for bit with the serial reference. Bytes
//! counted: the image read once, the output written once.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "conv5x5";
const TILE: usize = 16;
/// Points of halo on each side: the filter's radius.
const HALO: usize = 2;
const TAPS: usize = 2 * HALO + 1;
const HALO_TILE: usize = TILE + 2 * HALO;

type Filter = [[f32; TAPS]; TAPS];

#[kernel(group_size = [TILE, TILE])]
fn conv_gpu(
    group: WorkGroup<2>,
    image: &[f32],
    n: usize,
    w: &Filter,
    mut out: ItemsWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<[[f32; HALO_TILE]; HALO_TILE]>(),
        |tile| {
            // The image position of the tile's corner, halo included (may
            // be "negative": wrapping, then outside the image).
            let row0 = (group.group_id_dim(0) * TILE).wrapping_sub(HALO);
            let col0 = (group.group_id_dim(1) * TILE).wrapping_sub(HALO);
            distribute_items_and_wait!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                let mut tr = r;
                while tr < HALO_TILE {
                    let mut tc = c;
                    while tc < HALO_TILE {
                        let (i, j) = (row0.wrapping_add(tr), col0.wrapping_add(tc));
                        tile[tr][tc] = if i < n && j < n {
                            image[i * n + j]
                        } else {
                            0.0
                        };
                        tc += TILE;
                    }
                    tr += TILE;
                }
            });
            distribute_items!(group, |idx| {
                let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
                let mut s = 0.0f32;
                for dy in 0..TAPS {
                    for dx in 0..TAPS {
                        s = w[dy][dx].mul_add(tile[r + dy][c + dx], s);
                    }
                }
                out[idx] = s;
            });
        }
    );
}

/// The hand-written peer: each output row from the five input rows
/// around it, vectorised along the row.
fn conv_peer(image: &[f32], out: &mut [f32], n: usize, w: &Filter) {
    out.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        let interior = (HALO..n - HALO).contains(&i);
        if !interior {
            for (j, x) in row.iter_mut().enumerate() {
                *x = point(image, n, w, i, j);
            }
            return;
        }
        let rows: [&[f32]; TAPS] = std::array::from_fn(|dy| &image[(i + dy - HALO) * n..][..n]);
        // Interior columns: the 25 taps, one shifted row at a time, every
        // point's products in the reference's order.
        let inner = &mut row[HALO..n - HALO];
        inner.fill(0.0);
        for (dy, input) in rows.iter().enumerate() {
            for (dx, &weight) in w[dy].iter().enumerate() {
                let shifted = &input[dx..][..n - 2 * HALO];
                for (s, &x) in inner.iter_mut().zip(shifted) {
                    *s = weight.mul_add(x, *s);
                }
            }
        }
        for j in (0..HALO).chain(n - HALO..n) {
            row[j] = point(image, n, w, i, j);
        }
    });
}

/// One output point, zeros outside the image: the serial reference's.
#[inline]
fn point(image: &[f32], n: usize, w: &Filter, i: usize, j: usize) -> f32 {
    let mut s = 0.0f32;
    for (dy, taps) in w.iter().enumerate() {
        for (dx, &weight) in taps.iter().enumerate() {
            let (y, x) = ((i + dy).wrapping_sub(HALO), (j + dx).wrapping_sub(HALO));
            let v = if y < n && x < n {
                image[y * n + x]
            } else {
                0.0
            };
            s = weight.mul_add(v, s);
        }
    }
    s
}

/// The serial reference.
fn conv_reference(image: &[f32], n: usize, w: &Filter) -> Vec<f32> {
    let mut out = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            out[i * n + j] = point(image, n, w, i, j);
        }
    }
    out
}

pub(crate) struct Conv5x5 {
    n: usize,
    image: Vec<f32>,
    filter: Filter,
    /// Written by every version (see [`Kernel`]).
    output: Vec<f32>,
    reference: Vec<f32>,
}

impl Conv5x5 {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 4096,
            Scale::Quick => 2048,
            Scale::Test => 64,
        };
        let image = floats(n * n, 0.0, 1.0, 30);
        let taps = floats(TAPS * TAPS, -1.0, 1.0, 31);
        let filter: Filter =
            std::array::from_fn(|dy| std::array::from_fn(|dx| taps[dy * TAPS + dx]));
        let reference = conv_reference(&image, n, &filter);
        Self {
            n,
            image,
            filter,
            output: vec![0.0; n * n],
            reference,
        }
    }
}

impl Kernel for Conv5x5 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{0}x{0} f32", self.n)
    }

    fn work(&self) -> Work {
        let image = (4 * self.n * self.n) as f64;
        Work::Bytes {
            read: image,
            written: image,
            largest_array: image,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["GPU form"]
    }

    fn run_scoped(&mut self, queue: &Queue, _variant: usize) {
        let (image, n, w) = (&self.image, self.n, &self.filter);
        let tiles = n / TILE;
        let out = ItemsMut::new(&mut self.output);
        queue
            .parallel_with((tiles, tiles), (TILE, TILE), out, |g, out| {
                conv_gpu(g, image, n, w, out)
            })
            .expect("conv5x5 launch");
    }

    fn run_peer(&mut self) {
        conv_peer(&self.image, &mut self.output, self.n, &self.filter);
    }

    fn clear(&mut self) {
        self.output.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("output", &self.output, &self.reference)
    }
}
