//! `ScalarGroup<D>`: a group of exactly one logical item.

use std::fmt;
use std::marker::PhantomData;

use super::{group_boilerplate, ScopedGroup};
use crate::id::{Id, Range};
use crate::item::SItem;
use crate::lowering::GroupLoops;
use crate::memory_scope::MemoryScope;
use crate::rules::Nesting;
use crate::tag::GroupTag;

/// A scalar group (scoped parallelism v2: `fence_scope == work_item`): one
/// logical item. Made by `distribute_groups!` on a sub-group or on a scalar
/// group; subdividing it again yields one scalar group with group id 0.
#[derive(Clone, Copy)]
pub struct ScalarGroup<const D: usize> {
    pub(crate) group_id: Id<D>,
    group_range: Range<D>,
    global_id: Id<D>,
    global_range: Range<D>,
    /// Id of the item relative to its work group.
    work_group_local_id: Id<D>,
    /// Tag of the work group.
    tag: GroupTag,
    /// The work group's nesting counts.
    nesting: Nesting,
    _not_send: PhantomData<*const ()>,
}

group_boilerplate!(ScalarGroup<D>);

impl<const D: usize> ScalarGroup<D> {
    #[inline(always)]
    pub(crate) fn new(
        group_id: Id<D>,
        group_range: Range<D>,
        global_id: Id<D>,
        global_range: Range<D>,
        work_group_local_id: Id<D>,
        tag: GroupTag,
        nesting: Nesting,
    ) -> Self {
        Self {
            group_id,
            group_range,
            global_id,
            global_range,
            work_group_local_id,
            tag,
            nesting,
            _not_send: PhantomData,
        }
    }
}

impl<const D: usize> ScopedGroup<D> for ScalarGroup<D> {
    const FENCE_SCOPE: MemoryScope = MemoryScope::WorkItem;
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
        Range::splat(1)
    }

    #[inline(always)]
    fn __global_offset(&self) -> Id<D> {
        self.global_id
    }

    #[inline(always)]
    fn __global_range(&self) -> Range<D> {
        self.global_range
    }

    #[inline(always)]
    fn __work_group_local_offset(&self) -> Id<D> {
        self.work_group_local_id
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

impl<const D: usize> GroupLoops<D> for ScalarGroup<D> {
    type Subgroup = ScalarGroup<D>;

    #[inline(always)]
    fn __for_each_item(&self, mut f: impl FnMut(SItem<D>)) {
        f(SItem::new(
            self.global_id,
            self.global_range,
            Id::zero(),
            Range::splat(1),
            self.work_group_local_id,
            self.tag,
        ));
    }

    #[inline(always)]
    fn __for_each_item_below(
        &self,
        dimension: Option<usize>,
        bound: usize,
        f: impl FnMut(SItem<D>),
    ) {
        // The one item has innermost local id 0 in every dimension.
        if bound > 0 || dimension.is_some_and(|d| d >= D) {
            self.__for_each_item(f);
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
        f(ScalarGroup::new(
            Id::zero(),
            Range::splat(1),
            self.global_id,
            self.global_range,
            self.work_group_local_id,
            self.tag,
            self.nesting,
        ));
    }
}

impl<const D: usize> fmt::Debug for ScalarGroup<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScalarGroup")
            .field("group_id", &self.group_id)
            .field("group_range", &self.group_range)
            .field("global_id", &self.global_id)
            .finish()
    }
}
