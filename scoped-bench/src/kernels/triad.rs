//! Kernel 2, STREAM triad: `a = b + s·c` over 2^25 `f32`.
//!
//! * `scoped`, flat: one logical item per element, groups of 4096; `b` and
//!   `c` are [`ItemsRef`] inputs, checked once at launch, so the item loop
//!   reads them without bounds checks and vectorises like the peer's.
//! * `scoped`, sub-groups: the same, subdivided into SIMD-wide sub-groups
//!   (`distribute_groups!` around a lone `distribute_items!` is lowered to
//!   the same flat loop).
//! * peer: `a.par_iter_mut().zip(b).zip(c).for_each(...)`.
//!
//! All three compute `s.mul_add(c, b)`: the fused form is what the CPU
//! does in one instruction (rustc never fuses `b + s * c` by itself), and
//! using it everywhere keeps the results bit-identical to the reference.
//! Bytes counted as STREAM does: two arrays read, one written.

use rayon::prelude::*;
use scoped::prelude::*;
use scoped::DEFAULT_SUB_GROUP_SIZE;

use super::{at_sub_group_size, check_equal, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "triad";
const GROUP_SIZE: usize = 4096;
const SCALAR: f32 = 3.0;

/// The output `a` and the inputs `b` and `c`, one element per item each.
type Args<'a> = (
    ItemsWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
);

#[kernel]
fn triad_flat(group: WorkGroup<1>, s: f32, (mut a, b, c): Args<'_>) {
    distribute_items!(group, |idx| a[idx] = s.mul_add(c[idx], b[idx]));
}

#[kernel]
fn triad_sub_groups<const S: usize>(group: WorkGroup<1, S>, s: f32, (mut a, b, c): Args<'_>) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| a[idx] = s.mul_add(c[idx], b[idx]));
    });
}

/// The hand-written peer.
fn triad_peer(a: &mut [f32], b: &[f32], c: &[f32], s: f32) {
    a.par_iter_mut()
        .zip(b)
        .zip(c)
        .for_each(|((a, &b), &c)| *a = s.mul_add(c, b));
}

/// The serial reference.
fn triad_reference(b: &[f32], c: &[f32], s: f32) -> Vec<f32> {
    b.iter().zip(c).map(|(&b, &c)| s.mul_add(c, b)).collect()
}

pub(crate) struct Triad {
    b: Vec<f32>,
    c: Vec<f32>,
    /// Written by every version (see [`Kernel`]).
    output: Vec<f32>,
    reference: Vec<f32>,
}

impl Triad {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1 << 25,
            Scale::Quick => 1 << 23,
            Scale::Test => 1 << 14,
        };
        let b = floats(n, -1.0, 1.0, 2);
        let c = floats(n, -1.0, 1.0, 3);
        let reference = triad_reference(&b, &c, SCALAR);
        Self {
            b,
            c,
            output: vec![0.0; n],
            reference,
        }
    }

    /// Elements per array.
    pub(crate) fn len(&self) -> usize {
        self.b.len()
    }

    /// Runs variant `variant`, its sub-groups of `S` items.
    fn launch<const S: usize>(&mut self, queue: &Queue, variant: usize) {
        let groups = self.len() / GROUP_SIZE;
        let args = (
            ItemsMut::new(&mut self.output),
            ItemsRef::new(&self.b),
            ItemsRef::new(&self.c),
        );
        let launched = match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, args, |g, w| triad_flat(g, SCALAR, w)),
            _ => queue.parallel_with(groups, GROUP_SIZE, args, |g, w| {
                triad_sub_groups::<S>(g, SCALAR, w)
            }),
        };
        launched.expect("triad launch");
    }
}

impl Kernel for Triad {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("2^{} f32", self.len().ilog2())
    }

    fn work(&self) -> Work {
        Work::Bytes {
            read: (2 * 4 * self.len()) as f64,
            written: (4 * self.len()) as f64,
            largest_array: (4 * self.len()) as f64,
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
        triad_peer(&mut self.output, &self.b, &self.c, SCALAR);
    }

    fn clear(&mut self) {
        // NaN never equals a result.
        self.output.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("a", &self.output, &self.reference)
    }
}
