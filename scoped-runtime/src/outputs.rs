//! Safe views of global memory that work groups write in parallel.
//!
//! A launch takes views of output slices ([`ItemsMut`], [`ChunksMut`]) and
//! hands each work group its own *window*: the part of the slice that
//! belongs to that group and to no other. Windows are indexed by global
//! position and bounds-checked against the group's part, so groups never
//! race, and no `unsafe` is needed in kernels (DESIGN, "Soundness").
//! Inputs that every group only reads are plain shared slices.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use crate::id::{scale, Id, Range};
use crate::item::SItem;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape};
use crate::tag::GroupTag;

/// An output with one element per logical item of the launch, laid out in
/// row-major global linear order. Each work group gets an [`ItemsWindow`]
/// over the elements of its own items.
///
/// The slice must hold at least as many elements as the launch has
/// logical items, or the launch returns [`LaunchError::OutputTooShort`].
pub struct ItemsMut<'a, T, const D: usize = 1> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T, const D: usize> ItemsMut<'a, T, D> {
    /// Wraps `data` for a launch of `D` dimensions.
    #[must_use]
    pub fn new(data: &'a mut [T]) -> Self {
        Self {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            _borrow: PhantomData,
        }
    }
}

// SAFETY: the view is a unique borrow of `[T]` split into disjoint windows,
// one per work group; sharing the view between the threads of a launch only
// moves `T`s' exclusive access to other threads, which `T: Send` allows.
unsafe impl<T: Send, const D: usize> Sync for ItemsMut<'_, T, D> {}
// SAFETY: as above, the view is a `&mut [T]`.
unsafe impl<T: Send, const D: usize> Send for ItemsMut<'_, T, D> {}

/// The part of an [`ItemsMut`] that belongs to one work group: the elements
/// of the group's logical items, read and written by global id.
///
/// # Panics
/// Indexing with an id outside the group panics, naming the id and the
/// group's window.
pub struct ItemsWindow<'a, T, const D: usize = 1> {
    base: *mut T,
    /// `base` moved to the group's first item.
    group: *mut T,
    global_range: Range<D>,
    first: Id<D>,
    range: Range<D>,
    /// The work group the window belongs to.
    tag: GroupTag,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a window is a unique borrow of its group's elements.
unsafe impl<T: Send, const D: usize> Send for ItemsWindow<'_, T, D> {}
// SAFETY: shared access to a window only reads its elements.
unsafe impl<T: Sync, const D: usize> Sync for ItemsWindow<'_, T, D> {}

impl<T, const D: usize> ItemsWindow<'_, T, D> {
    /// Global id of the group's first item.
    #[must_use]
    pub fn first(&self) -> Id<D> {
        self.first
    }

    /// Logical range of the group: the window's extent.
    #[must_use]
    pub fn range(&self) -> Range<D> {
        self.range
    }

    /// Whether `item` is one of this window's group's items: the tag
    /// compare of indexing by item.
    #[inline(always)]
    pub(crate) fn owns(&self, item: &SItem<D>) -> bool {
        item.offset_in_group(self.tag, self.range, self.global_range)
            .is_some()
    }

    /// Whether global id `id` lies in this window.
    #[inline(always)]
    #[must_use]
    pub fn contains(&self, id: Id<D>) -> bool {
        (0..D).all(|d| id[d].wrapping_sub(self.first[d]) < self.range[d])
    }

    #[inline(always)]
    #[track_caller]
    fn position(&self, id: Id<D>) -> usize {
        if !self.contains(id) {
            self.outside(id);
        }
        self.global_range.linearize(id)
    }

    /// Panics for `id` outside the window. Takes the window by value: a
    /// reference passed to a call would make the optimiser reload the
    /// window's fields after every store of the item loop.
    #[inline(always)]
    #[track_caller]
    fn outside(&self, id: Id<D>) -> ! {
        window_outside(id, self.first, self.range)
    }
}

/// Panics for `id` outside the window: a global id, or the id of an item
/// of another work group or launch (items are `Copy`). It takes the values
/// it took before the tags: variants of it that took one more argument or
/// did more work made the 2-D Jacobi kernel 4-5x slower (its item loops
/// stopped vectorising).
#[cold]
#[inline(never)]
#[track_caller]
fn window_outside<const D: usize>(id: Id<D>, first: Id<D>, range: Range<D>) -> ! {
    let mut last = first;
    for d in 0..D {
        last[d] += range[d] - 1;
    }
    panic!(
        "global id {id} is outside this work group's window of ItemsMut (global ids {first} ..= \
         {last}), or is an item of another launch"
    )
}

impl<T> ItemsWindow<'_, T, 1> {
    /// The window as a slice (1-D only: the items are contiguous); index 0
    /// is the group's first item.
    #[must_use]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: the window's `range[0]` elements from `first[0]` belong to
        // this group alone and lie inside the slice (checked at launch).
        unsafe { std::slice::from_raw_parts_mut(self.base.add(self.first[0]), self.range[0]) }
    }

    /// The window as a shared slice (1-D only).
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: as in `as_mut_slice`, read-only.
        unsafe { std::slice::from_raw_parts(self.base.add(self.first[0]), self.range[0]) }
    }
}

impl<T, const D: usize> Index<Id<D>> for ItemsWindow<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, id: Id<D>) -> &T {
        let position = self.position(id);
        // SAFETY: `id` is one of this group's items (checked above), so
        // `position` is below the global item count, which the slice covers
        // (checked at launch); no other group reaches this element.
        unsafe { &*self.base.add(position) }
    }
}

impl<T, const D: usize> IndexMut<Id<D>> for ItemsWindow<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, id: Id<D>) -> &mut T {
        let position = self.position(id);
        // SAFETY: as in `index`; `&mut self` makes the access unique.
        unsafe { &mut *self.base.add(position) }
    }
}

impl<T, const D: usize> ItemsWindow<'_, T, D> {
    /// Offset of `item` from the group's first item, found from its id in
    /// its work group: the check against the window is then one the
    /// optimiser can prove from the loop that made the item, so it costs
    /// nothing in `distribute_items!`.
    #[inline(always)]
    #[track_caller]
    fn item_offset(&self, item: &SItem<D>) -> usize {
        match item.offset_in_group(self.tag, self.range, self.global_range) {
            Some(offset) => offset,
            None => self.outside(item.global_id()),
        }
    }
}

impl<T, const D: usize> ItemsWindow<'_, T, D> {
    /// The `W` elements of the chunk `lanes`, if its items are this
    /// window's group's (the tag compare of indexing by item, once).
    #[inline(always)]
    pub(crate) fn lanes_mut<const W: usize>(
        &mut self,
        lanes: &crate::lowering::ItemLanes<W, D>,
    ) -> Option<&mut [T; W]> {
        let offset = lanes
            .item(0)
            .offset_in_group(self.tag, self.range, self.global_range)?;
        // SAFETY: the chunk's `W` items are consecutive along the fastest
        // dimension and all inside their work group (`ItemLanes`), which
        // is this window's (same tag): their elements are the `W` after
        // `group + offset` in row-major order, inside the window, which
        // the slice covers and no other group reaches; `&mut self` makes
        // the access unique.
        Some(unsafe { &mut *self.group.add(offset).cast::<[T; W]>() })
    }

    /// Asks the CPU to fetch the elements the chunk `lanes` would have in
    /// the next work group along the fastest dimension (see
    /// [`Self::next_lanes_position`]); writes nothing.
    #[inline(always)]
    pub(crate) fn prefetch_next_lanes<const W: usize>(
        &self,
        lanes: &crate::lowering::ItemLanes<W, D>,
    ) {
        if let Some(position) = self.next_lanes_position(lanes) {
            // Only an address is made, for a prefetch; it lies inside the
            // slice (see below).
            let next = self.base.wrapping_add(position).cast_const();
            crate::lowering::prefetch::elements(next, W);
        }
    }

    /// Index into the whole output of the first element of the chunk
    /// `lanes` moved one work group along the fastest dimension, if the
    /// chunk is this window's and the launch has that group: an element
    /// of the launch, which the slice covers.
    #[inline(always)]
    fn next_lanes_position<const W: usize>(
        &self,
        lanes: &crate::lowering::ItemLanes<W, D>,
    ) -> Option<usize> {
        let first = lanes.item(0);
        first.offset_in_group(self.tag, self.range, self.global_range)?;
        let next = lanes.in_next_group()?.item(0);
        Some(self.global_range.linearize(next.global_id()))
    }
}

/// Indexing with an item reaches the element of that item, which belongs
/// to the work group that made the item.
///
/// # Panics
/// For an item of another work group or launch, naming its global id and
/// the window.
impl<T, const D: usize> Index<SItem<D>> for ItemsWindow<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, item: SItem<D>) -> &T {
        let offset = self.item_offset(&item);
        // SAFETY: `group` points at `first` and `first + local` is inside
        // this group's window (checked above, or implied by the item's tag:
        // the runtime makes a work group's items only inside its range),
        // which the slice covers and no other group reaches.
        unsafe { &*self.group.add(offset) }
    }
}

impl<T, const D: usize> IndexMut<SItem<D>> for ItemsWindow<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, item: SItem<D>) -> &mut T {
        let offset = self.item_offset(&item);
        // SAFETY: as in `index`; `&mut self` makes the access unique.
        unsafe { &mut *self.group.add(offset) }
    }
}

impl<T> Index<usize> for ItemsWindow<'_, T, 1> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, global_id: usize) -> &T {
        &self[Id::new([global_id])]
    }
}

impl<T> IndexMut<usize> for ItemsWindow<'_, T, 1> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, global_id: usize) -> &mut T {
        &mut self[Id::new([global_id])]
    }
}

impl<T, const D: usize> fmt::Debug for ItemsWindow<'_, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemsWindow")
            .field("first", &self.first)
            .field("range", &self.range)
            .finish()
    }
}

impl<'a, T: Send, const D: usize> crate::launch::Sealed for ItemsMut<'a, T, D> {}

impl<'a, T: Send, const D: usize> LaunchArgs<D> for ItemsMut<'a, T, D> {
    type PerGroup = ItemsWindow<'a, T, D>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let needed = shape.global_range.size();
        if self.len < needed {
            return Err(LaunchError::OutputTooShort {
                position,
                view: "ItemsMut",
                len: self.len,
                needed,
                covers: format!("{} logical items", needed),
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
        ItemsWindow {
            base: self.ptr,
            // SAFETY: `first` is an item of the launch, which the slice
            // covers (`__check`), so the pointer stays inside it.
            group: unsafe { self.ptr.add(shape.global_range.linearize(first)) },
            global_range: shape.global_range,
            first,
            range: shape.group_size,
            tag,
            _borrow: PhantomData,
        }
    }
}

/// An output split into consecutive chunks of `per_group` elements, one
/// per work group in increasing group linear id: chunk `g` is elements
/// `g * per_group .. (g + 1) * per_group`. Each work group gets a
/// [`ChunkWindow`] over its chunk.
///
/// For one value per group (a group's sum, say) use `per_group = 1`.
pub struct ChunksMut<'a, T> {
    ptr: *mut T,
    len: usize,
    per_group: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T> ChunksMut<'a, T> {
    /// Wraps `data`, giving every work group `per_group` elements.
    #[must_use]
    pub fn new(data: &'a mut [T], per_group: usize) -> Self {
        Self {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            per_group,
            _borrow: PhantomData,
        }
    }
}

// SAFETY: as for `ItemsMut`: a `&mut [T]` split into disjoint chunks.
unsafe impl<T: Send> Sync for ChunksMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for ChunksMut<'_, T> {}

/// One work group's chunk of a [`ChunksMut`], indexed by position in the
/// whole slice.
///
/// # Panics
/// Indexing outside the chunk panics, naming the index and the chunk.
pub struct ChunkWindow<'a, T> {
    ptr: *mut T,
    start: usize,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a window is a unique borrow of its chunk.
unsafe impl<T: Send> Send for ChunkWindow<'_, T> {}
// SAFETY: shared access only reads the chunk.
unsafe impl<T: Sync> Sync for ChunkWindow<'_, T> {}

impl<T> ChunkWindow<'_, T> {
    /// Position of the chunk's first element in the whole slice.
    #[must_use]
    pub fn start(&self) -> usize {
        self.start
    }

    /// Number of elements in the chunk.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the chunk is empty (never: `per_group` is at least 1).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk as a slice; index 0 is element `start()` of the whole.
    #[must_use]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: the chunk's `len` elements lie in the slice (checked at
        // launch) and belong to this group alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// The chunk as a shared slice.
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: as in `as_mut_slice`, read-only.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Whether indexing at `index` stays in the chunk, without panicking:
    /// the check interchanged item loops fold over their lanes ahead of
    /// the writes.
    #[doc(hidden)]
    #[inline(always)]
    #[must_use]
    pub fn __index_fits(&self, index: usize) -> bool {
        index.wrapping_sub(self.start) < self.len
    }

    #[inline(always)]
    #[track_caller]
    fn offset(&self, index: usize) -> usize {
        let offset = index.wrapping_sub(self.start);
        if offset >= self.len {
            self.outside(index);
        }
        offset
    }

    /// Panics for `index` outside the chunk (fields passed by value, as
    /// for `ItemsWindow`).
    #[inline(always)]
    #[track_caller]
    fn outside(&self, index: usize) -> ! {
        chunk_outside(index, self.start, self.len)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn chunk_outside(index: usize, start: usize, len: usize) -> ! {
    panic!(
        "index {index} is outside this work group's chunk {start}..{} of ChunksMut",
        start + len
    )
}

#[cfg(test)]
impl<'a, T> ChunkWindow<'a, T> {
    /// A window over all of `data`, standing for the positions from
    /// `start` on of a whole slice.
    pub(crate) fn over(data: &'a mut [T], start: usize) -> Self {
        ChunkWindow {
            ptr: data.as_mut_ptr(),
            start,
            len: data.len(),
            _borrow: PhantomData,
        }
    }
}

impl<T> Index<usize> for ChunkWindow<'_, T> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: usize) -> &T {
        &self.as_slice()[self.offset(index)]
    }
}

impl<T> IndexMut<usize> for ChunkWindow<'_, T> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: usize) -> &mut T {
        let offset = self.offset(index);
        &mut self.as_mut_slice()[offset]
    }
}

impl<T> fmt::Debug for ChunkWindow<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChunkWindow({}..{})", self.start, self.start + self.len)
    }
}

impl<T: Send> crate::launch::Sealed for ChunksMut<'_, T> {}

impl<'a, T: Send, const D: usize> LaunchArgs<D> for ChunksMut<'a, T> {
    type PerGroup = ChunkWindow<'a, T>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let groups = shape.num_groups.size();
        if self.per_group == 0 {
            return Err(LaunchError::EmptyChunks { position });
        }
        let needed = groups.saturating_mul(self.per_group);
        if self.len < needed {
            return Err(LaunchError::OutputTooShort {
                position,
                view: "ChunksMut",
                len: self.len,
                needed,
                covers: format!("{groups} work groups of {} elements", self.per_group),
            });
        }
        Ok(())
    }

    #[inline(always)]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        _: GroupTag,
    ) -> Self::PerGroup {
        let start = shape.num_groups.linearize(group_id) * self.per_group;
        ChunkWindow {
            // SAFETY (of the caller's contract): `start + per_group <= len`
            // was checked by `__check`, so the pointer stays in the slice.
            ptr: unsafe { self.ptr.add(start) },
            start,
            len: self.per_group,
            _borrow: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowering::ItemLanes;

    #[test]
    fn the_next_groups_lanes_are_one_group_width_along_the_row() {
        // Groups of 2 × 8 items in a launch of 4 × 24; the window of the
        // group at global (2, 8), lanes from local (1, 4).
        let tags = crate::tag::LaunchTags::reserve(3).unwrap();
        let (group, launch) = (Range::new([2, 8]), Range::new([4, 24]));
        let mut data = vec![0.0f32; launch.size()];
        let base = data.as_mut_ptr();
        let window = |col0: usize, tag: GroupTag| ItemsWindow::<'_, f32, 2> {
            base,
            group: base.wrapping_add(2 * 24 + col0),
            global_range: launch,
            first: Id::new([2, col0]),
            range: group,
            tag,
            _borrow: PhantomData,
        };
        let lanes = |col0: usize, tag: GroupTag| {
            let (global, local) = (Id::new([3, col0 + 4]), Id::new([1, 4]));
            ItemLanes::<4, 2>::new(SItem::new(global, launch, local, group, local, tag), group)
        };
        let (this, other) = (tags.group(1), tags.group(2));
        // Row 3, column 8 + 8 + 4.
        assert_eq!(
            window(8, this).next_lanes_position(&lanes(8, this)),
            Some(3 * 24 + 20)
        );
        assert_eq!(
            window(0, this).next_lanes_position(&lanes(0, this)),
            Some(3 * 24 + 12)
        );
        // None after the row's last group, nor for another group's lanes.
        assert_eq!(window(16, this).next_lanes_position(&lanes(16, this)), None);
        assert_eq!(window(8, this).next_lanes_position(&lanes(8, other)), None);
        // The prefetch itself writes nothing.
        window(8, this).prefetch_next_lanes(&lanes(8, this));
        assert!(data.iter().all(|&x| x == 0.0));
    }
}
