//! Heap room for private memory that does not fit on the stack.
//!
//! Every memory environment that needs one allocates its own block and
//! frees it when it ends. A fresh allocation is memory the optimiser knows
//! no other pointer reaches (the allocator's result is `noalias`), so item
//! loops that update private values while reading inputs keep them in
//! registers and vectorise without run-time overlap checks. A block reused
//! from a per-thread free list is only a pointer loaded from memory, which
//! may be anything: with one, the n-body kernel with groups of 2048 bodies
//! ran 3× slower (9× with the sums updated in the work group's private
//! memory directly). The price is one allocation per environment and
//! group, for groups with more than `PRIVATE_STACK_BYTES` of values.

use std::alloc::{alloc, dealloc, Layout};
use std::ptr::NonNull;

/// Alignment of every block; types with a larger one are rejected.
pub(crate) const ALIGN: usize = 64;

/// An owned, `ALIGN`-aligned, uninitialised heap block.
pub(crate) struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Block {
    /// A new block of `bytes` bytes (at least 1).
    ///
    /// # Panics
    /// If `bytes` rounded up to `ALIGN` overflows `isize` or the allocator
    /// has no room for them, naming them (a panic, not the abort of
    /// `handle_alloc_error`: the size comes from the launch).
    // Inlined, so that the optimiser sees the allocator call whose result
    // it may treat as unaliased.
    #[inline(always)]
    pub(crate) fn new(bytes: usize) -> Block {
        let layout = Layout::from_size_align(bytes.max(1), ALIGN).unwrap_or_else(|_| {
            panic!("private memory of {bytes} bytes exceeds the largest allocation")
        });
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc(layout) };
        match NonNull::new(ptr) {
            Some(ptr) => Block { ptr, layout },
            None => no_room(bytes),
        }
    }

    /// A new block of `bytes` bytes (at least 1), or `None` if the size is
    /// impossible or the allocator has no room, for callers that panic
    /// with a message of their own instead of aborting.
    pub(crate) fn try_new(bytes: usize) -> Option<Block> {
        let layout = Layout::from_size_align(bytes.max(1), ALIGN).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc(layout) })?;
        Some(Block { ptr, layout })
    }

    /// Size of the block in bytes.
    pub(crate) fn len(&self) -> usize {
        self.layout.size()
    }

    /// Start of the block, aligned to `ALIGN`.
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

#[cold]
#[inline(never)]
fn no_room(bytes: usize) -> ! {
    panic!("private memory of {bytes} bytes could not be allocated")
}

impl Drop for Block {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc` with exactly this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_distinct_and_writable() {
        let (a, b) = (Block::new(100), Block::new(10_000));
        assert_eq!(a.as_ptr() as usize % ALIGN, 0);
        assert_eq!(b.as_ptr() as usize % ALIGN, 0);
        assert_ne!(a.as_ptr(), b.as_ptr());
        // SAFETY: each block owns the bytes it was made with.
        unsafe {
            std::ptr::write_bytes(a.as_ptr(), 0xA5, 100);
            std::ptr::write_bytes(b.as_ptr(), 0x5A, 10_000);
            assert_eq!(*a.as_ptr().add(99), 0xA5);
            assert_eq!(*b.as_ptr().add(9_999), 0x5A);
        }
        // An empty request still gets a real block.
        assert_eq!(Block::new(0).as_ptr() as usize % ALIGN, 0);
    }

    #[test]
    fn try_new_reports_impossible_sizes() {
        assert_eq!(Block::try_new(100).map(|b| b.len()), Some(100));
        assert!(Block::try_new(usize::MAX - 8).is_none());
    }

    #[test]
    #[should_panic(expected = "exceeds the largest allocation")]
    fn an_impossible_size_panics_naming_it() {
        let _ = Block::new(usize::MAX - 8);
    }
}
