//! The call behind the exclusive-atomic shortcut (the macros'
//! `lower/exclusive_atomic.rs`): `AtomicRef::new(&mut place, order,
//! scope).fetch_add(value)` as one expression, the way a GPU kernel
//! writes an atomic update of local memory.
//!
//! The `AtomicRef` made there lives only as long as the expression, and
//! `&mut place` is the one access to `place` for as long: no other access
//! can race with the update. With a relaxed order (no ordering of other
//! accesses to keep) the plain read-modify-write is then the atomic one,
//! with the same result (integers wrap, floats add as the
//! compare-exchange loop does). Any other order runs the atomic update.

use crate::atomic::{AtomicArithmetic, AtomicRef, MemoryOrder};
use crate::memory_scope::MemoryScope;

/// The plain arithmetic of an atomic type's `fetch_add` and `fetch_sub`.
pub trait ExclusiveArithmetic: AtomicArithmetic {
    /// `self + value` as `fetch_add` computes it.
    fn __plain_add(self, value: Self) -> Self;
    /// `self - value` as `fetch_sub` computes it.
    fn __plain_sub(self, value: Self) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),+) => {$(
        impl ExclusiveArithmetic for $t {
            #[inline(always)]
            fn __plain_add(self, value: Self) -> Self {
                self.wrapping_add(value)
            }
            #[inline(always)]
            fn __plain_sub(self, value: Self) -> Self {
                self.wrapping_sub(value)
            }
        }
    )+};
}

wrapping!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);

macro_rules! float {
    ($($t:ty),+) => {$(
        impl ExclusiveArithmetic for $t {
            #[inline(always)]
            fn __plain_add(self, value: Self) -> Self {
                self + value
            }
            #[inline(always)]
            fn __plain_sub(self, value: Self) -> Self {
                self - value
            }
        }
    )+};
}

float!(f32, f64);

/// What makes an `AtomicRef`: [`AtomicRef::new`], taken as an argument so
/// that the expression the shortcut replaces type-checks as written.
type NewRef<'a, T> = fn(&'a mut T, MemoryOrder, MemoryScope) -> AtomicRef<'a, T>;

/// `new(place, order, scope).fetch_add(value)`.
#[inline(always)]
pub fn exclusive_fetch_add<'a, T: ExclusiveArithmetic>(
    new: NewRef<'a, T>,
    place: &'a mut T,
    order: MemoryOrder,
    scope: MemoryScope,
    value: T,
) -> T {
    let atomic = |r: AtomicRef<'a, T>, v| r.fetch_add(v);
    update(new, place, order, scope, value, T::__plain_add, atomic)
}

/// `new(place, order, scope).fetch_sub(value)`.
#[inline(always)]
pub fn exclusive_fetch_sub<'a, T: ExclusiveArithmetic>(
    new: NewRef<'a, T>,
    place: &'a mut T,
    order: MemoryOrder,
    scope: MemoryScope,
    value: T,
) -> T {
    let atomic = |r: AtomicRef<'a, T>, v| r.fetch_sub(v);
    update(new, place, order, scope, value, T::__plain_sub, atomic)
}

/// `plain` on `place` if `order` is relaxed, otherwise `atomic` on an
/// `AtomicRef` to it; either returns the old value.
#[inline(always)]
fn update<'a, T: ExclusiveArithmetic>(
    new: NewRef<'a, T>,
    place: &'a mut T,
    order: MemoryOrder,
    scope: MemoryScope,
    value: T,
    plain: impl FnOnce(T, T) -> T,
    atomic: impl FnOnce(AtomicRef<'a, T>, T) -> T,
) -> T {
    if order == MemoryOrder::Relaxed {
        let old = *place;
        *place = plain(old, value);
        old
    } else {
        atomic(new(place, order, scope), value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_updates_return_and_store_what_the_atomic_ones_do() {
        for order in [MemoryOrder::Relaxed, MemoryOrder::SeqCst] {
            let (mut a, mut b) = (u8::MAX - 1, u8::MAX - 1);
            let plain =
                exclusive_fetch_add(AtomicRef::new, &mut a, order, MemoryScope::WorkGroup, 3);
            let atomic = AtomicRef::new(&mut b, order, MemoryScope::WorkGroup).fetch_add(3);
            assert_eq!((plain, a), (atomic, b), "{order:?}");
            let (mut a, mut b) = (i32::MIN, i32::MIN);
            let plain = exclusive_fetch_sub(AtomicRef::new, &mut a, order, MemoryScope::Device, 1);
            let atomic = AtomicRef::new(&mut b, order, MemoryScope::Device).fetch_sub(1);
            assert_eq!((plain, a), (atomic, b), "{order:?}");
            let (mut a, mut b) = (0.1f32, 0.1f32);
            let plain =
                exclusive_fetch_add(AtomicRef::new, &mut a, order, MemoryScope::Device, 0.2);
            let atomic = AtomicRef::new(&mut b, order, MemoryScope::Device).fetch_add(0.2);
            assert_eq!(
                (plain.to_bits(), a.to_bits()),
                (atomic.to_bits(), b.to_bits())
            );
            let (mut a, mut b) = (1.5f64, 1.5f64);
            let plain =
                exclusive_fetch_sub(AtomicRef::new, &mut a, order, MemoryScope::Device, 0.3);
            let atomic = AtomicRef::new(&mut b, order, MemoryScope::Device).fetch_sub(0.3);
            assert_eq!(
                (plain.to_bits(), a.to_bits()),
                (atomic.to_bits(), b.to_bits())
            );
        }
    }
}
