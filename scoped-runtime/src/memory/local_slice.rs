//! Run-time-sized local memory: `require_local_mem_slice::<T>(len)` and
//! `(len, init)`, the counterpart of SYCL 2020's `local_accessor<T, 1>`
//! with a run-time range.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use bytemuck::Zeroable;

use super::arena::ArenaBlock;
use super::heap::ALIGN;

/// Bytes of a `require_local_mem_slice` request kept on the stack of the
/// thread running the group (1024 `f32`); larger requests take a block
/// from that thread's arena, reused by every group the thread runs.
pub const LOCAL_SLICE_STACK_BYTES: usize = 4096;

/// Largest `require_local_mem_slice` request, in bytes: 64 MiB, a
/// thousand times the local memory of a typical GPU work group. A larger
/// length is taken for a wrong one and panics, naming it.
pub const MAX_LOCAL_MEM_SLICE_BYTES: usize = 64 << 20;

/// Stack room for one `require_local_mem_slice` request, declared by
/// `memory_environment!` before the [`LocalMemSlice`] that borrows it.
#[doc(hidden)]
#[repr(C, align(64))]
pub struct LocalSliceStorage(MaybeUninit<[u8; LOCAL_SLICE_STACK_BYTES]>);

impl LocalSliceStorage {
    /// Uninitialised room; the slice initialises what it uses.
    #[inline(always)]
    #[must_use]
    pub const fn new() -> Self {
        Self(MaybeUninit::uninit())
    }
}

impl Default for LocalSliceStorage {
    #[inline(always)]
    fn default() -> Self {
        Self::new()
    }
}

/// The memory of one `require_local_mem_slice` request; the environment's
/// closure receives [`as_mut_slice`](Self::as_mut_slice). `'a` borrows the
/// stack room, so the slice cannot outlive its environment.
#[doc(hidden)]
pub struct LocalMemSlice<'a, T> {
    /// The arena block, when the elements did not fit on the stack;
    /// returned to the thread's arena with the slice.
    _block: Option<ArenaBlock>,
    data: *mut T,
    len: usize,
    _room: PhantomData<&'a mut LocalSliceStorage>,
    _not_send: PhantomData<*const T>,
}

impl<'a, T: Copy> LocalMemSlice<'a, T> {
    #[inline(always)]
    fn new(room: &'a mut LocalSliceStorage, len: usize, init: impl FnOnce(*mut T)) -> Self {
        const {
            assert!(
                std::mem::align_of::<T>() <= ALIGN,
                "require_local_mem_slice: element type aligned to more than 64 bytes"
            )
        };
        let size = std::mem::size_of::<T>();
        let bytes = match len.checked_mul(size) {
            Some(bytes) if bytes <= MAX_LOCAL_MEM_SLICE_BYTES => bytes,
            _ => too_large(len, size),
        };
        let (block, data) = if bytes <= LOCAL_SLICE_STACK_BYTES {
            // The room is aligned to `ALIGN`, which `T` fits (asserted above).
            const { assert!(std::mem::align_of::<LocalSliceStorage>() == ALIGN) };
            (None, room.0.as_mut_ptr().cast::<T>())
        } else {
            let block = ArenaBlock::take(bytes).unwrap_or_else(|| no_room(len, size));
            let data = block.as_ptr().cast::<T>();
            (Some(block), data)
        };
        init(data);
        Self {
            _block: block,
            data,
            len,
            _room: PhantomData,
            _not_send: PhantomData,
        }
    }

    /// The elements.
    #[inline(always)]
    #[must_use]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: `data` points to `len` initialised `T`s (written by `new`)
        // in the stack room `self` borrows uniquely for `'a` or in the arena
        // block `self` owns; `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_large(len: usize, size: usize) -> ! {
    panic!(
        "require_local_mem_slice: {len} elements of {size} bytes exceed \
         scoped::MAX_LOCAL_MEM_SLICE_BYTES ({MAX_LOCAL_MEM_SLICE_BYTES} bytes)"
    )
}

#[cold]
#[inline(never)]
#[track_caller]
fn no_room(len: usize, size: usize) -> ! {
    panic!(
        "require_local_mem_slice: no memory for {len} elements of {size} bytes ({} bytes)",
        len * size
    )
}

/// `require_local_mem_slice::<T>(len)`: `len` elements, zero-filled (Rust
/// cannot hand out uninitialised memory safely).
///
/// # Panics
/// If `len` elements take more than [`MAX_LOCAL_MEM_SLICE_BYTES`] or cannot
/// be allocated, naming `len` and the element size.
#[inline(always)]
#[must_use]
#[track_caller]
pub fn local_mem_slice_zeroed<T: Copy + Zeroable>(
    room: &mut LocalSliceStorage,
    len: usize,
) -> LocalMemSlice<'_, T> {
    LocalMemSlice::new(room, len, |data: *mut T| {
        // SAFETY: `data` is the start of room for at least `len` `T`s (stack
        // room or an arena block of at least `len * size_of::<T>()` bytes),
        // aligned for `T`; all-zero bytes are a valid `T` (`Zeroable`).
        unsafe { std::ptr::write_bytes(data, 0, len) }
    })
}

/// `require_local_mem_slice::<T>(len, init)`: `len` copies of `init`.
///
/// # Panics
/// As [`local_mem_slice_zeroed`].
#[inline(always)]
#[must_use]
#[track_caller]
pub fn local_mem_slice_filled<T: Copy>(
    room: &mut LocalSliceStorage,
    len: usize,
    init: T,
) -> LocalMemSlice<'_, T> {
    LocalMemSlice::new(room, len, |data: *mut T| {
        for i in 0..len {
            // SAFETY: `i < len` and the room holds at least `len` `T`s,
            // aligned for `T`; `T: Copy`, so nothing is dropped or leaked.
            unsafe { data.add(i).write(init) }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_slices_live_in_the_room_and_large_ones_in_the_arena() {
        let mut room = LocalSliceStorage::new();
        let room_start = std::ptr::addr_of!(room) as usize;
        let mut small = local_mem_slice_filled::<u32>(&mut room, 1024, 7);
        let small = small.as_mut_slice();
        assert_eq!(small.as_ptr() as usize, room_start);
        assert!(small.iter().all(|&x| x == 7));
        small[1023] = 1;

        let mut room = LocalSliceStorage::new();
        let room_start = std::ptr::addr_of!(room) as usize;
        let mut large = local_mem_slice_zeroed::<u32>(&mut room, 1025);
        let large = large.as_mut_slice();
        assert_ne!(large.as_ptr() as usize, room_start);
        assert_eq!(large.as_ptr() as usize % ALIGN, 0);
        assert_eq!(large.len(), 1025);
        assert!(large.iter().all(|&x| x == 0));
        large[1024] = 3;
        assert_eq!(large[1024], 3);
    }

    #[test]
    fn a_reused_arena_block_is_filled_again() {
        let mut room = LocalSliceStorage::new();
        let mut first = local_mem_slice_filled::<u64>(&mut room, 5000, 9);
        first.as_mut_slice().fill(42);
        drop(first);
        let mut room = LocalSliceStorage::new();
        let mut second = local_mem_slice_zeroed::<u64>(&mut room, 5000);
        assert!(second.as_mut_slice().iter().all(|&x| x == 0));
    }

    #[test]
    fn an_empty_slice_is_fine() {
        let mut room = LocalSliceStorage::new();
        assert!(local_mem_slice_zeroed::<f32>(&mut room, 0)
            .as_mut_slice()
            .is_empty());
    }

    #[test]
    #[should_panic(
        expected = "16777217 elements of 4 bytes exceed scoped::MAX_LOCAL_MEM_SLICE_BYTES"
    )]
    fn a_request_above_the_limit_panics_naming_it() {
        let mut room = LocalSliceStorage::new();
        let _ = local_mem_slice_zeroed::<f32>(&mut room, (MAX_LOCAL_MEM_SLICE_BYTES / 4) + 1);
    }

    #[test]
    #[should_panic(expected = "elements of 8 bytes exceed")]
    fn an_overflowing_length_panics() {
        let mut room = LocalSliceStorage::new();
        let _ = local_mem_slice_zeroed::<u64>(&mut room, usize::MAX / 4);
    }
}
