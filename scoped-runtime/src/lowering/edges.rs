//! The loop behind the edge shortcut: a `distribute_items!` whose body
//! ends in statements guarded by `if lid == value { ... }` (`lid` a local
//! id of the group in one dimension), the halo loads of GPU tiles (the
//! macros' `lower/edges.rs`).
//!
//! The statements before the guards run as a loop of their own over every
//! item; each guarded statement then runs over the items on its edge
//! alone, [`distribute_items_on_edge`], in chunks of `W` along the fastest
//! dimension where the edge has them. Run item by item, the guards kept
//! the whole item loop scalar, with a branch per item and guard.

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::interchange::ItemChunk;
use crate::rules::{check_collective, ItemScope};

/// Runs `f` for the logical items of `group` whose local id in
/// `dimension` is `value`, in increasing linear id, and possibly for
/// others, which `f` skips itself: for every item when `value` is `None`
/// (a guard value that is not a `usize`, see `ItemBound`). Along the
/// fastest dimension the items come in chunks of `W`, whose calls are
/// written out one after the other. Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_on_edge<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: usize,
    value: Option<usize>,
    mut f: impl FnMut(SItem<D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    for_each_edge_chunk::<W, G, D>(
        group,
        dimension,
        value,
        #[inline(always)]
        |chunk| run_chunk(chunk, &mut f),
    );
}

/// The chunks of `W` items of `group` whose local id in `dimension` is
/// `value`, or every chunk when `value` is `None`.
#[inline(always)]
pub(crate) fn for_each_edge_chunk<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: usize,
    value: Option<usize>,
    f: impl FnMut(ItemChunk<W, D>),
) {
    match value {
        Some(value) => group.__for_each_item_chunk_on::<W>(dimension, value, f),
        None => group.__for_each_item_chunk::<W>(f),
    }
}

/// `f` for the items of `chunk`, a full chunk's lanes written out.
#[inline(always)]
fn run_chunk<const W: usize, const D: usize>(chunk: ItemChunk<W, D>, f: &mut impl FnMut(SItem<D>)) {
    match chunk {
        ItemChunk::Chunk(lanes) => each_lane::<W>(
            #[inline(always)]
            |lane| f(lanes.item(lane)),
        ),
        ItemChunk::Item(item) => f(item),
    }
}

/// `f(0)`, `f(1)`, ..., `f(W - 1)`, written out for the usual chunk
/// widths, so that the optimiser sees the lanes side by side before it
/// packs them into vectors.
#[inline(always)]
fn each_lane<const W: usize>(mut f: impl FnMut(usize)) {
    macro_rules! lanes {
        ($($lane:literal)*) => {{ $(f($lane);)* }};
    }
    match W {
        4 => lanes!(0 1 2 3),
        8 => lanes!(0 1 2 3 4 5 6 7),
        16 => lanes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15),
        _ => {
            for lane in 0..W {
                f(lane);
            }
        }
    }
}
