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
