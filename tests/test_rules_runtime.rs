//! The run-time side of the nesting rules: a collective that a helper
//! function reaches from inside `distribute_items!` (nesting rule 2) or
//! `single_item!` (rule 3), where `#[kernel]` cannot see it, panics with
//! the rule's message, in debug and release builds; called in the group's
//! scope, the same helper works.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use scoped::prelude::*;

/// Counts the group's items, then waits for the whole group: collective.
#[group_function]
fn count_items<G: ScopedGroup<1>>(group: G, counter: &AtomicUsize) {
    distribute_items!(group, |_idx| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    group_barrier(group);
}

/// Calls the helper inside `distribute_items!`: breaks rule 2 at run time.
#[kernel]
fn helper_in_distribute_items(group: WorkGroup<1>, counter: &AtomicUsize) {
    distribute_items!(group, |_idx| {
        count_items(group, counter);
    });
}

/// Calls the helper inside `single_item!`: breaks rule 3 at run time.
#[kernel]
fn helper_in_single_item(group: WorkGroup<1>, counter: &AtomicUsize) {
    single_item!(group, || {
        count_items(group, counter);
    });
}

/// Calls the helper where it belongs: in the group's scope and, per
/// sub-group, inside `distribute_groups!`.
#[kernel]
fn helper_in_scope(group: WorkGroup<1>, counter: &AtomicUsize) {
    count_items(group, counter);
    distribute_groups!(group, |sub_group| {
        count_items(sub_group, counter);
    });
}

/// The message of the panic that `f` ends with.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the launch must panic");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => match payload.downcast::<&str>() {
            Ok(message) => message.to_string(),
            Err(_) => panic!("the panic has no message"),
        },
    }
}

#[test]
fn helpers_in_the_groups_scope_run_their_collectives() {
    let counter = AtomicUsize::new(0);
    let (groups, size) = (3, 20);
    Queue::new()
        .parallel(groups, size, |group: WorkGroup<1>| {
            helper_in_scope(group, &counter)
        })
        .unwrap();
    // Every item counted once by the work group, once by its sub-group.
    assert_eq!(counter.into_inner(), 2 * groups * size);
}

#[test]
fn a_collective_reached_inside_distribute_items_panics_with_rule_2() {
    let counter = AtomicUsize::new(0);
    let message = panic_message(|| {
        let _ = Queue::new().parallel(2, 4, |group: WorkGroup<1>| {
            helper_in_distribute_items(group, &counter)
        });
    });
    assert!(
        message.starts_with("nesting rule 2: `distribute_items!` is a collective and cannot be called inside `distribute_items!`"),
        "{message}"
    );
    assert!(
        message.contains("call that function outside `distribute_items!`"),
        "{message}"
    );
    // The helper's first collective refused to run: nothing was counted.
    assert_eq!(counter.into_inner(), 0);
}

#[test]
fn a_collective_reached_inside_single_item_panics_with_rule_3() {
    let counter = AtomicUsize::new(0);
    let message = panic_message(|| {
        let _ = Queue::new().parallel(2, 4, |group: WorkGroup<1>| {
            helper_in_single_item(group, &counter)
        });
    });
    assert!(
        message.starts_with("nesting rule 3: `distribute_items!`"),
        "{message}"
    );
    assert!(message.contains("inside `single_item!`"), "{message}");
    assert_eq!(counter.into_inner(), 0);
}

#[test]
fn the_check_recovers_after_a_violation() {
    // One thread runs every group, before and after the panic: the item
    // scope it was in when it panicked must not outlive the unwinding.
    let queue = Queue::with_threads(1).unwrap();
    let counter = AtomicUsize::new(0);
    panic_message(|| {
        let _ = queue.parallel(1, 4, |group: WorkGroup<1>| {
            helper_in_distribute_items(group, &counter)
        });
    });
    let counter = AtomicUsize::new(0);
    queue
        .parallel(2, 4, |group: WorkGroup<1>| helper_in_scope(group, &counter))
        .unwrap();
    assert_eq!(counter.into_inner(), 2 * 2 * 4);
}

#[kernel]
fn inner_count(group: WorkGroup<1>, counter: &AtomicUsize) {
    distribute_items!(group, |_idx| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
}

#[kernel]
fn launches_from_items(group: WorkGroup<1>, queue: &Queue, counter: &AtomicUsize) {
    distribute_items!(group, |_idx| {
        // Groups of the inner launch may run on this very thread; they are
        // not inside this distribute_items!.
        queue
            .parallel(4, 3, |g: WorkGroup<1>| inner_count(g, counter))
            .unwrap();
    });
}

#[test]
fn a_launch_inside_distribute_items_starts_its_groups_afresh() {
    let queue = Queue::with_threads(2).unwrap();
    let counter = AtomicUsize::new(0);
    queue
        .parallel(2, 2, |g: WorkGroup<1>| {
            launches_from_items(g, &queue, &counter)
        })
        .unwrap();
    assert_eq!(counter.into_inner(), 2 * 2 * 4 * 3);
}

/// Hands the helper a copy of the group made before `distribute_items!`.
#[kernel]
fn copy_in_distribute_items(group: WorkGroup<1>, counter: &AtomicUsize) {
    let copy = group;
    distribute_items!(group, |_idx| {
        count_items(copy, counter);
    });
}

/// Calls the helper on a sub-group inside its own `distribute_items!`.
#[kernel]
fn sub_group_helper_in_its_items(group: WorkGroup<1>, counter: &AtomicUsize) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |_idx| {
            count_items(sub_group, counter);
        });
    });
}

#[test]
fn copies_and_sub_groups_share_the_work_groups_counts() {
    // The counts are reached through the group: every copy of it and
    // every group made from it must see the same ones.
    for kernel in [copy_in_distribute_items, sub_group_helper_in_its_items] {
        let counter = AtomicUsize::new(0);
        let message = panic_message(|| {
            let _ = Queue::new().parallel(2, 4, |group: WorkGroup<1>| kernel(group, &counter));
        });
        assert!(
            message.starts_with("nesting rule 2: `distribute_items!`"),
            "{message}"
        );
        assert_eq!(counter.into_inner(), 0);
    }
}

thread_local! {
    /// A work group kept past its launch.
    static KEPT: std::cell::Cell<Option<WorkGroup<1>>> = const { std::cell::Cell::new(None) };
}

#[kernel]
fn keep_group(group: WorkGroup<1>, counter: &AtomicUsize) {
    KEPT.with(|kept| kept.set(Some(group)));
    count_items(group, counter);
}

#[kernel]
fn use_kept_group(group: WorkGroup<1>, counter: &AtomicUsize) {
    let kept = KEPT
        .with(|kept| kept.get())
        .expect("the first launch kept its group");
    // In the scope of the running group: allowed.
    group_barrier(kept);
    distribute_items!(group, |_idx| {
        // The kept group runs on this thread, inside these items.
        count_items(kept, counter);
    });
}

#[test]
fn a_group_kept_after_its_launch_still_checks_its_threads_counts() {
    // Groups are `Copy` and `'static`: one kept in a thread-local outlives
    // its launch, and its collectives must still read live counts.
    let queue = Queue::with_threads(1).unwrap();
    let counter = AtomicUsize::new(0);
    queue
        .parallel(1, 4, |g: WorkGroup<1>| keep_group(g, &counter))
        .unwrap();
    assert_eq!(counter.load(Ordering::Relaxed), 4);
    let message = panic_message(|| {
        let _ = queue.parallel(1, 4, |g: WorkGroup<1>| use_kept_group(g, &counter));
    });
    assert!(
        message.starts_with("nesting rule 2: `distribute_items!`"),
        "{message}"
    );
    assert_eq!(counter.into_inner(), 4);
}

/// Runs a collective of a kept group while its thread ends.
struct BarrierOnExit(WorkGroup<1>, std::sync::Arc<AtomicUsize>);

impl Drop for BarrierOnExit {
    fn drop(&mut self) {
        group_barrier(self.0);
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

thread_local! {
    static ON_EXIT: std::cell::RefCell<Option<BarrierOnExit>> =
        const { std::cell::RefCell::new(None) };
}

#[test]
fn a_group_used_while_its_thread_ends_reads_live_counts() {
    // The thread-local holding the group may be destroyed after every
    // other one of the thread: the counts it reaches must still be there.
    let done = std::sync::Arc::new(AtomicUsize::new(0));
    {
        let queue = Queue::with_threads(1).unwrap();
        let done = &done;
        queue
            .parallel(1, 2, |group: WorkGroup<1>| {
                ON_EXIT.with(|slot| {
                    *slot.borrow_mut() = Some(BarrierOnExit(group, done.clone()));
                });
            })
            .unwrap();
    }
    // Dropping the queue ends its thread, which does not wait for it.
    let start = std::time::Instant::now();
    while done.load(Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed().as_secs() < 30,
            "the pool thread did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
