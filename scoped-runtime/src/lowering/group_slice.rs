//! The slices behind `distribute_items!` bodies that read a shared-slice
//! kernel parameter at the item's global id, `input[idx.global_linear_id()]`
//! (see the macros' `lower/group_slice.rs`): SYCL's accessor, ported as a
//! slice.
//!
//! Indexed item by item, every read checks the global id against the
//! slice's length, a check whose panic keeps the item loop scalar. The
//! lowering instead takes, once per item loop, the part of the slice that
//! the group's items read ([`GroupSlice`]); where it covers every item the
//! loop runs a copy of itself in which each read is provably inside that
//! part, so the check folds away and the loop vectorises. Each read still
//! computes exactly `input[index]`, with the same panic for an index out of
//! bounds, so a group that reaches past the slice (a launch rounded up to
//! whole groups, guarded by `if gid < n`) runs as written.

use super::distribute::distribute_items;
use crate::group::ScopedGroup;
use crate::item::SItem;

/// A shared slice read by global linear id in one item loop, with the
/// part its group's items read.
#[derive(Clone, Copy)]
pub struct GroupSlice<'a, T> {
    data: &'a [T],
    /// Global linear id of the group's first item.
    first: usize,
    /// `data[first..][..count]` when the slice holds every item of a
    /// one-dimensional group, else empty.
    items: &'a [T],
}

impl<'a, T> GroupSlice<'a, T> {
    /// `data`, read by the items of `group`.
    #[inline(always)]
    pub fn new<G: ScopedGroup<D>, const D: usize>(data: &'a [T], group: &G) -> Self {
        let first = group.__global_offset()[0];
        let count = group.logical_local_linear_range();
        // Beyond one dimension a group's items are not one run of linear ids.
        let items = if D == 1 {
            data.get(first..).and_then(|rest| rest.get(..count))
        } else {
            None
        };
        Self {
            data,
            first,
            items: items.unwrap_or(&[]),
        }
    }

    /// Whether the slice holds an element for every item of `group`, the
    /// group it was made for.
    #[inline(always)]
    pub fn covers<G: ScopedGroup<D>, const D: usize>(&self, group: &G) -> bool {
        self.items.len() == group.logical_local_linear_range()
    }

    /// `data[index]`: through the group's part when `index` is one of its
    /// items, which the optimiser can prove in the covered loop.
    ///
    /// # Panics
    /// If `index` is out of bounds, with the standard library's message.
    #[inline(always)]
    #[track_caller]
    pub fn at(&self, index: usize) -> &'a T {
        let local = index.wrapping_sub(self.first);
        if local < self.items.len() {
            return &self.items[local];
        }
        match self.data.get(index) {
            Some(element) => element,
            None => out_of_bounds(index, self.data.len()),
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(index: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {index}")
}

/// `distribute_items!` whose body reads [`GroupSlice`]s: the item loop,
/// in a copy of its own where `covered` (every slice covers the group), so
/// that the optimiser knows it there.
#[inline(always)]
#[track_caller]
pub fn distribute_items_sliced<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    covered: bool,
    mut f: impl FnMut(SItem<D>),
) {
    if covered {
        // Not `&mut f`: the standard library's shim for it, called from
        // both loops, stayed out of line, one call per item.
        #[allow(clippy::redundant_closure)]
        distribute_items(
            group,
            #[inline(always)]
            |item| f(item),
        );
    } else {
        distribute_items(group, f);
    }
}
