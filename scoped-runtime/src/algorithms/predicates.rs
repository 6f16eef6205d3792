//! `any_of_group`, `all_of_group`, `none_of_group` (SYCL 2020 group
//! algorithms, "any_of, all_of and none_of"; OpenCL C++ `work_group_any`,
//! `work_group_all`).

use crate::group::ScopedGroup;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::simd;
use super::values::group_values;

/// Whether any item of `group` holds `true` in `predicates` (SYCL 2020
/// `any_of_group(g, pred)`; OpenCL C++ `work_group_any` /
/// `sub_group_any`). `false` is the identity: an all-`false` group gives
/// `false`.
///
/// Reads the `bool`s 32 at a time on `wide` SIMD lanes and stops at the
/// first block that holds a `true`.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `predicates` does not hold the items of `group` (it must come from a
/// memory environment on `group` or on a group that contains it).
///
/// # Examples
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn has_negative(group: WorkGroup<1>, input: &[i32], mut out: ChunkWindow<'_, bool>) {
///     memory_environment!(group, require_private_mem::<bool>(), |negative| {
///         distribute_items!(group, |idx| negative[idx] = input[idx.global_linear_id()] < 0);
///         let any = any_of_group(group, negative);
///         single_item!(group, || out[group.group_linear_id()] = any);
///     });
/// }
///
/// let input = [1, 2, 3, 4, 5, -6, 7, 8];
/// let mut out = [false; 2];
/// Queue::new()
///     .parallel_with(2, 4, ChunksMut::new(&mut out, 1), |g, w| has_negative(g, &input, w))
///     .unwrap();
/// assert_eq!(out, [false, true]);
/// ```
#[inline(always)]
#[track_caller]
pub fn any_of_group<G, const D: usize>(group: G, predicates: &PrivateMem<'_, bool, D>) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "any_of_group");
    simd::any_true(group_values("any_of_group", &group, predicates))
}

/// Whether every item of `group` holds `true` in `predicates` (SYCL 2020
/// `all_of_group(g, pred)`; OpenCL C++ `work_group_all` / `sub_group_all`).
/// `true` is the identity. Same SIMD use and panics as [`any_of_group`]. A
/// collective: call it outside `distribute_items!`, on the innermost group.
#[inline(always)]
#[track_caller]
pub fn all_of_group<G, const D: usize>(group: G, predicates: &PrivateMem<'_, bool, D>) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "all_of_group");
    simd::all_true(group_values("all_of_group", &group, predicates))
}

/// Whether no item of `group` holds `true` in `predicates` (SYCL 2020
/// `none_of_group(g, pred)`): `!any_of_group(…)`. Same SIMD use and panics
/// as [`any_of_group`]. A collective: call it outside `distribute_items!`,
/// on the innermost group.
#[inline(always)]
#[track_caller]
pub fn none_of_group<G, const D: usize>(group: G, predicates: &PrivateMem<'_, bool, D>) -> bool
where
    G: ScopedGroup<D>,
{
    check_collective(group.__nesting(), "none_of_group");
    !simd::any_true(group_values("none_of_group", &group, predicates))
}

/// Whether `pred` holds for the value of any item of `group` in `values`
/// (SYCL 2020 `any_of_group(g, x, pred)`).
///
/// `pred` runs on the items in increasing local linear id, in blocks of 64
/// without branches inside a block (so that the compiler can vectorise a
/// simple predicate); it may run on items after the first match, and it
/// should be a pure function of its argument.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `values` does not hold the items of `group`.
#[inline(always)]
#[track_caller]
pub fn any_of_group_by<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    pred: impl Fn(&T) -> bool,
) -> bool
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "any_of_group_by");
    simd::any_by(group_values("any_of_group_by", &group, values), pred)
}

/// Whether `pred` holds for the values of all items of `group` in `values`
/// (SYCL 2020 `all_of_group(g, x, pred)`). Evaluation and panics as for
/// [`any_of_group_by`]. A collective: call it outside `distribute_items!`,
/// on the innermost group.
#[inline(always)]
#[track_caller]
pub fn all_of_group_by<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    pred: impl Fn(&T) -> bool,
) -> bool
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "all_of_group_by");
    !simd::any_by(group_values("all_of_group_by", &group, values), |x| {
        !pred(x)
    })
}

/// Whether `pred` holds for the value of no item of `group` in `values`
/// (SYCL 2020 `none_of_group(g, x, pred)`). Evaluation and panics as for
/// [`any_of_group_by`]. A collective: call it outside `distribute_items!`,
/// on the innermost group.
#[inline(always)]
#[track_caller]
pub fn none_of_group_by<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    pred: impl Fn(&T) -> bool,
) -> bool
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "none_of_group_by");
    !simd::any_by(group_values("none_of_group_by", &group, values), pred)
}
