//! `SItem<D>`: a logical work item inside `distribute_items!` (spec: `s_item`).

use crate::group::ScopedGroup;
use crate::id::{check_dimension, Id, Range};
use crate::tag::GroupTag;

/// One logical work item, handed to the closure of `distribute_items!`
/// (scoped parallelism v2, "New class s_item").
///
/// It knows its position in the whole launch (*global*), in the group that
/// `distribute_items!` ran on (*innermost*), and, through a group handle, in
/// any enclosing group (*local*). All ids are row-major, see [`Id`].
///
/// Items are plain values: cheap to copy, built afresh for every item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SItem<const D: usize> {
    global_id: Id<D>,
    global_range: Range<D>,
    innermost_local_id: Id<D>,
    innermost_local_range: Range<D>,
    /// Id relative to the work group the item belongs to.
    work_group_local_id: Id<D>,
    /// The work group (of its launch) the item belongs to.
    tag: GroupTag,
}

impl<const D: usize> SItem<D> {
    #[inline(always)]
    pub(crate) fn new(
        global_id: Id<D>,
        global_range: Range<D>,
        innermost_local_id: Id<D>,
        innermost_local_range: Range<D>,
        work_group_local_id: Id<D>,
        tag: GroupTag,
    ) -> Self {
        Self {
            global_id,
            global_range,
            innermost_local_id,
            innermost_local_range,
            work_group_local_id,
            tag,
        }
    }

    /// The item `lane` places further along the fastest dimension, in the
    /// same groups (callers keep it inside them).
    #[inline(always)]
    pub(crate) fn along_last(mut self, lane: usize) -> Self {
        self.global_id[D - 1] += lane;
        self.innermost_local_id[D - 1] += lane;
        self.work_group_local_id[D - 1] += lane;
        self
    }

    /// The item at the same place in the work group `step` items further
    /// along the fastest dimension, if the launch reaches that far; its
    /// tag stays this item's (it only names addresses to fetch ahead).
    #[inline(always)]
    pub(crate) fn ahead_along_last(mut self, step: usize) -> Option<Self> {
        let id = self.global_id[D - 1].checked_add(step)?;
        if id >= self.global_range[D - 1] {
            return None;
        }
        self.global_id[D - 1] = id;
        Some(self)
    }

    /// The item with its tag `tag`, the one it has (callers pass the tag
    /// of the group that made it): a lane loop then compares the group's
    /// tag with itself, which the optimiser folds, where a tag carried
    /// through the loops that pair chunks stays a compare per lane.
    #[inline(always)]
    pub(crate) fn with_tag(mut self, tag: GroupTag) -> Self {
        debug_assert!(self.tag == tag);
        self.tag = tag;
        self
    }

    /// The work group, of its launch, that made this item.
    #[inline(always)]
    pub(crate) fn tag(&self) -> GroupTag {
        self.tag
    }

    /// The item as panic messages name it (a value: see
    /// [`check_dimension`]).
    #[inline(always)]
    fn name(&self) -> ItemName<D> {
        ItemName(self.global_id)
    }

    /// Id of this item relative to its work group; windows index with it.
    #[inline(always)]
    pub(crate) fn work_group_local_id(&self) -> Id<D> {
        self.work_group_local_id
    }

    /// Row-major distance, in the launch's global range, from the first
    /// item of the work group tagged `tag` whose range is `range` to this
    /// item, if it is one of that group's items. Found from the item's id
    /// in its work group and kept apart from the group's own position
    /// (which windows add to their base pointer once per group), so that
    /// the optimiser sees consecutive items at consecutive addresses. An
    /// item of another work group or launch (items are `Copy`, so one can
    /// be kept) has another tag: the compare is of two values fixed before
    /// the item loop, so it leaves the loop.
    ///
    /// The runtime makes the items of the work group tagged `tag` only
    /// inside its range, and `range` is that work group's range (windows
    /// take both from the launch's shape), so the tag implies the range:
    /// release builds compare only the tags. Debug builds check the range
    /// too. The range check was a branch per lane in sub-group item loops
    /// the optimiser did not unroll (16 lanes and more), which then stayed
    /// scalar: n-body's private form ran 7–9× slower at `S = 16` than at 8.
    #[inline(always)]
    pub(crate) fn offset_in_group(
        &self,
        tag: GroupTag,
        range: Range<D>,
        global_range: Range<D>,
    ) -> Option<usize> {
        let local = self.work_group_local_id;
        if self.tag != tag || (cfg!(debug_assertions) && !range.contains(local)) {
            return None;
        }
        // `linearize` is linear: this plus `linearize(first)` is
        // `linearize(first + local)`.
        Some(global_range.linearize(local))
    }

    /// Range of all logical items of the launch: number of groups times the
    /// group size, per dimension.
    #[inline(always)]
    #[must_use]
    pub fn global_range(&self) -> Range<D> {
        self.global_range
    }

    /// [`global_range`](Self::global_range) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn global_range_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "global_range_dim", self.name());
        self.global_range[dimension]
    }

    /// Number of logical items of the launch.
    #[inline(always)]
    #[must_use]
    pub fn global_linear_range(&self) -> usize {
        self.global_range.size()
    }

    /// Id of this item in the launch.
    #[inline(always)]
    #[must_use]
    pub fn global_id(&self) -> Id<D> {
        self.global_id
    }

    /// [`global_id`](Self::global_id) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn global_id_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "global_id_dim", self.name());
        self.global_id[dimension]
    }

    /// Row-major linear id of this item in the launch.
    #[inline(always)]
    #[must_use]
    pub fn global_linear_id(&self) -> usize {
        self.global_range.linearize(self.global_id)
    }

    /// Logical range of the group that `distribute_items!` ran on.
    #[inline(always)]
    #[must_use]
    pub fn innermost_local_range(&self) -> Range<D> {
        self.innermost_local_range
    }

    /// [`innermost_local_range`](Self::innermost_local_range) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn innermost_local_range_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "innermost_local_range_dim", self.name());
        self.innermost_local_range[dimension]
    }

    /// Number of logical items of the group that `distribute_items!` ran on.
    #[inline(always)]
    #[must_use]
    pub fn innermost_local_linear_range(&self) -> usize {
        self.innermost_local_range.size()
    }

    /// Id of this item in the group that `distribute_items!` ran on. Cheaper
    /// than [`local_id`](Self::local_id) with that group.
    #[inline(always)]
    #[must_use]
    pub fn innermost_local_id(&self) -> Id<D> {
        self.innermost_local_id
    }

    /// [`innermost_local_id`](Self::innermost_local_id) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn innermost_local_id_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "innermost_local_id_dim", self.name());
        self.innermost_local_id[dimension]
    }

    /// Row-major linear id of this item in the group that
    /// `distribute_items!` ran on.
    #[inline(always)]
    #[must_use]
    pub fn innermost_local_linear_id(&self) -> usize {
        self.innermost_local_range
            .linearize(self.innermost_local_id)
    }

    /// Id of this item relative to `group` (equivalent to
    /// `group.logical_local_id(self)`).
    ///
    /// # Panics
    /// If `group` does not contain the item, naming both.
    #[inline(always)]
    #[track_caller]
    #[must_use]
    pub fn local_id<G: ScopedGroup<D>>(&self, group: &G) -> Id<D> {
        group.logical_local_id(self)
    }

    /// [`local_id`](Self::local_id) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn local_id_dim<G: ScopedGroup<D>>(&self, group: &G, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "local_id_dim", self.name());
        group.logical_local_id(self)[dimension]
    }

    /// Row-major linear id of this item relative to `group`.
    ///
    /// # Panics
    /// If `group` does not contain the item, naming both.
    #[inline(always)]
    #[track_caller]
    #[must_use]
    pub fn local_linear_id<G: ScopedGroup<D>>(&self, group: &G) -> usize {
        group.logical_local_linear_id(self)
    }

    /// Logical range of `group` (equivalent to
    /// `group.logical_local_range()`).
    #[inline(always)]
    #[must_use]
    pub fn local_range<G: ScopedGroup<D>>(&self, group: &G) -> Range<D> {
        group.logical_local_range()
    }

    /// [`local_range`](Self::local_range) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the item.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn local_range_dim<G: ScopedGroup<D>>(&self, group: &G, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "local_range_dim", self.name());
        group.logical_local_range()[dimension]
    }

    /// Number of logical items of `group`.
    #[inline(always)]
    #[must_use]
    pub fn local_linear_range<G: ScopedGroup<D>>(&self, group: &G) -> usize {
        group.logical_local_linear_range()
    }
}

/// An item as panic messages name it: "the item with global id …".
#[derive(Clone, Copy)]
pub(crate) struct ItemName<const D: usize>(pub(crate) Id<D>);

impl<const D: usize> std::fmt::Debug for ItemName<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the item with global id {}", self.0)
    }
}
