//! The loop behind the interchange shortcut: a `distribute_items!` whose
//! body is a loop with a trip count the same for every item, lowered with
//! the items innermost (the macros' `lower/interchange.rs`).
//!
//! The group hands out its items in chunks of `W` consecutive items along
//! the fastest dimension, as arrays; the generated chunk closure runs each
//! item's statements before the loop (one item after the other), then the
//! loop with the `W` items inside every iteration, then the statements
//! after it. Items that do not fill a chunk (the end of each row of the
//! group) run the plain body, one after the other. Each item still runs
//! its own statements in its own order.

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::group::DEFAULT_SUB_GROUP_SIZE;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};

/// Items per chunk: the default sub-group size, the `f32` lanes of the
/// widest vector unit the target is compiled for.
pub const INTERCHANGE_LANES: usize = DEFAULT_SUB_GROUP_SIZE;

/// What the item closure of an interchanged `distribute_items!` runs for:
/// `W` items consecutive along the fastest dimension, in increasing linear
/// id, or one item alone. One closure takes both, so that it captures its
/// environment once.
pub enum ItemChunk<const W: usize, const D: usize> {
    /// A full chunk.
    Chunk([SItem<D>; W]),
    /// An item outside every full chunk.
    Item(SItem<D>),
}

/// Runs `f` once for every logical item of `group`, in chunks of `W`
/// where they fill one (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(ItemChunk<W, D>),
) {
    check_collective("distribute_items!");
    let _scope = ItemScope::enter();
    group.__for_each_item_chunk(f);
}

/// [`distribute_items_interchanged`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged_and_wait<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(ItemChunk<W, D>),
) {
    distribute_items_interchanged(group, f);
    group_barrier(*group);
}
