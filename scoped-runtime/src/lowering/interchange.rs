//! The loop behind the interchange shortcut: a `distribute_items!` whose
//! body is a loop with a trip count the same for every item, lowered with
//! the items innermost (the macros' `lower/interchange/`).
//!
//! The group hands out its items in chunks of `W` consecutive items along
//! the fastest dimension, as arrays; the generated chunk closure runs each
//! item's statements before the loop (one item after the other), then the
//! loop with the `W` items inside every iteration, then the statements
//! after it. Items that do not fill a chunk (the end of each row of the
//! group) run the plain body, one after the other. Each item still runs
//! its own statements in its own order.

use std::mem::{ManuallyDrop, MaybeUninit};

use crate::group::ScopedGroup;
use crate::group::DEFAULT_SUB_GROUP_SIZE;
use crate::id::Range;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};
use crate::tag::GroupTag;

/// Items per chunk: the default sub-group size, the `f32` lanes of a
/// 256-bit vector.
pub const INTERCHANGE_LANES: usize = DEFAULT_SUB_GROUP_SIZE;

/// What the item closure of an interchanged `distribute_items!` runs for:
/// `W` items consecutive along the fastest dimension, or one item alone.
/// One closure takes both, so that it captures its environment once.
pub enum ItemChunk<const W: usize, const D: usize> {
    /// A full chunk.
    Chunk(ItemLanes<W, D>),
    /// An item outside every full chunk.
    Item(SItem<D>),
}

/// `W` items consecutive along the fastest dimension, all inside their
/// groups: lane `l` is the item `l` places after the first. Made only by
/// the group loops, which hand out full chunks alone.
#[derive(Clone, Copy)]
pub struct ItemLanes<const W: usize, const D: usize> {
    first: SItem<D>,
    /// Logical range of the work group the items belong to.
    work_group_range: Range<D>,
}

impl<const W: usize, const D: usize> ItemLanes<W, D> {
    /// The chunk starting at `first`; `first` and the `W - 1` items after
    /// it along the fastest dimension must lie in `first`'s innermost
    /// group and in its work group, of range `work_group_range`.
    #[inline(always)]
    pub(crate) fn new(first: SItem<D>, work_group_range: Range<D>) -> Self {
        debug_assert!(first.work_group_local_id()[D - 1] + W <= work_group_range[D - 1]);
        Self {
            first,
            work_group_range,
        }
    }

    /// The item in lane `lane`, computed from the lane so that the
    /// optimiser sees consecutive lanes at consecutive ids.
    ///
    /// # Panics
    /// If `lane >= W`.
    #[inline(always)]
    pub fn item(&self, lane: usize) -> SItem<D> {
        assert!(lane < W, "lane {lane} of a chunk of {W} items");
        let item = self.first.along_last(lane);
        let id = item.work_group_local_id();
        for d in 0..D {
            // SAFETY: `new`'s callers keep all `W` items inside the work
            // group and `lane < W`, so every id is below the range. Knowing
            // it, the optimiser drops the checks of windows and private
            // memory in the lanes, which can then share SIMD instructions.
            unsafe { std::hint::assert_unchecked(id[d] < self.work_group_range[d]) };
        }
        item
    }

    /// Tells the optimiser, before the loops over the lanes, that all
    /// `W` items lie inside the work group: the first item's id is below
    /// the range, and its id along the fastest dimension at most the
    /// range less `W`. [`Self::item`] says it lane by lane, inside the
    /// lane loop; said once before it, the loop's analysis bounds every
    /// lane's id (the first plus the lane), so that reads of a tile at
    /// the id plus a loop's offset need no check per lane and the lane
    /// loop vectorises.
    #[inline(always)]
    pub fn assume_inside(&self) {
        let id = self.first.work_group_local_id();
        for d in 0..D {
            // SAFETY: as in `item`: `new`'s callers keep the first item
            // inside the work group.
            unsafe { std::hint::assert_unchecked(id[d] < self.work_group_range[d]) };
        }
        let last = self.work_group_range[D - 1];
        // SAFETY: `new`'s callers keep all `W` items along the fastest
        // dimension inside the work group: `first + W <= range`.
        unsafe {
            std::hint::assert_unchecked(W <= last);
            std::hint::assert_unchecked(id[D - 1] <= last - W);
        }
    }

    /// The same lanes in the next work group along the fastest dimension
    /// (the next one a thread runs, but at the end of a row of groups),
    /// if the launch has it: for reads fetched one group ahead.
    #[inline(always)]
    pub(crate) fn in_next_group(&self) -> Option<Self> {
        Some(Self {
            first: self.first.ahead_along_last(self.work_group_range[D - 1])?,
            ..*self
        })
    }

    /// The lanes with their first item's tag `tag`, the one it has.
    #[inline(always)]
    fn with_tag(self, tag: GroupTag) -> Self {
        Self {
            first: self.first.with_tag(tag),
            ..self
        }
    }

    /// The `W` items, in lane order.
    #[inline(always)]
    pub fn items(&self) -> [SItem<D>; W] {
        lane_array(|lane| self.item(lane))
    }
}

/// Items per step of a loop carrying at most one value per item: two
/// chunks of [`INTERCHANGE_LANES`] side by side. Such a loop's lanes are
/// one chain of dependent adds per vector, each waiting for the last
/// (4 cycles on AMD Zen 4), and the hand-written form keeps two vectors
/// in flight: layer norm's row sums ran at half its peer's speed with 8
/// lanes a step.
pub const INTERCHANGE_WIDE_LANES: usize = 2 * INTERCHANGE_LANES;

/// What the item closure of an interchanged `distribute_items!` with wide
/// steps runs for: two runs of `V` items consecutive along the fastest
/// dimension, one such run, `W` such items, or one item alone.
pub enum WideItemChunk<const W: usize, const V: usize, const D: usize> {
    /// Two wide steps run together: each iteration of the loop runs the
    /// lanes of one, then of the other, so that four chains of adds are in
    /// flight and each value the lanes share (a filter's weight) is loaded
    /// once for both.
    Pair(ItemLanePair<V, D>),
    /// Two chunks of `W`, side by side.
    Wide(ItemLanes<V, D>),
    /// A chunk of `W` with no neighbour to pair with.
    Chunk(ItemLanes<W, D>),
    /// An item outside every full chunk.
    Item(SItem<D>),
}

impl<const W: usize, const V: usize, const D: usize> WideItemChunk<W, V, D> {
    /// The chunk with every item's tag `tag`, the one they have.
    #[inline(always)]
    fn with_tag(self, tag: GroupTag) -> Self {
        match self {
            Self::Pair(pair) => Self::Pair(ItemLanePair {
                first: pair.first.with_tag(tag),
                second: pair.second.with_tag(tag),
            }),
            Self::Wide(lanes) => Self::Wide(lanes.with_tag(tag)),
            Self::Chunk(lanes) => Self::Chunk(lanes.with_tag(tag)),
            Self::Item(item) => Self::Item(item.with_tag(tag)),
        }
    }
}

/// Runs `f` once for every logical item of `group`, pairing chunks of
/// `W` consecutive items into chunks of `V = 2 W` where two follow each
/// other in one row (`distribute_items`), and, with `PAIRS`, such wide
/// steps into pairs; on a sub-group of a multiple of `V` items, chunks of
/// `V` and the rest item by item. Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged_wide<
    const W: usize,
    const V: usize,
    const PAIRS: bool,
    G: ScopedGroup<D>,
    const D: usize,
>(
    group: &G,
    mut f: impl FnMut(WideItemChunk<W, V, D>),
) {
    const { assert!(V == 2 * W) };
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    // Every item handed out carries the group's tag read here, the value
    // the body's queries compare with (`SItem::with_tag`).
    let tag = group.__tag();
    if G::__WHOLE_RUN != 0 && G::__WHOLE_RUN % V == 0 {
        // A sub-group of a multiple of `V` items: its chunks of `V`, and
        // the items of a partial one after them one by one. The narrow arm
        // is never called and the optimiser drops its code: with it, layer
        // norm's butterfly kernel was too large to be inlined into its
        // group loop (1.8x its peer out of line, AVX2).
        group.__for_each_item_chunk::<V>(
            #[inline(always)]
            |chunk| match chunk {
                ItemChunk::Chunk(lanes) => f(WideItemChunk::Wide(lanes).with_tag(tag)),
                ItemChunk::Item(item) => f(WideItemChunk::Item(item).with_tag(tag)),
            },
        );
        return;
    }
    let mut steps = Steps::<_, W, V, PAIRS, D> { f, tag, wide: None };
    if group.logical_local_range()[D - 1] % V == 0 {
        // Rows of whole wide steps (a range known when the kernel compiles
        // folds the test): the same steps as below, with no chunk of `W`
        // waiting for its neighbour. The matrix multiply's rows of 16 spent
        // a tenth of their time in that bookkeeping.
        group.__for_each_item_chunk::<V>(
            #[inline(always)]
            |chunk| match chunk {
                ItemChunk::Chunk(lanes) => steps.push(WideItemChunk::Wide(lanes)),
                ItemChunk::Item(item) => steps.push(WideItemChunk::Item(item)),
            },
        );
        steps.flush();
        return;
    }
    // A chunk waiting for the next one, with which it may pair.
    let mut waiting: Option<ItemLanes<W, D>> = None;
    group.__for_each_item_chunk::<W>(
        #[inline(always)]
        |chunk| match chunk {
            ItemChunk::Chunk(lanes) => match waiting.take() {
                Some(before)
                    if before.first.along_last(W).work_group_local_id()
                        == lanes.first.work_group_local_id() =>
                {
                    // Both lie in one row of the same group, `before` first.
                    let step = ItemLanes::new(before.first, before.work_group_range);
                    steps.push(WideItemChunk::Wide(step));
                }
                before => {
                    if let Some(before) = before {
                        steps.push(WideItemChunk::Chunk(before));
                    }
                    waiting = Some(lanes);
                }
            },
            ItemChunk::Item(item) => {
                if let Some(before) = waiting.take() {
                    steps.push(WideItemChunk::Chunk(before));
                }
                steps.push(WideItemChunk::Item(item));
            }
        },
    );
    if let Some(before) = waiting {
        steps.push(WideItemChunk::Chunk(before));
    }
    steps.flush();
}

/// Hands steps to `f`, every item tagged `tag`, a wide step held back in
/// `wide` until the next one, with which it makes a pair (`PAIRS`).
struct Steps<F, const W: usize, const V: usize, const PAIRS: bool, const D: usize> {
    f: F,
    tag: GroupTag,
    wide: Option<ItemLanes<V, D>>,
}

impl<F, const W: usize, const V: usize, const PAIRS: bool, const D: usize> Steps<F, W, V, PAIRS, D>
where
    F: FnMut(WideItemChunk<W, V, D>),
{
    #[inline(always)]
    fn push(&mut self, step: WideItemChunk<W, V, D>) {
        match step {
            WideItemChunk::Wide(second) if PAIRS => match self.wide.take() {
                Some(first) => {
                    (self.f)(WideItemChunk::Pair(ItemLanePair { first, second }).with_tag(self.tag))
                }
                None => self.wide = Some(second),
            },
            other => {
                self.flush();
                (self.f)(other.with_tag(self.tag));
            }
        }
    }

    /// Hands on the wide step held back, if any.
    #[inline(always)]
    fn flush(&mut self) {
        if let Some(first) = self.wide.take() {
            (self.f)(WideItemChunk::Wide(first).with_tag(self.tag));
        }
    }
}

/// Two wide steps of `V` items each, which an interchanged loop runs
/// together: lane `l < V` is lane `l` of the first, lane `V + l` lane `l`
/// of the second.
#[derive(Clone, Copy)]
pub struct ItemLanePair<const V: usize, const D: usize> {
    first: ItemLanes<V, D>,
    second: ItemLanes<V, D>,
}

impl<const V: usize, const D: usize> ItemLanePair<V, D> {
    /// The first step.
    #[inline(always)]
    pub fn first(&self) -> ItemLanes<V, D> {
        self.first
    }

    /// The second step.
    #[inline(always)]
    pub fn second(&self) -> ItemLanes<V, D> {
        self.second
    }

    /// [`ItemLanes::assume_inside`] for both steps.
    #[inline(always)]
    pub fn assume_inside(&self) {
        self.first.assume_inside();
        self.second.assume_inside();
    }

    /// The item in lane `lane` of both steps together.
    ///
    /// # Panics
    /// If `lane >= 2 V`.
    #[inline(always)]
    pub fn item(&self, lane: usize) -> SItem<D> {
        if lane < V {
            self.first.item(lane)
        } else {
            self.second.item(lane - V)
        }
    }
}

/// Loops of at most this many iterations (by `size_hint`, checked before
/// the items run) keep the plain lowering: the optimiser unrolls such a
/// loop inside the item and vectorises the item loop itself. Not on the
/// group of a kernel with a required size, whose range is a constant:
/// there the lanes' tile reads need no check, and the GPU-form matrix
/// multiply's 16-step `k` loop runs at 1.0–1.06× its peer interchanged,
/// 1.2–1.3× plain (2.7–2.9× interchanged with its range read at run
/// time); n-body's 256-body loop runs 7–12× faster interchanged.
pub const INTERCHANGE_MAX_PLAIN_TRIPS: usize = 16;

/// Runs `f` once for every logical item of `group`, in chunks of `W`
/// where they fill one (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(ItemChunk<W, D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    group.__for_each_item_chunk(f);
}

/// `[f(0), f(1), ..., f(W - 1)]`, calling `f` in lane order: the values
/// the items of a chunk compute before the loop. A loop writing the lanes
/// in place, always inlined (`<[T; W]>::map` and `from_fn` left a call per
/// lane out of line). If `f` panics, the lanes made so far are leaked,
/// not dropped.
#[inline(always)]
pub fn lane_array<T, const W: usize>(mut f: impl FnMut(usize) -> T) -> [T; W] {
    let mut lanes = [const { MaybeUninit::<T>::uninit() }; W];
    // Indices, not `iter_mut().enumerate()`: no iterator adaptor to leave
    // out of line at the baseline level.
    #[allow(clippy::needless_range_loop)]
    for lane in 0..W {
        lanes[lane].write(f(lane));
    }
    // SAFETY: the loop wrote all `W` slots.
    unsafe { assume_written(lanes) }
}

/// The lanes as values.
///
/// # Safety
/// Every slot of `lanes` has been written.
#[inline(always)]
unsafe fn assume_written<T, const W: usize>(lanes: [MaybeUninit<T>; W]) -> [T; W] {
    // SAFETY: every slot is written (the caller); `MaybeUninit<T>` has the
    // layout of `T`, so `[MaybeUninit<T>; W]` has that of `[T; W]`, and
    // `lanes` is never dropped (`MaybeUninit`), so each value moves once.
    unsafe {
        (&lanes as *const [MaybeUninit<T>; W])
            .cast::<[T; W]>()
            .read()
    }
}

/// [`lane_array`] for the lanes of a pair of steps, `f` called with each
/// lane's item: the first step's `V` lanes, then the second's, each run
/// as a loop of its own. Through [`ItemLanePair::item`], one loop over all
/// `2 V` lanes chose the step lane by lane and stayed scalar (a tiled
/// matrix multiply's sums read from a local tile before its `k` loop).
///
/// # Panics
/// If `W != 2 V`.
#[inline(always)]
pub fn pair_lane_array<T, const W: usize, const V: usize, const D: usize>(
    pair: &ItemLanePair<V, D>,
    mut f: impl FnMut(SItem<D>) -> T,
) -> [T; W] {
    assert_eq!(W, 2 * V, "a pair of steps of {V} lanes has {} lanes", 2 * V);
    let mut lanes = [const { MaybeUninit::<T>::uninit() }; W];
    // Indices, as in `lane_array`.
    #[allow(clippy::needless_range_loop)]
    for lane in 0..V {
        lanes[lane].write(f(pair.first.item(lane)));
    }
    #[allow(clippy::needless_range_loop)]
    for lane in 0..V {
        lanes[V + lane].write(f(pair.second.item(lane)));
    }
    // SAFETY: the loops wrote all `2 V == W` slots.
    unsafe { assume_written(lanes) }
}

/// `lanes`, unchanged, read back from memory: the lanes of a binding the
/// interchanged loop only reads, which the loop then loads as whole
/// vectors. Kept as values, they were the results of the statements
/// before the loop, which the optimiser had vectorised in uneven pieces,
/// and it rebuilt each step's vectors from those pieces: layer norm's
/// butterfly form, a mean per item, ran its variance loop as one 8-lane
/// vector, two 2- and 4-lane ones and two scalars a step (AVX2), one
/// `vsubps` per 8 lanes after. The lanes a loop changes go through it
/// too when the loop ends: kept as values, their uses after the loop
/// (the butterfly's xor rounds) split the loop's 16-lane sum into
/// 8 + 4 + 2 + 2 lanes (AVX-512), where it is one `vaddps` a step now.
/// `black_box` only hides the values; an optimiser that ignores it runs
/// the same loop as before.
#[inline(always)]
pub fn held_lanes<T, const W: usize>(lanes: [T; W]) -> [T; W] {
    // A reference to the array alone: `black_box(lanes)` may hand over
    // the place the array was unzipped into, beside the carried lanes,
    // which then stayed in memory too (a store and a load per step).
    let held = lanes;
    std::hint::black_box(&held);
    held
}

/// The lanes of a chunk, one array per binding: `[(A, B); W]` into
/// `([A; W], [B; W])`, so that each binding's lanes are consecutive (one
/// SIMD register) rather than interleaved. Tuples of up to 12 bindings.
pub trait Unzip {
    /// One array per binding.
    type Lanes;
    /// The arrays, lane `l` of each from element `l`.
    fn __unzip(self) -> Self::Lanes;
}

/// The inverse of [`Unzip`]: one tuple per lane, for the statements after
/// the loop.
pub trait Rezip {
    /// One tuple per lane.
    type Items;
    /// The tuples, element `l` from lane `l` of each array.
    fn __rezip(self) -> Self::Items;
}

impl<const W: usize> Unzip for [(); W] {
    type Lanes = ();
    #[inline(always)]
    fn __unzip(self) {}
}

macro_rules! lane_tuples {
    ($($t:ident $v:ident $n:tt),+) => {
        impl<$($t,)+ const W: usize> Unzip for [($($t,)+); W] {
            type Lanes = ($([$t; W],)+);
            #[inline(always)]
            fn __unzip(self) -> Self::Lanes {
                // Never dropped: every field moves out below.
                let tuples = ManuallyDrop::new(self);
                ($(
                    lane_array(|lane| {
                        // SAFETY: `tuples` holds `W` initialised tuples and
                        // is never dropped; `lane_array` calls this once
                        // per lane, and each field is read by one
                        // `lane_array` alone, so every field moves out
                        // exactly once.
                        unsafe { std::ptr::read(&tuples[lane].$n) }
                    }),
                )+)
            }
        }

        impl<$($t,)+ const W: usize> Rezip for ($([$t; W],)+) {
            type Items = [($($t,)+); W];
            #[inline(always)]
            fn __rezip(self) -> Self::Items {
                let ($($v,)+) = self;
                // Never dropped: every value moves out below.
                $(let $v = ManuallyDrop::new($v);)+
                lane_array(|lane| {
                    // SAFETY: every array holds `W` initialised values and
                    // is never dropped; `lane_array` calls this once per
                    // lane, so each value moves out once.
                    unsafe { ($(std::ptr::read(&$v[lane]),)+) }
                })
            }
        }
    };
}

lane_tuples!(A a 0);
lane_tuples!(A a 0, B b 1);
lane_tuples!(A a 0, B b 1, C c 2);
lane_tuples!(A a 0, B b 1, C c 2, D d 3);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10);
lane_tuples!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_arrays_hold_each_lane_once_in_order() {
        let mut calls = Vec::new();
        let lanes: [String; 5] = lane_array(|lane| {
            calls.push(lane);
            format!("lane {lane}")
        });
        assert_eq!(calls, [0, 1, 2, 3, 4]);
        assert_eq!(lanes, ["lane 0", "lane 1", "lane 2", "lane 3", "lane 4"]);
        // Every value moves exactly once; a panic leaks the lanes made.
        let shared = std::rc::Rc::new(7);
        let rcs: [std::rc::Rc<i32>; 3] = lane_array(|_| shared.clone());
        assert_eq!(std::rc::Rc::strong_count(&shared), 4);
        drop(rcs);
        assert_eq!(std::rc::Rc::strong_count(&shared), 1);
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lane_array::<_, 4>(|lane| {
                assert!(lane < 2, "lane {lane}");
                shared.clone()
            })
        }));
        assert!(made.is_err());
        assert_eq!(std::rc::Rc::strong_count(&shared), 3);
        let none: [u8; 0] = lane_array(|_| unreachable!());
        assert_eq!(none, []);
    }

    #[test]
    fn the_next_group_s_lanes_are_one_group_along_the_fastest_dimension() {
        use crate::id::Id;
        let tag = crate::tag::LaunchTags::reserve(1).unwrap().group(0);
        // Groups of 2 × 8 items in a launch of 4 × 24: lanes from local
        // column 4 of row 1, in the groups at global columns 0, 8 and 16.
        let (group, launch) = (Range::new([2, 8]), Range::new([4, 24]));
        let lanes = |col0: usize| {
            let (global, local) = (Id::new([3, col0 + 4]), Id::new([1, 4]));
            ItemLanes::<4, 2>::new(SItem::new(global, launch, local, group, local, tag), group)
        };
        let ids = |lanes: &ItemLanes<4, 2>| {
            lanes.items().map(|i| {
                (
                    i.global_id_dim(0),
                    i.global_id_dim(1),
                    i.work_group_local_id()[1],
                )
            })
        };
        let next = lanes(0).in_next_group().unwrap();
        assert_eq!(ids(&next), ids(&lanes(8)));
        assert_eq!(ids(&next)[3], (3, 15, 7));
        assert_eq!(ids(&lanes(8).in_next_group().unwrap()), ids(&lanes(16)));
        // The last group of the row has none after it.
        assert!(lanes(16).in_next_group().is_none());
    }

    #[test]
    fn pair_lane_arrays_run_the_first_step_then_the_second() {
        use crate::id::Id;
        let tag = crate::tag::LaunchTags::reserve(1).unwrap().group(0);
        // Rows 1 and 2 of a group of 3 × 8 items, lanes from column 2.
        let row = |r: usize| {
            let id = Id::new([r, 2]);
            let range = Range::new([3, 8]);
            ItemLanes::<4, 2>::new(SItem::new(id, range, id, range, id, tag), range)
        };
        let pair = ItemLanePair {
            first: row(1),
            second: row(2),
        };
        let mut calls = Vec::new();
        let lanes: [(usize, usize); 8] = pair_lane_array(&pair, |item| {
            let id = item.work_group_local_id();
            calls.push((id[0], id[1]));
            (id[0], id[1])
        });
        let want = [
            (1, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (2, 2),
            (2, 3),
            (2, 4),
            (2, 5),
        ];
        assert_eq!(lanes, want);
        assert_eq!(calls, want);
        let wrong = std::panic::catch_unwind(|| pair_lane_array::<u8, 6, 4, 2>(&pair, |_| 0));
        assert!(wrong.is_err());
    }

    #[test]
    fn unzip_and_rezip_are_inverse_and_keep_lane_order() {
        let items: [(u8, String, i64); 3] = [
            (1, "a".into(), -1),
            (2, "b".into(), -2),
            (3, "c".into(), -3),
        ];
        let (a, b, c) = items.clone().__unzip();
        assert_eq!(a, [1, 2, 3]);
        assert_eq!(b, ["a", "b", "c"]);
        assert_eq!(c, [-1, -2, -3]);
        assert_eq!((a, b, c).__rezip(), items);
        // Every value moves exactly once: no clone is dropped twice or leaked.
        let shared = std::rc::Rc::new(7);
        let lanes: [(std::rc::Rc<i32>, u8); 4] = std::array::from_fn(|l| (shared.clone(), l as u8));
        assert_eq!(std::rc::Rc::strong_count(&shared), 5);
        let (rcs, ids) = lanes.__unzip();
        assert_eq!(std::rc::Rc::strong_count(&shared), 5);
        assert_eq!(ids, [0, 1, 2, 3]);
        drop((rcs, ids).__rezip());
        assert_eq!(std::rc::Rc::strong_count(&shared), 1);
        let one: [(f32,); 2] = [(0.5,), (1.5,)];
        assert_eq!(one.__unzip(), ([0.5, 1.5],));
    }
}
