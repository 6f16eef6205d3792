//! The lowering shortcuts keep the meaning of the code as written: each
//! case runs a kernel whose body a shortcut would take and compares what
//! it did with the same body in plain Rust loops (one closure per
//! sub-group, the guard evaluated by every item).

use std::ops::Add;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use scoped::prelude::*;

/// A count owned by whoever holds it: each copy counts on its own.
#[derive(Clone, Copy, Default)]
struct Counter(u32);

impl Counter {
    fn bump(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }
}

/// Bumps a counter where the nesting rules' syntactic check does not look
/// (inside a macro of the user's), as a helper function would.
macro_rules! bump {
    ($counter:ident) => {
        $counter.bump()
    };
}

#[kernel]
fn moved_counter(group: WorkGroup<1, 4>, seen: &Mutex<Vec<u32>>) {
    let mut counter = Counter::default();
    distribute_groups!(group, |sg| {
        distribute_items!(sg, move |_idx| {
            let count = bump!(counter);
            seen.lock().unwrap().push(count);
        })
    });
}

/// Plain Rust: the sub-group closure creates the item closure, and with it
/// a copy of the counter, once per sub-group.
fn moved_counter_reference(items: usize, sub_group_size: usize) -> Vec<u32> {
    let mut counter = Counter::default();
    let mut seen = Vec::new();
    for first in (0..items).step_by(sub_group_size) {
        let mut per_item = move |_item: usize| bump!(counter);
        for item in first..(first + sub_group_size).min(items) {
            seen.push(per_item(item));
        }
    }
    seen
}

#[test]
fn a_move_closure_in_sub_groups_is_created_once_per_sub_group() {
    let seen = Mutex::new(Vec::new());
    Queue::with_threads(1)
        .unwrap()
        .parallel(1, 8, |g| moved_counter(g, &seen))
        .unwrap();
    let expected = moved_counter_reference(8, 4);
    assert_eq!(expected, [1, 2, 3, 4, 1, 2, 3, 4]);
    assert_eq!(seen.into_inner().unwrap(), expected);
}

/// A bound whose evaluation is observable: `live + 0` counts its reads.
#[derive(Clone, Copy)]
struct Live<'a> {
    bound: usize,
    reads: &'a AtomicUsize,
}

impl Add<usize> for Live<'_> {
    type Output = usize;

    fn add(self, offset: usize) -> usize {
        let reads = self.reads.fetch_add(1, Relaxed) + 1;
        // Every read lowers the bound: the loop as written runs the items
        // whose own read still finds them below it.
        self.bound.saturating_sub(reads) + offset
    }
}

#[kernel]
fn guard_with_effects(group: WorkGroup<1>, bound: usize, ran: &AtomicUsize, reads: &AtomicUsize) {
    let live = Live { bound, reads };
    distribute_items!(group, |idx| {
        let lid = idx.innermost_local_id_dim(0);
        if lid < live + 0 {
            ran.fetch_add(1, Relaxed);
        }
    });
}

/// Plain Rust: every item evaluates the guard.
fn guard_with_effects_reference(items: usize, bound: usize) -> (usize, usize) {
    let (mut ran, reads) = (0, AtomicUsize::new(0));
    let live = Live {
        bound,
        reads: &reads,
    };
    for lid in 0..items {
        if lid < live + 0 {
            ran += 1;
        }
    }
    (ran, reads.into_inner())
}

#[test]
fn a_guard_whose_bound_has_effects_is_evaluated_by_every_item() {
    let (ran, reads) = (AtomicUsize::new(0), AtomicUsize::new(0));
    Queue::with_threads(1)
        .unwrap()
        .parallel(1, 16, |g| guard_with_effects(g, 20, &ran, &reads))
        .unwrap();
    let expected = guard_with_effects_reference(16, 20);
    assert_eq!(expected, (10, 16));
    assert_eq!((ran.into_inner(), reads.into_inner()), expected);
}
