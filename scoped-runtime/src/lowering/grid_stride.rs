//! The loop behind the grid-stride shortcut (the macros'
//! `lower/grid_stride.rs`): a `distribute_items!` whose items each walk
//! `i = start, start + stride, … < n`, with `start` a linear id and `n`,
//! `stride` the same for every item, runs in rounds: round `t` runs
//! iteration `t` of every item, in increasing linear id, before round
//! `t + 1`. With `start` the global linear id, a round of a 1-D group reads
//! one contiguous run of memory, and the item loop of a round is the plain
//! item loop, vectorised where the body allows.
//!
//! Items are independent (rule 2), so they may interleave; each runs its
//! own statements in its own order. Every item's indices stay its own: the
//! rounds run only when the starts span less than one stride (so no two
//! items ever reach the same `i`) and `n + stride` fits in `usize` (so no
//! `i += stride` overflows); otherwise every item runs its plain body.

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::interchange::ItemChunk;
use crate::rules::{check_collective, ItemScope};

/// What the item closure of a grid-stride `distribute_items!` runs for.
/// One closure takes every step, so that it captures its environment once.
pub enum GridStep<'s, const D: usize, S> {
    /// The plain body of one item (the rounds are not taken).
    Item(SItem<D>),
    /// The statements before the loop, for one item: push what the loop
    /// and the statements after it use, once.
    Start(SItem<D>, &'s mut Vec<S>),
    /// One iteration of one item, at index `i`, with the item's values.
    Step(SItem<D>, &'s mut S, usize),
    /// The statements after the loop, for one item, with its values.
    End(SItem<D>, S),
}

/// Runs every item of `group` in rounds of the grid-stride loop described
/// above: `start(item)` is the item's first index, `limit(item)` and
/// `stride(item)` the `n` and `stride` of every item (each read at most
/// once, from the first item; the stride only if some item iterates).
#[inline(always)]
#[track_caller]
pub fn distribute_items_grid_stride<G: ScopedGroup<D>, const D: usize, S>(
    group: &G,
    start: impl Fn(SItem<D>) -> usize,
    limit: impl FnOnce(SItem<D>) -> usize,
    stride: impl FnOnce(SItem<D>) -> usize,
    address: impl Fn(usize) -> *const u8,
    mut f: impl FnMut(GridStep<'_, D, S>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    let (mut lo, mut hi, mut count) = (usize::MAX, 0, 0);
    let mut first = None;
    // Whether the starts are `lo, lo + 1, …` in visiting order.
    let mut consecutive = true;
    group.__for_each_item(
        #[inline(always)]
        |item| {
            let s = start(item);
            consecutive &= count == 0 || s == lo.wrapping_add(count);
            lo = lo.min(s);
            hi = hi.max(s);
            count += 1;
            first.get_or_insert(item);
        },
    );
    let Some(first) = first else { return };
    let n = limit(first);
    // No item iterates, or the rounds cannot be proven the plain loop's.
    let stride = if lo < n { stride(first) } else { 0 };
    if hi - lo >= stride || n.checked_add(stride).is_none() {
        group.__for_each_item(
            #[inline(always)]
            |item| f(GridStep::Item(item)),
        );
        return;
    }
    let mut states = Vec::with_capacity(count);
    group.__for_each_item(
        #[inline(always)]
        |item| f(GridStep::Start(item, &mut states)),
    );
    // The generated `Start` pushes once per item; anything else is a bug.
    assert_eq!(states.len(), count, "grid-stride values of {count} items");
    // Other groups' runs lie between this group's rounds: the hardware
    // prefetchers, which stop at page boundaries, miss the start of each.
    let gapped = hi - lo + 1 < stride && !address(lo).is_null();
    // `offset < n` at every round, and `n + stride` fits: no overflow.
    let mut offset = 0usize;
    while lo + offset < n {
        let full = hi + offset < n;
        let lanes = states.as_mut_ptr();
        let mut k = 0;
        // Item `k` of the round (in visiting order) takes its step.
        let mut step = |item: SItem<D>, k: usize| {
            // SAFETY: both loops below visit the `count` items the first
            // one counted, once each and in the same order (increasing
            // linear id, `GroupLoops`), so `k < count == states.len()`;
            // the reference ends with the step, and no other reference
            // to `states` is live in the round.
            let values = unsafe { &mut *lanes.add(k) };
            if full && consecutive {
                let i = lo + offset + k;
                // SAFETY: `k < count` (above) and the starts are `lo`,
                // …, `lo + count - 1 == hi`, so `i <= hi + offset < n`
                // (`full`). Told so, the optimiser drops the body's
                // bounds check of a slice of length `n` and walks it as
                // a plain loop would.
                unsafe { std::hint::assert_unchecked(i < n) };
                f(GridStep::Step(item, values, i));
                return;
            }
            let i = start(item) + offset;
            if full {
                // Every item is below `n`. `min` changes no index; it
                // shows the optimiser that each is, so that the body's
                // bounds check of a slice of length `n` goes, without a
                // branch (a histogram ran 1.3x slower with the check).
                f(GridStep::Step(item, values, i.min(n - 1)));
            } else if i < n {
                f(GridStep::Step(item, values, i));
            }
        };
        if gapped && full && consecutive {
            // The round in chunks, each asking for the memory its items
            // read `PREFETCH_ROUNDS` rounds later just before it runs:
            // spread out, the requests keep pace with the reads (all of a
            // round's at once measured several times slower than none).
            let ahead = offset.saturating_add(PREFETCH_ROUNDS.saturating_mul(stride));
            group.__for_each_item_chunk::<PREFETCH_CHUNK>(
                #[inline(always)]
                |chunk| match chunk {
                    ItemChunk::Chunk(items) => {
                        let first = lo + k;
                        prefetch_run(&address, first, first + (PREFETCH_CHUNK - 1), ahead, n);
                        for lane in 0..PREFETCH_CHUNK {
                            step(items.item(lane), k);
                            k += 1;
                        }
                    }
                    ItemChunk::Item(item) => {
                        step(item, k);
                        k += 1;
                    }
                },
            );
        } else {
            group.__for_each_item(
                #[inline(always)]
                |item| {
                    step(item, k);
                    k += 1;
                },
            );
        }
        offset += stride;
    }
    let mut states = states.into_iter();
    group.__for_each_item(
        #[inline(always)]
        |item| {
            f(GridStep::End(
                item,
                states.next().expect("one value per item"),
            ))
        },
    );
}

/// Rounds ahead whose memory a round asks the caches for.
const PREFETCH_ROUNDS: usize = 2;

/// Items of a round between two requests to the caches: 8 lines of
/// `u32`, 16 of `f64`, few enough that the requests do not crowd out the
/// round's own reads.
const PREFETCH_CHUNK: usize = 128;

/// Asks the caches for the memory that the items `lo..=hi` read `offset`
/// elements later through the slice whose element `i` is at `address(i)`
/// (not null), as far as it lies below `n`.
#[inline(always)]
fn prefetch_run(
    address: &impl Fn(usize) -> *const u8,
    lo: usize,
    hi: usize,
    offset: usize,
    n: usize,
) {
    let Some(first) = lo.checked_add(offset).filter(|&i| i < n) else {
        return;
    };
    let last = hi.saturating_add(offset).min(n - 1);
    let (mut line, end) = (address(first), address(last));
    while line <= end {
        super::prefetch::line(line);
        line = line.wrapping_add(64);
    }
}

/// The address of `slice[i]`, for the prefetches of the grid-stride rounds
/// (`i` may be past the end: the address is only a hint).
#[inline(always)]
pub fn element_address<T>(slice: &[T], i: usize) -> *const u8 {
    slice.as_ptr().wrapping_add(i).cast()
}
