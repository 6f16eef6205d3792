//! Run-time check of nesting rule 2 for what the macros cannot see.
//!
//! `#[kernel]` rejects collectives inside `distribute_items!` at compile
//! time, but a helper function called from inside `distribute_items!` is
//! out of its sight. In debug builds, the runtime counts how deep the
//! current thread is inside `distribute_items!` (and `single_item!`, which
//! one physical item runs alone) and every collective checks the count.
//! Release builds compile all of this away.

#[cfg(debug_assertions)]
use std::cell::Cell;

#[cfg(debug_assertions)]
thread_local! {
    static ITEM_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Marks the current thread as inside an item scope until dropped.
pub(crate) struct ItemScope(());

impl ItemScope {
    #[inline(always)]
    pub(crate) fn enter() -> Self {
        #[cfg(debug_assertions)]
        ITEM_DEPTH.with(|d| d.set(d.get() + 1));
        ItemScope(())
    }
}

impl Drop for ItemScope {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        ITEM_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Panics (debug builds only) if a collective named `what` runs inside
/// `distribute_items!` or `single_item!`.
#[inline(always)]
#[track_caller]
pub(crate) fn check_collective(what: &str) {
    #[cfg(debug_assertions)]
    if ITEM_DEPTH.with(|d| d.get()) > 0 {
        rule2_violation(what);
    }
    #[cfg(not(debug_assertions))]
    let _ = what;
}

#[cfg(debug_assertions)]
#[cold]
#[inline(never)]
#[track_caller]
fn rule2_violation(what: &str) -> ! {
    panic!(
        "scoped nesting rule 2 violated: `{what}` is a collective and was called inside \
         `distribute_items!` or `single_item!` (probably through a helper function); \
         call it outside, directly in the group's scope"
    )
}
