//! Shifts and permutes of private values between the items of a group
//! (SYCL 2020 group functions `shift_group_left`, `shift_group_right`,
//! `permute_group_by_xor`, `select_from_group`), for every group kind.
//!
//! Ids are local linear ids. SYCL leaves the value unspecified where the
//! source item is outside the group; here that item's result is left
//! unchanged, so a result wrapper filled beforehand keeps its fill value.

use crate::group::ScopedGroup;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::values::{group_values, group_values_mut};

/// Item `i` receives the value of item `i + delta` (SYCL 2020
/// `shift_group_left(g, x, delta)`): `results[i] = values[i + delta]` for
/// every `i + delta` below the group size; the last `delta` items keep their
/// value in `results`.
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
/// fn differences(group: WorkGroup<1>, input: &[i32], mut out: ItemsWindow<'_, i32>) {
///     memory_environment!(
///         group,
///         require_private_mem::<i32>(),
///         require_private_mem::<i32>(0),
///         |x, next| {
///             distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
///             shift_group_left(group, x, next, 1);
///             distribute_items!(group, |idx| out[idx] = next[idx] - x[idx]);
///         }
///     );
/// }
///
/// let input = [1, 4, 9, 16, 25];
/// let mut out = [0; 5];
/// Queue::new()
///     .parallel_with(1, 5, ItemsMut::new(&mut out), |g, w| differences(g, &input, w))
///     .unwrap();
/// assert_eq!(out, [3, 5, 7, 9, -25]);
/// ```
#[inline]
#[track_caller]
pub fn shift_group_left<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    delta: usize,
) where
    G: ScopedGroup<D>,
    T: Copy,
{
    let what = "shift_group_left";
    check_collective(what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    if delta < src.len() {
        let n = src.len() - delta;
        dst[..n].copy_from_slice(&src[delta..]);
    }
}

/// Item `i` receives the value of item `i - delta` (SYCL 2020
/// `shift_group_right(g, x, delta)`): `results[i] = values[i - delta]` for
/// every `i >= delta`; the first `delta` items keep their value in
/// `results`.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// As [`shift_group_left`].
#[inline]
#[track_caller]
pub fn shift_group_right<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    delta: usize,
) where
    G: ScopedGroup<D>,
    T: Copy,
{
    let what = "shift_group_right";
    check_collective(what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    if delta < src.len() {
        let n = src.len() - delta;
        dst[delta..].copy_from_slice(&src[..n]);
    }
}

/// Item `i` receives the value of item `i ^ mask` (SYCL 2020
/// `permute_group_by_xor(g, x, mask)`), the butterfly exchange of
/// reductions and FFTs; an item whose partner `i ^ mask` is outside the
/// group (possible when the group size is not a power of two) keeps its
/// value in `results`.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// As [`shift_group_left`].
#[inline]
#[track_caller]
pub fn permute_group_by_xor<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    mask: usize,
) where
    G: ScopedGroup<D>,
    T: Copy,
{
    let what = "permute_group_by_xor";
    check_collective(what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    for (i, d) in dst.iter_mut().enumerate() {
        if let Some(&value) = src.get(i ^ mask) {
            *d = value;
        }
    }
}

/// Item `i` receives the value of the item whose local linear id it holds
/// in `remote_ids` (SYCL 2020 `select_from_group(g, x, remote_local_id)`,
/// with linear ids): `results[i] = values[remote_ids[i]]`.
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If an item asks for an id that is not below the group size (naming the
/// item, the id and the size), or if `values`, `remote_ids` or `results`
/// does not hold the items of `group`.
#[inline]
#[track_caller]
pub fn select_from_group<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    remote_ids: &PrivateMem<'_, usize, D>,
) where
    G: ScopedGroup<D>,
    T: Copy,
{
    let what = "select_from_group";
    check_collective(what);
    let src = group_values(what, &group, values);
    let ids = group_values(what, &group, remote_ids);
    let dst = group_values_mut(what, &group, results);
    for (i, (d, &id)) in dst.iter_mut().zip(ids).enumerate() {
        match src.get(id) {
            Some(&value) => *d = value,
            None => panic!(
                "select_from_group: item {i} selects local linear id {id}, but the group has {} \
                 items",
                src.len()
            ),
        }
    }
}
