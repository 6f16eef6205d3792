//! Kernel 4, all-pairs n-body accelerations: 16384 bodies, `f32`,
//! softening 1e-3, positions staged in local memory one tile at a time.
//!
//! `a_i = Σ_j m_j (r_j − r_i) / (|r_j − r_i|² + ε²)^(3/2)`, 20 flops per
//! interaction (the usual count). Bodies are stored as structure of
//! arrays: `x`, `y`, `z`, `m`.
//!
//! A float sum over an inner loop is not vectorised (rustc may not
//! reorder it), so every version spreads *bodies* `i` over SIMD lanes:
//!
//! * `scoped`, items: the GPU Gems 3 kernel ported unchanged. After each
//!   tile load (as below) one `distribute_items!` in which every item walks
//!   the whole tile, `for j in 0..TILE`, its sums item locals, carried
//!   from tile to tile in private memory. The lowering runs the `j` loop
//!   outside and a sub-group's width of items inside it, each sum one
//!   vector register (`lower/interchange/`): 1.02–1.05× the peer's
//!   time; with the item loop outside, as before that lowering, 6.5–12×.
//!   Its twin, the same tiling by hand (each tile copied into a stack
//!   array, 8 bodies `i` in `f32x8` registers walking it, their sums kept
//!   between tiles), takes its time: scoped/twin 0.97–1.02 at the
//!   baseline, v3 and v4, 1 and 2 threads, where scoped/peer is up to 1.07
//!   at v3 (Intel Xeon): what is left against the peer is the tiling's
//!   (the same inner loop over a tile of 256 bodies `j` rather than all
//!   of them from the input arrays), not the lowering's.
//! * `scoped`, tiled: work groups of 256 bodies `i`, one per item. For
//!   every tile of 256 bodies `j` the group copies the tile's positions
//!   and masses into local memory (`async_work_group_copy`), then walks
//!   the tile in the group scope, [`J_BLOCK`] bodies `j` at a time: one
//!   `distribute_items!` per block, in which every item adds the block's
//!   interactions, in increasing `j`, to its accumulators. Each such
//!   `distribute_items!` is a loop over 256 items that vectorises whole
//!   (8 bodies per instruction, `vsqrtps`/`vdivps` included): the item
//!   positions are [`ItemsRef`] inputs, read without per-item checks, the
//!   accumulators three local-memory arrays indexed by local id, provably
//!   in bounds since the kernel requires its group size.
//! * `scoped`, sub-groups: the same, each block handed to the SIMD-wide
//!   sub-groups (`distribute_groups!` around a lone `distribute_items!`,
//!   lowered to the same item loop, so the sub-group form costs nothing).
//! * `scoped`, private: the accumulators are private memory, the form the
//!   scoped parallelism spec has for per-item values that outlive one
//!   `distribute_items!`. After each tile load every sub-group walks the
//!   whole tile: a `j` loop in sub-group scope, one `distribute_items!`
//!   per body `j`, adding to the work group's private memory. That loop
//!   in sub-group scope is lowered to run once per block of 16 items,
//!   whatever the sub-group size, so the optimiser keeps the block's sums
//!   in registers across the `j` loop, and its item loop is one vector
//!   instruction per operation: the peer's loop, body `j` broadcast to the
//!   lanes (within 1% at every size from 4 to 64, `--sub-group-sizes`).
//! * peer: `par_chunks_mut` over blocks of 256 bodies `i`, each block
//!   taken 8 bodies at a time in `wide::f32x8` registers (positions and
//!   the three accumulators), with the `j` loop over all bodies inside:
//!   body `j` is broadcast to all 8 lanes (`f32x8::splat`), its
//!   multiply-adds fused as the kernels' `mul_add` (see [`fused`]). The same
//!   vector work per interaction as the scoped item loop, with the
//!   accumulators in registers rather than local memory, and no tiling:
//!   body `j` is read straight from the input arrays (256 KiB at full
//!   size, within L2).
//!
//! Why blocks of `j` in the tiled variants: accumulators that live across
//! work-group `distribute_items!` calls live in memory, so with one `j`
//! per call the item loop loads and stores them at every interaction.
//! Each interaction is a long dependency chain through `vsqrtps` and
//! `vdivps`, and those extra loads and stores fill the FP scheduler sooner
//! than the peer's register-only loop fills its register file: 1.13–1.16×
//! the peer's time with ~3% fewer instructions (the same loop in plain
//! Rust is as slow). Eight bodies per call bring it to 1.04–1.10×. The `j`
//! loop inside the item body must be fully unrolled for the item loop
//! around it to be the one vectorised: at 16 it is not, and the kernel
//! runs 8× slower. The private variant has no such limit: its `j` loop is
//! in the sub-group's scope, and its sums never leave registers within a
//! tile.
//!
//! The private variant's sums are three `f32` private memories, not one
//! `[f32; 3]`: with the axes interleaved the optimiser packs lanes and axes
//! together and shuffles (6× slower). Giving each sub-group private memory
//! of its own for the sums, copied from and back to the work group's once
//! per tile, measured the same (0–2% apart).
//!
//! Two other forms measured slower, both before item closures were
//! always inlined: work-group private memory updated by the `J_BLOCK`
//! item loops in group scope (13–20× the instructions: that item loop is
//! not vectorised), and a lane-aware sub-group loop with one accumulator
//! per lane in sub-group local memory (2.7×: the 8 lanes stayed scalar).
//!
//! Every version adds the interactions of body `i` in increasing `j` with
//! the same operations, so all agree with the reference up to rounding of
//! `sqrt`-based terms (checked with a relative tolerance on a sample).

use rayon::prelude::*;
use scoped::prelude::*;
use scoped::DEFAULT_SUB_GROUP_SIZE;
use wide::f32x8;

use super::{at_sub_group_size, check_close, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "n-body";
const GROUP_SIZE: usize = 256;
const TILE: usize = GROUP_SIZE;
/// Bodies `i` per peer block, as in a work group.
const BLOCK: usize = GROUP_SIZE;
/// Bodies `i` per `f32x8` in the peer.
const LANES: usize = 8;
/// Bodies `j` each item takes per `distribute_items!`; small enough that
/// the loop over them is unrolled (see the module docs).
const J_BLOCK: usize = 8;
const SOFTENING_SQUARED: f32 = 1e-3 * 1e-3;
/// Every this many bodies one is checked against the serial reference.
const SAMPLE_STRIDE: usize = 61;

/// Positions and masses (`x`, `y`, `z`, `m`) of the bodies of one tile.
type BodyTile = [[f32; TILE]; 4];

/// The contribution of body `j` (at `xj, yj, zj` with mass `mj`) to the
/// acceleration of a body at `xi, yi, zi`; the same operations in every
/// version.
#[inline(always)]
fn interaction(xi: f32, yi: f32, zi: f32, xj: f32, yj: f32, zj: f32, mj: f32) -> [f32; 3] {
    let (dx, dy, dz) = (xj - xi, yj - yi, zj - zi);
    let d2 = dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, SOFTENING_SQUARED)));
    let inv = 1.0 / d2.sqrt();
    let s = mj * (inv * inv * inv);
    [dx * s, dy * s, dz * s]
}

/// Positions and masses, one element per body (and per item).
type Bodies<'a> = (
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
);
/// The accelerations, per axis.
type Accelerations<'a> = (
    ItemsWindow<'a, f32>,
    ItemsWindow<'a, f32>,
    ItemsWindow<'a, f32>,
);

/// Copies bodies `first .. first + TILE` (positions and masses) into
/// `tile` for the whole group, then waits for all of it.
#[group_function]
fn load_tile<const S: usize>(
    group: WorkGroup<1, S>,
    tile: &mut BodyTile,
    sources: [ItemsRefWindow<'_, f32>; 4],
    first: usize,
) {
    for (t, source) in tile.iter_mut().zip(sources) {
        group
            .async_work_group_copy(t, &source.as_slice()[first..], TILE)
            .wait();
    }
    group_barrier(group);
}

/// The GPU Gems 3 form, ported unchanged: after each tile load, one
/// `distribute_items!` in which every item walks the whole tile, its sums
/// item locals (carried across tiles in private memory).
#[kernel(group_size = GROUP_SIZE)]
fn nbody_items(
    group: WorkGroup<1>,
    ((x, y, z, m), (mut ax, mut ay, mut az)): (Bodies<'_>, Accelerations<'_>),
) {
    let n = x.as_slice().len();
    memory_environment!(
        group,
        require_local_mem::<BodyTile>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |tile, acc_x, acc_y, acc_z| {
            for first in (0..n).step_by(TILE) {
                load_tile(group, tile, [x, y, z, m], first);
                let [tx, ty, tz, tm] = &*tile;
                distribute_items!(group, |idx| {
                    let (xi, yi, zi) = (x[idx], y[idx], z[idx]);
                    let (mut sx, mut sy, mut sz) = (acc_x[idx], acc_y[idx], acc_z[idx]);
                    for j in 0..TILE {
                        let [dx, dy, dz] = interaction(xi, yi, zi, tx[j], ty[j], tz[j], tm[j]);
                        sx += dx;
                        sy += dy;
                        sz += dz;
                    }
                    [acc_x[idx], acc_y[idx], acc_z[idx]] = [sx, sy, sz];
                });
                group_barrier(group);
            }
            distribute_items!(group, |idx| {
                [ax[idx], ay[idx], az[idx]] = [acc_x[idx], acc_y[idx], acc_z[idx]];
            });
        }
    );
}

#[kernel(group_size = GROUP_SIZE)]
fn nbody_tiled(
    group: WorkGroup<1>,
    ((x, y, z, m), (mut ax, mut ay, mut az)): (Bodies<'_>, Accelerations<'_>),
) {
    let n = x.as_slice().len();
    memory_environment!(
        group,
        require_local_mem::<BodyTile>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        |tile, sum_x, sum_y, sum_z| {
            for first in (0..n).step_by(TILE) {
                load_tile(group, tile, [x, y, z, m], first);
                let [tx, ty, tz, tm] = &*tile;
                for j0 in (0..TILE).step_by(J_BLOCK) {
                    distribute_items!(group, |idx| {
                        let i = idx.innermost_local_id_dim(0);
                        let (xi, yi, zi) = (x[idx], y[idx], z[idx]);
                        let mut sum = [sum_x[i], sum_y[i], sum_z[i]];
                        for j in j0..j0 + J_BLOCK {
                            let d = interaction(xi, yi, zi, tx[j], ty[j], tz[j], tm[j]);
                            for (sum, d) in sum.iter_mut().zip(d) {
                                *sum += d;
                            }
                        }
                        [sum_x[i], sum_y[i], sum_z[i]] = sum;
                    });
                }
                group_barrier(group);
            }
            distribute_items!(group, |idx| {
                let i = idx.innermost_local_id_dim(0);
                ax[idx] = sum_x[i];
                ay[idx] = sum_y[i];
                az[idx] = sum_z[i];
            });
        }
    );
}

#[kernel(group_size = GROUP_SIZE)]
fn nbody_sub_groups<const S: usize>(
    group: WorkGroup<1, S>,
    ((x, y, z, m), (mut ax, mut ay, mut az)): (Bodies<'_>, Accelerations<'_>),
) {
    let n = x.as_slice().len();
    memory_environment!(
        group,
        require_local_mem::<BodyTile>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        require_local_mem::<[f32; GROUP_SIZE]>(),
        |tile, sum_x, sum_y, sum_z| {
            for first in (0..n).step_by(TILE) {
                load_tile(group, tile, [x, y, z, m], first);
                let [tx, ty, tz, tm] = &*tile;
                for j0 in (0..TILE).step_by(J_BLOCK) {
                    distribute_groups!(group, |sub_group| {
                        distribute_items!(sub_group, |idx| {
                            let i = idx.local_id_dim(&group, 0);
                            let (xi, yi, zi) = (x[idx], y[idx], z[idx]);
                            let mut sum = [sum_x[i], sum_y[i], sum_z[i]];
                            for j in j0..j0 + J_BLOCK {
                                let d = interaction(xi, yi, zi, tx[j], ty[j], tz[j], tm[j]);
                                for (sum, d) in sum.iter_mut().zip(d) {
                                    *sum += d;
                                }
                            }
                            [sum_x[i], sum_y[i], sum_z[i]] = sum;
                        });
                    });
                }
                group_barrier(group);
            }
            distribute_groups!(group, |sub_group| {
                distribute_items!(sub_group, |idx| {
                    let i = idx.local_id_dim(&group, 0);
                    ax[idx] = sum_x[i];
                    ay[idx] = sum_y[i];
                    az[idx] = sum_z[i];
                });
            });
        }
    );
}

#[kernel(group_size = GROUP_SIZE)]
fn nbody_private<const S: usize>(
    group: WorkGroup<1, S>,
    ((x, y, z, m), (mut ax, mut ay, mut az)): (Bodies<'_>, Accelerations<'_>),
) {
    let n = x.as_slice().len();
    memory_environment!(
        group,
        require_local_mem::<BodyTile>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |tile, acc_x, acc_y, acc_z| {
            for first in (0..n).step_by(TILE) {
                load_tile(group, tile, [x, y, z, m], first);
                let [tx, ty, tz, tm] = &*tile;
                distribute_groups!(group, |sub_group| {
                    for j in 0..TILE {
                        distribute_items!(sub_group, |idx| {
                            let d = interaction(x[idx], y[idx], z[idx], tx[j], ty[j], tz[j], tm[j]);
                            acc_x[idx] += d[0];
                            acc_y[idx] += d[1];
                            acc_z[idx] += d[2];
                        });
                    }
                });
                group_barrier(group);
            }
            distribute_items!(group, |idx| {
                [ax[idx], ay[idx], az[idx]] = [acc_x[idx], acc_y[idx], acc_z[idx]];
            });
        }
    );
}

/// The hand-written peer: rayon over blocks of `BLOCK` bodies `i`; in a
/// block, 8 bodies at a time in `f32x8` registers, each meeting every
/// body `j` in turn. A block whose length is not a multiple of 8 ends
/// with its last bodies one at a time, as the serial reference does.
fn nbody_peer(body: [&[f32]; 4], acc: [&mut [f32]; 3]) {
    acceleration_blocks(acc).for_each(|(first, mut acc)| {
        let len = acc[0].len();
        let vector_len = len - len % LANES;
        for i in (0..vector_len).step_by(LANES) {
            let sum = accelerations_x8(body, first + i);
            for (a, sum) in acc.iter_mut().zip(sum) {
                a[i..i + LANES].copy_from_slice(&sum.to_array());
            }
        }
        let [ax, ay, az] = acc;
        for i in vector_len..len {
            [ax[i], ay[i], az[i]] = nbody_reference(body, first + i);
        }
    });
}

/// The three acceleration arrays in blocks of `BLOCK` bodies, each with
/// the index of its first body: the peer's and the twin's tasks.
fn acceleration_blocks(
    acc: [&mut [f32]; 3],
) -> impl IndexedParallelIterator<Item = (usize, [&mut [f32]; 3])> {
    let [ax, ay, az] = acc;
    ax.par_chunks_mut(BLOCK)
        .zip(ay.par_chunks_mut(BLOCK))
        .zip(az.par_chunks_mut(BLOCK))
        .enumerate()
        .map(|(block, ((ax, ay), az))| (block * BLOCK, [ax, ay, az]))
}

/// Twin of the items variant: the GPU Gems 3 tiling by hand. For each
/// block of `BLOCK` bodies `i`, every tile of `TILE` bodies `j` is copied
/// into a stack array, as the kernel stages it in local memory, and each
/// 8 bodies `i` in `f32x8` registers walk the tile, their sums kept
/// between tiles in an array, as the kernel's private memory. Requires
/// blocks of whole lanes and whole tiles, as the kernel requires its
/// group size.
fn nbody_tiled_by_hand(body: [&[f32]; 4], acc: [&mut [f32]; 3]) {
    let n = body[0].len();
    const { assert!(BLOCK.is_multiple_of(LANES)) };
    assert!(n.is_multiple_of(TILE));
    acceleration_blocks(acc).for_each(|(first, mut acc)| {
        let mut sums = [[f32x8::ZERO; 3]; BLOCK / LANES];
        let mut tile: BodyTile = [[0.0; TILE]; 4];
        for j0 in (0..n).step_by(TILE) {
            for (t, source) in tile.iter_mut().zip(body) {
                t.copy_from_slice(&source[j0..j0 + TILE]);
            }
            let [tx, ty, tz, tm] = &tile;
            for (k, sum) in sums.iter_mut().enumerate() {
                let i0 = first + k * LANES;
                let lanes = |v: &[f32]| f32x8::new(v[i0..i0 + LANES].try_into().unwrap());
                let (xi, yi, zi) = (lanes(body[0]), lanes(body[1]), lanes(body[2]));
                for j in 0..TILE {
                    let [dx, dy, dz] = interaction_x8(
                        [xi, yi, zi],
                        [tx[j], ty[j], tz[j], tm[j]].map(f32x8::splat),
                    );
                    sum[0] += dx;
                    sum[1] += dy;
                    sum[2] += dz;
                }
            }
        }
        for (k, sum) in sums.iter().enumerate() {
            let i = k * LANES;
            for (a, sum) in acc.iter_mut().zip(sum) {
                a[i..i + LANES].copy_from_slice(&sum.to_array());
            }
        }
    });
}

/// [`interaction`] in 8 lanes: the contribution of bodies `j` (positions
/// and masses `[xj, yj, zj, mj]`) to bodies at `[xi, yi, zi]`.
#[inline(always)]
fn interaction_x8(i: [f32x8; 3], j: [f32x8; 4]) -> [f32x8; 3] {
    let ([xi, yi, zi], [xj, yj, zj, mj]) = (i, j);
    let (dx, dy, dz) = (xj - xi, yj - yi, zj - zi);
    let softening_squared = f32x8::splat(SOFTENING_SQUARED);
    let d2 = fused(dx, dx, fused(dy, dy, fused(dz, dz, softening_squared)));
    let inv = f32x8::ONE / d2.sqrt();
    let s = mj * (inv * inv * inv);
    [dx * s, dy * s, dz * s]
}

/// The accelerations of bodies `i0 .. i0 + 8`, one per lane: the same
/// operations as [`interaction`], summed over all bodies `j` in
/// increasing order.
#[inline(always)]
fn accelerations_x8(body: [&[f32]; 4], i0: usize) -> [f32x8; 3] {
    let [x, y, z, m] = body;
    let lanes = |v: &[f32]| f32x8::new(v[i0..i0 + LANES].try_into().unwrap());
    let (xi, yi, zi) = (lanes(x), lanes(y), lanes(z));
    let mut sum = [f32x8::ZERO; 3];
    for (((&xj, &yj), &zj), &mj) in x.iter().zip(y).zip(z).zip(m) {
        let [dx, dy, dz] = interaction_x8([xi, yi, zi], [xj, yj, zj, mj].map(f32x8::splat));
        sum[0] += dx;
        sum[1] += dy;
        sum[2] += dz;
    }
    sum
}

/// `a · b + c` rounded once in every lane, as `f32::mul_add` in the
/// kernels: one FMA instruction where the build has FMA; without it,
/// `f32x8::mul_add` would multiply and add (two roundings), so each lane
/// takes `f32::mul_add`, as the kernels' baseline copies do.
#[inline(always)]
fn fused(a: f32x8, b: f32x8, c: f32x8) -> f32x8 {
    if cfg!(target_feature = "fma") {
        a.mul_add(b, c)
    } else {
        let (a, b, c) = (a.to_array(), b.to_array(), c.to_array());
        f32x8::new(std::array::from_fn(|i| a[i].mul_add(b[i], c[i])))
    }
}

/// The serial reference for body `i`.
fn nbody_reference(body: [&[f32]; 4], i: usize) -> [f32; 3] {
    let [x, y, z, m] = body;
    let mut a = [0.0f32; 3];
    for j in 0..x.len() {
        let d = interaction(x[i], y[i], z[i], x[j], y[j], z[j], m[j]);
        for (a, d) in a.iter_mut().zip(d) {
            *a += d;
        }
    }
    a
}

pub(crate) struct NBody {
    body: [Vec<f32>; 4],
    /// Written by every version (see [`Kernel`]).
    output: [Vec<f32>; 3],
    /// Reference accelerations of every `SAMPLE_STRIDE`-th body, per axis.
    reference: [Vec<f32>; 3],
}

impl NBody {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 16384,
            Scale::Quick => 4096,
            Scale::Test => 1024,
        };
        let body = [
            floats(n, -1.0, 1.0, 6),
            floats(n, -1.0, 1.0, 7),
            floats(n, -1.0, 1.0, 8),
            floats(n, 0.5, 1.0, 9),
        ];
        let mut reference: [Vec<f32>; 3] = Default::default();
        let view = [&body[0][..], &body[1], &body[2], &body[3]];
        for i in (0..n).step_by(SAMPLE_STRIDE) {
            let a = nbody_reference(view, i);
            for (r, a) in reference.iter_mut().zip(a) {
                r.push(a);
            }
        }
        Self {
            body,
            output: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            reference,
        }
    }

    fn len(&self) -> usize {
        self.body[0].len()
    }

    /// Runs variant `variant`, its sub-groups of `S` items.
    fn launch<const S: usize>(&mut self, queue: &Queue, variant: usize) {
        let body = [
            &self.body[0][..],
            &self.body[1],
            &self.body[2],
            &self.body[3],
        ];
        let groups = self.len() / GROUP_SIZE;
        let [ax, ay, az] = &mut self.output;
        let [x, y, z, m] = body.map(ItemsRef::new);
        let args = (
            (x, y, z, m),
            (ItemsMut::new(ax), ItemsMut::new(ay), ItemsMut::new(az)),
        );
        let launched = match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, args, nbody_items),
            1 => queue.parallel_with(groups, GROUP_SIZE, args, nbody_tiled),
            2 => queue.parallel_with(groups, GROUP_SIZE, args, nbody_sub_groups::<S>),
            _ => queue.parallel_with(groups, GROUP_SIZE, args, nbody_private::<S>),
        };
        launched.expect("n-body launch");
    }
}

impl NBody {
    /// Runs `by_hand` (the peer or a twin) on the bodies and outputs.
    fn run_by_hand(&mut self, by_hand: fn([&[f32]; 4], [&mut [f32]; 3])) {
        let [x, y, z, m] = &self.body;
        let [ax, ay, az] = &mut self.output;
        by_hand([x, y, z, m], [ax, ay, az]);
    }
}

impl Kernel for NBody {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("{} bodies", self.len())
    }

    fn work(&self) -> Work {
        Work::Flops(20.0 * (self.len() as f64).powi(2))
    }

    fn variants(&self) -> &'static [&'static str] {
        &["items", "tiled", "sub-groups", "private"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        self.launch::<DEFAULT_SUB_GROUP_SIZE>(queue, variant);
    }

    fn sized_variants(&self) -> &'static [usize] {
        &[2, 3]
    }

    fn run_sized(&mut self, queue: &Queue, variant: usize, size: usize) {
        at_sub_group_size!(size, self.launch(queue, variant));
    }

    fn run_peer(&mut self) {
        self.run_by_hand(nbody_peer);
    }

    fn clear(&mut self) {
        for v in &mut self.output {
            v.fill(f32::NAN);
        }
    }

    fn run_twin(&mut self, variant: usize) -> bool {
        if variant != 0 {
            return false;
        }
        self.run_by_hand(nbody_tiled_by_hand);
        true
    }

    fn check(&self) -> Result<(), String> {
        for (axis, (got, expected)) in ["ax", "ay", "az"]
            .iter()
            .zip(self.output.iter().zip(&self.reference))
        {
            let sample: Vec<f32> = got.iter().step_by(SAMPLE_STRIDE).copied().collect();
            // Interactions are summed in the same order everywhere; the
            // tolerance only absorbs differences in how `1/sqrt` rounds.
            check_close(axis, &sample, expected, 1e-4)?;
        }
        Ok(())
    }
}
