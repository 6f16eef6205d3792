//! `joint_*`: algorithms that a group runs together over a slice of local
//! or global memory (SYCL 2020 group algorithms: `joint_reduce`,
//! `joint_inclusive_scan`, `joint_exclusive_scan`, `joint_any_of`,
//! `joint_all_of`, `joint_none_of`).
//!
//! The slice is the SYCL range `[first, last)`: local memory from
//! `memory_environment!` (an array, which derefs to a slice), a kernel's
//! input slice, or a window of an output. The group argument says which
//! group performs the work; its size does not change the result.

use crate::group::ScopedGroup;
use crate::rules::{check_collective, Nesting};

use super::operators::GroupOperator;
use super::scan::{exclusive, inclusive};
use super::simd;

/// Combines all of `data` with `op` (SYCL 2020 `joint_reduce(g, first,
/// last, binary_op)`): `identity op data[0] op … op data[n-1]`, the
/// operator's identity for an empty slice (see [`GroupOperator`]).
///
/// Built-in operators on `f32`, `f64` and integer types run on SIMD lanes
/// (floats in `wide` vectors, integers in a loop the compiler vectorises
/// at the kernel's ISA level). **Floating point**: the combination order
/// is not guaranteed, so a float result may differ from a serial loop by
/// rounding (about `n · ε · Σ|xi|`); it is reproducible for a given
/// length. Integers are exact.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Examples
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn total(group: WorkGroup<1>, input: &[f64], mut out: ChunkWindow<'_, f64>) {
///     let sum = joint_reduce(group, input, plus());
///     single_item!(group, || out[group.group_linear_id()] = sum);
/// }
///
/// let input = [0.5; 64];
/// let mut out = [0.0; 2];
/// Queue::new()
///     .parallel_with(2, 16, ChunksMut::new(&mut out, 1), |g, w| total(g, &input, w))
///     .unwrap();
/// assert_eq!(out, [32.0, 32.0]);
/// ```
#[inline(always)]
#[track_caller]
pub fn joint_reduce<G, T, Op, const D: usize>(group: G, data: &[T], op: Op) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    check_collective(group.__nesting(), "joint_reduce");
    op.__fold(op.identity(), data)
}

/// [`joint_reduce`] from `init`: `init op data[0] op … op data[n-1]` (SYCL
/// 2020 `joint_reduce(g, first, last, init, binary_op)`); `init` for an
/// empty slice.
///
/// Same SIMD use and floating-point caveat as [`joint_reduce`]. A
/// collective: call it outside `distribute_items!`, on the innermost group.
#[inline(always)]
#[track_caller]
pub fn joint_reduce_with_init<G, T, Op, const D: usize>(group: G, data: &[T], init: T, op: Op) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    check_collective(group.__nesting(), "joint_reduce_with_init");
    op.__fold(init, data)
}

/// The joint scan named `what`: `scan` (`inclusive` or `exclusive`) from
/// `init` of `input` into `output`, which must be as long.
#[inline(always)]
#[track_caller]
fn joint_scan<T: Copy, Op: GroupOperator<T>>(
    nesting: Nesting,
    what: &str,
    input: &[T],
    output: &mut [T],
    init: T,
    op: Op,
    scan: impl FnOnce(Op, T, &[T], &mut [T]),
) {
    check_collective(nesting, what);
    let (input_len, output_len) = (input.len(), output.len());
    if input_len != output_len {
        panic!(
            "{what}: the output has {output_len} elements but the input has {input_len}; they \
             must be equally long"
        );
    }
    scan(op, init, input, output);
}

/// Inclusive scan of `input` into `output` (SYCL 2020
/// `joint_inclusive_scan(g, first, last, result, binary_op)`):
/// `output[i] = input[0] op … op input[i]`, in increasing position.
///
/// Same SIMD use and floating-point caveat as [`joint_reduce`].
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `output` and `input` differ in length, naming both lengths.
#[inline(always)]
#[track_caller]
pub fn joint_inclusive_scan<G, T, Op, const D: usize>(
    group: G,
    input: &[T],
    output: &mut [T],
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "joint_inclusive_scan";
    joint_scan(
        group.__nesting(),
        what,
        input,
        output,
        op.identity(),
        op,
        inclusive,
    );
}

/// [`joint_inclusive_scan`] from `init`: `output[i] = init op input[0] op …
/// op input[i]` (SYCL 2020 `joint_inclusive_scan(g, first, last, result,
/// binary_op, init)`; `init` comes before the operator here), in increasing
/// position.
///
/// Same SIMD use and floating-point caveat as [`joint_reduce`]. A
/// collective: call it outside `distribute_items!`, on the innermost group.
///
/// # Panics
/// If `output` and `input` differ in length.
#[inline(always)]
#[track_caller]
pub fn joint_inclusive_scan_with_init<G, T, Op, const D: usize>(
    group: G,
    input: &[T],
    output: &mut [T],
    init: T,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "joint_inclusive_scan_with_init";
    joint_scan(group.__nesting(), what, input, output, init, op, inclusive);
}

/// Exclusive scan of `input` into `output` (SYCL 2020
/// `joint_exclusive_scan(g, first, last, result, binary_op)`):
/// `output[0]` is the operator's identity, `output[i] = input[0] op … op
/// input[i-1]`, in increasing position.
///
/// Same SIMD use and floating-point caveat as [`joint_reduce`].
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `output` and `input` differ in length, naming both lengths.
#[inline(always)]
#[track_caller]
pub fn joint_exclusive_scan<G, T, Op, const D: usize>(
    group: G,
    input: &[T],
    output: &mut [T],
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "joint_exclusive_scan";
    joint_scan(
        group.__nesting(),
        what,
        input,
        output,
        op.identity(),
        op,
        exclusive,
    );
}

/// [`joint_exclusive_scan`] from `init`: `output[0] = init`, `output[i] =
/// init op input[0] op … op input[i-1]` (SYCL 2020
/// `joint_exclusive_scan(g, first, last, result, init, binary_op)`), in
/// increasing position.
///
/// Same SIMD use and floating-point caveat as [`joint_reduce`]. A
/// collective: call it outside `distribute_items!`, on the innermost group.
///
/// # Panics
/// If `output` and `input` differ in length.
#[inline(always)]
#[track_caller]
pub fn joint_exclusive_scan_with_init<G, T, Op, const D: usize>(
    group: G,
    input: &[T],
    output: &mut [T],
    init: T,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "joint_exclusive_scan_with_init";
    joint_scan(group.__nesting(), what, input, output, init, op, exclusive);
}

/// Whether `pred` holds for any element of `data` (SYCL 2020
/// `joint_any_of(g, first, last, pred)`); `false` for an empty slice.
///
/// `pred` runs in increasing position, in blocks of 64 without branches
/// inside a block (so that a simple predicate vectorises); it may run on
/// elements after the first match and should be a pure function.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
#[inline(always)]
#[track_caller]
pub fn joint_any_of<G, T, const D: usize>(group: G, data: &[T], pred: impl Fn(&T) -> bool) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "joint_any_of");
    simd::any_by(data, pred)
}

/// Whether `pred` holds for every element of `data` (SYCL 2020
/// `joint_all_of(g, first, last, pred)`); `true` for an empty slice.
/// Evaluation as for [`joint_any_of`]. A collective: call it outside
/// `distribute_items!`, on the innermost group.
#[inline(always)]
#[track_caller]
pub fn joint_all_of<G, T, const D: usize>(group: G, data: &[T], pred: impl Fn(&T) -> bool) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "joint_all_of");
    !simd::any_by(data, |x| !pred(x))
}

/// Whether `pred` holds for no element of `data` (SYCL 2020
/// `joint_none_of(g, first, last, pred)`); `true` for an empty slice.
/// Evaluation as for [`joint_any_of`]. A collective: call it outside
/// `distribute_items!`, on the innermost group.
#[inline(always)]
#[track_caller]
pub fn joint_none_of<G, T, const D: usize>(group: G, data: &[T], pred: impl Fn(&T) -> bool) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "joint_none_of");
    !simd::any_by(data, pred)
}
