//! Kernel 9, row-wise layer norm: `y = (x − mean) / sqrt(var + ε) · γ + β`
//! over each row of a `rows × cols` matrix of `f32` (16384 × 1024), with
//! `γ` and `β` per column.
//!
//! Every version takes a row in [`SUB`] lanes: lane `l` sums the
//! elements `l, l + SUB, l + 2·SUB, …` of the row, then the lanes' sums
//! are combined as a tree (lane `l` with `l + 8`, then `+ 4`, `+ 2`,
//! `+ 1`); the mean first, then the sum of squared deviations from it.
//! The same operations in the same order everywhere, so every version's
//! output is bit for bit the serial reference's.
//!
//! * `scoped`, butterfly: the GPU form (a warp per row, as in the layer
//!   norms of Apex and OneFlow). Work groups of 4 × [`SUB`] items, each
//!   row of the group a sub-group handling one matrix row; each item sums
//!   its strided elements (`for k in 0..cols / SUB`, a loop the lowering
//!   interchanges), and the sub-group combines its sums with the xor
//!   butterfly `for m in [8, 4, 2, 1] { permute_group_by_xor(sg, s, t, m);
//!   s += t }`, which leaves the total in every item. Private memory is
//!   made on the work group and the row's slice taken in sub-group scope,
//!   as a GPU kernel computes its row once per warp.
//! * `scoped`, `reduce_over_group`: the same loops, the sums combined by
//!   `reduce_over_group` on the sub-group (whose SIMD tree combines the
//!   lanes in the butterfly's order).
//! * peer: `par_chunks_mut` over rows, each row summed in a `[f32; SUB]`
//!   of lane accumulators, combined as the same tree, and normalised in a
//!   plain loop.
//!
//! Every loop of both `scoped` variants runs vectorised: interchanged,
//! 16 items a step, each read through a window of its consecutive
//! elements (the normalising loop's store too), and the butterfly's
//! shuffles and adds one vector instruction each. The `reduce_over_group`
//! form runs at about its peer's speed. The butterfly form's mean and
//! scale are per item, read back from memory before each loop and loaded
//! as whole vectors (as values, the optimiser split them into uneven
//! pieces): 1.75–1.85× → 1.3–1.4× its peer at v3, 1.5–1.55× → 1.3–1.35×
//! at v4 (1 and 2 threads, quick size, AMD EPYC). Its sums are read back
//! from memory after the loop too: their uses in the xor rounds had split
//! the 16-lane sum into 8 + 4 + 2 + 2 lanes a step (AVX-512), where the
//! `reduce_over_group` form had one `vaddps`. Every loop's windows
//! are then checked once per loop (`WindowPlan`), not a step at a time:
//! the normalising step went from about 50 instructions per 16 elements
//! (window checks, the checked copy's bound arithmetic, spilled
//! addresses) to 19–21, against the peer's 15. Full size, 1/2 threads:
//! 1.39/1.04× → 1.20/1.02× at v3, 1.24/1.01× → 0.98/0.96× at v4 (medians
//! of 5 runs, AMD EPYC Zen 4). The loop over the masks is written out per
//! mask, so each round is one constant shuffle per vector (through the
//! loop, a jump on the mask). The private memory, which only the
//! sub-group loop uses, is made per sub-group by the lowering: at
//! constant offsets the rounds stay in registers, where the work group's
//! array cost a store and a reload per round and item loop (1.27× →
//! 1.17× its peer, quick, v3, 1 thread; full size, 1/2 threads, 1.11/1.02×
//! at v3 and 1.06/0.99× at v4, AMD EPYC Zen 4).

use rayon::prelude::*;
use scoped::prelude::*;
use scoped::{permute_group_by_xor, plus, reduce_over_group};

use super::{check_close, check_equal, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "layer-norm";
/// Items per row: the sub-group size.
const SUB: usize = 16;
/// Rows per work group, one per sub-group.
const ROWS_PER_GROUP: usize = 4;
const EPSILON: f32 = 1e-5;

/// Combines the lanes' sums as the butterfly does: lane `l` with lane
/// `l + 8`, then `+ 4`, `+ 2`, `+ 1`.
#[inline(always)]
fn tree(mut lanes: [f32; SUB]) -> f32 {
    let mut width = SUB;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            lanes[l] += lanes[l + width];
        }
    }
    lanes[0]
}

/// Normalises one row into `out`: the serial reference and the peer's
/// loop.
#[inline(always)]
fn normalise_row(row: &[f32], gamma: &[f32], beta: &[f32], out: &mut [f32]) {
    let cols = row.len() as f32;
    let mut lanes = [0.0f32; SUB];
    for chunk in row.chunks_exact(SUB) {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane += x;
        }
    }
    let mean = tree(lanes) / cols;
    let mut lanes = [0.0f32; SUB];
    for chunk in row.chunks_exact(SUB) {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            let d = x - mean;
            *lane = d.mul_add(d, *lane);
        }
    }
    let rstd = 1.0 / (tree(lanes) / cols + EPSILON).sqrt();
    for (((y, &x), &g), &b) in out.iter_mut().zip(row).zip(gamma).zip(beta) {
        *y = ((x - mean) * rstd).mul_add(g, b);
    }
}

/// The GPU form: a sub-group per row, its sums combined by an xor
/// butterfly.
#[kernel(group_size = [ROWS_PER_GROUP, SUB])]
fn layer_norm_butterfly(
    group: WorkGroup<2, SUB>,
    input: &[f32],
    gamma: &[f32],
    beta: &[f32],
    mut out: ChunkWindow<'_, f32>,
) {
    let cols = gamma.len();
    let chunks = cols / SUB;
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |mean, var, partner| {
            distribute_groups!(group, |sg| {
                let row = group.group_id_dim(0) * ROWS_PER_GROUP + sg.group_id_dim(0);
                let x = &input[row * cols..][..cols];
                distribute_items!(sg, |idx| {
                    let lane = idx.innermost_local_id_dim(1);
                    let mut sum = 0.0f32;
                    for k in 0..chunks {
                        sum += x[k * SUB + lane];
                    }
                    mean[idx] = sum;
                });
                for m in [8, 4, 2, 1] {
                    permute_group_by_xor(sg, mean, partner, m);
                    distribute_items!(sg, |idx| mean[idx] += partner[idx]);
                }
                distribute_items!(sg, |idx| {
                    let lane = idx.innermost_local_id_dim(1);
                    let mu = mean[idx] / cols as f32;
                    let mut sum = 0.0f32;
                    for k in 0..chunks {
                        let d = x[k * SUB + lane] - mu;
                        sum = d.mul_add(d, sum);
                    }
                    mean[idx] = mu;
                    var[idx] = sum;
                });
                for m in [8, 4, 2, 1] {
                    permute_group_by_xor(sg, var, partner, m);
                    distribute_items!(sg, |idx| var[idx] += partner[idx]);
                }
                distribute_items!(sg, |idx| {
                    let lane = idx.innermost_local_id_dim(1);
                    let (mu, rstd) = (mean[idx], 1.0 / (var[idx] / cols as f32 + EPSILON).sqrt());
                    for k in 0..chunks {
                        let c = k * SUB + lane;
                        out[row * cols + c] = ((x[c] - mu) * rstd).mul_add(gamma[c], beta[c]);
                    }
                });
            });
        }
    );
}

/// The same, the sums combined by `reduce_over_group`.
#[kernel(group_size = [ROWS_PER_GROUP, SUB])]
fn layer_norm_reduce(
    group: WorkGroup<2, SUB>,
    input: &[f32],
    gamma: &[f32],
    beta: &[f32],
    mut out: ChunkWindow<'_, f32>,
) {
    let cols = gamma.len();
    let chunks = cols / SUB;
    memory_environment!(group, require_private_mem::<f32>(), |partial| {
        distribute_groups!(group, |sg| {
            let row = group.group_id_dim(0) * ROWS_PER_GROUP + sg.group_id_dim(0);
            let x = &input[row * cols..][..cols];
            distribute_items!(sg, |idx| {
                let lane = idx.innermost_local_id_dim(1);
                let mut sum = 0.0f32;
                for k in 0..chunks {
                    sum += x[k * SUB + lane];
                }
                partial[idx] = sum;
            });
            let mu = reduce_over_group(sg, partial, plus()) / cols as f32;
            distribute_items!(sg, |idx| {
                let lane = idx.innermost_local_id_dim(1);
                let mut sum = 0.0f32;
                for k in 0..chunks {
                    let d = x[k * SUB + lane] - mu;
                    sum = d.mul_add(d, sum);
                }
                partial[idx] = sum;
            });
            let var = reduce_over_group(sg, partial, plus());
            let rstd = 1.0 / (var / cols as f32 + EPSILON).sqrt();
            distribute_items!(sg, |idx| {
                let lane = idx.innermost_local_id_dim(1);
                for k in 0..chunks {
                    let c = k * SUB + lane;
                    out[row * cols + c] = ((x[c] - mu) * rstd).mul_add(gamma[c], beta[c]);
                }
            });
        });
    });
}

/// The hand-written peer.
fn layer_norm_peer(input: &[f32], gamma: &[f32], beta: &[f32], out: &mut [f32]) {
    let cols = gamma.len();
    out.par_chunks_mut(cols)
        .zip(input.par_chunks(cols))
        .for_each(|(out, row)| normalise_row(row, gamma, beta, out));
}

pub(crate) struct LayerNorm {
    rows: usize,
    input: Vec<f32>,
    gamma: Vec<f32>,
    beta: Vec<f32>,
    /// Written by every version (see [`Kernel`]).
    out: Vec<f32>,
    reference: Vec<f32>,
}

impl LayerNorm {
    pub(crate) fn new(scale: Scale) -> Self {
        let (rows, cols) = match scale {
            Scale::Full => (16384, 1024),
            Scale::Quick => (4096, 1024),
            Scale::Test => (32, 64),
        };
        let input = floats(rows * cols, -2.0, 3.0, 21);
        let gamma = floats(cols, 0.5, 1.5, 22);
        let beta = floats(cols, -0.5, 0.5, 23);
        let mut reference = vec![0.0; rows * cols];
        for (out, row) in reference.chunks_mut(cols).zip(input.chunks(cols)) {
            normalise_row(row, &gamma, &beta, out);
        }
        Self {
            rows,
            out: vec![0.0; rows * cols],
            input,
            gamma,
            beta,
            reference,
        }
    }

    fn cols(&self) -> usize {
        self.gamma.len()
    }
}

impl Kernel for LayerNorm {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{} × {}", self.rows, self.cols())
    }

    fn work(&self) -> Work {
        let bytes = (4 * self.rows * self.cols()) as f64;
        Work::Bytes {
            read: bytes,
            written: bytes,
            largest_array: bytes,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["butterfly", "reduce_over_group"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        let cols = self.cols();
        let groups = (self.rows / ROWS_PER_GROUP, 1);
        let out = ChunksMut::new(&mut self.out, ROWS_PER_GROUP * cols);
        let (input, gamma, beta) = (&self.input[..], &self.gamma[..], &self.beta[..]);
        let launched = match variant {
            0 => queue.parallel_with(groups, (ROWS_PER_GROUP, SUB), out, |g, out| {
                layer_norm_butterfly(g, input, gamma, beta, out)
            }),
            _ => queue.parallel_with(groups, (ROWS_PER_GROUP, SUB), out, |g, out| {
                layer_norm_reduce(g, input, gamma, beta, out)
            }),
        };
        launched.expect("layer-norm launch");
    }

    fn run_peer(&mut self) {
        layer_norm_peer(&self.input, &self.gamma, &self.beta, &mut self.out);
    }

    fn clear(&mut self) {
        // NaN never equals a result.
        self.out.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        // The group algorithms' scalar path (feature `scalar-algorithms`)
        // sums in another order than their SIMD tree, which the reference
        // follows: `reduce_over_group`'s rows then differ by rounding.
        if cfg!(feature = "scalar-algorithms") {
            check_close("output", &self.out, &self.reference, 1e-5)
        } else {
            check_equal("output", &self.out, &self.reference)
        }
    }
}
