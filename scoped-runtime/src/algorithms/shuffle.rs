//! Shifts and permutes of private values between the items of a group
//! (SYCL 2020 group functions `shift_group_left`, `shift_group_right`,
//! `permute_group_by_xor`, `select_from_group`), for every group kind.
//!
//! Ids are local linear ids (`select_from_group` also takes local ids,
//! [`Id<D>`]). SYCL leaves the value unspecified where the
//! source item is outside the group; here that item's result is left
//! unchanged, so a result wrapper filled beforehand keeps its fill value.
//!
//! Groups of 2, 4, …, 64 items copy their values as one array of constant
//! length, a vector shuffle for a constant mask or distance
//! (`shuffle_lanes.rs`); other sizes run a scalar loop. Both give the same
//! bits.

use std::fmt;

use crate::group::ScopedGroup;
use crate::id::{Id, Range};
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::shuffle_lanes;
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
#[inline(always)]
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
    check_collective(group.__nesting(), what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    shuffle_lanes::shift_left(src, dst, delta);
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
#[inline(always)]
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
    check_collective(group.__nesting(), what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    shuffle_lanes::shift_right(src, dst, delta);
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
#[inline(always)]
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
    check_collective(group.__nesting(), what);
    let src = group_values(what, &group, values);
    let dst = group_values_mut(what, &group, results);
    shuffle_lanes::xor(src, dst, mask);
}

/// The id of the item `select_from_group` reads from: a local linear id
/// (`usize`) or a local id ([`Id<D>`], row-major in the group's logical
/// range, SYCL's `id` form).
pub trait RemoteId<const D: usize>: Copy + fmt::Display + sealed::Sealed {
    /// The local linear id in a group of logical range `range`, if inside.
    #[doc(hidden)]
    fn __linear(self, range: Range<D>) -> Option<usize>;

    /// What the id is, for messages: `"local linear id"` or `"local id"`.
    #[doc(hidden)]
    const __KIND: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl<const D: usize> Sealed for crate::id::Id<D> {}
}

impl<const D: usize> RemoteId<D> for usize {
    const __KIND: &'static str = "local linear id";
    #[inline(always)]
    fn __linear(self, range: Range<D>) -> Option<usize> {
        (self < range.size()).then_some(self)
    }
}

impl<const D: usize> RemoteId<D> for Id<D> {
    const __KIND: &'static str = "local id";
    #[inline(always)]
    fn __linear(self, range: Range<D>) -> Option<usize> {
        range.contains(self).then(|| range.linearize(self))
    }
}

/// Item `i` receives the value of the item whose id it holds in
/// `remote_ids` (SYCL 2020 `select_from_group(g, x, remote_local_id)`):
/// `results[i] = values[remote_ids[i]]`. The ids are local linear ids
/// (`usize`) or local ids ([`Id<D>`], linearised row-major in the group's
/// logical range).
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If an item asks for an id outside the group (naming the item, the id
/// and the group's size or range), or if `values`, `remote_ids` or
/// `results` does not hold the items of `group`.
///
/// # Examples
/// Transposing a 4 × 4 work group: item `(r, c)` reads item `(c, r)`.
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn transpose(group: WorkGroup<2>, input: &[u32], mut out: ItemsWindow<'_, u32, 2>) {
///     memory_environment!(
///         group,
///         require_private_mem::<u32>(),
///         require_private_mem::<u32>(),
///         require_private_mem::<Id<2>>(Id::zero()),
///         |x, y, from| {
///             distribute_items!(group, |idx| {
///                 x[idx] = input[idx.global_linear_id()];
///                 let id = idx.innermost_local_id();
///                 from[idx] = Id::new([id[1], id[0]]);
///             });
///             select_from_group(group, x, y, from);
///             distribute_items!(group, |idx| out[idx] = y[idx]);
///         }
///     );
/// }
///
/// let input: Vec<u32> = (0..16).collect();
/// let mut out = vec![0; 16];
/// Queue::new()
///     .parallel_with(Range::new([1, 1]), Range::new([4, 4]), ItemsMut::new(&mut out), |g, w| {
///         transpose(g, &input, w)
///     })
///     .unwrap();
/// assert_eq!(&out[..8], &[0, 4, 8, 12, 1, 5, 9, 13]);
/// ```
#[inline(always)]
#[track_caller]
pub fn select_from_group<G, T, I, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    results: &mut PrivateMem<'_, T, D>,
    remote_ids: &PrivateMem<'_, I, D>,
) where
    G: ScopedGroup<D>,
    T: Copy,
    I: RemoteId<D>,
{
    let what = "select_from_group";
    check_collective(group.__nesting(), what);
    let range = group.logical_local_range();
    let src = group_values(what, &group, values);
    let ids = group_values(what, &group, remote_ids);
    let dst = group_values_mut(what, &group, results);
    shuffle_lanes::select(
        src,
        dst,
        ids,
        |id| id.__linear(range),
        |i, id| outside(i, id, range),
    );
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside<I: RemoteId<D>, const D: usize>(item: usize, id: I, range: Range<D>) -> ! {
    panic!(
        "select_from_group: item {item} selects {} {id}, but the group has {} items (range \
         {range})",
        I::__KIND,
        range.size()
    )
}
