//! `inclusive_scan_over_group`, `exclusive_scan_over_group` (SYCL 2020
//! group algorithms, "scan"; OpenCL C++ `work_group_scan_inclusive` and
//! `work_group_scan_exclusive`).

use crate::group::ScopedGroup;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::operators::GroupOperator;
use super::values::{group_values, group_values_mut};

/// `dst[i] = carry op src[0] op … op src[i]`; `src` and `dst` have the
/// same length.
#[inline(always)]
pub(crate) fn inclusive<T: Copy, Op: GroupOperator<T>>(op: Op, carry: T, src: &[T], dst: &mut [T]) {
    op.__scan(carry, src, dst);
}

/// `dst[0] = carry`, `dst[i] = carry op src[0] op … op src[i - 1]`; `src`
/// and `dst` have the same length.
#[inline(always)]
pub(crate) fn exclusive<T: Copy, Op: GroupOperator<T>>(op: Op, carry: T, src: &[T], dst: &mut [T]) {
    if let Some((first, rest)) = dst.split_first_mut() {
        *first = carry;
        op.__scan(carry, &src[..src.len() - 1], rest);
    }
}

/// The scan over private memory named `what`: `scan` (`inclusive` or
/// `exclusive`) from `init` of `group`'s values in `values` into `results`.
#[inline(always)]
#[track_caller]
pub(crate) fn scan_over_group<G, T, Op, const D: usize>(
    what: &str,
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    init: T,
    op: Op,
    scan: impl FnOnce(Op, T, &[T], &mut [T]),
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    check_collective(group.__nesting(), what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    scan(op, init, src, dst);
}

/// Inclusive scan of the values that the items of `group` hold in
/// `values`, written to `results` (SYCL 2020
/// `inclusive_scan_over_group(g, x, binary_op)`; OpenCL C++
/// `work_group_scan_inclusive` / `sub_group_scan_inclusive`).
///
/// The item with local linear id `i` receives `x0 op x1 op … op xi`: the
/// scan runs in increasing local linear id (OpenCL: "increasing 1D linear
/// global ID within the work-group"). With `plus()`, `[3 1 7 0 4 1 6 3]`
/// gives `[3 4 11 11 15 16 22 25]`. The operator's identity (see
/// [`GroupOperator`]) starts the scan and leaves it unchanged.
///
/// Built-in operators on `f32`, `f64` and the integer types scan on `wide`
/// SIMD lanes (in-register prefix, then a running carry).
///
/// **Floating point.** The combination order of float values is not
/// guaranteed (OpenCL's note on scans): the SIMD path adds within lanes
/// first, so a prefix may differ from a serial loop by rounding (about
/// `n · ε · Σ|xj|` for prefix `n`). Results are reproducible for a given
/// group size. Integers are exact.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `values` or `results` does not hold the items of `group` (each must
/// come from a memory environment on `group` or on a group that contains
/// it).
///
/// # Examples
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn prefix_sums(group: WorkGroup<1>, input: &[i32], mut out: ItemsWindow<'_, i32>) {
///     memory_environment!(
///         group,
///         require_private_mem::<i32>(),
///         require_private_mem::<i32>(),
///         |x, sums| {
///             distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
///             inclusive_scan_over_group(group, x, sums, plus());
///             distribute_items!(group, |idx| out[idx] = sums[idx]);
///         }
///     );
/// }
///
/// let input = [3, 1, 7, 0, 4, 1, 6, 3];
/// let mut out = [0; 8];
/// Queue::new()
///     .parallel_with(1, 8, ItemsMut::new(&mut out), |g, w| prefix_sums(g, &input, w))
///     .unwrap();
/// assert_eq!(out, [3, 4, 11, 11, 15, 16, 22, 25]);
/// ```
#[inline(always)]
#[track_caller]
pub fn inclusive_scan_over_group<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "inclusive_scan_over_group";
    scan_over_group(what, group, values, results, op.identity(), op, inclusive);
}

/// [`inclusive_scan_over_group`] starting from `init`: item `i` receives
/// `init op x0 op … op xi` (SYCL 2020
/// `inclusive_scan_over_group(g, x, binary_op, init)`; here `init` comes
/// before the operator, as in every `_with_init` form).
///
/// Same order, floating-point caveat, SIMD use and panics as
/// [`inclusive_scan_over_group`].
#[inline(always)]
#[track_caller]
pub fn inclusive_scan_over_group_with_init<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    init: T,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "inclusive_scan_over_group_with_init";
    scan_over_group(what, group, values, results, init, op, inclusive);
}

/// Exclusive scan of the values that the items of `group` hold in
/// `values`, written to `results` (SYCL 2020
/// `exclusive_scan_over_group(g, x, binary_op)`; OpenCL C++
/// `work_group_scan_exclusive` / `sub_group_scan_exclusive`).
///
/// The item with local linear id 0 receives the operator's identity (0 for
/// [`Plus`](super::Plus), `T::MAX` or `+INF` for
/// [`Minimum`](super::Minimum), `T::MIN` or `−INF` for
/// [`Maximum`](super::Maximum); see [`GroupOperator`]), item `i > 0`
/// receives `x0 op … op x(i-1)`, in increasing local linear id. With
/// `plus()`, `[3 1 7 0 4 1 6 3]` gives `[0 3 4 11 11 15 16 22]`.
///
/// Same floating-point caveat and SIMD use as
/// [`inclusive_scan_over_group`].
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `values` or `results` does not hold the items of `group`.
#[inline(always)]
#[track_caller]
pub fn exclusive_scan_over_group<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "exclusive_scan_over_group";
    scan_over_group(what, group, values, results, op.identity(), op, exclusive);
}

/// [`exclusive_scan_over_group`] starting from `init`: item 0 receives
/// `init`, item `i > 0` receives `init op x0 op … op x(i-1)` (SYCL 2020
/// `exclusive_scan_over_group(g, x, init, binary_op)`).
///
/// Same order, floating-point caveat, SIMD use and panics as
/// [`exclusive_scan_over_group`].
#[inline(always)]
#[track_caller]
pub fn exclusive_scan_over_group_with_init<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    init: T,
    op: Op,
) where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    let what = "exclusive_scan_over_group_with_init";
    scan_over_group(what, group, values, results, init, op, exclusive);
}
