//! `ItemsRef`: a read-only input with one element per logical item.
//!
//! Kernels may read inputs through plain shared slices, but a slice index
//! is checked against the slice's length on every item, a check the
//! optimiser cannot drop from the short loops of sub-group lanes. An
//! `ItemsRef` is checked once, at launch, to cover every logical item;
//! reading a group's own items by [`SItem`] then needs no check the
//! optimiser cannot prove, and the lanes of a sub-group can share SIMD
//! instructions.

use std::fmt;
use std::ops::Index;

use crate::id::{scale, Id, Range};
use crate::item::SItem;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape, Sealed};
use crate::lowering::prefetch;
use crate::tag::GroupTag;

/// A read-only input with one element per logical item of the launch, in
/// row-major global linear order. Each work group gets an
/// [`ItemsRefWindow`], which reads any element by global id and its own
/// items by [`SItem`].
///
/// The slice must hold at least as many elements as the launch has
/// logical items, or the launch returns [`LaunchError::OutputTooShort`]
/// (the view is too short for the launch).
#[derive(Clone, Copy)]
pub struct ItemsRef<'a, T, const D: usize = 1> {
    data: &'a [T],
}

impl<'a, T, const D: usize> ItemsRef<'a, T, D> {
    /// Wraps `data` for a launch of `D` dimensions.
    #[must_use]
    pub fn new(data: &'a [T]) -> Self {
        Self { data }
    }
}

/// One work group's view of an [`ItemsRef`]: the whole input, read-only.
///
/// # Panics
/// Indexing with a global id outside the launch panics, naming the id and
/// the launch's range.
#[derive(Clone, Copy)]
pub struct ItemsRefWindow<'a, T, const D: usize = 1> {
    data: &'a [T],
    /// `data` moved to the group's first item. A raw pointer rather than a
    /// subslice: with a slice the optimiser packs the sub-group lanes of a
    /// per-lane accumulation across the lanes instead of along them.
    group: *const T,
    global_range: Range<D>,
    first: Id<D>,
    range: Range<D>,
    /// The work group the window belongs to.
    tag: GroupTag,
}

impl<'a, T, const D: usize> ItemsRefWindow<'a, T, D> {
    /// Whether `item` is one of this window's group's items: the tag
    /// compare of indexing by item.
    #[inline(always)]
    pub(crate) fn owns(&self, item: &SItem<D>) -> bool {
        item.offset_in_group(self.tag, self.range, self.global_range)
            .is_some()
    }

    /// The whole input.
    #[must_use]
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// Global id of the group's first item.
    #[must_use]
    pub fn first(&self) -> Id<D> {
        self.first
    }

    /// Logical range of the group.
    #[must_use]
    pub fn range(&self) -> Range<D> {
        self.range
    }
}

impl<'a, T> ItemsRefWindow<'a, T, 1> {
    /// The elements of the group's own items (1-D only: they are
    /// contiguous); index 0 is the group's first item.
    #[must_use]
    pub fn group_slice(&self) -> &'a [T] {
        &self.data[self.first[0]..][..self.range[0]]
    }
}

impl<T, const D: usize> Index<SItem<D>> for ItemsRefWindow<'_, T, D> {
    type Output = T;

    /// The element of `item`, one of this group's items.
    ///
    /// # Panics
    /// For an item of another work group or launch, naming its global id
    /// and the group's items.
    #[inline(always)]
    #[track_caller]
    fn index(&self, item: SItem<D>) -> &T {
        let Some(offset) = item.offset_in_group(self.tag, self.range, self.global_range) else {
            outside(item.global_id(), self.global_range)
        };
        // SAFETY: `group` starts at the group's first item, `first`, and
        // the item's local id is inside the group's range (checked by
        // `offset_in_group`, or implied by the item's tag: the runtime
        // makes a work group's items only inside its range), so
        // `linearize(first) + offset` is the position of an item of the
        // launch, below the number of logical items, which `data` covers
        // (checked at launch by `__check`).
        unsafe { &*self.group.add(offset) }
    }
}

// SAFETY: a window only reads its elements through a shared borrow of
// `data` (the `group` pointer points into it), so it may move to and be
// shared between threads exactly when `&[T]` may.
unsafe impl<T: Sync, const D: usize> Send for ItemsRefWindow<'_, T, D> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync, const D: usize> Sync for ItemsRefWindow<'_, T, D> {}

impl<T, const D: usize> Index<Id<D>> for ItemsRefWindow<'_, T, D> {
    type Output = T;

    /// The element at global id `id`, of any group.
    #[inline(always)]
    #[track_caller]
    fn index(&self, id: Id<D>) -> &T {
        if !self.global_range.contains(id) {
            outside(id, self.global_range);
        }
        &self.data[self.global_range.linearize(id)]
    }
}

impl<T> Index<usize> for ItemsRefWindow<'_, T, 1> {
    type Output = T;

    /// The element at global linear id `index`, of any group.
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: usize) -> &T {
        &self.data[index]
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside<const D: usize>(id: Id<D>, global_range: Range<D>) -> ! {
    panic!("ItemsRef: global id {id} is not an item of this group (of this launch) or is outside the launch's range {global_range}")
}

impl<T, const D: usize> fmt::Debug for ItemsRefWindow<'_, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemsRefWindow")
            .field("first", &self.first)
            .field("range", &self.range)
            .finish()
    }
}

impl<T: Sync, const D: usize> Sealed for ItemsRef<'_, T, D> {}

impl<'a, T: Sync, const D: usize> LaunchArgs<D> for ItemsRef<'a, T, D> {
    type PerGroup = ItemsRefWindow<'a, T, D>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let needed = shape.global_range.size();
        if self.data.len() < needed {
            return Err(LaunchError::OutputTooShort {
                position,
                view: "ItemsRef",
                len: self.data.len(),
                needed,
                covers: format!("{needed} logical items"),
            });
        }
        Ok(())
    }

    #[inline(always)]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        tag: GroupTag,
    ) -> Self::PerGroup {
        let first = scale(group_id, shape.group_size);
        // SAFETY: `first` is an item of the launch, which `data` covers
        // (`__check`), so the pointer stays inside `data`.
        let group = unsafe { self.data.as_ptr().add(shape.global_range.linearize(first)) };
        if D == 1 {
            prefetch::next_group(group, shape.group_size.size());
        }
        ItemsRefWindow {
            data: self.data,
            group,
            global_range: shape.global_range,
            first,
            range: shape.group_size,
            tag,
        }
    }
}
