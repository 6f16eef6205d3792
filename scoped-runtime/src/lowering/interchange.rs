//! The loop behind the interchange shortcut: a `distribute_items!` whose
//! body is a loop with a trip count the same for every item, lowered with
//! the items innermost (the macros' `lower/interchange.rs`).
//!
//! The group hands out its items in chunks of `W` consecutive items along
//! the fastest dimension, as arrays; the generated chunk closure runs each
//! item's statements before the loop (one item after the other), then the
//! loop with the `W` items inside every iteration, then the statements
//! after it. Items that do not fill a chunk (the end of each row of the
//! group) run the plain body, one after the other. Each item still runs
//! its own statements in its own order.

use crate::barrier::group_barrier;
use crate::group::ScopedGroup;
use crate::group::DEFAULT_SUB_GROUP_SIZE;
use crate::item::SItem;
use crate::rules::{check_collective, ItemScope};

/// Items per chunk: the default sub-group size, the `f32` lanes of the
/// widest vector unit the target is compiled for.
pub const INTERCHANGE_LANES: usize = DEFAULT_SUB_GROUP_SIZE;

/// What the item closure of an interchanged `distribute_items!` runs for:
/// `W` items consecutive along the fastest dimension, in increasing linear
/// id, or one item alone. One closure takes both, so that it captures its
/// environment once.
pub enum ItemChunk<const W: usize, const D: usize> {
    /// A full chunk.
    Chunk([SItem<D>; W]),
    /// An item outside every full chunk.
    Item(SItem<D>),
}

/// Runs `f` once for every logical item of `group`, in chunks of `W`
/// where they fill one (`distribute_items`). Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(ItemChunk<W, D>),
) {
    check_collective("distribute_items!");
    let _scope = ItemScope::enter();
    group.__for_each_item_chunk(f);
}

/// [`distribute_items_interchanged`] followed by `group_barrier(group)`.
#[inline(always)]
#[track_caller]
pub fn distribute_items_interchanged_and_wait<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    f: impl FnMut(ItemChunk<W, D>),
) {
    distribute_items_interchanged(group, f);
    group_barrier(*group);
}

/// The lanes of a chunk, one array per binding: `[(A, B); W]` into
/// `([A; W], [B; W])`, so that each binding's lanes are consecutive (one
/// SIMD register) rather than interleaved. Tuples of up to 12 bindings.
pub trait Unzip {
    /// One array per binding.
    type Lanes;
    /// The arrays, lane `l` of each from element `l`.
    fn __unzip(self) -> Self::Lanes;
}

/// The inverse of [`Unzip`]: one tuple per lane, for the statements after
/// the loop.
pub trait Rezip {
    /// One tuple per lane.
    type Items;
    /// The tuples, element `l` from lane `l` of each array.
    fn __rezip(self) -> Self::Items;
}

impl<const W: usize> Unzip for [(); W] {
    type Lanes = ();
    #[inline(always)]
    fn __unzip(self) {}
}

/// Every slot of an array filled from an iterator of exactly its length.
#[inline(always)]
fn filled<T, const W: usize>(slots: [Option<T>; W]) -> [T; W] {
    slots.map(|slot| slot.expect("every lane of a chunk is filled"))
}

macro_rules! lane_tuples {
    ($($t:ident $v:ident),+) => {
        impl<$($t,)+ const W: usize> Unzip for [($($t,)+); W] {
            type Lanes = ($([$t; W],)+);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn __unzip(self) -> Self::Lanes {
                $(let mut $t: [Option<$t>; W] = [const { None }; W];)+
                for (lane, ($($v,)+)) in self.into_iter().enumerate() {
                    $($t[lane] = Some($v);)+
                }
                ($(filled($t),)+)
            }
        }

        impl<$($t,)+ const W: usize> Rezip for ($([$t; W],)+) {
            type Items = [($($t,)+); W];
            #[inline(always)]
            #[allow(non_snake_case)]
            fn __rezip(self) -> Self::Items {
                let ($($v,)+) = self;
                $(let mut $v = $v.into_iter();)+
                let mut items: [Option<($($t,)+)>; W] = [const { None }; W];
                for item in &mut items {
                    *item = Some(($($v.next().expect("every lane is filled"),)+));
                }
                filled(items)
            }
        }
    };
}

lane_tuples!(A a);
lane_tuples!(A a, B b);
lane_tuples!(A a, B b, C c);
lane_tuples!(A a, B b, C c, D d);
lane_tuples!(A a, B b, C c, D d, E e);
lane_tuples!(A a, B b, C c, D d, E e, F f);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g, H h);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g, H h, I i);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k);
lane_tuples!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unzip_and_rezip_are_inverse_and_keep_lane_order() {
        let items: [(u8, String, i64); 3] = [
            (1, "a".into(), -1),
            (2, "b".into(), -2),
            (3, "c".into(), -3),
        ];
        let (a, b, c) = items.clone().__unzip();
        assert_eq!(a, [1, 2, 3]);
        assert_eq!(b, ["a", "b", "c"]);
        assert_eq!(c, [-1, -2, -3]);
        assert_eq!((a, b, c).__rezip(), items);
        let one: [(f32,); 2] = [(0.5,), (1.5,)];
        assert_eq!(one.__unzip(), ([0.5, 1.5],));
    }
}
