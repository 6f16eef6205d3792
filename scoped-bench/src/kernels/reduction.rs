//! Kernel 1, the spec's reduction: 2^24 `i32` in work groups of 128, one
//! sum per group.
//!
//! The input is an [`ItemsRef`]: one element per logical item, checked
//! once at launch, so that `input[idx]` needs no per-item bounds check and
//! the item loops vectorise without a scalar tail. The kernels require
//! their group size (`group_size = GROUP_SIZE`): the item loops then have
//! a constant trip count.
//!
//! * `scoped`, flat: every item adds its element to a group-local total;
//!   the total stays in a register and the item loop is one SIMD sum.
//! * `scoped`, `reduce_over_group`: the items load their elements into
//!   private memory and the group algorithm sums them. With a stated
//!   group size the optimiser removes the staging altogether (no
//!   zero-fill, no copy: the fold reads the input). On integers the
//!   group algorithm's fold is a plain loop, vectorised at the level the
//!   kernel runs at, after the staging copy's in-order touch of the
//!   group's lines. Its twin stages by hand in a `[i32; 128]` and sums
//!   with `iter().sum()`.
//! * `scoped`, sub-groups: the flat kernel's body, handed to the SIMD-wide
//!   sub-groups (`distribute_groups!` around the `distribute_items!`), as
//!   in the triad's and n-body's sub-group variants. Each sub-group's
//!   items are one vector add, and the optimiser keeps the flat loop's
//!   four accumulators: the same code as the flat variant.
//! * `scoped`, sub-group lanes: the items of each sub-group add into one
//!   group-local accumulator per SIMD lane (`lanes[lane] += input[idx]`),
//!   which one item sums at the end. The sub-groups run as a loop over
//!   blocks of at least 16 items, the lanes in vector registers across
//!   it: at `S = 8` two 8-lane adds per block, eight blocks per group.
//!   At one thread it takes 0.99–1.06× the flat variant's time (quick
//!   sizes, 31 rounds; see `scoped::guide::writing_fast_kernels`); the
//!   same lanes written by hand with rayon are 1.2× the peer.
//! * `scoped`, tree: the spec's own kernel, halving the active range in
//!   local memory with `distribute_items_and_wait!` (`log2(128)` passes
//!   where the others do one). Two lowering shortcuts bring it to the
//!   plain sum's speed: the staging body `scratch[lid] = input[idx]`
//!   becomes one slice copy, which the optimiser splits into registers,
//!   and each guarded pass loops only over its active items. Its twin, the
//!   same passes written by hand over all items with `if lid < active`,
//!   is slower than the `scoped` version.
//! * peer: `par_chunks(128)` zipped with the sums, `iter().sum()` each.

use rayon::prelude::*;
use scoped::prelude::*;
use scoped::{plus, reduce_over_group, DEFAULT_SUB_GROUP_SIZE};

use super::{at_sub_group_size, check_equal, small_ints, Kernel, Scale, Work};

pub(crate) const NAME: &str = "reduction";
/// Items per work group, and elements per sum.
pub(crate) const GROUP_SIZE: usize = 128;

/// The input (one element per item) and the window of group sums.
type Args<'a> = (ItemsRefWindow<'a, i32>, ChunkWindow<'a, i32>);

#[kernel(group_size = GROUP_SIZE)]
fn reduce_flat(group: WorkGroup<1>, (input, mut sums): Args<'_>) {
    memory_environment!(group, require_local_mem::<[i32; 1]>(), |total| {
        distribute_items!(group, |idx| {
            total[0] += input[idx];
        });
        single_item!(group, || sums[group.group_linear_id()] = total[0]);
    });
}

#[kernel(group_size = GROUP_SIZE)]
fn reduce_group_algorithm(group: WorkGroup<1>, (input, mut sums): Args<'_>) {
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx]);
        let sum = reduce_over_group(group, x, plus());
        single_item!(group, || sums[group.group_linear_id()] = sum);
    });
}

#[kernel(group_size = GROUP_SIZE)]
fn reduce_sub_groups<const S: usize>(group: WorkGroup<1, S>, (input, mut sums): Args<'_>) {
    memory_environment!(group, require_local_mem::<[i32; 1]>(), |total| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| total[0] += input[idx]);
        });
        single_item!(group, || sums[group.group_linear_id()] = total[0]);
    });
}

#[kernel(group_size = GROUP_SIZE)]
fn reduce_sub_group_lanes<const S: usize>(group: WorkGroup<1, S>, (input, mut sums): Args<'_>) {
    memory_environment!(group, require_local_mem::<[i32; S]>(), |lanes| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                lanes[idx.innermost_local_id_dim(0)] += input[idx];
            });
        });
        single_item!(group, || sums[group.group_linear_id()] = lanes.iter().sum());
    });
}

#[kernel(group_size = GROUP_SIZE)]
fn reduce_tree(group: WorkGroup<1>, (input, mut sums): Args<'_>) {
    memory_environment!(group, require_local_mem::<[i32; GROUP_SIZE]>(), |scratch| {
        distribute_items_and_wait!(group, |idx| {
            scratch[idx.innermost_local_id_dim(0)] = input[idx];
        });
        let mut active = GROUP_SIZE / 2;
        while active > 0 {
            distribute_items_and_wait!(group, |idx| {
                let lid = idx.innermost_local_id_dim(0);
                if lid < active {
                    scratch[lid] += scratch[lid + active];
                }
            });
            active /= 2;
        }
        single_item!(group, || sums[group.group_linear_id()] = scratch[0]);
    });
}

/// The hand-written peer.
fn reduce_peer(input: &[i32], sums: &mut [i32]) {
    input
        .par_chunks(GROUP_SIZE)
        .zip(sums.par_iter_mut())
        .for_each(|(chunk, sum)| *sum = chunk.iter().sum());
}

/// Twin of the `reduce_over_group` variant: the same staging, by hand.
/// Each chunk is copied into a buffer (zeroed first, as private memory
/// without an initial value is), then summed from there.
fn reduce_staged_by_hand(input: &[i32], sums: &mut [i32]) {
    input
        .par_chunks(GROUP_SIZE)
        .zip(sums.par_iter_mut())
        .for_each(|(chunk, sum)| {
            let mut staged = [0; GROUP_SIZE];
            staged.copy_from_slice(chunk);
            *sum = staged.iter().sum();
        });
}

/// Twin of the tree variant: the spec's tree, by hand, in a scratch array,
/// every pass a loop over all items of the group as in the spec.
fn reduce_tree_by_hand(input: &[i32], sums: &mut [i32]) {
    input
        .par_chunks(GROUP_SIZE)
        .zip(sums.par_iter_mut())
        .for_each(|(chunk, sum)| {
            let mut scratch = [0; GROUP_SIZE];
            scratch.copy_from_slice(chunk);
            let mut active = GROUP_SIZE / 2;
            while active > 0 {
                for lid in 0..GROUP_SIZE {
                    if lid < active {
                        scratch[lid] += scratch[lid + active];
                    }
                }
                active /= 2;
            }
            *sum = scratch[0];
        });
}

/// The serial reference.
fn reduce_reference(input: &[i32]) -> Vec<i32> {
    let mut sums = Vec::with_capacity(input.len() / GROUP_SIZE);
    for chunk in input.chunks(GROUP_SIZE) {
        let mut sum = 0;
        for &x in chunk {
            sum += x;
        }
        sums.push(sum);
    }
    sums
}

pub(crate) struct Reduction {
    input: Vec<i32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<i32>,
    reference: Vec<i32>,
}

impl Reduction {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1 << 24,
            Scale::Quick => 1 << 22,
            Scale::Test => 1 << 12,
        };
        // |x| <= 1000: no group sum of 128 can overflow.
        let input = small_ints(n, 1000, 1);
        let reference = reduce_reference(&input);
        let groups = n / GROUP_SIZE;
        Self {
            input,
            output: vec![0; groups],
            reference,
        }
    }

    /// Runs variant `variant`, its sub-groups of `S` items.
    fn launch<const S: usize>(&mut self, queue: &Queue, variant: usize) {
        let groups = self.output.len();
        let args = (
            ItemsRef::new(&self.input),
            ChunksMut::new(&mut self.output, 1),
        );
        let launched = match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, args, reduce_flat),
            1 => queue.parallel_with(groups, GROUP_SIZE, args, reduce_group_algorithm),
            2 => queue.parallel_with(groups, GROUP_SIZE, args, reduce_sub_groups::<S>),
            3 => queue.parallel_with(groups, GROUP_SIZE, args, reduce_sub_group_lanes::<S>),
            _ => queue.parallel_with(groups, GROUP_SIZE, args, reduce_tree),
        };
        launched.expect("reduction launch");
    }
}

impl Kernel for Reduction {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("2^{} i32 / {GROUP_SIZE}", self.input.len().ilog2())
    }

    fn work(&self) -> Work {
        Work::Bytes {
            read: (4 * self.input.len()) as f64,
            written: (4 * self.output.len()) as f64,
            largest_array: (4 * self.input.len()) as f64,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &[
            "flat",
            "reduce_over_group",
            "sub-groups",
            "sub-group lanes",
            "tree (spec)",
        ]
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
        reduce_peer(&self.input, &mut self.output);
    }

    fn run_twin(&mut self, variant: usize) -> bool {
        match variant {
            1 => reduce_staged_by_hand(&self.input, &mut self.output),
            4 => reduce_tree_by_hand(&self.input, &mut self.output),
            _ => return false,
        }
        true
    }

    fn clear(&mut self) {
        self.output.fill(i32::MIN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("group sums", &self.output, &self.reference)
    }
}
