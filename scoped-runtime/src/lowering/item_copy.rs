//! The copy behind `distribute_items!` bodies that stage a per-item input
//! in local memory, `local[lid] = input[idx]` (see the macros' `lower/item_copy.rs`).
//!
//! Done item by item, such a loop keeps the local array in memory: the
//! optimiser cannot tell the stack array from the input and vectorises it
//! with a run-time overlap check, after which later passes over the array
//! (the spec's tree reduction) index it through memory. A slice copy is
//! one `memcpy` that the optimiser splits into registers, as in a
//! hand-written kernel. The copy is taken only when it writes exactly what
//! the loop would: a one-dimensional work group, local memory that is an
//! array or a slice at least as long as the group (or the group's private
//! memory, `private[idx] = input[idx]`), and an input window
//! ([`ItemsRefWindow`] or [`ItemsWindow`]) over this group's items.
//! Anything else runs the loop, through one more auto-reference
//! ([`NoItemCopy`]), so the lowering never changes which programs compile.

use std::cell::Cell;

use crate::group::ScopedGroup;
use crate::inputs::ItemsRefWindow;
use crate::lowering::prefetch;
use crate::memory::PrivateMem;
use crate::memory_scope::MemoryScope;
use crate::outputs::ItemsWindow;
use crate::rules::check_collective;

/// The destination and the source of a copy body:
/// `(&ItemCopy::new(local.__item_copy_place(), &input)).__copy_items(&group)`
/// copies and returns `true` when [`CopyItems`] applies, and returns
/// `false` (the caller then runs the item loop) through [`NoItemCopy`].
pub struct ItemCopy<'d, 's, L: ?Sized, S: ?Sized> {
    /// Taken by the copy; a `Cell` because the dispatch needs `&self`.
    local: Cell<Option<&'d mut L>>,
    source: &'s S,
}

impl<'d, 's, L: ?Sized, S: ?Sized> ItemCopy<'d, 's, L, S> {
    /// The copy of `source`'s items into `local`.
    #[inline(always)]
    pub fn new(local: &'d mut L, source: &'s S) -> Self {
        Self {
            local: Cell::new(Some(local)),
            source,
        }
    }
}

/// Turns the place a body writes (`scratch`, a `&mut [T; N]` binding, or
/// `tile[row]`, an array reached through one) into a `&mut` of it with
/// method-call auto-(re)borrowing, which no single `&mut` expression does
/// for both.
pub trait ItemCopyPlace {
    /// The place itself.
    fn __item_copy_place(&mut self) -> &mut Self;
}

impl<X: ?Sized> ItemCopyPlace for X {
    #[inline(always)]
    fn __item_copy_place(&mut self) -> &mut Self {
        self
    }
}

/// Memory a copy can write: arrays and slices (indexed by local id, with
/// the standard library's indexing) and private memory (indexed by item).
pub trait LocalSlice {
    /// The element type.
    type Elem;
    /// The elements, in local id order, and for memory that holds one
    /// group's items, the global id of the first.
    fn local_slice(&mut self) -> (&mut [Self::Elem], Option<usize>);
}

impl<T, const N: usize> LocalSlice for [T; N] {
    type Elem = T;
    #[inline(always)]
    fn local_slice(&mut self) -> (&mut [T], Option<usize>) {
        (self, None)
    }
}

impl<T> LocalSlice for [T] {
    type Elem = T;
    #[inline(always)]
    fn local_slice(&mut self) -> (&mut [T], Option<usize>) {
        (self, None)
    }
}

impl<T: Copy> LocalSlice for PrivateMem<'_, T, 1> {
    type Elem = T;
    #[inline(always)]
    fn local_slice(&mut self) -> (&mut [T], Option<usize>) {
        let first = self.offset()[0];
        (self.as_mut_slice(), Some(first))
    }
}

/// Per-item input windows: the elements of the group's items, in item
/// order, and the global id of the first.
pub trait GroupItems {
    /// The element type.
    type Elem;
    /// The group's elements and the global id of its first item (1-D).
    fn group_items(&self) -> (&[Self::Elem], usize);
}

impl<T> GroupItems for ItemsRefWindow<'_, T, 1> {
    type Elem = T;
    #[inline(always)]
    fn group_items(&self) -> (&[T], usize) {
        (self.group_slice(), self.first()[0])
    }
}

impl<T> GroupItems for ItemsWindow<'_, T, 1> {
    type Elem = T;
    #[inline(always)]
    fn group_items(&self) -> (&[T], usize) {
        let items = self.as_slice();
        // Read here as an input (a read-write buffer, as in the spec's
        // reduction): fetch the next group's elements, as `ItemsRef`'s
        // windows do when they are made.
        prefetch::next_group(items.as_ptr(), items.len());
        (items, self.first()[0])
    }
}

/// The copy, for local arrays and slices filled from input windows.
pub trait CopyItems {
    /// Copies the items' elements of the source into local memory, in
    /// item order, if `group` is a one-dimensional work group whose items
    /// the source holds and the local memory has room for all; returns
    /// whether it did.
    fn __copy_items<G: ScopedGroup<D>, const D: usize>(&self, group: &G) -> bool;
}

impl<L, S> CopyItems for ItemCopy<'_, '_, L, S>
where
    L: LocalSlice + ?Sized,
    L::Elem: Copy,
    S: GroupItems<Elem = L::Elem> + ?Sized,
{
    #[inline(always)]
    #[track_caller]
    fn __copy_items<G: ScopedGroup<D>, const D: usize>(&self, group: &G) -> bool {
        if D != 1 || G::FENCE_SCOPE != MemoryScope::WorkGroup {
            return false;
        }
        let (items, first) = self.source.group_items();
        let count = group.logical_local_linear_range();
        if items.len() != count || first != group.__global_offset()[0] {
            return false;
        }
        let Some(local) = self.local.take() else {
            return false;
        };
        // Arrays and slices need room for every item; private memory must
        // be this group's own.
        let (local, owner) = local.local_slice();
        let fits = match owner {
            None => local.len() >= count,
            Some(owner) => owner == first && local.len() == count,
        };
        if !fits {
            return false;
        }
        check_collective(group.__nesting(), "distribute_items!");
        prefetch::touch_lines(items);
        local[..count].copy_from_slice(items);
        true
    }
}

/// Anything else: no copy, the item loop runs.
pub trait NoItemCopy {
    /// Returns `false`.
    fn __copy_items<G: ScopedGroup<D>, const D: usize>(&self, group: &G) -> bool;
}

impl<L: ?Sized, S: ?Sized> NoItemCopy for &ItemCopy<'_, '_, L, S> {
    #[inline(always)]
    fn __copy_items<G: ScopedGroup<D>, const D: usize>(&self, _group: &G) -> bool {
        false
    }
}
