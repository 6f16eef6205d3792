//! `SubGroup<D, S>`: a run of at most `S` items along the fastest dimension.

use std::fmt;
use std::marker::PhantomData;

use super::scalar_group::ScalarGroup;
use super::{group_boilerplate, ScopedGroup};
use crate::id::{Id, Range};
use crate::item::SItem;
use crate::lowering::{GroupLoops, ItemChunk, ItemLanes};
use crate::memory_scope::MemoryScope;
use crate::rules::Nesting;
use crate::tag::GroupTag;

/// Default sub-group size: 8, the `f32` lanes of a 256-bit vector, at
/// every instruction-set level and under any build flags (a kernel's type
/// cannot change with the level its launch picks at run time).
///
/// Measured on an AMD EPYC (family 26, AVX-512) at the baseline, `v3` and
/// `v4`, each size against the best size for the kernel and level: with 8
/// the benchmark's triad, n-body and reduction in sub-groups are within 4%
/// of their best, the reduction with one accumulator per lane within 7%
/// (4: up to 1.19×; 16 to 64 at `v4`, in 512-bit vectors: up to 1.57×),
/// and a prefix sum scanned sub-group by sub-group, each waiting for the
/// previous one's total, within 1% (4: up to 1.09×). See the guide's
/// "Instruction sets and the sub-group size".
pub const DEFAULT_SUB_GROUP_SIZE: usize = 8;

/// The sub-group sizes a kernel may choose, in increasing order (SYCL 2020
/// `info::device::sub_group_sizes`): the powers of two from 1 to 64, each
/// tested against serial loops. Any other `S >= 1` works as well (the last
/// sub-group of a row is then partial more often); this list is what SYCL
/// code that picks from the device's sizes gets. A kernel chooses its size
/// with its group type, `WorkGroup<D, S>`; sizes that are multiples of 8
/// fill whole 256-bit vectors of `f32` (16 those of AVX-512).
pub const SUB_GROUP_SIZES: &[usize] = &[1, 2, 4, 8, 16, 32, 64];

/// A sub-group (scoped parallelism v2: `fence_scope == sub_group`), made by
/// `distribute_groups!` on a work group.
///
/// Its logical range is `(1, …, 1, n)`: `n = S` consecutive items along the
/// fastest dimension (`D - 1`), except for the last sub-group of a row when
/// `S` does not divide the group size, which is partial (`n < S`, as the
/// SYCL CTS sub-group plan expects for a group of `3·S − 1` items).
/// `distribute_items!` on a full sub-group is a loop of the constant trip
/// count `S`, which the compiler maps onto SIMD lanes.
#[derive(Clone, Copy)]
pub struct SubGroup<const D: usize, const S: usize> {
    pub(crate) group_id: Id<D>,
    group_range: Range<D>,
    global_offset: Id<D>,
    len: usize,
    global_range: Range<D>,
    /// Id of the first item relative to the work group.
    local_first: Id<D>,
    /// Logical range of the work group.
    parent_range: Range<D>,
    /// Tag of the work group.
    tag: GroupTag,
    /// The work group's nesting counts.
    nesting: Nesting,
    _not_send: PhantomData<*const ()>,
}

group_boilerplate!(SubGroup<D, S>);

impl<const D: usize, const S: usize> SubGroup<D, S> {
    /// The largest number of items a sub-group of this type holds, `S`
    /// (SYCL `get_max_local_range()`).
    pub const SIZE: usize = S;

    // The work group's fields, one by one: a struct would have to be
    // built in the item loop.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn new(
        group_id: Id<D>,
        group_range: Range<D>,
        global_offset: Id<D>,
        len: usize,
        global_range: Range<D>,
        local_first: Id<D>,
        parent_range: Range<D>,
        tag: GroupTag,
        nesting: Nesting,
    ) -> Self {
        debug_assert!(local_first[D - 1] + len <= parent_range[D - 1]);
        Self {
            group_id,
            group_range,
            global_offset,
            len,
            global_range,
            local_first,
            parent_range,
            tag,
            nesting,
            _not_send: PhantomData,
        }
    }

    /// Largest logical range of a sub-group of this type: `(1, …, 1, S)`.
    #[must_use]
    pub fn max_local_range(&self) -> Range<D> {
        let mut range = Range::splat(1);
        range[D - 1] = S;
        range
    }

    /// Number of items.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether this sub-group has all `S` items.
    #[inline(always)]
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.len == S
    }

    /// Id relative to the work group of the item in lane `lane`.
    #[inline(always)]
    fn in_work_group(&self, lane: usize) -> Id<D> {
        let mut id = self.local_first;
        id[D - 1] += lane;
        for d in 0..D {
            // SAFETY: sub-groups are only made by `WorkGroup::__for_each_group`,
            // which keeps all their items inside the work group
            // (`local_first + len <= parent_range` in the last dimension,
            // `local_first < parent_range` in the others), and callers pass
            // `lane < len`. Knowing it, the optimiser drops the bounds checks
            // of windows and private memory in the lanes, which can then
            // share SIMD instructions.
            unsafe { std::hint::assert_unchecked(id[d] < self.parent_range[d]) };
        }
        id
    }

    /// Runs `f` for lanes `0..lanes` (at most `self.len`), with a constant
    /// trip count when that is every lane of a full sub-group.
    #[inline(always)]
    fn first_lanes(&self, lanes: usize, mut f: impl FnMut(SItem<D>)) {
        if lanes == S {
            // Constant trip count: one iteration per SIMD lane.
            for lane in 0..S {
                f(self.item(lane));
            }
        } else {
            for lane in 0..lanes {
                f(self.item(lane));
            }
        }
    }

    #[inline(always)]
    pub(crate) fn item(&self, lane: usize) -> SItem<D> {
        let mut local = Id::zero();
        local[D - 1] = lane;
        SItem::new(
            self.global_offset.plus(local),
            self.global_range,
            local,
            self.logical_local_range(),
            self.in_work_group(lane),
            self.tag,
        )
    }
}

impl<const D: usize, const S: usize> ScopedGroup<D> for SubGroup<D, S> {
    const FENCE_SCOPE: MemoryScope = MemoryScope::SubGroup;
    type IdType = Id<D>;
    type RangeType = Range<D>;
    type LinearIdType = usize;

    #[inline(always)]
    fn group_id(&self) -> Id<D> {
        self.group_id
    }

    #[inline(always)]
    fn group_range(&self) -> Range<D> {
        self.group_range
    }

    #[inline(always)]
    fn logical_local_range(&self) -> Range<D> {
        let mut range = Range::splat(1);
        range[D - 1] = self.len;
        range
    }

    #[inline(always)]
    fn __global_offset(&self) -> Id<D> {
        self.global_offset
    }

    #[inline(always)]
    fn __global_range(&self) -> Range<D> {
        self.global_range
    }

    #[inline(always)]
    fn __work_group_local_offset(&self) -> Id<D> {
        self.local_first
    }

    #[inline(always)]
    fn __tag(&self) -> GroupTag {
        self.tag
    }

    #[inline(always)]
    fn __nesting(&self) -> Nesting {
        self.nesting
    }
}

impl<const D: usize, const S: usize> GroupLoops<D> for SubGroup<D, S> {
    type Subgroup = ScalarGroup<D>;
    const __WHOLE_RUN: usize = S;

    #[inline(always)]
    fn __for_each_item(&self, f: impl FnMut(SItem<D>)) {
        self.first_lanes(self.len, f);
    }

    #[inline(always)]
    fn __for_each_item_below(
        &self,
        dimension: Option<usize>,
        bound: usize,
        f: impl FnMut(SItem<D>),
    ) {
        // The lanes lie along the last dimension; in every other one the
        // innermost local id is 0. The linear id is the lane.
        let lanes = match dimension {
            None => self.len.min(bound),
            Some(d) if d == D - 1 => self.len.min(bound),
            Some(d) if d < D => {
                if bound == 0 {
                    0
                } else {
                    self.len
                }
            }
            Some(_) => return self.__for_each_item(f),
        };
        self.first_lanes(lanes, f);
    }

    #[inline(always)]
    fn __for_each_item_chunk<const W: usize>(&self, mut f: impl FnMut(ItemChunk<W, D>)) {
        if W == 0 {
            return self.__for_each_item(
                #[inline(always)]
                |item| f(ItemChunk::Item(item)),
            );
        }
        // For a full sub-group, `len == S` and the trip counts are constant.
        let len = if self.is_full() { S } else { self.len };
        let full = len - len % W;
        for first in (0..full).step_by(W) {
            f(ItemChunk::Chunk(ItemLanes::new(
                self.item(first),
                self.parent_range,
            )));
        }
        for lane in full..len {
            f(ItemChunk::Item(self.item(lane)));
        }
    }

    #[inline(always)]
    fn __for_each_group_item(&self, mut f: impl FnMut(ScalarGroup<D>, SItem<D>)) {
        self.__for_each_group(
            #[inline(always)]
            |scalar| {
                scalar.__for_each_item(
                    #[inline(always)]
                    |item| f(scalar, item),
                )
            },
        );
    }

    #[inline(always)]
    fn __for_each_group(&self, mut f: impl FnMut(ScalarGroup<D>)) {
        let range = self.logical_local_range();
        for lane in 0..self.len {
            let mut id = Id::zero();
            id[D - 1] = lane;
            f(ScalarGroup::new(
                id,
                range,
                self.global_offset.plus(id),
                self.global_range,
                self.in_work_group(lane),
                self.tag,
                self.nesting,
            ));
        }
    }
}

impl<const D: usize, const S: usize> fmt::Debug for SubGroup<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubGroup")
            .field("group_id", &self.group_id)
            .field("group_range", &self.group_range)
            .field("local_range", &self.logical_local_range())
            .field("size", &S)
            .finish()
    }
}
