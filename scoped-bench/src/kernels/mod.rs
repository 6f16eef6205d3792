//! The kernels of the benchmark suite, each written three ways side by
//! side in its own module: with `scoped` (one or more variants), as the
//! hand-written rayon + slices peer, and as a serial reference that checks
//! both.
//!
//! | module | kernel |
//! | --- | --- |
//! | [`reduction`] | the spec's reduction: one sum per group of 128 `i32` |
//! | [`triad`] | STREAM triad `a = b + s·c`, `f32` |
//! | [`matmul`] | `C = A·B`, `f32`, 16×16 tiles staged in local memory |
//! | [`nbody`] | all-pairs n-body accelerations, `f32`, position tiles in local memory |
//! | [`jacobi`] | 2-D 5-point Jacobi stencil, tiles with halo in local memory |
//! | [`prefix_sum`] | inclusive prefix sum of `i32`: per-group scans, then carries |
//! | [`histogram`] | 256-bin histogram of `u32`: group-local histograms, then merge |
//! | [`black_scholes`] | call and put prices of European options, `f32`, inputs as slices |
//! | [`transpose`] | `B = Aᵀ`, `f32`, 16×16 tiles through local memory |
//! | [`conv5x5`] | 2-D 5×5 filter, `f32`, tiles with halo in local memory |
//! | [`layer_norm`] | row-wise layer norm of a matrix of `f32`, sums over sub-groups |
//! | [`launch_overhead`] | an empty kernel against rayon's `par_iter` |
//!
//! The runner drives the kernels through [`Kernel`]; `tests` checks every
//! version of every kernel against its reference at tiny sizes.

pub(crate) mod black_scholes;
pub(crate) mod conv5x5;
pub(crate) mod histogram;
pub(crate) mod jacobi;
pub(crate) mod launch_overhead;
pub(crate) mod layer_norm;
pub(crate) mod matmul;
pub(crate) mod nbody;
pub(crate) mod prefix_sum;
pub(crate) mod reduction;
pub(crate) mod transpose;
pub(crate) mod triad;

#[cfg(test)]
mod tests;

use std::fmt::Debug;

use scoped::Queue;

pub(crate) use crate::units::Work;

/// Problem sizes: the ones the suite is specified for, smaller ones for a
/// quick run, or tiny ones that only check the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// The sizes of the suite's specification.
    Full,
    /// Sizes a quarter to a sixteenth of those, for a run under a minute.
    Quick,
    /// Tiny sizes for `cargo test`: in a debug build every run of every
    /// kernel takes well under a second. Each still spans several work
    /// groups (at least 4), so that the steps across groups (merges,
    /// carries) are exercised.
    // Constructed only by the tests.
    #[cfg_attr(not(test), allow(dead_code))]
    Test,
}

/// One kernel of the suite, set up at one size, with its inputs, its
/// output and the serial reference result. Every version writes the same
/// output buffers, the `scoped` variants, the peer and the twins alike:
/// with buffers of its own per side, where the operating system placed
/// each side's buffers moved Jacobi's ratio by up to ±8% from one process
/// to the next.
pub(crate) trait Kernel: Send {
    /// Short name, as in the table.
    fn name(&self) -> &'static str;
    /// Problem size, for the table.
    fn size(&self) -> String;
    /// Work of one run.
    fn work(&self) -> Work;
    /// Names of the `scoped` variants (at least one).
    fn variants(&self) -> &'static [&'static str];
    /// Runs `scoped` variant `variant` on `queue`.
    fn run_scoped(&mut self, queue: &Queue, variant: usize);
    /// Runs the rayon peer on the current rayon pool (the caller
    /// installs the pool with the thread count it wants).
    fn run_peer(&mut self);
    /// Runs, by hand with rayon and slices on the current pool, the same
    /// algorithm as `scoped` variant `variant`, for variants whose
    /// algorithm differs from the peer's (staging values through memory,
    /// say). Returns `false`, running nothing, if the variant has no such
    /// twin.
    fn run_twin(&mut self, variant: usize) -> bool {
        let _ = variant;
        false
    }
    /// The variants generic over their sub-group size `S` (indices into
    /// [`variants`](Self::variants)), which [`run_sized`](Self::run_sized)
    /// runs at any size of [`SIZES`].
    fn sized_variants(&self) -> &'static [usize] {
        &[]
    }
    /// Runs `scoped` variant `variant`, one of
    /// [`sized_variants`](Self::sized_variants), with sub-groups of `size`
    /// items, one of [`SIZES`] (what [`run_scoped`](Self::run_scoped) runs
    /// at [`scoped::DEFAULT_SUB_GROUP_SIZE`]).
    fn run_sized(&mut self, queue: &Queue, variant: usize, size: usize) {
        let _ = (queue, size);
        unreachable!("{}: variant {variant} has no sub-group size", self.name());
    }
    /// Overwrites every output, so that a check after the next run sees
    /// only what that run wrote.
    fn clear(&mut self);
    /// Compares the output of the last run, of whichever version, with the
    /// reference.
    fn check(&self) -> Result<(), String>;
}

/// The sub-group sizes [`Kernel::run_sized`] runs at.
pub(crate) const SIZES: [usize; 5] = [4, 8, 16, 32, 64];

/// `$this.$method::<S>($args)` with `S = $size`, one of [`SIZES`]: one
/// instantiation of the method per size.
macro_rules! at_sub_group_size {
    ($size:expr, $this:ident . $method:ident ( $($arg:expr),* )) => {
        match $size {
            4 => $this.$method::<4>($($arg),*),
            8 => $this.$method::<8>($($arg),*),
            16 => $this.$method::<16>($($arg),*),
            32 => $this.$method::<32>($($arg),*),
            64 => $this.$method::<64>($($arg),*),
            other => panic!("no instantiation for sub-groups of {other} items (sizes: {:?})", $crate::kernels::SIZES),
        }
    };
}
pub(crate) use at_sub_group_size;

/// A kernel's name and how to set it up (setting up allocates the inputs
/// and computes the reference, so it is done only for kernels that run).
pub(crate) struct Entry {
    /// Name, as [`Kernel::name`] gives it.
    pub(crate) name: &'static str,
    /// Allocates inputs and outputs and computes the reference.
    pub(crate) setup: fn(Scale) -> Box<dyn Kernel>,
}

/// Every kernel of the suite, in table order.
pub(crate) fn all() -> Vec<Entry> {
    fn boxed<K: Kernel + 'static>(k: K) -> Box<dyn Kernel> {
        Box::new(k)
    }
    vec![
        Entry {
            name: reduction::NAME,
            setup: |s| boxed(reduction::Reduction::new(s)),
        },
        Entry {
            name: triad::NAME,
            setup: |s| boxed(triad::Triad::new(s)),
        },
        Entry {
            name: matmul::NAME,
            setup: |s| boxed(matmul::Matmul::new(s)),
        },
        Entry {
            name: nbody::NAME,
            setup: |s| boxed(nbody::NBody::new(s)),
        },
        Entry {
            name: jacobi::NAME,
            setup: |s| boxed(jacobi::Jacobi::new(s)),
        },
        Entry {
            name: prefix_sum::NAME,
            setup: |s| boxed(prefix_sum::PrefixSum::new(s)),
        },
        Entry {
            name: histogram::NAME,
            setup: |s| boxed(histogram::Histogram::new(s)),
        },
        Entry {
            name: black_scholes::NAME,
            setup: |s| boxed(black_scholes::BlackScholes::new(s)),
        },
        Entry {
            name: transpose::NAME,
            setup: |s| boxed(transpose::Transpose::new(s)),
        },
        Entry {
            name: conv5x5::NAME,
            setup: |s| boxed(conv5x5::Conv5x5::new(s)),
        },
        Entry {
            name: layer_norm::NAME,
            setup: |s| boxed(layer_norm::LayerNorm::new(s)),
        },
    ]
}

/// The names of every kernel of the suite, in table order.
pub(crate) fn names() -> Vec<&'static str> {
    all().iter().map(|e| e.name).collect()
}

/// A deterministic, well-mixed 32-bit value for position `i` (SplitMix64's
/// finaliser), so that inputs are the same in every run and on every
/// machine.
pub(crate) fn mix(i: u64) -> u32 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// `n` integers in `-limit..=limit`.
pub(crate) fn small_ints(n: usize, limit: i32, seed: u64) -> Vec<i32> {
    let span = (2 * limit + 1) as u32;
    (0..n)
        .map(|i| (mix(seed ^ (i as u64)) % span) as i32 - limit)
        .collect()
}

/// A peer's stack tile aligned to a cache line, as a performance engineer
/// lays tiles out: unaligned, every other vector access straddles two
/// lines, and a peer's time moved 15–20% with the binary's layout.
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// `n` floats in `[lo, hi)`.
pub(crate) fn floats(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    (0..n)
        .map(|i| lo + (hi - lo) * (mix(seed ^ (i as u64)) >> 8) as f32 / (1u32 << 24) as f32)
        .collect()
}

/// `Ok` if `got == expected` element by element; otherwise names the
/// first differing position, both values and the number of differences.
pub(crate) fn check_equal<T: PartialEq + Debug>(
    what: &str,
    got: &[T],
    expected: &[T],
) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            expected.len()
        ));
    }
    let mut wrong = got
        .iter()
        .zip(expected)
        .enumerate()
        .filter(|(_, (g, e))| g != e);
    match wrong.next() {
        None => Ok(()),
        Some((i, (g, e))) => Err(format!(
            "{what}: position {i} is {g:?}, expected {e:?} ({} positions differ)",
            1 + wrong.count()
        )),
    }
}

/// `Ok` if every `got[i]` is within `tolerance` of `expected[i]`, relative
/// to `max(|expected[i]|, 1)`; otherwise names the worst position.
pub(crate) fn check_close(
    what: &str,
    got: &[f32],
    expected: &[f32],
    tolerance: f32,
) -> Result<(), String> {
    if got.len() != expected.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            expected.len()
        ));
    }
    let mut worst = (0usize, 0f32);
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let error = (g - e).abs() / e.abs().max(1.0);
        if error.is_nan() {
            return Err(format!("{what}: position {i} is {g}, expected {e}"));
        }
        if error > worst.1 {
            worst = (i, error);
        }
    }
    if worst.1 <= tolerance {
        Ok(())
    } else {
        let i = worst.0;
        Err(format!(
            "{what}: position {i} is {}, expected {} (relative error {:.3e} > {tolerance:.0e})",
            got[i], expected[i], worst.1
        ))
    }
}
