//! Per-thread buffers for private memory, reused from group to group.
//!
//! A memory environment takes a buffer from its thread's free list and
//! gives it back when it ends, so a thread that runs many groups allocates
//! only when a group needs more than any before it. Nested environments
//! take different buffers; nothing moves while it is in use.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::{Cell, RefCell};
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
    /// The block given back last. A group usually opens one environment,
    /// so the next group takes this one again without touching `FREE`.
    static LAST: Cell<Option<Block>> = const { Cell::new(None) };
    /// Further free blocks, for nested environments.
    static FREE: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of at least `bytes` bytes, reused from this thread if it has
/// one free. Not inlined, like `give`: callers stay small enough for the
/// optimiser to keep their memory's fields in registers.
#[inline(never)]
pub(crate) fn take(bytes: usize) -> Block {
    match LAST.try_with(Cell::take) {
        Ok(Some(block)) if block.bytes >= bytes => block,
        _ => take_from_list(bytes),
    }
}

#[cold]
fn take_from_list(bytes: usize) -> Block {
    let reused = FREE.try_with(|free| free.borrow_mut().pop()).ok().flatten();
    match reused {
        Some(block) if block.bytes >= bytes => block,
        _ => Block::new(bytes),
    }
}

/// Returns `block` to this thread's free blocks.
#[inline(never)]
pub(crate) fn give(block: Block) {
    // During thread teardown the slots may be gone; then the block drops.
    if let Ok(Some(older)) = LAST.try_with(|last| last.replace(Some(block))) {
        give_to_list(older);
    }
}

#[cold]
fn give_to_list(block: Block) {
    let _ = FREE.try_with(|free| free.borrow_mut().push(block));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_takes_get_distinct_blocks_and_reuse_them() {
        let outer = take(100);
        let inner = take(100);
        let (outer_at, inner_at) = (outer.as_ptr(), inner.as_ptr());
        assert_ne!(outer_at, inner_at);
        assert_eq!(outer_at as usize % ALIGN, 0);
        // Given back innermost first, as nested environments end.
        give(inner);
        give(outer);
        // The next group takes the last block given back, then the other.
        let first = take(MIN_BYTES);
        let second = take(MIN_BYTES);
        assert_eq!(first.as_ptr(), outer_at);
        assert_eq!(second.as_ptr(), inner_at);
        give(second);
        give(first);
    }

    #[test]
    fn a_larger_request_gets_a_large_enough_block() {
        give(take(10));
        let big = take(3 * MIN_BYTES);
        assert!(big.bytes >= 3 * MIN_BYTES, "{} bytes", big.bytes);
        // The whole block is writable.
        // SAFETY: `big` owns `big.bytes` bytes starting at `as_ptr()`.
        unsafe { std::ptr::write_bytes(big.as_ptr(), 0xA5, big.bytes) };
        give(big);
        assert!(take(3 * MIN_BYTES).bytes >= 3 * MIN_BYTES);
    }
}
