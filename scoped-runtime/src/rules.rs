//! Run-time check of the nesting rules for what the macros cannot see.
//!
//! `#[kernel]` rejects collectives inside `distribute_items!` (nesting
//! rule 2) and inside `single_item!` (rule 3: its body runs on one
//! physical item) at compile time, but a function called from there, such
//! as a `#[group_function]`, is out of its sight. The runtime counts, per
//! thread, how deep the running code is inside each of the two, and every
//! collective calls [`check_collective`] first, which panics with the
//! rule's message. In debug and release builds alike: one update on
//! entering and leaving each `distribute_items!` or `single_item!` and one
//! read per collective, never anything per item.
//!
//! The counts are reached through the group ([`Nesting`], which every
//! group carries), not through a thread-local: the optimiser sees one
//! pointer, loaded once per work group, and folds the checks of a kernel
//! whose collectives it can see, where a thread-local access per
//! collective stayed in the kernel's code.

use std::cell::Cell;

/// One `distribute_items!` body in the counts.
const ITEMS: u32 = 1;
/// One `single_item!` body in the counts.
const SINGLE: u32 = 1 << 16;

/// The nesting counts of the thread that runs a group: how many
/// `distribute_items!` bodies (low 16 bits, in `ITEMS`) and `single_item!`
/// bodies (high 16 bits, in `SINGLE`) it is running, one word, so that a
/// collective reads one value. Every group carries its thread's. Not a
/// public API.
///
/// Each thread's counts are allocated once and never freed (one word per
/// thread that runs a work group): groups are `Copy` and `'static`, so a
/// group copied out of its kernel (into a thread-local, say) can be used
/// after its launch, even while the thread's thread-locals are being
/// destroyed, and must never point at freed memory. The reference to a
/// `Cell` also keeps every group off other threads (neither `Send` nor
/// `Sync`).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Nesting(&'static Cell<u32>);

thread_local! {
    /// The running thread's counts, allocated on first use.
    static COUNTS: Cell<Option<Nesting>> = const { Cell::new(None) };
    /// How many `distribute_groups!` bodies the thread is running (debug
    /// builds: see [`check_work_group_scope`]).
    #[cfg(debug_assertions)]
    static GROUPS_DEPTH: Cell<u32> = const { Cell::new(0) };
}

impl Nesting {
    /// The running thread's counts.
    #[inline(always)]
    pub(crate) fn current() -> Nesting {
        COUNTS.with(|counts| match counts.get() {
            Some(nesting) => nesting,
            None => Self::allocate(counts),
        })
    }

    /// Starts a work group inside a [`GroupScope`]: the counts are 0
    /// there between groups (each leaves them as it found them), and
    /// writing so again at the group's start lets the optimiser fold the
    /// checks of the collectives it can see in the kernel (read from
    /// memory, every check and every scope's update stayed in the code:
    /// the GPU-form Jacobi at 1.4x its time).
    #[inline(always)]
    pub(crate) fn start_group(self) {
        self.set(0);
    }

    #[cold]
    #[inline(never)]
    fn allocate(counts: &Cell<Option<Nesting>>) -> Nesting {
        let nesting = Nesting(&Box::leak(Box::new(OwnLines(Cell::new(0)))).0);
        counts.set(Some(nesting));
        nesting
    }

    #[inline(always)]
    fn get(self) -> u32 {
        self.0.get()
    }

    #[inline(always)]
    fn set(self, depth: u32) {
        self.0.set(depth);
    }
}

/// A thread's counts alone in an aligned pair of cache lines. Every group
/// writes its thread's counts; two threads' counts allocated side by side
/// (a few bytes apart from one heap) shared a line, which then went back
/// and forth between the cores at every group and every item loop: with
/// that heap layout, tiled matmul at 2 threads ran 1.3× its time (Intel
/// Xeon, AVX-512). 128 bytes, as the CPU fetches lines in pairs.
#[repr(align(128))]
struct OwnLines(Cell<u32>);

impl std::fmt::Debug for Nesting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Nesting({:#x})", self.get())
    }
}

/// Marks the current thread as running the body of a `distribute_groups!`
/// until dropped: collectives that order the sub-groups of a work group
/// against each other cannot be called there (see
/// [`check_work_group_scope`]).
pub(crate) struct SubgroupScope(());

impl SubgroupScope {
    #[inline(always)]
    pub(crate) fn enter() -> Self {
        #[cfg(debug_assertions)]
        GROUPS_DEPTH.with(|d| d.set(d.get() + 1));
        SubgroupScope(())
    }
}

impl Drop for SubgroupScope {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(debug_assertions)]
        GROUPS_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Called by the collectives that order all sub-groups of a work group
/// (`work_group_barrier`, named barriers), after [`check_collective`]: one
/// thread runs the sub-groups one after another, so inside
/// `distribute_groups!` such a call cannot hold the first sub-group back
/// until the others arrive (nesting rule 1, which `#[kernel]` checks where
/// it sees the group). Debug builds panic there; release builds do nothing.
#[inline(always)]
#[track_caller]
pub(crate) fn check_work_group_scope(what: &str) {
    #[cfg(debug_assertions)]
    if GROUPS_DEPTH.with(Cell::get) > 0 {
        rule1_violation(what);
    }
    #[cfg(not(debug_assertions))]
    let _ = what;
}

/// Marks the current thread as running the body of a `distribute_items!`
/// or `single_item!` until dropped (also when the body panics).
pub(crate) struct ItemScope {
    nesting: Nesting,
    unit: u32,
}

impl ItemScope {
    #[inline(always)]
    fn enter_with(nesting: Nesting, unit: u32) -> Self {
        nesting.set(nesting.get().wrapping_add(unit));
        ItemScope { nesting, unit }
    }

    /// Entering the body of `distribute_items!` on a group carrying
    /// `nesting`.
    #[inline(always)]
    pub(crate) fn enter(nesting: Nesting) -> Self {
        Self::enter_with(nesting, ITEMS)
    }

    /// Entering the body of `single_item!`.
    #[inline(always)]
    pub(crate) fn single_item(nesting: Nesting) -> Self {
        Self::enter_with(nesting, SINGLE)
    }
}

impl Drop for ItemScope {
    #[inline(always)]
    fn drop(&mut self) {
        let nesting = self.nesting;
        nesting.set(nesting.get().wrapping_sub(self.unit));
    }
}

/// Starts a work group with fresh counts, restoring the previous ones when
/// dropped: a kernel that launches another queue from inside
/// `distribute_items!` may have rayon run the inner groups on this thread,
/// and those groups are not inside anything.
pub(crate) struct GroupScope {
    nesting: Nesting,
    saved: u32,
    #[cfg(debug_assertions)]
    saved_groups: u32,
}

impl GroupScope {
    /// Entering a work group that carries `nesting`, the thread's counts.
    #[inline(always)]
    pub(crate) fn enter(nesting: Nesting) -> Self {
        let saved = nesting.get();
        nesting.set(0);
        GroupScope {
            nesting,
            saved,
            #[cfg(debug_assertions)]
            saved_groups: GROUPS_DEPTH.with(|d| d.replace(0)),
        }
    }
}

impl Drop for GroupScope {
    #[inline(always)]
    fn drop(&mut self) {
        self.nesting.set(self.saved);
        #[cfg(debug_assertions)]
        GROUPS_DEPTH.with(|d| d.set(self.saved_groups));
    }
}

/// Called first by every collective, `nesting` being the counts its group
/// carries and `what` its name as the user writes it (`"group_barrier"`,
/// `"distribute_items!"`). Panics if the group's thread is inside
/// `distribute_items!` (nesting rule 2) or `single_item!` (rule 3).
#[inline(always)]
#[track_caller]
pub(crate) fn check_collective(nesting: Nesting, what: &str) {
    let depth = nesting.get();
    if depth != 0 {
        violation(what, depth);
    }
}

#[cfg(debug_assertions)]
#[cold]
#[inline(never)]
#[track_caller]
fn rule1_violation(what: &str) -> ! {
    panic!(
        "nesting rule 1: `{what}` orders the sub-groups of a work group, which one thread runs \
         one after another, so it cannot be called inside `distribute_groups!`: call it in the \
         work group's scope, between `distribute_groups!` calls"
    )
}

#[cold]
#[inline(never)]
#[track_caller]
fn violation(what: &str, depth: u32) -> ! {
    if depth & (SINGLE - 1) != 0 {
        panic!(
            "nesting rule 2: `{what}` is a collective and cannot be called inside \
             `distribute_items!`, whose body runs once per logical item; it was reached through \
             a function called inside `distribute_items!`, where `#[kernel]` cannot see it: call \
             that function outside `distribute_items!`, in the scope of the group"
        )
    }
    panic!(
        "nesting rule 3: `{what}` is a collective that every physical item of the group must \
         reach, but it was called inside `single_item!`, whose body runs on one physical item \
         only; it was reached through a function called inside `single_item!`, where \
         `#[kernel]` cannot see it: call that function outside `single_item!`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = std::panic::catch_unwind(f).expect_err("the check must panic");
        match payload.downcast::<String>() {
            Ok(message) => *message,
            Err(payload) => payload
                .downcast::<&str>()
                .map(|m| m.to_string())
                .unwrap_or_default(),
        }
    }

    #[test]
    fn each_threads_counts_have_their_own_cache_lines() {
        let address = || Nesting::current().0 as *const Cell<u32> as usize;
        let here = address();
        let threads: Vec<usize> = (0..3)
            .map(|_| std::thread::spawn(address).join().unwrap())
            .collect();
        for (n, &a) in threads.iter().chain([&here]).enumerate() {
            assert_eq!(a % 128, 0, "counts at {a:#x}");
            for &b in &threads[..n.min(threads.len())] {
                assert!(a.abs_diff(b) >= 128, "counts at {a:#x} and {b:#x}");
            }
        }
        // The same thread keeps its counts.
        assert_eq!(address(), here);
    }

    #[test]
    fn collectives_pass_outside_item_scopes() {
        check_collective(Nesting::current(), "group_barrier");
        {
            let _items = ItemScope::enter(Nesting::current());
        }
        {
            let _single = ItemScope::single_item(Nesting::current());
        }
        check_collective(Nesting::current(), "group_barrier");
    }

    #[test]
    fn inside_distribute_items_is_rule_2() {
        let message = panic_message(|| {
            let _items = ItemScope::enter(Nesting::current());
            check_collective(Nesting::current(), "group_barrier");
        });
        assert!(
            message.starts_with("nesting rule 2: `group_barrier`"),
            "{message}"
        );
        // The guard was dropped while unwinding.
        check_collective(Nesting::current(), "group_barrier");
    }

    #[cfg(debug_assertions)]
    #[test]
    fn work_group_scope_is_rule_1_inside_distribute_groups() {
        check_work_group_scope("work_group_barrier");
        let message = panic_message(|| {
            let _groups = SubgroupScope::enter();
            check_work_group_scope("work_group_barrier");
        });
        assert!(
            message.starts_with("nesting rule 1: `work_group_barrier` orders the sub-groups"),
            "{message}"
        );
        check_work_group_scope("work_group_barrier");
    }

    #[test]
    fn inside_single_item_is_rule_3() {
        let message = panic_message(|| {
            let _single = ItemScope::single_item(Nesting::current());
            check_collective(Nesting::current(), "distribute_groups!");
        });
        assert!(
            message.starts_with("nesting rule 3: `distribute_groups!`"),
            "{message}"
        );
        check_collective(Nesting::current(), "distribute_groups!");
    }
}
