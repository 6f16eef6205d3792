//! Kernel 6, inclusive prefix sum of 2^25 `i32`, in three passes:
//!
//! 1. every work group of 4096 items scans its own elements and records
//!    its total;
//! 2. the totals are scanned (exclusively) into per-group carries, serially
//!    on the calling thread (8192 values);
//! 3. every group adds its carry to its elements.
//!
//! The input is an [`ItemsRef`], checked once at launch; its group slice
//! and the output window's slice are the ranges the scans work on.
//!
//! * `scoped`, flat: pass 1 is one group algorithm,
//!   `joint_inclusive_scan` over the group's slice of the input into its
//!   slice of the output (a SIMD scan: in-vector prefix, running carry),
//!   and one item records the last sum; pass 3 is a `distribute_items!`
//!   that adds the carry.
//! * `scoped`, sub-groups: pass 1 scans sub-group by sub-group, each with
//!   `joint_inclusive_scan_with_init` over its elements, starting from the
//!   total of the sub-groups before it; pass 3 adds the carry sub-group by
//!   sub-group. With the group size required every sub-group is
//!   full. Both passes keep the default sub-group size: each sub-group's
//!   vector is scanned in-register independently of the carry, and the
//!   scan carries its running value as a scalar, so the chain from one
//!   sub-group to the next is one add (taken from the vector's last lane,
//!   an extract, a broadcast and an add, sub-groups of 8 took 2–2.5× the
//!   time of sub-groups of 32 in cache; now within 2% of it).
//! * peer: `par_chunks_mut(4096)` with a running sum, the same serial scan
//!   of the totals, and `par_chunks_mut(4096)` adding the carries.
//!
//! The private-memory form of pass 1 (load the elements into private
//! memory, `inclusive_scan_over_group`, write the results out) measured
//! about 8× the instructions of the joint scan: the private memories are
//! handed to the group algorithm by reference, so the item loops that fill
//! and read them reload the memories' fields and re-check every item, and
//! stay scalar.
//!
//! Bytes counted: the input read once and the output written once (what
//! any scan must move), although all versions touch the output twice.

use rayon::prelude::*;
use scoped::prelude::*;
use scoped::{joint_inclusive_scan, joint_inclusive_scan_with_init, plus, DEFAULT_SUB_GROUP_SIZE};

use super::{at_sub_group_size, check_equal, small_ints, Kernel, Scale, Work};

pub(crate) const NAME: &str = "prefix sum";
const GROUP_SIZE: usize = 4096;

/// The input, the output and the group totals of the scan pass.
type ScanArgs<'a> = (
    ItemsRefWindow<'a, i32>,
    ItemsWindow<'a, i32>,
    ChunkWindow<'a, i32>,
);

#[kernel(group_size = GROUP_SIZE)]
fn scan_groups_flat(group: WorkGroup<1>, (input, mut out, mut totals): ScanArgs<'_>) {
    joint_inclusive_scan(group, input.group_slice(), out.as_mut_slice(), plus());
    single_item!(group, || {
        totals[group.group_linear_id()] = out.as_slice()[GROUP_SIZE - 1];
    });
}

#[kernel(group_size = GROUP_SIZE)]
fn scan_groups_sub_groups<const S: usize>(
    group: WorkGroup<1, S>,
    (input, mut out, mut totals): ScanArgs<'_>,
) {
    let (src, dst) = (input.group_slice(), out.as_mut_slice());
    // The running total of the sub-groups before this one.
    let mut carry = 0;
    distribute_groups!(group, |sub_group| {
        let first = sub_group.group_linear_id() * S;
        let len = sub_group.logical_local_linear_range();
        let (src, dst) = (&src[first..][..len], &mut dst[first..][..len]);
        joint_inclusive_scan_with_init(sub_group, src, dst, carry, plus());
        carry = dst[len - 1];
    });
    single_item!(group, || totals[group.group_linear_id()] = carry);
}

#[kernel]
fn add_carries_flat(group: WorkGroup<1>, carries: &[i32], mut out: ItemsWindow<'_, i32>) {
    let carry = carries[group.group_linear_id()];
    distribute_items!(group, |idx| out[idx] += carry);
}

#[kernel]
fn add_carries_sub_groups<const S: usize>(
    group: WorkGroup<1, S>,
    carries: &[i32],
    mut out: ItemsWindow<'_, i32>,
) {
    let carry = carries[group.group_linear_id()];
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| out[idx] += carry);
    });
}

/// Pass 2: turns group totals into the carry of each group (exclusive
/// scan), in place.
fn totals_to_carries(totals: &mut [i32]) {
    let mut running = 0;
    for t in totals {
        let total = *t;
        *t = running;
        running += total;
    }
}

/// The hand-written peer.
fn prefix_sum_peer(input: &[i32], out: &mut [i32], totals: &mut [i32]) {
    out.par_chunks_mut(GROUP_SIZE)
        .zip(input.par_chunks(GROUP_SIZE))
        .zip(totals.par_iter_mut())
        .for_each(|((out, input), total)| {
            let mut running = 0;
            for (o, &x) in out.iter_mut().zip(input) {
                running += x;
                *o = running;
            }
            *total = running;
        });
    totals_to_carries(totals);
    out.par_chunks_mut(GROUP_SIZE)
        .zip(totals.par_iter())
        .for_each(|(out, &carry)| {
            for o in out {
                *o += carry;
            }
        });
}

/// The serial reference.
fn prefix_sum_reference(input: &[i32]) -> Vec<i32> {
    let mut running = 0;
    input
        .iter()
        .map(|&x| {
            running += x;
            running
        })
        .collect()
}

pub(crate) struct PrefixSum {
    input: Vec<i32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<i32>,
    totals: Vec<i32>,
    reference: Vec<i32>,
}

impl PrefixSum {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1 << 25,
            Scale::Quick => 1 << 23,
            Scale::Test => 1 << 14,
        };
        // |x| <= 8: no partial sum of 2^25 elements can overflow.
        let input = small_ints(n, 8, 11);
        let reference = prefix_sum_reference(&input);
        Self {
            input,
            output: vec![0; n],
            totals: vec![0; n / GROUP_SIZE],
            reference,
        }
    }

    /// Runs variant `variant`, both passes in sub-groups of `S` items.
    fn launch<const S: usize>(&mut self, queue: &Queue, variant: usize) {
        let groups = self.totals.len();
        let args = (
            ItemsRef::new(&self.input),
            ItemsMut::new(&mut self.output),
            ChunksMut::new(&mut self.totals, 1),
        );
        match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, args, scan_groups_flat),
            _ => queue.parallel_with(groups, GROUP_SIZE, args, scan_groups_sub_groups::<S>),
        }
        .expect("prefix sum launch (scans)");
        totals_to_carries(&mut self.totals);
        let carries = &self.totals;
        let out = ItemsMut::new(&mut self.output);
        match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, out, |g, w| {
                add_carries_flat(g, carries, w)
            }),
            _ => queue.parallel_with(groups, GROUP_SIZE, out, |g, w| {
                add_carries_sub_groups::<S>(g, carries, w)
            }),
        }
        .expect("prefix sum launch (carries)");
    }
}

impl Kernel for PrefixSum {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("2^{} i32", self.input.len().ilog2())
    }

    fn work(&self) -> Work {
        let bytes = (4 * self.input.len()) as f64;
        Work::Bytes {
            read: bytes,
            written: bytes,
            largest_array: bytes,
        }
    }

    fn variants(&self) -> &'static [&'static str] {
        &["flat", "sub-groups"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        self.launch::<DEFAULT_SUB_GROUP_SIZE>(queue, variant);
    }

    fn sized_variants(&self) -> &'static [usize] {
        &[1]
    }

    fn run_sized(&mut self, queue: &Queue, variant: usize, size: usize) {
        at_sub_group_size!(size, self.launch(queue, variant));
    }

    fn run_peer(&mut self) {
        prefix_sum_peer(&self.input, &mut self.output, &mut self.totals);
    }

    fn clear(&mut self) {
        self.output.fill(i32::MIN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("prefix sums", &self.output, &self.reference)
    }
}
