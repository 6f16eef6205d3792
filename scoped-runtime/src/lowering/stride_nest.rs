//! What the stride-nest shortcut (the macros' `lower/stride_nest.rs`)
//! calls: a `distribute_items!` whose items each walk a tile with a nest of
//! group-stride loops, one per dimension from the item's local id, runs as
//! rounds of item loops, round `(o0, o1, …)` running every item's point
//! `(id0 + o0, id1 + o1, …)` if it has one. Items are independent (rule
//! 2), and each runs its own points in its own order.

use crate::group::ScopedGroup;

/// Whether the rounds run each item's points, and only those: for every
/// level `k` of the nest, a positive stride, the group no wider than the
/// stride in the level's dimension `dims[k]` (so no two items reach the
/// same point, and the round offsets `0, stride, …` below the limit are
/// every item's steps), and `limits[k] + strides[k]` in `usize` (so no
/// index overflows). Otherwise the macro's plain loop runs.
#[inline(always)]
pub fn group_stride_rounds<G: ScopedGroup<D>, const D: usize, const K: usize>(
    group: &G,
    dims: [usize; K],
    limits: [usize; K],
    strides: [usize; K],
) -> bool {
    (0..K).all(|k| {
        dims[k] < D
            && strides[k] > 0
            && group.logical_local_range_dim(dims[k]) <= strides[k]
            && limits[k].checked_add(strides[k]).is_some()
    })
}

/// Whether every item of `group` has its point in the round at `offsets`:
/// `offsets[k]` plus the group's extent in `dims[k]` within `limits[k]`.
#[inline(always)]
pub fn group_stride_round_full<G: ScopedGroup<D>, const D: usize, const K: usize>(
    group: &G,
    dims: [usize; K],
    offsets: [usize; K],
    limits: [usize; K],
) -> bool {
    (0..K).all(|k| offsets[k] + group.logical_local_range_dim(dims[k]) <= limits[k])
}
