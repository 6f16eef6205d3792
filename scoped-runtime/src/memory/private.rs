//! Private memory of logical items: `require_private_mem::<T>()`.

use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ops::{Index, IndexMut};

use bytemuck::Zeroable;

use super::heap::{Block, ALIGN};
use crate::group::ScopedGroup;
use crate::id::{Id, Range};
use crate::item::SItem;
use crate::memory_scope::MemoryScope;
use crate::tag::GroupTag;

/// One `T` for every logical item of the group the memory environment was
/// made on (the spec's private memory wrapper, `s_private_memory`).
///
/// Index it with the [`SItem`] of a logical item inside `distribute_items!`
/// (`mem[idx]`, the spec's `mem(idx)`); values persist across
/// `distribute_items!` calls of the same environment. Group algorithms
/// read it whole through [`as_slice`](Self::as_slice), in increasing local
/// linear id.
///
/// The values live on the stack of the thread that runs the group when
/// they fit in [`PRIVATE_STACK_BYTES`] (4 KiB: 1024 `f32`), and otherwise in
/// a heap block of their own, allocated when the environment starts and
/// freed when it ends: a fresh allocation is memory the optimiser knows no
/// input or output can overlap, as it knows of the stack. `'a` is the
/// borrow of the environment's stack room: the wrapper cannot outlive its
/// environment.
pub struct PrivateMem<'a, T: Copy, const D: usize> {
    /// The heap block, when the values did not fit on the stack; freed
    /// with the wrapper.
    _block: Option<Block>,
    data: *mut T,
    offset: Id<D>,
    /// Id of the group's first item relative to its work group.
    first: Id<D>,
    range: Range<D>,
    len: usize,
    /// The work group the memory belongs to.
    tag: GroupTag,
    /// Whether the memory's group is the whole work group: its tag then
    /// says all (see [`position`](Self::position)).
    whole_work_group: bool,
    _storage: PhantomData<&'a mut PrivateStorage>,
    _not_send: PhantomData<*const T>,
}

/// Bytes of private memory a request keeps on the stack; larger requests
/// allocate a heap block per environment.
pub const PRIVATE_STACK_BYTES: usize = 4096;

/// Stack room for one private memory request, made by `memory_environment!`
/// next to the [`PrivateMem`] that borrows it. On the stack, the optimiser
/// knows the values cannot alias global memory, so item loops that copy
/// between the two vectorise without run-time overlap checks.
#[doc(hidden)]
#[repr(C, align(64))]
pub struct PrivateStorage(MaybeUninit<[u8; PRIVATE_STACK_BYTES]>);

impl PrivateStorage {
    /// Uninitialised room; `PrivateMem` initialises what it uses.
    #[inline(always)]
    #[must_use]
    pub const fn new() -> Self {
        Self(MaybeUninit::uninit())
    }
}

impl Default for PrivateStorage {
    #[inline(always)]
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, T: Copy, const D: usize> PrivateMem<'a, T, D> {
    // Inlined, so that the optimiser sees the fields it stores and can
    // prove the index checks of the item loops that follow.
    #[inline(always)]
    fn new<G: ScopedGroup<D>>(
        group: &G,
        storage: &'a mut PrivateStorage,
        init: impl Fn(*mut T, usize),
    ) -> Self {
        const {
            assert!(
                std::mem::align_of::<T>() <= ALIGN,
                "private memory type over-aligned"
            )
        };
        let range = group.logical_local_range();
        let len = range.size();
        let size = std::mem::size_of::<T>();
        let bytes = len.checked_mul(size).unwrap_or_else(|| {
            panic!("private memory of {len} items of {size} bytes overflows usize")
        });
        let (block, data) = if bytes <= PRIVATE_STACK_BYTES {
            // The storage has the heap blocks' alignment, which `T` fits
            // (asserted above).
            const { assert!(std::mem::align_of::<PrivateStorage>() == ALIGN) };
            (None, storage.0.as_mut_ptr().cast::<T>())
        } else {
            let block = Block::new(bytes);
            let data = block.as_ptr().cast::<T>();
            (Some(block), data)
        };
        init(data, len);
        Self {
            _block: block,
            data,
            offset: group.__global_offset(),
            first: group.__work_group_local_offset(),
            range,
            len,
            tag: group.__tag(),
            whole_work_group: G::FENCE_SCOPE == MemoryScope::WorkGroup,
            _storage: PhantomData,
            _not_send: PhantomData,
        }
    }

    /// Number of logical items (and values).
    #[inline(always)]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the group has no items (never the case for a launched group).
    #[inline(always)]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Logical range of the group the memory belongs to.
    #[inline(always)]
    #[must_use]
    pub fn range(&self) -> Range<D> {
        self.range
    }

    /// Global id of the first item of the group the memory belongs to
    /// (group algorithms check that the memory holds their group's items).
    #[inline(always)]
    pub(crate) fn offset(&self) -> Id<D> {
        self.offset
    }

    /// All values, in increasing local linear id of their items.
    #[inline(always)]
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `data` points to `len` initialised `T`s, in `block` (owned
        // by `self`) or in the storage `self` borrows uniquely for `'a`; the
        // shared borrow of `self` keeps them unchanged.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    /// All values, mutably, in increasing local linear id of their items.
    #[inline(always)]
    #[must_use]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; the unique borrow of `self` makes this
        // the only access.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }

    /// Position of `item` in the buffer, found from the item's id in its
    /// work group: in a `distribute_items!` loop over the memory's group
    /// the check is one the optimiser can prove, so it costs nothing.
    ///
    /// # Panics
    /// If `item` does not belong to the group (of this launch), naming its
    /// global id and the group's items.
    #[inline(always)]
    #[track_caller]
    fn position(&self, item: &SItem<D>) -> usize {
        let in_work_group = item.work_group_local_id();
        let mut local = Id::zero();
        for d in 0..D {
            local[d] = in_work_group[d].wrapping_sub(self.first[d]);
        }
        // The tags are fixed before an item loop: the compare leaves it.
        // Every item the runtime makes for the work group tagged `tag` has
        // its id in the work group's range, so memory of the whole work
        // group (`first` 0, `range` the work group's) needs no range check
        // in release builds. The optimiser did not always prove that check
        // (sub-group item loops inside a loop of the user's, next to the
        // nesting-rule counter's thread-local stores): it was a branch per
        // lane, and the lanes no longer shared SIMD instructions.
        let check_range = !self.whole_work_group || cfg!(debug_assertions);
        if item.tag() != self.tag || (check_range && !self.range.contains(local)) {
            foreign_item(item.global_id(), self.offset, self.range);
        }
        self.range.linearize(local)
    }

    /// The value of `item` (see [`position`](Self::position)).
    #[inline(always)]
    #[track_caller]
    fn at(&self, item: &SItem<D>) -> &T {
        let position = self.position(item);
        // SAFETY: `position` linearises an id inside `range` (checked in
        // `position`, or, for memory of a whole work group, implied by the
        // item's tag: the runtime makes items of a work group only inside
        // its range), so it is below `range.size() == len`, and `data`
        // holds `len` initialised values that only `self` reaches.
        unsafe { &*self.data.add(position) }
    }

    /// The value of `item`, mutably.
    #[inline(always)]
    #[track_caller]
    fn at_mut(&mut self, item: &SItem<D>) -> &mut T {
        let position = self.position(item);
        // SAFETY: as in `at`; `&mut self` makes the access unique.
        unsafe { &mut *self.data.add(position) }
    }
}

/// Panics for an item outside the memory's group. Takes values, not
/// `&PrivateMem`: a reference passed to a call would make the optimiser
/// reload the memory's fields after every store of the item loop.
#[cold]
#[inline(never)]
#[track_caller]
fn foreign_item<const D: usize>(global: Id<D>, offset: Id<D>, range: Range<D>) -> ! {
    panic!(
        "private memory: the item with global id {global} is not one of the items of the group \
         whose items start at global id {offset} with range {range} (in this launch)"
    )
}

impl<T: Copy, const D: usize> Index<SItem<D>> for PrivateMem<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, item: SItem<D>) -> &T {
        self.at(&item)
    }
}

impl<T: Copy, const D: usize> IndexMut<SItem<D>> for PrivateMem<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, item: SItem<D>) -> &mut T {
        self.at_mut(&item)
    }
}

impl<T: Copy, const D: usize> Index<&SItem<D>> for PrivateMem<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, item: &SItem<D>) -> &T {
        self.at(item)
    }
}

impl<T: Copy, const D: usize> IndexMut<&SItem<D>> for PrivateMem<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, item: &SItem<D>) -> &mut T {
        self.at_mut(item)
    }
}

impl<T: Copy + fmt::Debug, const D: usize> fmt::Debug for PrivateMem<'_, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateMem")
            .field("range", &self.range)
            .field("values", &self.as_slice())
            .finish()
    }
}

/// `require_private_mem::<T>()`: private memory without an initial value,
/// zero-filled (Rust cannot hand out uninitialised memory safely).
#[inline(always)]
#[must_use]
pub fn private_mem_zeroed<'a, T: Copy + Zeroable, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    storage: &'a mut PrivateStorage,
) -> PrivateMem<'a, T, D> {
    PrivateMem::new(group, storage, |data: *mut T, len| {
        // SAFETY: `data` is the start of room for at least `len` `T`s
        // (stack storage or a heap block), aligned for `T`; all-zero bytes
        // are a valid `T` (`Zeroable`).
        unsafe { std::ptr::write_bytes(data, 0, len) }
    })
}

/// `require_private_mem::<T>(init)`: every item's value starts as `init`.
#[inline(always)]
#[must_use]
pub fn private_mem_filled<'a, T: Copy, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    storage: &'a mut PrivateStorage,
    init: T,
) -> PrivateMem<'a, T, D> {
    PrivateMem::new(group, storage, |data: *mut T, len| {
        for i in 0..len {
            // SAFETY: `i < len` and the room (stack storage or a heap block)
            // holds at least `len` `T`s, aligned for `T`; `T: Copy`, so
            // nothing is dropped or leaked.
            unsafe { data.add(i).write(init) }
        }
    })
}
