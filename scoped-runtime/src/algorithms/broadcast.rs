//! `group_broadcast` in its three forms (SYCL 2020 group functions,
//! "group_broadcast"; OpenCL C++ `work_group_broadcast`).

use crate::group::ScopedGroup;
use crate::id::Id;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::values::group_values;

/// The value that the group's leader (the item with local linear id 0)
/// holds in `values` (SYCL 2020 `group_broadcast(g, x)`, form 1).
///
/// Every item of the group would receive this one value; outside
/// `distribute_items!` it is returned once, to the group.
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
/// fn first_of_each_group(group: WorkGroup<1>, input: &[u32], mut out: ChunkWindow<'_, u32>) {
///     memory_environment!(group, require_private_mem::<u32>(), |mine| {
///         distribute_items!(group, |idx| mine[idx] = input[idx.global_linear_id()]);
///         let first = group_broadcast(group, mine);
///         single_item!(group, || out[group.group_linear_id()] = first);
///     });
/// }
///
/// let input: Vec<u32> = (100..132).collect();
/// let mut out = vec![0; 4];
/// Queue::new()
///     .parallel_with(4, 8, ChunksMut::new(&mut out, 1), |g, w| first_of_each_group(g, &input, w))
///     .unwrap();
/// assert_eq!(out, [100, 108, 116, 124]);
/// ```
#[inline(always)]
#[track_caller]
pub fn group_broadcast<G, T, const D: usize>(group: G, values: &PrivateMem<'_, T, D>) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "group_broadcast");
    group_values("group_broadcast", &group, values)[0]
}

/// The value that the item with local linear id `local_linear_id` holds in
/// `values` (SYCL 2020 `group_broadcast(g, x, local_linear_id)`, form 2;
/// OpenCL `sub_group_broadcast`).
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `local_linear_id` is not below the group's number of items (naming
/// both), or if `values` does not hold the items of `group`.
#[inline(always)]
#[track_caller]
pub fn group_broadcast_linear<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    local_linear_id: usize,
) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "group_broadcast_linear");
    let values = group_values("group_broadcast_linear", &group, values);
    match values.get(local_linear_id) {
        Some(&value) => value,
        None => panic!(
            "group_broadcast_linear: local linear id {local_linear_id} is outside the group, \
             which has {} items",
            values.len()
        ),
    }
}

/// The value that the item with local id `local_id` holds in `values`
/// (SYCL 2020 `group_broadcast(g, x, local_id)`, form 3; OpenCL
/// `work_group_broadcast` with one, two or three ids).
///
/// `local_id` is an [`Id<D>`] or anything that converts into one: a
/// `usize` in 1-D, a `(usize, usize)` or `(usize, usize, usize)` tuple.
/// Ids are row-major as everywhere in SYCL: dimension `D - 1` varies
/// fastest (OpenCL's `x` is the last component).
///
/// A collective: call it outside `distribute_items!`, on the innermost
/// group.
///
/// # Panics
/// If `local_id` is outside the group's logical range (naming both), or if
/// `values` does not hold the items of `group`.
#[inline(always)]
#[track_caller]
pub fn group_broadcast_id<G, T, const D: usize>(
    group: G,
    values: &PrivateMem<'_, T, D>,
    local_id: impl Into<Id<D>>,
) -> T
where
    G: ScopedGroup<D>,
    T: Copy,
{
    check_collective(group.__nesting(), "group_broadcast_id");
    let local_id = local_id.into();
    let range = group.logical_local_range();
    if !range.contains(local_id) {
        panic!("group_broadcast_id: local id {local_id} is outside the group's range {range}");
    }
    group_values("group_broadcast_id", &group, values)[range.linearize(local_id)]
}
