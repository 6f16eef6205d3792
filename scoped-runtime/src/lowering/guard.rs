//! The loop behind the guard shortcut: `distribute_items!` whose body is
//! a guard `if lid < bound { ... }` on an innermost local id (the macros'
//! `lower/guard.rs`).

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};

/// `distribute_items!` whose body does nothing for the items at or above
/// a bound (`if lid < bound { ... }`, `lid` an innermost local id): runs
/// `f` for the items below `bound` in increasing linear id, and possibly
/// for others, which `f` skips itself. `dimension` is the dimension of
/// `lid`, `None` for the linear id; `bound` is `None` when it is not a
/// `usize` (see [`ItemBound`]), and then `f` runs for every item.
#[inline(always)]
#[track_caller]
pub fn distribute_items_below<G: ScopedGroup<D>, const D: usize>(
    group: &G,
    dimension: Option<usize>,
    bound: Option<usize>,
    f: impl FnMut(SItem<D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    match bound {
        Some(bound) => group.__for_each_item_below(dimension, bound, f),
        None => group.__for_each_item(f),
    }
}

/// The bound of a guard `lid < bound`, read once before the item loop:
/// `(&ItemBound(&bound)).__limit()` is `Some(bound)` when `bound` is a
/// `usize` ([`UsizeBound`]) and `None` for any other type ([`OtherBound`],
/// reached only through one more auto-reference), so that the lowering
/// never turns a guard that compiles into one that does not.
pub struct ItemBound<'a, T: ?Sized>(pub &'a T);

/// [`ItemBound`] of a `usize`.
pub trait UsizeBound {
    /// The bound.
    fn __limit(&self) -> Option<usize>;
}

impl UsizeBound for ItemBound<'_, usize> {
    #[inline(always)]
    fn __limit(&self) -> Option<usize> {
        Some(*self.0)
    }
}

/// [`ItemBound`] of any other type.
pub trait OtherBound {
    /// No bound the loop can use.
    fn __limit(&self) -> Option<usize>;
}

impl<T: ?Sized> OtherBound for &ItemBound<'_, T> {
    #[inline(always)]
    fn __limit(&self) -> Option<usize> {
        None
    }
}

/// A name or constant a guard's bound is made of:
/// `(&BoundLeaf(&leaf)).__plain()` is `true` for a primitive integer
/// ([`PlainLeaf`]), whose arithmetic and casts run no code of the user's,
/// and `false` for any other type ([`OtherLeaf`]), whose operators (`Add`,
/// `Deref`, ...) may have effects: then the bound is not read once before
/// the loop, and every item evaluates its own guard.
pub struct BoundLeaf<'a, T: ?Sized>(pub &'a T);

/// [`BoundLeaf`] of a primitive integer.
pub trait PlainLeaf {
    /// Always `true`.
    fn __plain(&self) -> bool;
}

macro_rules! plain_leaves {
    ($($ty:ty),*) => {$(
        impl PlainLeaf for BoundLeaf<'_, $ty> {
            #[inline(always)]
            fn __plain(&self) -> bool {
                true
            }
        }
    )*};
}

plain_leaves!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// [`BoundLeaf`] of any other type.
pub trait OtherLeaf {
    /// Always `false`.
    fn __plain(&self) -> bool;
}

impl<T: ?Sized> OtherLeaf for &BoundLeaf<'_, T> {
    #[inline(always)]
    fn __plain(&self) -> bool {
        false
    }
}
