//! The loop behind the fusion shortcut: `distribute_groups!` around a lone
//! `distribute_items!` on the subgroup (the macros' `lower/fuse.rs`).

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};

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
