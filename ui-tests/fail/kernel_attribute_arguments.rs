//! `#[kernel]` takes only `group_size = ...`.

use scoped::prelude::*;

#[kernel(fast)]
fn with_arguments(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = 64, fast)]
fn with_two_arguments(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

fn main() {}
