//! Per-thread buffers for private memory, reused from group to group.
//!
//! A memory environment takes a buffer from its thread's free list and
//! gives it back when it ends, so a thread that runs many groups allocates
//! only when a group needs more than any before it. Nested environments
//! take different buffers; nothing moves while it is in use.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;

/// Alignment of every buffer; types with a larger one are rejected.
pub(crate) const ALIGN: usize = 64;
const MIN_BYTES: usize = 4096;

/// An owned, `ALIGN`-aligned, uninitialised heap buffer.
pub(crate) struct Block {
    ptr: NonNull<u8>,
    bytes: usize,
}

impl Block {
    fn new(bytes: usize) -> Block {
        let bytes = bytes.max(MIN_BYTES).next_power_of_two();
        let layout = Self::layout(bytes);
        // SAFETY: `layout` has a non-zero size (at least MIN_BYTES).
        let ptr = unsafe { alloc(layout) };
        match NonNull::new(ptr) {
            Some(ptr) => Block { ptr, bytes },
            None => handle_alloc_error(layout),
        }
    }

    fn layout(bytes: usize) -> Layout {
        Layout::from_size_align(bytes, ALIGN).expect("private memory buffer size overflows")
    }

    /// Start of the buffer, aligned to `ALIGN`.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc` with exactly this layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.bytes)) }
    }
}

thread_local! {
    static FREE: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of at least `bytes` bytes from this thread's free list.
pub(crate) fn take(bytes: usize) -> Block {
    let reused = FREE.with(|free| free.borrow_mut().pop());
    match reused {
        Some(block) if block.bytes >= bytes => block,
        _ => Block::new(bytes),
    }
}

/// Returns `block` to this thread's free list.
pub(crate) fn give(block: Block) {
    // During thread teardown the list may be gone; then the block just drops.
    let _ = FREE.try_with(|free| free.borrow_mut().push(block));
}
