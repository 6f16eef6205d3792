//! Items and groups are `Copy`: one can be kept past its loop, its work
//! group or its launch. Used where it does not belong (a window, an
//! `ItemsRef`, private memory or a group query of another work group or
//! launch) it panics, naming the item and what it was used with, in debug
//! and release builds alike; nothing reads or writes another element.
//! Run these in both profiles (`cargo test --release --test
//! test_foreign_items`).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use scoped::prelude::*;

/// The message of the panic that `f` ends with.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the launch must panic");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast::<&str>()
            .map(|m| m.to_string())
            .expect("the panic has a message"),
    }
}

/// Keeps the item of global linear id `which`.
#[kernel]
fn keep_item(group: WorkGroup<1>, which: usize, kept: &Mutex<Option<SItem<1>>>) {
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == which {
            kept.lock().unwrap().replace(idx);
        }
    });
}

/// The item of global linear id `which` of a launch of 2 groups of 10.
fn item_of_a_past_launch(which: usize) -> SItem<1> {
    let kept = Mutex::new(None);
    Queue::new()
        .parallel(2, 10, |g| keep_item(g, which, &kept))
        .unwrap();
    kept.into_inner().unwrap().expect("the item was kept")
}

#[test]
fn a_window_refuses_an_item_of_an_earlier_launch_at_its_own_position() {
    // Item 13 belongs to work group 1 of the earlier launch: its global and
    // local ids match work group 1 of this one, but it is not its item.
    let item = item_of_a_past_launch(13);
    let mut out = vec![0; 20];
    let message = panic_message(|| {
        let _ =
            Queue::new().parallel_with(2, 10, ItemsMut::new(&mut out), |g: WorkGroup<1>, mut w| {
                if g.group_linear_id() == 1 {
                    w[item] = 7;
                }
            });
    });
    assert_eq!(
        message,
        "global id 13 is outside this work group's window of ItemsMut (global ids 10 ..= 19), \
         or is an item of another launch"
    );
    assert!(out.iter().all(|&x| x == 0), "{out:?}");
}

#[test]
fn an_items_ref_refuses_an_item_of_another_group() {
    let item = item_of_a_past_launch(3);
    let input: Vec<i32> = (0..20).collect();
    let read = Mutex::new(Vec::new());
    let message = panic_message(|| {
        let _ = Queue::new().parallel_with(2, 10, ItemsRef::new(&input), |g: WorkGroup<1>, w| {
            if g.group_linear_id() == 1 {
                let value = w[item];
                read.lock().unwrap().push(value);
            }
        });
    });
    assert_eq!(
        message,
        "ItemsRef: global id 3 is not an item of this group (of this launch) or is outside the \
         launch's range 20"
    );
    assert!(read.into_inner().unwrap().is_empty());
}

/// Work group 0 keeps its item 2; work group 1 (which one thread runs
/// after it) indexes its own private memory with it.
#[kernel]
fn private_memory_of_another_work_group(
    group: WorkGroup<1>,
    kept: &Mutex<Option<SItem<1>>>,
    out: &Mutex<Vec<i32>>,
) {
    memory_environment!(group, require_private_mem::<i32>(), |values| {
        distribute_items!(group, |idx| {
            values[idx] = idx.global_linear_id() as i32;
            if idx.global_linear_id() == 2 {
                kept.lock().unwrap().replace(idx);
            }
        });
        if group.group_linear_id() == 1 {
            let other = kept.lock().unwrap().expect("group 0 ran first");
            let value = values[other];
            out.lock().unwrap().push(value);
        }
    });
}

#[test]
fn private_memory_refuses_an_item_of_another_work_group() {
    let (kept, out) = (Mutex::new(None), Mutex::new(Vec::new()));
    let message = panic_message(|| {
        let _ = Queue::with_threads(1).unwrap().parallel(2, 4, |g| {
            private_memory_of_another_work_group(g, &kept, &out)
        });
    });
    assert_eq!(
        message,
        "private memory: the item with global id 2 is not one of the items of the group whose \
         items start at global id 4 with range 4 (in this launch)"
    );
    assert!(out.into_inner().unwrap().is_empty());
}

/// Keeps item 3 (of sub-group 0), then indexes the private memory of
/// sub-group 1 of the same work group with it: the tags match, and only the
/// range check of memory smaller than the work group refuses it.
#[kernel]
fn private_memory_of_another_sub_group(group: WorkGroup<1, 8>, out: &Mutex<Vec<i32>>) {
    let kept = Mutex::new(None);
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == 3 {
            kept.lock().unwrap().replace(idx);
        }
    });
    let other = kept.into_inner().unwrap().expect("item 3 ran");
    distribute_groups!(group, |sub_group| {
        if sub_group.group_linear_id() == 1 {
            memory_environment!(sub_group, require_private_mem::<i32>(), |values| {
                let value = values[other];
                out.lock().unwrap().push(value);
            });
        }
    });
}

#[test]
fn sub_group_private_memory_refuses_an_item_of_another_sub_group() {
    let out = Mutex::new(Vec::new());
    let message = panic_message(|| {
        let _ = Queue::with_threads(1)
            .unwrap()
            .parallel(1, 16, |g| private_memory_of_another_sub_group(g, &out));
    });
    assert_eq!(
        message,
        "private memory: the item with global id 3 is not one of the items of the group whose \
         items start at global id 8 with range 8 (in this launch)"
    );
    assert!(out.into_inner().unwrap().is_empty());
}

thread_local! {
    /// A sub-group kept by a kernel (sub-groups stay on their thread).
    static KEPT_SUB_GROUP: Cell<Option<SubGroup<1, 8>>> = const { Cell::new(None) };
}

#[kernel]
fn keep_sub_group(group: WorkGroup<1, 8>) {
    distribute_groups!(group, |sub_group| {
        if sub_group.group_linear_id() == 1 {
            KEPT_SUB_GROUP.with(|k| k.set(Some(sub_group)));
        }
    });
}

/// Writes 1 for every item of `sub_group`.
#[group_function]
fn fill_sub_group(sub_group: SubGroup<1, 8>, out: &mut ItemsWindow<'_, i32>) {
    distribute_items!(sub_group, |idx| out[idx] = 1);
}

/// Runs `distribute_items!` on the sub-group an earlier launch kept.
#[kernel]
fn write_through_old_sub_group(_group: WorkGroup<1, 8>, mut out: ItemsWindow<'_, i32>) {
    let old = KEPT_SUB_GROUP
        .with(Cell::get)
        .expect("the earlier launch kept a sub-group");
    fill_sub_group(old, &mut out);
}

#[test]
fn a_sub_group_of_an_earlier_launch_cannot_index_a_window() {
    // One thread runs both launches, so the thread-local sub-group is
    // there for the second.
    let queue = Queue::with_threads(1).unwrap();
    queue.parallel(1, 16, keep_sub_group).unwrap();
    let mut out = vec![0; 16];
    let message = panic_message(|| {
        let _ = queue.parallel_with(1, 16, ItemsMut::new(&mut out), write_through_old_sub_group);
    });
    assert_eq!(
        message,
        "global id 8 is outside this work group's window of ItemsMut (global ids 0 ..= 15), or \
         is an item of another launch"
    );
    assert!(out.iter().all(|&x| x == 0), "{out:?}");
}

/// Sub-group 0 asks for the local id of every item of the work group.
#[kernel]
fn local_ids_in_sub_group_0(group: WorkGroup<1, 8>, which: usize, out: &Mutex<Vec<usize>>) {
    let first = Cell::new(None);
    distribute_groups!(group, |sub_group| {
        if sub_group.group_linear_id() == 0 {
            first.set(Some(sub_group));
        }
    });
    let first = first.get().expect("sub-group 0 exists");
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == which {
            let local = first.local_linear_id(&idx);
            out.lock().unwrap().push(local);
        }
    });
}

#[test]
fn a_sub_groups_local_id_of_its_own_items_is_their_lane() {
    let out = Mutex::new(Vec::new());
    for which in 0..8 {
        Queue::new()
            .parallel(1, 16, |g| local_ids_in_sub_group_0(g, which, &out))
            .unwrap();
    }
    assert_eq!(out.into_inner().unwrap(), (0..8).collect::<Vec<_>>());
}

#[test]
fn a_sub_groups_local_id_of_an_item_past_it_panics_naming_both() {
    let out = Mutex::new(Vec::new());
    let message = panic_message(|| {
        let _ = Queue::new().parallel(1, 16, |g| local_ids_in_sub_group_0(g, 8, &out));
    });
    assert_eq!(
        message,
        "the item with global id 8 is not one of the items of sub-group 0 (global ids 0 ..= 7): \
         only items of distribute_items! on this group or its subgroups, in this launch, are"
    );
    assert!(out.into_inner().unwrap().is_empty());
}

/// Sub-group 1 asks for the local id of an item below it.
#[kernel]
fn local_id_below_sub_group_1(group: WorkGroup<1, 8>, out: &Mutex<Vec<Id<1>>>) {
    let second = Cell::new(None);
    distribute_groups!(group, |sub_group| {
        if sub_group.group_linear_id() == 1 {
            second.set(Some(sub_group));
        }
    });
    let second = second.get().expect("sub-group 1 exists");
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == 3 {
            let local = idx.local_id(&second);
            out.lock().unwrap().push(local);
        }
    });
}

#[test]
fn a_local_id_of_an_item_below_the_group_panics_naming_both() {
    let out = Mutex::new(Vec::new());
    let message = panic_message(|| {
        let _ = Queue::new().parallel(2, 16, |g| local_id_below_sub_group_1(g, &out));
    });
    assert_eq!(
        message,
        "the item with global id 3 is not one of the items of sub-group 1 (global ids 8 ..= 15): \
         only items of distribute_items! on this group or its subgroups, in this launch, are"
    );
    assert!(out.into_inner().unwrap().is_empty());
}

/// A work group asks for the local id of an item of an earlier launch.
#[test]
fn a_local_id_of_an_item_of_an_earlier_launch_panics() {
    let item = item_of_a_past_launch(12);
    let message = panic_message(|| {
        let _ = Queue::new().parallel(2, 10, |g: WorkGroup<1>| {
            if g.group_linear_id() == 1 {
                let _ = g.local_id(&item);
            }
        });
    });
    assert_eq!(
        message,
        "the item with global id 12 is not one of the items of work group 1 (global ids 10 ..= \
         19): only items of distribute_items! on this group or its subgroups, in this launch, are"
    );
}
