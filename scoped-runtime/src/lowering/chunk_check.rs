//! The loop behind the chunk-check shortcut: a `distribute_items!` whose
//! body reads shared slices at indices computed from the item's ids
//! (`a[i * n + k0 + col]`, the tile loads of GPU code), lowered with the
//! index checks of every chunk of `W` items made first, together (the
//! macros' `lower/chunk_check.rs`).
//!
//! Indexed item by item, each read checks its index, a check whose panic
//! keeps the item loop scalar. Here the group hands out its items in
//! chunks of `W` consecutive items along the fastest dimension; for each
//! chunk, `check` (the same comparisons `index < slice.len()`, generated
//! from the body's reads) is folded over the `W` items without a branch,
//! and the items then run the body one after the other. Where the fold
//! holds, the optimiser knows every comparison in the unrolled bodies to
//! be true, drops the checks and vectorises the chunk; otherwise the body
//! runs as written. `check` only steers the optimiser: the body runs the
//! same, in the same order, whatever it returns.

use std::sync::atomic::{compiler_fence, Ordering};

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::interchange::ItemChunk;
use crate::rules::{check_collective, ItemScope};

/// Runs `f` once for every logical item of `group`, in increasing linear
/// id, in chunks of `W` where they fill one, each chunk after folding
/// `check` over its items (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_chunk_checked<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    check: impl Fn(SItem<D>) -> bool,
    mut f: impl FnMut(SItem<D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_item_chunk::<W>(
        #[inline(always)]
        |chunk| run_checked_chunk(chunk, &check, &mut f),
    );
}

/// Runs `f` for the items of `chunk`, a full chunk after folding `check`
/// over its items.
#[inline(always)]
pub(crate) fn run_checked_chunk<const W: usize, const D: usize>(
    chunk: ItemChunk<W, D>,
    check: &impl Fn(SItem<D>) -> bool,
    f: &mut impl FnMut(SItem<D>),
) {
    match chunk {
        ItemChunk::Chunk(lanes) => {
            // `&`, not `&&`: no branch per item. Items made again
            // where used, not kept in an array: the optimiser then sees
            // each lane's ids as the chunk's first plus the lane.
            // A plain loop, not `Iterator::fold`: in a build with no
            // flags `fold` stayed out of line, at the baseline level,
            // with the body's arithmetic in it (libm `fmaf`).
            let mut fits = true;
            each_lane::<W>(
                #[inline(always)]
                |lane| fits &= check(lanes.item(lane)),
            );
            // The same loop twice on purpose: in the first copy the
            // optimiser knows the fold held.
            if fits {
                each_lane::<W>(
                    #[inline(always)]
                    |lane| f(lanes.item(lane)),
                );
            } else {
                for lane in 0..W {
                    f(lanes.item(lane));
                }
                // Ends this copy with something the other has not: else
                // the optimiser moves the last lane, the same in both, out
                // of them, and that lane out of the vector.
                compiler_fence(Ordering::SeqCst);
            }
        }
        ItemChunk::Item(item) => f(item),
    }
}

/// `f(0)`, `f(1)`, ..., `f(W - 1)`, written out for the chunk widths the
/// lowering uses: a loop over the lanes was at times unrolled only after
/// the optimiser's pass that packs lanes into vectors had run (a tile copy
/// stayed eight scalar loads and stores when a second loop of the kernel
/// read the same slice).
#[inline(always)]
pub(crate) fn each_lane<const W: usize>(mut f: impl FnMut(usize)) {
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

/// [`distribute_items_chunk_checked`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_chunk_checked_and_wait<
    const W: usize,
    G: ScopedGroup<D>,
    const D: usize,
>(
    group: &G,
    check: impl Fn(SItem<D>) -> bool,
    f: impl FnMut(SItem<D>),
) {
    distribute_items_chunk_checked::<W, G, D>(group, check, f);
    group_barrier(*group);
}

/// An index term of a checked read as a `usize`: the term's value, of
/// type `usize` or a reference to one.
#[inline(always)]
pub fn index_term<B: std::borrow::Borrow<usize>>(term: B) -> usize {
    *term.borrow()
}
