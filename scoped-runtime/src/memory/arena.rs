//! Per-thread arena of heap blocks for run-time-sized local memory that
//! does not fit on the stack (`require_local_mem_slice`).
//!
//! Local memory is reused by every group a thread runs, so a block goes
//! back to its thread's free list when its environment ends and the next
//! group takes it again: after the first group no request allocates. Each
//! live environment owns its block, so nested environments get distinct
//! blocks. The list keeps at most [`KEPT_BLOCKS`], dropping the smallest.

use std::cell::RefCell;

use super::heap::Block;

/// Most blocks a thread keeps for reuse.
const KEPT_BLOCKS: usize = 8;

thread_local! {
    static FREE: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// A block taken from the thread's arena, returned to it when dropped.
pub(crate) struct ArenaBlock(Option<Block>);

impl ArenaBlock {
    /// A block of at least `bytes` bytes: the smallest free one that is
    /// large enough, else a new one (rounded up to a power of two, so that
    /// slightly different sizes reuse it). `None` if the allocator has no
    /// room.
    pub(crate) fn take(bytes: usize) -> Option<ArenaBlock> {
        let reused = FREE
            .try_with(|free| {
                let mut free = free.borrow_mut();
                let best = free
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.len() >= bytes)
                    .min_by_key(|(_, b)| b.len())
                    .map(|(i, _)| i);
                best.map(|i| free.swap_remove(i))
            })
            .ok()
            .flatten();
        let block = match reused {
            Some(block) => block,
            None => Block::try_new(bytes.checked_next_power_of_two().unwrap_or(bytes))
                .or_else(|| Block::try_new(bytes))?,
        };
        Some(ArenaBlock(Some(block)))
    }

    /// Start of the block, aligned to `heap::ALIGN`.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.0.as_ref().map_or(std::ptr::null_mut(), Block::as_ptr)
    }
}

impl Drop for ArenaBlock {
    fn drop(&mut self) {
        let Some(block) = self.0.take() else { return };
        // During thread exit the list may be gone: the block is then freed.
        let _ = FREE.try_with(|free| {
            let mut free = free.borrow_mut();
            free.push(block);
            if free.len() > KEPT_BLOCKS {
                let smallest = (0..free.len()).min_by_key(|&i| free[i].len());
                if let Some(i) = smallest {
                    free.swap_remove(i);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_returned_block_is_taken_again_and_live_blocks_are_distinct() {
        let first = ArenaBlock::take(10_000).unwrap();
        let address = first.as_ptr();
        let second = ArenaBlock::take(10_000).unwrap();
        assert_ne!(second.as_ptr(), address);
        drop(second);
        drop(first);
        // Both went back; the request takes one of them, not a new block.
        let again = ArenaBlock::take(9_000).unwrap();
        assert_eq!(again.as_ptr() as usize % 64, 0);
        let free: Vec<usize> =
            FREE.with(|f| f.borrow().iter().map(|b| b.as_ptr() as usize).collect());
        assert_eq!(free.len(), 1);
        assert!(!free.contains(&(again.as_ptr() as usize)));
    }

    #[test]
    fn the_list_keeps_at_most_kept_blocks_dropping_the_smallest() {
        let blocks: Vec<_> = (0..KEPT_BLOCKS + 2)
            .map(|i| ArenaBlock::take(1 << (12 + i)).unwrap())
            .collect();
        drop(blocks);
        let sizes: Vec<usize> = FREE.with(|f| f.borrow().iter().map(Block::len).collect());
        assert_eq!(sizes.len(), KEPT_BLOCKS);
        assert!(sizes.iter().all(|&s| s >= 1 << 14), "{sizes:?}");
    }

    #[test]
    fn an_impossible_size_is_none() {
        assert!(ArenaBlock::take(usize::MAX - 8).is_none());
    }
}
