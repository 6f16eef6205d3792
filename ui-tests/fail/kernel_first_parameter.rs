//! The first parameter of a `#[kernel]` is its work group.

use scoped::prelude::*;

#[kernel]
fn swapped(data: &[i32], group: WorkGroup<1>) {
    distribute_items!(group, |idx| {
        let _ = data[idx.global_linear_id()];
    });
}

#[kernel]
fn no_group(data: &[i32]) {
    let _ = data;
}

#[kernel]
fn by_reference(group: &WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

fn main() {}
