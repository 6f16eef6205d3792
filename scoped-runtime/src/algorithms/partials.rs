//! The per-work-group partial results of a launch's reductions
//! ([`reduction`](super::reduction) keeps one value per group,
//! [`reduction_span`](super::reduction_span) one array of `len`).
//!
//! Each group's slots have a state: unused, handed out to the group's
//! reducer, or done (written by the reducer's drop, with a `Release` store
//! the launch's end acquires). A reducer that outlives its launch (leaked,
//! or moved out of its kernel) would write after the launch: while any
//! state is still handed out, the slots are leaked instead of freed, so a
//! late write lands in memory that stays allocated.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};

const UNUSED: u8 = 0;
const HANDED_OUT: u8 = 1;
const DONE: u8 = 2;

/// One partial value.
pub(crate) type Slot<T> = UnsafeCell<MaybeUninit<T>>;

/// One state and `len` slots per work group.
pub(crate) struct Partials<T> {
    len: usize,
    states: Box<[AtomicU8]>,
    values: Box<[Slot<T>]>,
}

// SAFETY: each group's slots are written only by the one reducer made for
// that group, and read only after its state is `DONE` (acquire after
// release); sharing `Partials` only moves `T`s between threads (`T: Send`).
unsafe impl<T: Send> Sync for Partials<T> {}

impl<T> Partials<T> {
    /// Slots for `groups` work groups of `len` values each, or `None` if
    /// they cannot be allocated (rather than aborting the process).
    pub(crate) fn new(groups: usize, len: usize) -> Option<Self> {
        let total = groups.checked_mul(len)?;
        let mut states = Vec::new();
        states.try_reserve_exact(groups).ok()?;
        states.extend((0..groups).map(|_| AtomicU8::new(UNUSED)));
        let mut values = Vec::new();
        values.try_reserve_exact(total).ok()?;
        values.extend((0..total).map(|_| UnsafeCell::new(MaybeUninit::uninit())));
        Some(Self {
            len,
            states: states.into_boxed_slice(),
            values: values.into_boxed_slice(),
        })
    }

    /// Values per group.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Number of groups.
    pub(crate) fn groups(&self) -> usize {
        self.states.len()
    }

    /// The state and the slots of group `linear`, now handed out.
    ///
    /// # Panics
    /// If `linear` is not below [`groups`](Self::groups).
    #[inline]
    pub(crate) fn hand_out(&self, linear: usize) -> (&AtomicU8, &[Slot<T>]) {
        let state = &self.states[linear];
        state.store(HANDED_OUT, Ordering::Relaxed);
        let len = self.len;
        (state, &self.values[linear * len..(linear + 1) * len])
    }

    /// Every group's slots in group order, or the linear id of a group
    /// whose reducer was not dropped.
    pub(crate) fn results(&self) -> Result<&[T], usize> {
        if let Some(group) = self
            .states
            .iter()
            .position(|s| s.load(Ordering::Acquire) != DONE)
        {
            return Err(group);
        }
        // SAFETY: every state is `DONE`: its reducer wrote all of its
        // group's slots before the release store this thread acquired, and
        // nothing writes them afterwards. `UnsafeCell` and `MaybeUninit`
        // are `repr(transparent)`, so the slots are `T`s.
        Ok(unsafe {
            std::slice::from_raw_parts(self.values.as_ptr().cast::<T>(), self.values.len())
        })
    }
}

/// Marks a group's slots written; called by its reducer's drop after it
/// wrote every slot.
pub(crate) fn publish(state: &AtomicU8) {
    state.store(DONE, Ordering::Release);
}

impl<T> Drop for Partials<T> {
    fn drop(&mut self) {
        if self
            .states
            .iter()
            .any(|s| s.load(Ordering::Acquire) == HANDED_OUT)
        {
            // A reducer is still alive and will write here when dropped:
            // keep the memory allocated.
            std::mem::forget(std::mem::take(&mut self.states));
            std::mem::forget(std::mem::take(&mut self.values));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_wait_for_every_group_and_come_in_group_order() {
        let partials = Partials::<u32>::new(3, 2).unwrap();
        assert_eq!((partials.groups(), partials.len()), (3, 2));
        // The first group not yet done, after each of 2, 0, 1 is handed out.
        for (g, waiting) in [(2, 0), (0, 0), (1, 1)] {
            let (state, slots) = partials.hand_out(g);
            assert_eq!(partials.results(), Err(waiting));
            for (i, slot) in slots.iter().enumerate() {
                // SAFETY: the slots of a handed-out group are its reducer's.
                unsafe { (*slot.get()).write(10 * g as u32 + i as u32) };
            }
            publish(state);
        }
        assert_eq!(partials.results(), Ok(&[0, 1, 10, 11, 20, 21][..]));
    }

    #[test]
    fn a_group_never_handed_out_is_named_and_sizes_that_overflow_are_refused() {
        let partials = Partials::<u8>::new(2, 1).unwrap();
        publish(partials.hand_out(0).0);
        assert_eq!(partials.results(), Err(1));
        assert!(Partials::<u8>::new(usize::MAX, 2).is_none());
    }

    #[test]
    fn slots_still_handed_out_are_leaked_not_freed() {
        let partials = Partials::<u64>::new(1, 4).unwrap();
        let first = partials.hand_out(0).1.as_ptr();
        drop(partials);
        // The memory stays allocated: a late reducer may still write it.
        // SAFETY: leaked, so still valid for the reducer's writes.
        unsafe { (*(*first).get()).write(7) };
    }
}
