//! The loop behind the edge shortcut: a `distribute_items!` whose body
//! ends in statements guarded by `if lid == value { ... }` (`lid` a local
//! id of the group in one dimension), the halo loads of GPU tiles (the
//! macros' `lower/edges.rs`).
//!
//! The statements before the guards run as a loop of their own over every
//! item; each guarded statement then runs over the items on its edge
//! alone, [`distribute_items_on_edge`], in chunks of `W` along the fastest
//! dimension where the edge has them, each chunk after the same
//! branch-free fold of its reads' bounds checks as the chunk-check
//! shortcut. Run item by item, the guards kept the whole item loop scalar,
//! with a branch per item and guard.

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::chunk_check::run_checked_chunk;
use crate::rules::{check_collective, ItemScope};

/// Runs `f` for the logical items of `group` whose local id in
/// `dimension` is `value`, in increasing linear id, and possibly for
/// others, which `f` skips itself: for every item when `value` is `None`
/// (a guard value that is not a `usize`, see `ItemBound`). Chunks of `W`
/// items run after folding `check` over them, as
/// `distribute_items_chunk_checked` does. Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_on_edge<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: usize,
    value: Option<usize>,
    check: impl Fn(SItem<D>) -> bool,
    mut f: impl FnMut(SItem<D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    match value {
        Some(value) => group.__for_each_item_chunk_on::<W>(
            dimension,
            value,
            #[inline(always)]
            |chunk| run_checked_chunk(chunk, &check, &mut f),
        ),
        None => group.__for_each_item_chunk::<W>(
            #[inline(always)]
            |chunk| run_checked_chunk(chunk, &check, &mut f),
        ),
    }
}

/// [`distribute_items_on_edge`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_on_edge_and_wait<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: usize,
    value: Option<usize>,
    check: impl Fn(SItem<D>) -> bool,
    f: impl FnMut(SItem<D>),
) {
    distribute_items_on_edge::<W, G, D>(group, dimension, value, check, f);
    group_barrier(*group);
}
