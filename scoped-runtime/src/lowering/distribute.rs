//! The collectives behind `distribute_items!`, `distribute_groups!` and
//! `single_item!` (scoped parallelism v2, "New free functions").
//!
//! The macros lower to these functions; each is a loop nest inlined into
//! the kernel, the user's closure inlined into the loop body.

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope, SubgroupScope};

/// Runs `f` once for every logical item of `group`, in increasing linear id
/// (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items<G: ScopedGroup<D>, const D: usize>(group: &G, f: impl FnMut(SItem<D>)) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_item(f);
}

/// The barrier of the `_and_wait` forms, after whichever loop the macro
/// lowered the collective to: `group_barrier(*group)`.
#[inline(always)]
#[track_caller]
pub fn and_wait<G: ScopedGroup<D>, const D: usize>(group: &G) {
    group_barrier(*group);
}

/// Runs `f` once for every subgroup of `group`, in increasing group linear
/// id (`distribute_groups`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_groups<G: ScopedGroup<D>, const D: usize>(group: &G, f: impl FnMut(G::Subgroup)) {
    check_collective(group.__nesting(), "distribute_groups!");
    let _scope = SubgroupScope::enter();
    group.__for_each_group(f);
}

/// Runs `f` exactly once for `group` (`single_item`), on its leader.
#[inline(always)]
#[track_caller]
pub fn single_item<G: ScopedGroup<D>, const D: usize, R>(group: &G, f: impl FnOnce() -> R) -> R {
    check_collective(group.__nesting(), "single_item!");
    let _scope = ItemScope::single_item(group.__nesting());
    f()
}
