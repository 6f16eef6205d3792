//! Kernel 7, histogram of 2^25 `u32` into 256 bins (the top byte of each
//! value), in two steps: group-local histograms, then a merge.
//!
//! * `scoped`, GPU style (listed first): written as a SYCL or CUDA histogram
//!   is. One group of 1024 items per thread (a grid sized by the compute
//!   units); each item walks the input with a grid-stride loop and counts
//!   into a histogram in local memory through relaxed work-group atomics;
//!   the first 256 items then add it to the output through device atomics.
//!   The lowering runs the loop in rounds across the items (contiguous
//!   reads) and the relaxed local updates as plain adds. Measured on a
//!   loaded 2-core AMD EPYC (AVX-512), quick size, medians of 9 paired
//!   runs, 1 / 2 threads: 22.8 / 45× the peer with neither, 7.0 / 8.5× with
//!   the rounds alone, 1.24 / 2.0× with both. Since then a full round
//!   passes its indices as `start + k` (the starts are consecutive), which
//!   the optimiser knows to be in bounds, and each round prefetches the
//!   input two rounds ahead: the two groups of 2 threads read alternate
//!   4 KiB blocks, and hardware prefetchers stop at page boundaries (quick
//!   size, quiet machine: 1.75 / 2.98× → 1.11 / 1.55×). The requests are
//!   spread over the round, one chunk of 128 items at a time, and made
//!   only where other groups' runs lie between a group's rounds: all of a
//!   round's at once, or any on one group's contiguous rounds, cost more
//!   than they saved (quick size, v3 / v4: 1.15 / 1.13× → 1.08× at 1
//!   thread, 1.95 / 1.65× → 1.24 / 1.41× at 2).
//! * `scoped`, CPU style: work groups of 65536 items count into a histogram in local
//!   memory and write it to their chunk of a table of partial histograms;
//!   a second launch of one group of 256 items (one per bin) adds the table
//!   up, row by row, every row across the lanes. The input is an
//!   [`ItemsRef`] (no per-item bounds check); the merge keeps its sums in a
//!   local array indexed by local id (the group size required), so
//!   each row is one vectorised item loop.
//!
//!   Why groups this large: the counting loop is the peer's, instruction
//!   for instruction, but every group writes 1 KiB of partial histogram
//!   that the merge reads back, traffic the peer's `fold` (one histogram
//!   per rayon task) does not have. At 16384 items per group that is 2 MiB
//!   written and read for 128 MiB of input, and the kernel ran at
//!   1.05–1.08× the peer on one thread; at 65536 items it is a quarter of
//!   that, and 512 groups still keep the threads evenly busy.
//! * peer: `par_chunks(65536).fold(...)` into `[u32; 256]` histograms and a
//!   `reduce` that adds them.
//!
//! Bytes counted: the input read once, the histogram written once.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, mix, Kernel, Scale, Work};

pub(crate) const NAME: &str = "histogram";
const BINS: usize = 256;
const GROUP_SIZE: usize = 65536;

#[inline(always)]
fn bin(x: u32) -> usize {
    (x >> 24) as usize
}

/// Groups of the GPU-style launch per thread of the queue, as a GPU launch
/// sizes a grid-stride kernel by its compute units.
const GROUPS_PER_THREAD: usize = 1;

/// Items per group of the GPU-style launch.
const GRID_GROUP_SIZE: usize = 1024;

/// The GPU form: a grid-stride loop over the input per item, counts in
/// local memory, the first `BINS` items clearing and merging them.
#[kernel]
fn count_grid_stride(group: WorkGroup<1>, input: &[u32], bins: AtomicView<'_, u32>) {
    memory_environment!(group, require_local_mem::<[u32; BINS]>(), |counts| {
        distribute_items_and_wait!(group, |idx| {
            let lid = idx.local_linear_id(&group);
            if lid < BINS {
                counts[lid] = 0;
            }
        });
        distribute_items_and_wait!(group, |idx| {
            let mut i = idx.global_linear_id();
            while i < input.len() {
                let local = &mut counts[bin(input[i])];
                AtomicRef::new(local, MemoryOrder::Relaxed, MemoryScope::WorkGroup).fetch_add(1);
                i += idx.global_linear_range();
            }
        });
        distribute_items!(group, |idx| {
            let lid = idx.local_linear_id(&group);
            if lid < BINS {
                bins.at(lid).fetch_add(counts[lid]);
            }
        });
    });
}

#[kernel]
fn count_groups(
    group: WorkGroup<1>,
    (input, mut partial): (ItemsRefWindow<'_, u32>, ChunkWindow<'_, u32>),
) {
    memory_environment!(group, require_local_mem::<[u32; BINS]>(), |counts| {
        distribute_items!(group, |idx| counts[bin(input[idx])] += 1);
        single_item!(group, || partial
            .as_mut_slice()
            .copy_from_slice(&counts[..]));
    });
}

/// One item per bin.
#[kernel(group_size = BINS)]
fn merge(group: WorkGroup<1>, partial: &[u32], mut histogram: ItemsWindow<'_, u32>) {
    memory_environment!(group, require_local_mem::<[u32; BINS]>(), |total| {
        for row in partial.chunks_exact(BINS) {
            distribute_items!(group, |idx| {
                let b = idx.innermost_local_id_dim(0);
                total[b] += row[b];
            });
        }
        distribute_items!(group, |idx| histogram[idx] =
            total[idx.innermost_local_id_dim(0)]);
    });
}

/// The hand-written peer.
fn histogram_peer(input: &[u32]) -> [u32; BINS] {
    input
        .par_chunks(GROUP_SIZE)
        .fold(
            || [0u32; BINS],
            |mut counts, chunk| {
                for &x in chunk {
                    counts[bin(x)] += 1;
                }
                counts
            },
        )
        .reduce(
            || [0u32; BINS],
            |mut a, b| {
                for (a, b) in a.iter_mut().zip(b) {
                    *a += b;
                }
                a
            },
        )
}

/// The serial reference.
fn histogram_reference(input: &[u32]) -> Vec<u32> {
    let mut counts = vec![0u32; BINS];
    for &x in input {
        counts[bin(x)] += 1;
    }
    counts
}

pub(crate) struct Histogram {
    input: Vec<u32>,
    partial: Vec<u32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<u32>,
    reference: Vec<u32>,
}

impl Histogram {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1 << 25,
            Scale::Quick => 1 << 23,
            Scale::Test => 1 << 16,
        };
        let input: Vec<u32> = (0..n as u64).map(|i| mix(i ^ (12 << 40))).collect();
        let reference = histogram_reference(&input);
        Self {
            partial: vec![0; n / GROUP_SIZE * BINS],
            input,
            output: vec![0; BINS],
            reference,
        }
    }
}

impl Kernel for Histogram {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("2^{} u32, {BINS} bins", self.input.len().ilog2())
    }

    fn work(&self) -> Work {
        Work::Bytes {
            read: (4 * self.input.len()) as f64,
            written: (4 * self.output.len()) as f64,
            largest_array: (4 * self.input.len()) as f64,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["GPU form: grid stride, local atomics", "local histograms"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        if variant == 0 {
            self.output.fill(0);
            let input = &self.input;
            let bins = AtomicView::new(&mut self.output, MemoryOrder::Relaxed, MemoryScope::Device);
            queue
                .parallel(
                    GROUPS_PER_THREAD * queue.num_threads(),
                    GRID_GROUP_SIZE,
                    |g| count_grid_stride(g, input, bins),
                )
                .expect("histogram launch (grid stride)");
            return;
        }
        let groups = self.input.len() / GROUP_SIZE;
        let args = (
            ItemsRef::new(&self.input),
            ChunksMut::new(&mut self.partial, BINS),
        );
        queue
            .parallel_with(groups, GROUP_SIZE, args, count_groups)
            .expect("histogram launch (counts)");
        let partial = &self.partial;
        queue
            .parallel_with(1, BINS, ItemsMut::new(&mut self.output), |g, w| {
                merge(g, partial, w)
            })
            .expect("histogram launch (merge)");
    }

    fn run_peer(&mut self) {
        self.output.copy_from_slice(&histogram_peer(&self.input));
    }

    fn clear(&mut self) {
        self.output.fill(u32::MAX);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("bins", &self.output, &self.reference)
    }
}
