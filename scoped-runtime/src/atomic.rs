//! `AtomicView` and `AtomicRef`: SYCL 2020 `atomic_ref` (section 4.15.3)
//! over plain global memory, for scatter-style updates from many groups.
//!
//! A view borrows a `&mut [T]` for its whole life and reaches its elements
//! only through atomic operations, so any number of work groups may update
//! any element at once. Memory that is atomic already (`&[AtomicU32]`) can
//! be passed to kernels directly; a view is for data that is plain `[T]`
//! before and after the launch.

use std::fmt;
use std::mem::{align_of, size_of};
use std::sync::atomic::{self, Ordering};

use crate::memory_scope::MemoryScope;

/// The ordering an atomic operation imposes on the memory accesses around
/// it (SYCL 2020 `sycl::memory_order`, section 3.8.3.1; C++ `memory_order`).
///
/// An [`AtomicRef`] has one order; each operation uses the part of it that
/// applies ([`read_order`](Self::read_order) for loads and the failure of a
/// compare-exchange, [`write_order`](Self::write_order) for stores, the
/// order itself for read-modify-write operations), as SYCL's
/// `default_read_order` and `default_write_order` do. So no order is
/// invalid for any operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    /// Atomicity only, no ordering of other accesses.
    Relaxed,
    /// Later accesses stay after this read.
    Acquire,
    /// Earlier accesses stay before this write.
    Release,
    /// Acquire for the read, release for the write.
    AcqRel,
    /// Acquire-release, and one total order of all `SeqCst` operations.
    SeqCst,
}

impl MemoryOrder {
    /// The order a load uses: `AcqRel` reads as `Acquire`, `Release` as
    /// `Relaxed` (SYCL `memory_order_traits::read_order`).
    #[must_use]
    pub const fn read_order(self) -> MemoryOrder {
        match self {
            MemoryOrder::Release => MemoryOrder::Relaxed,
            MemoryOrder::AcqRel => MemoryOrder::Acquire,
            other => other,
        }
    }

    /// The order a store uses: `AcqRel` writes as `Release`, `Acquire` as
    /// `Relaxed` (SYCL `memory_order_traits::write_order`).
    #[must_use]
    pub const fn write_order(self) -> MemoryOrder {
        match self {
            MemoryOrder::Acquire => MemoryOrder::Relaxed,
            MemoryOrder::AcqRel => MemoryOrder::Release,
            other => other,
        }
    }
}

impl From<MemoryOrder> for Ordering {
    fn from(order: MemoryOrder) -> Ordering {
        match order {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Acquire => Ordering::Acquire,
            MemoryOrder::Release => Ordering::Release,
            MemoryOrder::AcqRel => Ordering::AcqRel,
            MemoryOrder::SeqCst => Ordering::SeqCst,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type an [`AtomicRef`] can reach: `i8`…`i64`, `u8`…`u64`, `isize`,
/// `usize`, `f32`, `f64`, where the target has atomics of that width.
/// Sealed.
pub trait AtomicElement: Copy + Send + Sync + sealed::Sealed {
    /// The std atomic of the same size and bit validity (`AtomicU32` for
    /// `u32` and `f32`).
    #[doc(hidden)]
    type __Atomic: Sync;
    #[doc(hidden)]
    fn __load(atomic: &Self::__Atomic, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __store(atomic: &Self::__Atomic, value: Self, order: Ordering);
    #[doc(hidden)]
    fn __swap(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __compare_exchange(
        atomic: &Self::__Atomic,
        weak: bool,
        current: Self,
        new: Self,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self, Self>;
}

/// An [`AtomicElement`] with `fetch_add`, `fetch_sub`, `fetch_min` and
/// `fetch_max`: the integers (wrapping on overflow) and the floats (a
/// compare-exchange loop). Sealed.
pub trait AtomicArithmetic: AtomicElement {
    #[doc(hidden)]
    fn __fetch_add(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __fetch_sub(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __fetch_min(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __fetch_max(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
}

/// An [`AtomicArithmetic`] with `fetch_and`, `fetch_or` and `fetch_xor`:
/// the integers. Sealed.
pub trait AtomicBitwise: AtomicArithmetic {
    #[doc(hidden)]
    fn __fetch_and(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __fetch_or(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    fn __fetch_xor(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self;
}

macro_rules! atomic_integer {
    ($($width:literal: $t:ty => $atomic:ident),* $(,)?) => {$(
        #[cfg(target_has_atomic = $width)]
        impl sealed::Sealed for $t {}

        #[cfg(target_has_atomic = $width)]
        impl AtomicElement for $t {
            type __Atomic = atomic::$atomic;
            #[inline(always)]
            fn __load(atomic: &Self::__Atomic, order: Ordering) -> Self {
                atomic.load(order)
            }
            #[inline(always)]
            fn __store(atomic: &Self::__Atomic, value: Self, order: Ordering) {
                atomic.store(value, order);
            }
            #[inline(always)]
            fn __swap(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.swap(value, order)
            }
            #[inline(always)]
            fn __compare_exchange(
                atomic: &Self::__Atomic,
                weak: bool,
                current: Self,
                new: Self,
                success: Ordering,
                failure: Ordering,
            ) -> Result<Self, Self> {
                if weak {
                    atomic.compare_exchange_weak(current, new, success, failure)
                } else {
                    atomic.compare_exchange(current, new, success, failure)
                }
            }
        }

        #[cfg(target_has_atomic = $width)]
        impl AtomicArithmetic for $t {
            #[inline(always)]
            fn __fetch_add(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_add(value, order)
            }
            #[inline(always)]
            fn __fetch_sub(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_sub(value, order)
            }
            #[inline(always)]
            fn __fetch_min(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_min(value, order)
            }
            #[inline(always)]
            fn __fetch_max(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_max(value, order)
            }
        }

        #[cfg(target_has_atomic = $width)]
        impl AtomicBitwise for $t {
            #[inline(always)]
            fn __fetch_and(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_and(value, order)
            }
            #[inline(always)]
            fn __fetch_or(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_or(value, order)
            }
            #[inline(always)]
            fn __fetch_xor(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                atomic.fetch_xor(value, order)
            }
        }
    )*};
}

atomic_integer! {
    "8": i8 => AtomicI8, "8": u8 => AtomicU8,
    "16": i16 => AtomicI16, "16": u16 => AtomicU16,
    "32": i32 => AtomicI32, "32": u32 => AtomicU32,
    "64": i64 => AtomicI64, "64": u64 => AtomicU64,
    "ptr": isize => AtomicIsize, "ptr": usize => AtomicUsize,
}

macro_rules! atomic_float {
    ($($width:literal: $t:ty => $atomic:ident),* $(,)?) => {$(
        #[cfg(target_has_atomic = $width)]
        impl sealed::Sealed for $t {}

        #[cfg(target_has_atomic = $width)]
        impl AtomicElement for $t {
            type __Atomic = atomic::$atomic;
            #[inline(always)]
            fn __load(atomic: &Self::__Atomic, order: Ordering) -> Self {
                <$t>::from_bits(atomic.load(order))
            }
            #[inline(always)]
            fn __store(atomic: &Self::__Atomic, value: Self, order: Ordering) {
                atomic.store(value.to_bits(), order);
            }
            #[inline(always)]
            fn __swap(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                <$t>::from_bits(atomic.swap(value.to_bits(), order))
            }
            /// Compares bit patterns, as C++ does: `-0.0` differs from
            /// `0.0`, and a NaN equals the same NaN.
            #[inline(always)]
            fn __compare_exchange(
                atomic: &Self::__Atomic,
                weak: bool,
                current: Self,
                new: Self,
                success: Ordering,
                failure: Ordering,
            ) -> Result<Self, Self> {
                let (current, new) = (current.to_bits(), new.to_bits());
                let result = if weak {
                    atomic.compare_exchange_weak(current, new, success, failure)
                } else {
                    atomic.compare_exchange(current, new, success, failure)
                };
                result.map(<$t>::from_bits).map_err(<$t>::from_bits)
            }
        }

        #[cfg(target_has_atomic = $width)]
        impl AtomicArithmetic for $t {
            #[inline(always)]
            fn __fetch_add(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                update(atomic, order, |old: $t| old + value)
            }
            #[inline(always)]
            fn __fetch_sub(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                update(atomic, order, |old: $t| old - value)
            }
            /// C++'s `std::min(old, value)`: `value` replaces `old` only if
            /// it compares less, so a NaN operand changes nothing.
            #[inline(always)]
            fn __fetch_min(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                update(atomic, order, |old: $t| if value < old { value } else { old })
            }
            #[inline(always)]
            fn __fetch_max(atomic: &Self::__Atomic, value: Self, order: Ordering) -> Self {
                update(atomic, order, |old: $t| if value > old { value } else { old })
            }
        }
    )*};
}

atomic_float! { "32": f32 => AtomicU32, "64": f64 => AtomicU64 }

/// Replaces the float behind `atomic` by `f(old)` with a compare-exchange
/// loop and returns `old`; the loop's loads use `order`'s read part.
#[inline(always)]
fn update<T: AtomicElement>(atomic: &T::__Atomic, order: Ordering, f: impl Fn(T) -> T) -> T {
    let failure = read_part(order);
    let mut old = T::__load(atomic, failure);
    loop {
        match T::__compare_exchange(atomic, true, old, f(old), order, failure) {
            Ok(previous) => return previous,
            Err(current) => old = current,
        }
    }
}

fn read_part(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// Views `data` as its atomics, for the life of the borrow.
fn as_atomics<T: AtomicElement>(data: &mut [T]) -> &[T::__Atomic] {
    const {
        assert!(size_of::<T>() == size_of::<T::__Atomic>());
        assert!(align_of::<T>() >= align_of::<T::__Atomic>());
    }
    // SAFETY: `T::__Atomic` is the std atomic with the same size as `T`
    // (asserted above), and std guarantees it has the same bit validity as
    // the integer of that size, whose bit patterns are exactly `T`'s (the
    // integer itself, or a float's bits); `T`'s alignment is at least the
    // atomic's (asserted), so every element is a valid, aligned atomic.
    // The unique borrow of `data` is held for the returned lifetime, so
    // every access to the elements meanwhile goes through the atomics.
    unsafe { std::slice::from_raw_parts(data.as_mut_ptr().cast::<T::__Atomic>(), data.len()) }
}

/// A slice of plain values reached through atomic operations: SYCL 2020's
/// `atomic_ref` for every element at once (section 4.15.3). Copy it into
/// every work group; each group takes [`AtomicRef`]s with
/// [`at`](Self::at).
///
/// The view borrows the slice mutably for its whole life, so nothing else
/// reads or writes the elements meanwhile; when the view is gone (after
/// the launch) the slice holds the updated values.
///
/// # Examples
/// A 4-bin histogram written by 8 groups at once:
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn histogram(group: WorkGroup<1>, input: ItemsRefWindow<'_, u8>, bins: AtomicView<'_, u32>) {
///     distribute_items!(group, |idx| {
///         bins.at(usize::from(input[idx] % 4)).fetch_add(1);
///     });
/// }
///
/// let input: Vec<u8> = (0..=255).collect();
/// let mut counts = [0u32; 4];
/// let bins = AtomicView::new(&mut counts, MemoryOrder::Relaxed, MemoryScope::Device);
/// Queue::new()
///     .parallel_with(8, 32, ItemsRef::new(&input), |g, input| histogram(g, input, bins))
///     .unwrap();
/// assert_eq!(counts, [64; 4]);
/// ```
pub struct AtomicView<'a, T: AtomicElement> {
    atomics: &'a [T::__Atomic],
    order: MemoryOrder,
    scope: MemoryScope,
}

impl<'a, T: AtomicElement> AtomicView<'a, T> {
    /// Views `data` atomically; its [`AtomicRef`]s use `order` and `scope`
    /// unless told otherwise (SYCL's `DefaultOrder` and `DefaultScope`).
    #[must_use]
    pub fn new(data: &'a mut [T], order: MemoryOrder, scope: MemoryScope) -> Self {
        Self {
            atomics: as_atomics(data),
            order,
            scope,
        }
    }

    /// The atomic reference to element `index`.
    ///
    /// # Panics
    /// If `index >= self.len()`, naming both.
    #[inline(always)]
    #[track_caller]
    #[must_use]
    pub fn at(&self, index: usize) -> AtomicRef<'a, T> {
        match self.get(index) {
            Some(element) => element,
            None => view_outside(index, self.atomics.len()),
        }
    }

    /// The atomic reference to element `index`, or `None` if
    /// `index >= self.len()`.
    #[inline(always)]
    #[must_use]
    pub fn get(&self, index: usize) -> Option<AtomicRef<'a, T>> {
        self.atomics.get(index).map(|atomic| AtomicRef {
            atomic,
            order: self.order,
            scope: self.scope,
        })
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.atomics.len()
    }

    /// Whether the view has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.atomics.is_empty()
    }

    /// The order its references use by default.
    #[must_use]
    pub fn order(&self) -> MemoryOrder {
        self.order
    }

    /// The scope its references use by default.
    #[must_use]
    pub fn scope(&self) -> MemoryScope {
        self.scope
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn view_outside(index: usize, len: usize) -> ! {
    panic!("index {index} is outside the AtomicView of {len} elements")
}

impl<T: AtomicElement> Clone for AtomicView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: AtomicElement> Copy for AtomicView<'_, T> {}

impl<T: AtomicElement> fmt::Debug for AtomicView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicView")
            .field("len", &self.len())
            .field("order", &self.order)
            .field("scope", &self.scope)
            .finish()
    }
}

/// One value reached through atomic operations (SYCL 2020 `atomic_ref`,
/// section 4.15.3), from [`AtomicView::at`] or [`AtomicRef::new`].
///
/// Every operation uses the reference's [`MemoryOrder`] (its read part for
/// loads, its write part for stores) and [`MemoryScope`]. On the CPU every
/// atomic operation is visible to the whole system, so each scope is
/// honoured by a stronger one; the scope is kept for the code's meaning
/// and for SYCL's rule that atomics of a narrower scope than the items
/// that race on them are a data race. Integer arithmetic wraps on
/// overflow.
///
/// SYCL's `compare_exchange_*` return `bool` and write the value found
/// into `expected`; here they return `Ok(previous)` on success and
/// `Err(found)` on failure, as Rust's atomics do.
///
/// # Examples
/// ```
/// use scoped::{AtomicRef, MemoryOrder, MemoryScope};
///
/// let mut x = 5i32;
/// let a = AtomicRef::new(&mut x, MemoryOrder::AcqRel, MemoryScope::Device);
/// assert_eq!(a.fetch_max(9), 5);
/// assert_eq!(a.compare_exchange_strong(5, 0), Err(9));
/// assert_eq!(a.compare_exchange_strong(9, 0), Ok(9));
/// assert_eq!(x, 0);
/// ```
pub struct AtomicRef<'a, T: AtomicElement> {
    atomic: &'a T::__Atomic,
    order: MemoryOrder,
    scope: MemoryScope,
}

impl<'a, T: AtomicElement> AtomicRef<'a, T> {
    /// An atomic reference to `value`, borrowed for the reference's life.
    #[must_use]
    pub fn new(value: &'a mut T, order: MemoryOrder, scope: MemoryScope) -> Self {
        Self {
            atomic: &as_atomics(std::slice::from_mut(value))[0],
            order,
            scope,
        }
    }

    /// The same reference with another order.
    #[inline(always)]
    #[must_use]
    pub fn with_order(self, order: MemoryOrder) -> Self {
        Self { order, ..self }
    }

    /// The same reference with another scope.
    #[inline(always)]
    #[must_use]
    pub fn with_scope(self, scope: MemoryScope) -> Self {
        Self { scope, ..self }
    }

    /// The order the operations use.
    #[must_use]
    pub fn order(&self) -> MemoryOrder {
        self.order
    }

    /// The scope the operations use.
    #[must_use]
    pub fn scope(&self) -> MemoryScope {
        self.scope
    }

    #[inline(always)]
    fn rmw(&self) -> Ordering {
        self.order.into()
    }

    /// The value (with the order's read part).
    #[inline(always)]
    #[must_use]
    pub fn load(&self) -> T {
        T::__load(self.atomic, self.order.read_order().into())
    }

    /// Writes `value` (with the order's write part).
    #[inline(always)]
    pub fn store(&self, value: T) {
        T::__store(self.atomic, value, self.order.write_order().into());
    }

    /// Writes `value` and returns the value before.
    #[inline(always)]
    pub fn exchange(&self, value: T) -> T {
        T::__swap(self.atomic, value, self.rmw())
    }

    /// Writes `new` if the value is `expected` (for floats: the same bits),
    /// returning `Ok(previous)`; else returns `Err(found)` and writes
    /// nothing. Never fails spuriously. The failure's load uses the
    /// order's read part.
    #[inline(always)]
    pub fn compare_exchange_strong(&self, expected: T, new: T) -> Result<T, T> {
        let failure = self.order.read_order().into();
        T::__compare_exchange(self.atomic, false, expected, new, self.rmw(), failure)
    }

    /// Like [`compare_exchange_strong`](Self::compare_exchange_strong),
    /// but may fail even when the value is `expected` (cheaper in a loop).
    #[inline(always)]
    pub fn compare_exchange_weak(&self, expected: T, new: T) -> Result<T, T> {
        let failure = self.order.read_order().into();
        T::__compare_exchange(self.atomic, true, expected, new, self.rmw(), failure)
    }
}

impl<T: AtomicArithmetic> AtomicRef<'_, T> {
    /// Adds `value` and returns the value before.
    #[inline(always)]
    pub fn fetch_add(&self, value: T) -> T {
        T::__fetch_add(self.atomic, value, self.rmw())
    }

    /// Subtracts `value` and returns the value before.
    #[inline(always)]
    pub fn fetch_sub(&self, value: T) -> T {
        T::__fetch_sub(self.atomic, value, self.rmw())
    }

    /// Keeps the smaller of the value and `value` (for floats: `value` if
    /// it compares less, so a NaN operand changes nothing); returns the
    /// value before.
    #[inline(always)]
    pub fn fetch_min(&self, value: T) -> T {
        T::__fetch_min(self.atomic, value, self.rmw())
    }

    /// Keeps the larger of the value and `value` (for floats: `value` if
    /// it compares greater); returns the value before.
    #[inline(always)]
    pub fn fetch_max(&self, value: T) -> T {
        T::__fetch_max(self.atomic, value, self.rmw())
    }
}

impl<T: AtomicBitwise> AtomicRef<'_, T> {
    /// Bitwise `&` with `value`; returns the value before.
    #[inline(always)]
    pub fn fetch_and(&self, value: T) -> T {
        T::__fetch_and(self.atomic, value, self.rmw())
    }

    /// Bitwise `|` with `value`; returns the value before.
    #[inline(always)]
    pub fn fetch_or(&self, value: T) -> T {
        T::__fetch_or(self.atomic, value, self.rmw())
    }

    /// Bitwise `^` with `value`; returns the value before.
    #[inline(always)]
    pub fn fetch_xor(&self, value: T) -> T {
        T::__fetch_xor(self.atomic, value, self.rmw())
    }
}

impl<T: AtomicElement> Clone for AtomicRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: AtomicElement> Copy for AtomicRef<'_, T> {}

impl<T: AtomicElement + fmt::Debug> fmt::Debug for AtomicRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicRef")
            .field("value", &self.load())
            .field("order", &self.order)
            .field("scope", &self.scope)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_split_into_read_and_write_parts_as_sycl_traits() {
        use MemoryOrder::*;
        let all = [Relaxed, Acquire, Release, AcqRel, SeqCst];
        let reads = all.map(MemoryOrder::read_order);
        let writes = all.map(MemoryOrder::write_order);
        assert_eq!(reads, [Relaxed, Acquire, Relaxed, Acquire, SeqCst]);
        assert_eq!(writes, [Relaxed, Relaxed, Release, Release, SeqCst]);
    }

    #[test]
    fn every_order_is_accepted_by_every_operation() {
        use MemoryOrder::*;
        for order in [Relaxed, Acquire, Release, AcqRel, SeqCst] {
            let mut x = 1u64;
            let a = AtomicRef::new(&mut x, order, MemoryScope::WorkGroup);
            a.store(3);
            assert_eq!(a.load(), 3);
            assert_eq!(a.exchange(4), 3);
            assert_eq!(a.compare_exchange_strong(0, 1), Err(4));
            assert_eq!(a.fetch_or(0b1000), 4);
            assert_eq!(a.fetch_and(0b1100), 12);
            assert_eq!(a.fetch_xor(0b0100), 12);
            assert_eq!(a.fetch_sub(8), 8);
            assert_eq!(x, 0, "order {order:?}");
        }
    }

    #[test]
    fn float_min_max_keep_cpp_semantics_for_nan_and_signed_zero() {
        let mut x = 1.0f64;
        let a = AtomicRef::new(&mut x, MemoryOrder::SeqCst, MemoryScope::Device);
        assert_eq!(a.fetch_min(f64::NAN), 1.0);
        assert_eq!(a.load(), 1.0, "a NaN operand changes nothing");
        assert_eq!(a.fetch_max(2.5), 1.0);
        assert_eq!(a.fetch_min(-0.5), 2.5);
        assert_eq!(a.fetch_sub(0.5), -0.5);
        assert_eq!(a.load(), -1.0);
        // Compare-exchange compares bits: -0.0 is not 0.0.
        a.store(-0.0);
        assert!(a.compare_exchange_strong(0.0, 7.0).is_err());
        assert_eq!(a.compare_exchange_strong(-0.0, 7.0), Ok(-0.0));
        assert_eq!(x, 7.0);
    }

    #[test]
    fn integer_arithmetic_wraps() {
        let mut x = [7, u8::MAX];
        let view = AtomicView::new(&mut x, MemoryOrder::Relaxed, MemoryScope::Device);
        assert_eq!(view.at(1).fetch_add(2), u8::MAX);
        assert_eq!(view.at(1).load(), 1);
        assert_eq!(x, [7, 1]);
        let mut y = i8::MIN;
        let s = AtomicRef::new(&mut y, MemoryOrder::Relaxed, MemoryScope::Device);
        assert_eq!(s.fetch_sub(1), i8::MIN);
        assert_eq!(y, i8::MAX);
    }

    #[test]
    #[should_panic(expected = "index 3 is outside the AtomicView of 3 elements")]
    fn index_past_the_end_panics_naming_it() {
        let mut x = [0u32; 3];
        let view = AtomicView::new(&mut x, MemoryOrder::Relaxed, MemoryScope::Device);
        let _ = view.at(3);
    }
}
