//! `ScatterMut`: arbitrary writes into global memory, with the caller
//! promising what the runtime cannot check (SYCL's plain pointers into
//! global memory).

use std::fmt;
use std::marker::PhantomData;

/// A slice that every work group may write (and read) at any index, with
/// `unsafe` accesses whose contract the caller keeps: the escape hatch for
/// scatters that neither a mapped window ([`MappedMut`](crate::MappedMut))
/// nor atomics ([`AtomicView`](crate::AtomicView)) express, such as a
/// permutation known to be one-to-one.
///
/// The view borrows the slice mutably for its whole life and is `Copy`:
/// copy it into every work group. When it is gone (after the launch) the
/// slice holds what was written.
///
/// # Contract of [`write`](Self::write) and [`read`](Self::read)
/// For the life of the view, and for every element:
/// 1. no two accesses of which at least one is a write happen unordered:
///    within a work group, program order (one thread runs the group)
///    orders them; between work groups, only a synchronisation the caller
///    sets up (an atomic release/acquire pair) does. In practice: each
///    index is written by at most one work group, and no other group reads
///    it, during one launch;
/// 2. nothing else reaches the elements meanwhile (the view's borrow sees
///    to that outside `unsafe` code).
///
/// Breaking it is a data race, undefined behaviour. The index is checked
/// anyway: an index past the end panics, naming it and the length.
///
/// # Examples
/// Groups write the elements of a permutation, each index once:
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn scatter(group: WorkGroup<1>, values: &[u32], to: &[usize], out: ScatterMut<'_, u32>) {
///     distribute_items!(group, |idx| {
///         let i = idx.global_linear_id();
///         // SAFETY: `to` is a permutation, so every index is written by
///         // one item only, and nothing reads `out` during the launch.
///         unsafe { out.write(to[i], values[i]) };
///     });
/// }
///
/// let values: Vec<u32> = (0..64).collect();
/// let to: Vec<usize> = (0..64).map(|i| (i * 5) % 64).collect();
/// let mut out = vec![0u32; 64];
/// let view = ScatterMut::new(&mut out);
/// Queue::new().parallel(4, 16, |g| scatter(g, &values, &to, view)).unwrap();
/// assert!((0..64).all(|i| out[to[i]] == values[i]));
/// ```
pub struct ScatterMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the view is a `&mut [T]` whose element accesses are `unsafe`
// and, by their contract, never race; moving or sharing the view between
// threads moves `T`s written by one thread to others, which `T: Send`
// allows (reads additionally require `T: Sync`).
unsafe impl<T: Send> Send for ScatterMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for ScatterMut<'_, T> {}

impl<'a, T> ScatterMut<'a, T> {
    /// Views `data` for scattered writes, borrowing it for the view's life.
    #[must_use]
    pub fn new(data: &'a mut [T]) -> Self {
        Self {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            _borrow: PhantomData,
        }
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    #[track_caller]
    fn checked(&self, index: usize) -> *mut T {
        if index >= self.len {
            scatter_outside(index, self.len);
        }
        // SAFETY: `index < len`, so the pointer is inside the slice.
        unsafe { self.ptr.add(index) }
    }

    /// Writes `value` at `index`, dropping the value there.
    ///
    /// # Safety
    /// The type's contract: no access to element `index` from another
    /// work group, or otherwise unordered with this write, during the
    /// view's life.
    ///
    /// # Panics
    /// If `index >= self.len()`, naming both.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(&self, index: usize, value: T) {
        let element = self.checked(index);
        // SAFETY: `element` is in the borrowed slice (checked) and holds an
        // initialised `T`; the caller promises no access races with this
        // one, so the write (and the drop of the old value) is exclusive.
        unsafe { *element = value };
    }

    /// Reads the value at `index`.
    ///
    /// # Safety
    /// The type's contract: no write to element `index` unordered with
    /// this read (by another work group, say) during the view's life.
    ///
    /// # Panics
    /// If `index >= self.len()`, naming both.
    #[inline(always)]
    #[track_caller]
    #[must_use]
    pub unsafe fn read(&self, index: usize) -> T
    where
        T: Copy + Sync,
    {
        let element = self.checked(index);
        // SAFETY: `element` is in the slice (checked) and initialised; the
        // caller promises no write races with this read.
        unsafe { *element }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn scatter_outside(index: usize, len: usize) -> ! {
    panic!("index {index} is outside the ScatterMut of {len} elements")
}

impl<T> Clone for ScatterMut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ScatterMut<'_, T> {}

impl<T> fmt::Debug for ScatterMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScatterMut({} elements)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_drop_the_old_value_and_reads_see_writes() {
        let mut data = vec![String::from("a"), String::from("b")];
        let view = ScatterMut::new(&mut data);
        // SAFETY: one thread, program order.
        unsafe { view.write(1, String::from("c")) };
        assert_eq!(data, ["a", "c"]);
        let mut numbers = [1, 2, 3];
        let view = ScatterMut::new(&mut numbers);
        // SAFETY: one thread, program order.
        unsafe {
            view.write(0, view.read(2) * 10);
            assert_eq!(view.read(0), 30);
        }
    }

    #[test]
    #[should_panic(expected = "index 2 is outside the ScatterMut of 2 elements")]
    fn index_past_the_end_panics_naming_it() {
        let mut data = [0u8; 2];
        let view = ScatterMut::new(&mut data);
        // SAFETY: one thread; the index is checked before any access.
        unsafe { view.write(2, 1) };
    }
}
