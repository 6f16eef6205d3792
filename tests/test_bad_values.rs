//! Bad values panic with a message that names them, in debug and release
//! builds alike: `Id` and `Range` arithmetic that overflows (never a
//! wrapped result), dimensions out of range for ids, items and groups
//! (naming the dimension, the dimension count and the item or group), and
//! an empty range's `delinearize`. Run these in both profiles
//! (`cargo test --release --test test_bad_values`).

use std::hint::black_box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use scoped::prelude::*;

/// The message of the panic that `f` ends with.
fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    let f = || drop(f());
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("it must panic");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast::<&str>()
            .map(|m| m.to_string())
            .expect("the panic has a message"),
    }
}

#[test]
fn a_range_size_that_overflows_panics_naming_the_range() {
    let range = black_box(Range::new([usize::MAX, 2, 3]));
    assert_eq!(
        panic_message(|| range.size()),
        format!(
            "the size of Range[{}, 2, 3] (the product of its components) overflows usize",
            usize::MAX
        )
    );
    assert_eq!(range.checked_size(), None);
    assert_eq!(Range::new([7, 5, 3]).size(), 105);
}

#[test]
fn id_subtraction_below_zero_panics_naming_both_ids() {
    let (a, b) = black_box((Id::new([5, 1]), Id::new([2, 3])));
    assert_eq!(
        panic_message(|| a - b),
        "Id[5, 1] - Id[2, 3] overflows usize in some dimension"
    );
    assert_eq!(Id::new([5, 3]) - Id::new([2, 3]), Id::new([3, 0]));
}

#[test]
fn id_addition_past_usize_panics_naming_both_ids() {
    let (a, b) = black_box((Id::new([usize::MAX]), Id::new([1])));
    assert_eq!(
        panic_message(|| a + b),
        format!(
            "Id[{}] + Id[1] overflows usize in some dimension",
            usize::MAX
        )
    );
    assert_eq!(Id::new([1, 2]) + Id::new([3, 4]), Id::new([4, 6]));
}

#[test]
fn delinearize_in_an_empty_range_panics_naming_it() {
    let range = black_box(Range::new([4, 0]));
    assert_eq!(
        panic_message(|| range.delinearize(3)),
        "cannot delinearize 3 in Range[4, 0]: the range is empty (a zero component)"
    );
}

#[test]
fn an_id_dimension_out_of_range_panics_naming_it() {
    let id = Range::new([4, 5, 6]);
    assert_eq!(
        panic_message(|| id.get(black_box(3))),
        "get: dimension 3 is out of range for Range[4, 5, 6], which has 3 dimensions \
         (0 ..= 2)"
    );
}

/// Asks an item of work group 1 for `innermost_local_id_dim(3)`.
#[kernel]
fn item_dimension_3(group: WorkGroup<2>, seen: &Mutex<Vec<usize>>) {
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == 5 {
            let value = idx.innermost_local_id_dim(black_box(3));
            seen.lock().unwrap().push(value);
        }
    });
}

#[test]
fn an_item_dimension_out_of_range_panics_naming_the_item() {
    let seen = Mutex::new(Vec::new());
    let message =
        panic_message(|| Queue::new().parallel([2, 1], [2, 2], |g| item_dimension_3(g, &seen)));
    assert_eq!(
        message,
        "innermost_local_id_dim: dimension 3 is out of range for the item with global id [2, 1], \
         which has 2 dimensions (0 ..= 1)"
    );
    assert!(seen.into_inner().unwrap().is_empty());
}

#[test]
fn a_group_dimension_out_of_range_panics_naming_the_group() {
    let message = panic_message(|| {
        Queue::new().parallel(3, 4, |g: WorkGroup<1>| {
            if g.group_linear_id() == 2 {
                black_box(g.group_id_dim(black_box(5)));
            }
        })
    });
    assert_eq!(
        message,
        "group_id_dim: dimension 5 is out of range for work group 2 (global ids 8 ..= 11), which \
         has 1 dimension (0 ..= 0)"
    );
}

#[test]
fn indexing_a_group_out_of_range_panics_naming_the_group() {
    let message = panic_message(|| {
        Queue::new().parallel([1, 2], [3, 4], |g: WorkGroup<2>| {
            if g.group_linear_id() == 1 {
                black_box(g[black_box(2)]);
            }
        })
    });
    assert_eq!(
        message,
        "group[dimension]: dimension 2 is out of range for work group [0, 1] (global ids [0, 4] \
         ..= [2, 7]), which has 2 dimensions (0 ..= 1)"
    );
}
