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
//!
//! Before that, `windows` may take the chunk: where every read's index
//! is the first lane's plus the lane (the rows of a tile load), it returns
//! the `W` elements each read covers as arrays ([`window`]), and the body
//! runs once per lane reading lane `l` of each array instead of indexing
//! the slice: the same elements, without a check per item, in a loop the
//! optimiser turns into vector copies. Windows of `Copy` elements are read
//! into arrays before the first lane runs ([`StageByValue`]), so that no
//! lane's store can come between the loads: read in place, the loads were
//! only packed once the optimiser proved a tile in local memory apart from
//! the slice, which it gave up on in kernels with many tile accesses.
//! Other elements (which may have interior mutability) are read in place.
//! Any other chunk (a stride, an index out of range) takes the checked
//! path above.

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::edges::for_each_edge_chunk;
use crate::lowering::interchange::{ItemChunk, ItemLanes};
use crate::rules::{check_collective, ItemScope};

/// Items per chunk: a row of the 16×16 tiles of GPU code is one chunk,
/// whose first item is the row's (with chunks of 8 the optimiser split a
/// row's window copies into pieces of 1, 4, 2 and 1 lanes: GPU-form matmul
/// 2.3× its peer, 1.2× with 16, AMD EPYC, AVX-512). Rows shorter than 16
/// items, and the items after a row's last full chunk, run one by one.
pub const CHUNK_CHECK_LANES: usize = 16;

/// Which run of a chunk's reads its prefetch asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ahead {
    /// The same chunk's in the next work group, which the thread most
    /// likely runs next: for a collective that runs once per group.
    NextGroup,
    /// The next step's of the loop around the collective: the prefetch
    /// is handed the chunk itself and computes that step's indices.
    NextStep,
}

/// Runs `f` once for every logical item of `group`, in increasing linear
/// id, in chunks of `W` where they fill one (`distribute_items`). Each
/// chunk first hands `prefetch` the lanes whose reads to fetch, as `ahead`
/// says. A chunk
/// for which `windows` returns `Some(w)` runs `f(item, Some((lane, &w)))`
/// for each lane; any other runs `f(item, None)` after folding `check`
/// over its items. Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_chunk_checked<
    const W: usize,
    G: ScopedGroup<D>,
    const D: usize,
    Windows,
>(
    group: &G,
    check: impl Fn(SItem<D>) -> bool,
    windows: impl Fn(&ItemLanes<W, D>) -> Option<Windows>,
    (ahead, prefetch): (Ahead, impl Fn(&ItemLanes<W, D>)),
    mut f: impl FnMut(SItem<D>, Option<(usize, &Windows)>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_item_chunk::<W>(
        #[inline(always)]
        |chunk| run_chunk(chunk, &check, &windows, (ahead, &prefetch), &mut f),
    );
}

/// Runs `f` for every logical item of `group` whose local id in
/// `dimension` is `value` (for every item when `value` is `None`), as
/// [`distribute_items_chunk_checked`] runs all of them: the statements on
/// a group's edge (the macros' `lower/edges.rs`) whose reads are checked a
/// chunk at a time, the halo rows of a tile. Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_on_edge_chunk_checked<
    const W: usize,
    G: ScopedGroup<D>,
    const D: usize,
    Windows,
>(
    group: &G,
    dimension: usize,
    value: Option<usize>,
    check: impl Fn(SItem<D>) -> bool,
    windows: impl Fn(&ItemLanes<W, D>) -> Option<Windows>,
    (ahead, prefetch): (Ahead, impl Fn(&ItemLanes<W, D>)),
    mut f: impl FnMut(SItem<D>, Option<(usize, &Windows)>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    for_each_edge_chunk::<W, G, D>(
        group,
        dimension,
        value,
        #[inline(always)]
        |chunk| run_chunk(chunk, &check, &windows, (ahead, &prefetch), &mut f),
    );
}

/// The items of one chunk: windowed, else after the fold of `check`.
/// First `prefetch` asks for the windows of the same chunk in the next
/// work group, or in the loop's next step: a group's reads are many short
/// rows (a GPU tile's), which the hardware prefetchers, stopping at each
/// 4 KiB page and tracking few streams, leave to be fetched on demand.
#[inline(always)]
fn run_chunk<const W: usize, const D: usize, Windows>(
    chunk: ItemChunk<W, D>,
    check: &impl Fn(SItem<D>) -> bool,
    windows: &impl Fn(&ItemLanes<W, D>) -> Option<Windows>,
    (ahead, prefetch): (Ahead, &impl Fn(&ItemLanes<W, D>)),
    f: &mut impl FnMut(SItem<D>, Option<(usize, &Windows)>),
) {
    match chunk {
        ItemChunk::Chunk(lanes) => {
            match ahead {
                Ahead::NextGroup => {
                    if let Some(next) = lanes.in_next_group() {
                        prefetch(&next);
                    }
                }
                Ahead::NextStep => prefetch(&lanes),
            }
            if let Some(windows) = windows(&lanes) {
                // A loop, not lanes written out: written out, lane 0's
                // address took another form than the others', and the
                // optimiser packed a row of 16 as 1, 4, 4, 4, 2 and 1
                // lanes (SSE2) or sank the last lane out of the copy
                // (AVX-512: 8, 4, 2, 1 and 1).
                for lane in 0..W {
                    f(lanes.item(lane), Some((lane, &windows)));
                }
                return;
            }
            // `&`, not `&&`: no branch per item. Items made again
            // where used, not kept in an array: the optimiser then sees
            // each lane's ids as the chunk's first plus the lane.
            // A plain loop, not `Iterator::fold`: in a build with no
            // flags `fold` stayed out of line, at the baseline level,
            // with the body's arithmetic in it (libm `fmaf`).
            let mut fits = true;
            for lane in 0..W {
                fits &= check(lanes.item(lane));
            }
            // The same loop twice on purpose: in the first copy the
            // optimiser knows the fold held.
            #[allow(clippy::if_same_then_else)]
            if fits {
                for lane in 0..W {
                    f(lanes.item(lane), None);
                }
            } else {
                for lane in 0..W {
                    f(lanes.item(lane), None);
                }
            }
        }
        ItemChunk::Item(item) => f(item, None),
    }
}

/// An index term of a checked read as a `usize`: the term's value, of
/// type `usize` or a reference to one.
#[inline(always)]
pub fn index_term<B: std::borrow::Borrow<usize>>(term: B) -> usize {
    *term.borrow()
}

/// The `W` elements of `slice` from `start` on, if they are all in it:
/// the window a chunk's read covers when its index is `start` plus the
/// lane.
#[inline(always)]
pub fn window<const W: usize, T>(slice: &[T], start: usize) -> Option<Staged<'_, T, W>> {
    slice.get(start..)?.first_chunk::<W>().map(Staged)
}

/// Asks the CPU to fetch the `W` elements of `slice` from `start` on into
/// its caches, if they are all in `slice`; reads nothing.
#[inline(always)]
pub fn prefetch_window<const W: usize, T>(slice: &[T], start: usize) {
    let Some(window) = window::<W, T>(slice, start) else {
        return;
    };
    super::prefetch::elements(window.0.as_ptr(), W);
}

/// A chunk's window, before [`StageByValue::stage`] or
/// [`StageByRef::stage`] hands it to the lanes: `(&window).stage()` picks
/// the first for `Copy` elements (which have no interior mutability) and
/// the second for any other.
pub struct Staged<'a, T, const W: usize>(pub &'a [T; W]);

/// Windows of `Copy` elements reach the lanes as arrays, read before the
/// first lane runs. Read through a reference between the lanes' stores,
/// the loads could only be packed into vectors once the optimiser proved
/// the stores (to a tile in local memory) apart from the slice, which it
/// gave up on in kernels with many accesses to their tile (GPU-form
/// Jacobi's copy stayed 16 scalar loads and stores per chunk).
pub trait StageByValue<T, const W: usize> {
    /// The window's elements.
    fn stage(&self) -> [T; W];
}

impl<T: Copy, const W: usize> StageByValue<T, W> for Staged<'_, T, W> {
    #[inline(always)]
    fn stage(&self) -> [T; W] {
        *self.0
    }
}

/// Windows of other elements reach the lanes as references.
pub trait StageByRef<'a, T, const W: usize> {
    /// The window itself.
    fn stage(&self) -> &'a [T; W];
}

impl<'a, T, const W: usize> StageByRef<'a, T, W> for &Staged<'a, T, W> {
    #[inline(always)]
    fn stage(&self) -> &'a [T; W] {
        self.0
    }
}

/// The first lane's indices, if `index(lane)` is `index(0) + lane` for
/// every lane of a chunk of `W` and every read, in wrapping arithmetic:
/// each read of the chunk then covers one window. Folded without a
/// branch, so that it costs a few vector instructions where the optimiser
/// cannot prove it outright.
#[inline(always)]
pub fn consecutive<const W: usize, const R: usize>(
    index: impl Fn(usize) -> [usize; R],
) -> Option<[usize; R]> {
    let first = index(0);
    let mut off = 0;
    for lane in 1..W {
        let at = index(lane);
        for r in 0..R {
            off |= at[r] ^ first[r].wrapping_add(lane);
        }
    }
    (off == 0).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_indices_give_the_first_lanes() {
        assert_eq!(consecutive::<8, 2>(|l| [10 + l, 3 + l]), Some([10, 3]));
        // Wrapping past the end of `usize` is still consecutive.
        assert_eq!(
            consecutive::<4, 1>(|l| [usize::MAX.wrapping_add(l)]),
            Some([usize::MAX])
        );
        // One read with a stride, or the same index in every lane.
        assert_eq!(consecutive::<8, 2>(|l| [l, 2 * l]), None);
        assert_eq!(consecutive::<8, 1>(|_| [5]), None);
        // One lane off.
        assert_eq!(consecutive::<8, 1>(|l| [l + usize::from(l == 7)]), None);
    }

    #[test]
    fn prefetches_read_nothing_and_stop_at_the_slice_end() {
        let v: Vec<u32> = (0..40).collect();
        for start in [0, 1, 23, 24, 25, 39, 40, usize::MAX] {
            prefetch_window::<16, _>(&v, start);
        }
        prefetch_window::<4, ()>(&[(); 8], 2);
        prefetch_window::<16, u8>(&[], 0);
        assert_eq!(v, (0..40).collect::<Vec<u32>>());
    }

    #[test]
    fn windows_lie_inside_the_slice() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(window::<4, _>(&v, 6).map(|w| w.0), Some(&[6, 7, 8, 9]));
        assert!(window::<4, _>(&v, 7).is_none());
        assert!(window::<4, _>(&v, usize::MAX).is_none());
    }
}
