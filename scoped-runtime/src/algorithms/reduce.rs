//! `reduce_over_group` (SYCL 2020 group algorithms, "reduce"; OpenCL C++
//! `work_group_reduce`).

use crate::group::ScopedGroup;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::operators::GroupOperator;
use super::values::group_values;

/// Combines the values that all items of `group` hold in `values` with
/// `op` (SYCL 2020 `reduce_over_group(g, x, binary_op)`; OpenCL C++
/// `work_group_reduce` / `sub_group_reduce`).
///
/// The result is `identity op x0 op x1 op … op x(n-1)`, `xi` being the value
/// of the item with local linear id `i` and `identity` the operator's (see
/// [`GroupOperator`]: 0 for [`Plus`](super::Plus), `T::MAX` or `+INF` for
/// [`Minimum`](super::Minimum), …), which leaves the result unchanged.
///
/// Built-in operators on `f32`, `f64` and the integer types run on SIMD
/// lanes, within a work group or a sub-group: floats in `wide` vectors,
/// integers in a loop the compiler vectorises at the kernel's ISA level.
///
/// **Floating point.** As OpenCL says for `work_group_reduce`, the order in
/// which float values are combined is not guaranteed: the SIMD path adds
/// in lanes, so a float sum may differ from a serial loop by rounding
/// (at most about `n · ε · Σ|xi|`). The order is fixed for a given group
/// size, so results are reproducible. Integers are exact.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `values` does not hold the items of `group` (it must come from a
/// memory environment on `group` or on a group that contains it).
///
/// # Examples
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn group_sums(group: WorkGroup<1>, input: &[i64], mut sums: ChunkWindow<'_, i64>) {
///     memory_environment!(group, require_private_mem::<i64>(), |x| {
///         distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
///         let sum = reduce_over_group(group, x, plus());
///         single_item!(group, || sums[group.group_linear_id()] = sum);
///     });
/// }
///
/// let input: Vec<i64> = (0..300).collect();
/// let mut sums = vec![0; 3];
/// Queue::new()
///     .parallel_with(3, 100, ChunksMut::new(&mut sums, 1), |g, w| group_sums(g, &input, w))
///     .unwrap();
/// assert_eq!(sums, [4950, 14950, 24950]);
/// ```
#[inline(always)]
#[track_caller]
pub fn reduce_over_group<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    op: Op,
) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    check_collective(group.__nesting(), "reduce_over_group");
    let values = group_values("reduce_over_group", &group, values);
    op.__fold(op.identity(), values)
}

/// [`reduce_over_group`] starting from `init` instead of the identity
/// (SYCL 2020 `reduce_over_group(g, x, init, binary_op)`): the result is
/// `init op x0 op … op x(n-1)`.
///
/// Same order, floating-point caveat, SIMD use and panics as
/// [`reduce_over_group`].
#[inline(always)]
#[track_caller]
pub fn reduce_over_group_with_init<G, T, Op, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    init: T,
    op: Op,
) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
    Op: GroupOperator<T>,
{
    check_collective(group.__nesting(), "reduce_over_group_with_init");
    let values = group_values("reduce_over_group_with_init", &group, values);
    op.__fold(init, values)
}
