//! The collectives behind `distribute_items!`, `distribute_groups!` and
//! `single_item!` (scoped parallelism v2, "New free functions").
//!
//! The macros lower to these functions; each is a loop nest inlined into
//! the kernel, the user's closure inlined into the loop body.

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};

/// Runs `f` once for every logical item of `group`, in increasing linear id
/// (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items<G: ScopedGroup<D>, const D: usize>(group: &G, f: impl FnMut(SItem<D>)) {
    check_collective("distribute_items!");
    let _scope = ItemScope::enter();
    group.__for_each_item(f);
}

/// [`distribute_items`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_and_wait<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(SItem<D>),
) {
    distribute_items(group, f);
    group_barrier(*group);
}

/// `distribute_items!` whose body does nothing for the items at or above
/// a bound (`if lid < bound { ... }`, `lid` an innermost local id): runs
/// `f` for the items below `bound` in increasing linear id, and possibly
/// for others, which `f` skips itself. `dimension` is the dimension of
/// `lid`, `None` for the linear id; `bound` is `None` when it is not a
/// `usize` (see [`ItemBound`]), and then `f` runs for every item.
#[inline(always)]
#[track_caller]
pub fn distribute_items_below<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: Option<usize>,
    bound: Option<usize>,
    f: impl FnMut(SItem<D>),
) {
    check_collective("distribute_items!");
    let _scope = ItemScope::enter();
    match bound {
        Some(bound) => group.__for_each_item_below(dimension, bound, f),
        None => group.__for_each_item(f),
    }
}

/// [`distribute_items_below`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_below_and_wait<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: Option<usize>,
    bound: Option<usize>,
    f: impl FnMut(SItem<D>),
) {
    distribute_items_below(group, dimension, bound, f);
    group_barrier(*group);
}

/// The bound of a guard `lid < bound`, read once before the item loop:
/// `(&ItemBound(&bound)).__limit()` is `Some(bound)` when `bound` is a
/// `usize` ([`UsizeBound`]) and `None` for any other type ([`OtherBound`],
/// reached only through one more auto-reference), so that the lowering
/// never turns a guard that compiles into one that does not.
pub struct ItemBound<'a, T: ?Sized>(pub &'a T);

/// [`ItemBound`] of a `usize`.
pub trait UsizeBound {
    /// The bound.
    fn __limit(&self) -> Option<usize>;
}

impl UsizeBound for ItemBound<'_, usize> {
    #[inline(always)]
    fn __limit(&self) -> Option<usize> {
        Some(*self.0)
    }
}

/// [`ItemBound`] of any other type.
pub trait OtherBound {
    /// No bound the loop can use.
    fn __limit(&self) -> Option<usize>;
}

impl<T: ?Sized> OtherBound for &ItemBound<'_, T> {
    #[inline(always)]
    fn __limit(&self) -> Option<usize> {
        None
    }
}

/// Runs `f` once for every subgroup of `group`, in increasing group linear
/// id (`distribute_groups`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_groups<G: ScopedGroup<D>, const D: usize>(group: &G, f: impl FnMut(G::Subgroup)) {
    check_collective("distribute_groups!");
    group.__for_each_group(f);
}

/// `distribute_groups!` whose closure is a lone `distribute_items!` on the
/// subgroup: runs `f` for every logical item of `group` with the subgroup
/// holding it, in the same order as the nested form, as one loop nest over
/// `group`'s items that the optimiser vectorises like a flat
/// `distribute_items!`.
#[inline(always)]
#[track_caller]
pub fn distribute_groups_items<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(G::Subgroup, SItem<D>),
) {
    check_collective("distribute_groups!");
    check_collective("distribute_items!");
    let _scope = ItemScope::enter();
    group.__for_each_group_item(f);
}

/// [`distribute_groups`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_groups_and_wait<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(G::Subgroup),
) {
    distribute_groups(group, f);
    group_barrier(*group);
}

/// Runs `f` exactly once for `group` (`single_item`), on its leader.
#[inline(always)]
#[track_caller]
pub fn single_item<G: ScopedGroup<D>, const D: usize, R>(_group: &G, f: impl FnOnce() -> R) -> R {
    check_collective("single_item!");
    let _scope = ItemScope::single_item();
    f()
}

/// [`single_item`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn single_item_and_wait<G: ScopedGroup<D>, const D: usize, R>(
    group: &G,
    f: impl FnOnce() -> R,
) -> R {
    let result = single_item(group, f);
    group_barrier(*group);
    result
}
