//! The index behind `window[gid]` in a `distribute_items!` body, `window`
//! an [`ItemsWindow`] or [`ItemsRefWindow`] parameter and `gid` the
//! item's global id (`idx.global_linear_id()`, `idx.global_id_dim(0)`,
//! `idx.global_id()`): SYCL's `acc[item.get_global_id()]` (see the
//! macros' `lower/global_id.rs`).
//!
//! Indexed by a global id, a window checks the id against its range, a
//! check the optimiser cannot prove from the item loop (the window's range
//! and the group's are different values to it), whose panic keeps the
//! loop scalar: the spec's reduction ran at half the speed of the same
//! kernel indexing by item. The lowering writes
//! `window[GlobalIdOf::new(idx, gid)]` instead, which reaches the element
//! by the item, as `window[idx]` does (a tag compare that folds away in
//! the loop), where `gid` is that item's global id and the item is the
//! window's group's, and indexes by `gid` as written otherwise: the same
//! element and the same panics, always.

use std::ops::{Index, IndexMut};

use crate::id::Id;
use crate::inputs::ItemsRefWindow;
use crate::item::SItem;
use crate::outputs::ItemsWindow;

/// An item and an index the kernel wrote for it: a global linear id
/// (`usize`, one-dimensional launches) or a global id ([`Id`]).
#[derive(Clone, Copy)]
pub struct GlobalIdOf<I, const D: usize> {
    item: SItem<D>,
    index: I,
}

impl<I: GlobalIndex<D>, const D: usize> GlobalIdOf<I, D> {
    /// `index`, written in the item loop of `item`.
    #[inline(always)]
    pub fn new(item: SItem<D>, index: I) -> Self {
        Self { item, index }
    }

    /// Whether `index` is the item's own global id.
    #[inline(always)]
    fn names_item(&self) -> bool {
        self.index.is_global_id_of(&self.item)
    }
}

/// The index types a window takes by global id.
pub trait GlobalIndex<const D: usize>: Copy {
    /// Whether `self` is `item`'s global id.
    fn is_global_id_of(&self, item: &SItem<D>) -> bool;
}

impl GlobalIndex<1> for usize {
    #[inline(always)]
    fn is_global_id_of(&self, item: &SItem<1>) -> bool {
        *self == item.global_id()[0]
    }
}

impl<const D: usize> GlobalIndex<D> for Id<D> {
    #[inline(always)]
    fn is_global_id_of(&self, item: &SItem<D>) -> bool {
        *self == item.global_id()
    }
}

/// `Index` by `GlobalIdOf`: `self[at.index]`, reached by the item where
/// they are one element.
///
/// # Panics
/// Where `self[at.index]` panics, with its message.
macro_rules! index_by_global_id {
    ($window:ident, [$($generics:tt)*], $index:ty, $dims:tt) => {
        impl<$($generics)*> Index<GlobalIdOf<$index, $dims>> for $window<'_, T, $dims> {
            type Output = T;

            #[inline(always)]
            #[track_caller]
            fn index(&self, at: GlobalIdOf<$index, $dims>) -> &T {
                if at.names_item() && self.owns(&at.item) {
                    &self[at.item]
                } else {
                    &self[at.index]
                }
            }
        }
    };
}

/// `IndexMut` by `GlobalIdOf`, as `Index`.
macro_rules! index_mut_by_global_id {
    ($window:ident, [$($generics:tt)*], $index:ty, $dims:tt) => {
        impl<$($generics)*> IndexMut<GlobalIdOf<$index, $dims>> for $window<'_, T, $dims> {
            #[inline(always)]
            #[track_caller]
            fn index_mut(&mut self, at: GlobalIdOf<$index, $dims>) -> &mut T {
                if at.names_item() && self.owns(&at.item) {
                    &mut self[at.item]
                } else {
                    &mut self[at.index]
                }
            }
        }
    };
}

index_by_global_id!(ItemsWindow, [T], usize, 1);
index_by_global_id!(ItemsWindow, [T, const D: usize], Id<D>, D);
index_mut_by_global_id!(ItemsWindow, [T], usize, 1);
index_mut_by_global_id!(ItemsWindow, [T, const D: usize], Id<D>, D);
index_by_global_id!(ItemsRefWindow, [T], usize, 1);
index_by_global_id!(ItemsRefWindow, [T, const D: usize], Id<D>, D);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ItemsMut, ItemsRef, Queue};

    /// Every group's items read their element through `GlobalIdOf` with
    /// their own global id, and with another group's; both reach what
    /// indexing by that id reaches.
    #[test]
    fn reaches_the_element_of_the_index_written() {
        let input: Vec<i64> = (0..96).map(|i| i * 7 - 3).collect();
        let mut own = vec![0i64; 96];
        Queue::with_threads(2)
            .unwrap()
            .parallel_with(
                3,
                32,
                (ItemsRef::new(&input), ItemsMut::new(&mut own)),
                |group: crate::WorkGroup<1>, (input, mut own)| {
                    crate::lowering::distribute::distribute_items(&group, |idx| {
                        let gid = idx.global_id()[0];
                        own[GlobalIdOf::new(idx, gid)] = input[GlobalIdOf::new(idx, gid)]
                            + input[GlobalIdOf::new(idx, idx.global_id())];
                        // Not the item's id: read as written, of any group.
                        let other = (gid + 40) % 96;
                        own[GlobalIdOf::new(idx, gid)] += 1000 * input[GlobalIdOf::new(idx, other)];
                    });
                },
            )
            .unwrap();
        let expected: Vec<i64> = (0..96)
            .map(|g| 2 * input[g] + 1000 * input[(g + 40) % 96])
            .collect();
        assert_eq!(own, expected);
    }

    /// An index outside the window panics as indexing by it does.
    #[test]
    #[should_panic(expected = "is outside this work group's window of ItemsMut")]
    fn another_groups_id_panics_as_written() {
        let mut out = vec![0u8; 64];
        Queue::with_threads(1)
            .unwrap()
            .parallel_with(
                2,
                32,
                ItemsMut::new(&mut out),
                |group: crate::WorkGroup<1>, mut window| {
                    crate::lowering::distribute::distribute_items(&group, |idx| {
                        window[GlobalIdOf::new(idx, (idx.global_id()[0] + 40) % 64)] = 1;
                    });
                },
            )
            .unwrap();
    }
}
