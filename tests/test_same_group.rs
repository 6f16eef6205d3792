//! Item loops that index windows with their item run in one of two
//! identical copies, chosen by whether every such window belongs to the
//! distributed group (the macros' `lower/same_group.rs`). Both copies
//! compute what the plain loop does: results at every level, and the
//! plain loop's panic and writes for windows of another group.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use scoped::prelude::*;
use scoped::Isa;

/// Both outputs of one item: a Black-Scholes-like body, two windows
/// written after each other.
fn pair(x: f32, y: f32) -> (f32, f32) {
    ((x * y).sqrt() + 1.0, x / (y + 1.0) - x)
}

/// The inputs as an `ItemsRef` and as a slice read at the global id.
#[kernel]
fn two_outputs(
    group: WorkGroup<1>,
    x: ItemsRefWindow<'_, f32>,
    y: &[f32],
    (mut a, mut b): (ItemsWindow<'_, f32>, ItemsWindow<'_, f32>),
) {
    distribute_items!(group, |idx| {
        let (p, q) = pair(x[idx], y[idx.global_linear_id()]);
        a[idx] = p;
        b[idx] = q;
    });
}

#[test]
fn two_outputs_match_a_serial_loop_at_every_level() {
    let n = 40 * 16;
    let x: Vec<f32> = (0..n).map(|i| (i % 37) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 11) as f32 + 0.25).collect();
    let (expected_a, expected_b): (Vec<f32>, Vec<f32>) =
        x.iter().zip(&y).map(|(&x, &y)| pair(x, y)).unzip();
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let queue = Queue::new().with_isa(isa).unwrap();
        let (mut a, mut b) = (vec![f32::NAN; n], vec![f32::NAN; n]);
        let outputs = (ItemsMut::new(&mut a), ItemsMut::new(&mut b));
        queue
            .parallel_with(40, 16, (ItemsRef::new(&x), outputs), |g, (x, out)| {
                two_outputs(g, x, &y, out)
            })
            .unwrap();
        assert_eq!(a, expected_a, "level {isa}");
        assert_eq!(b, expected_b, "level {isa}");
    }
}

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

thread_local! {
    /// A work group kept by a kernel (groups stay on their thread).
    static KEPT: Cell<Option<WorkGroup<1>>> = const { Cell::new(None) };
}

#[kernel]
fn keep_group(group: WorkGroup<1>) {
    if group.group_linear_id() == 0 {
        KEPT.with(|k| k.set(Some(group)));
    }
}

/// Writes `b` then `a` for every item of `group`.
#[group_function]
fn write_both(group: WorkGroup<1>, a: &mut ItemsWindow<'_, i32>, b: &mut ItemsWindow<'_, i32>) {
    distribute_items!(group, |idx| {
        b[idx] = 1;
        a[idx] = 2;
    });
}

/// Writes through the group an earlier launch kept: neither window is
/// that group's.
#[kernel]
fn write_through_old_group(
    _group: WorkGroup<1>,
    (mut a, mut b): (ItemsWindow<'_, i32>, ItemsWindow<'_, i32>),
) {
    let old = KEPT
        .with(Cell::get)
        .expect("the earlier launch kept a group");
    write_both(old, &mut a, &mut b);
}

#[test]
fn windows_of_another_group_panic_as_in_the_plain_loop() {
    // One thread runs both launches, so the thread-local group is there
    // for the second.
    let queue = Queue::with_threads(1).unwrap();
    queue.parallel(1, 16, keep_group).unwrap();
    let (mut a, mut b) = (vec![0; 16], vec![0; 16]);
    let message = panic_message(|| {
        let outputs = (ItemsMut::new(&mut a), ItemsMut::new(&mut b));
        let _ = queue.parallel_with(1, 16, outputs, write_through_old_group);
    });
    assert_eq!(
        message,
        "global id 0 is outside this work group's window of ItemsMut (global ids 0 ..= 15), or \
         is an item of another launch"
    );
    assert!(a.iter().chain(&b).all(|&x| x == 0), "{a:?} {b:?}");
}

/// Writes `own` (the group's window) then `other` (an outer launch's)
/// for every item.
#[kernel]
fn write_own_then_other(
    group: WorkGroup<1>,
    mut own: ItemsWindow<'_, i32>,
    other: &mut ItemsWindow<'_, i32>,
) {
    distribute_items!(group, |idx| {
        own[idx] = 3;
        other[idx] = 4;
    });
}

#[test]
fn one_window_of_another_launch_panics_after_the_writes_before_it() {
    let queue = Queue::with_threads(1).unwrap();
    let (mut outer, mut inner) = (vec![0; 16], vec![0; 16]);
    let inner_out = Mutex::new(&mut inner);
    let message = panic_message(|| {
        let _ = queue.parallel_with(
            1,
            16,
            ItemsMut::new(&mut outer),
            |_: WorkGroup<1>, other| {
                let other = Mutex::new(other);
                let mut inner = inner_out.lock().unwrap();
                let _ = queue.parallel_with(1, 16, ItemsMut::new(&mut inner), |g, own| {
                    write_own_then_other(g, own, &mut other.lock().unwrap())
                });
            },
        );
    });
    assert_eq!(
        message,
        "global id 0 is outside this work group's window of ItemsMut (global ids 0 ..= 15), or \
         is an item of another launch"
    );
    // The plain loop wrote the first item's own element, then panicked.
    let mut expected = vec![0; 16];
    expected[0] = 3;
    assert_eq!(inner, expected);
    assert!(outer.iter().all(|&x| x == 0), "{outer:?}");
}
