//! The loops behind the fusion shortcuts: `distribute_groups!` around a
//! lone `distribute_items!` on the subgroup, or around a `for` loop of
//! them (the macros' `lower/fuse.rs`).

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope, SubgroupScope};

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
    check_collective(group.__nesting(), "distribute_groups!");
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_group_item(f);
}

/// `distribute_groups!` whose closure is a lone `distribute_items!` on the
/// subgroup that works with the subgroup's lanes (it names the subgroup or
/// asks for an `innermost_*` id): runs `f` for every logical item with the
/// subgroup holding it, subgroup by subgroup as the nested form does, the
/// rule checks and the item scope entered once for the whole loop (per
/// subgroup, the scope's stores stayed in the loop between its loads).
#[inline(always)]
#[track_caller]
pub fn distribute_groups_lanes<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(G::Subgroup, SItem<D>),
) {
    check_collective(group.__nesting(), "distribute_groups!");
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_group_lanes(f);
}

/// `distribute_groups!` whose closure is `for j in iter { distribute_items!(
/// subgroup, |item| f(subgroup, j, item)) }`, `iter` the same for every
/// subgroup (`iter()` makes it again): every item meets every `j` once, in
/// increasing order, with its own subgroup; how the items of different
/// subgroups interleave is the group's choice (a work group takes blocks
/// of 16 items whatever its sub-group size, see
/// [`GroupLoops::__for_each_group_looped`](crate::lowering::GroupLoops)).
#[inline(always)]
#[track_caller]
pub fn distribute_groups_looped<G: ScopedGroup<D>, const D: usize, I>(
    group: &G,
    iter: impl Fn() -> I,
    f: impl FnMut(G::Subgroup, I::Item, SItem<D>),
) where
    I: IntoIterator,
    I::Item: Copy,
{
    let nesting = group.__nesting();
    check_collective(nesting, "distribute_groups!");
    let _scope = SubgroupScope::enter();
    group.__for_each_group_looped(
        iter,
        #[inline(always)]
        || {
            check_collective(nesting, "distribute_items!");
            ItemScope::enter(nesting)
        },
        f,
    );
}
