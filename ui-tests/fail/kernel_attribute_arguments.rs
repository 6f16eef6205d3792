//! `#[kernel]` takes no arguments.

use scoped::prelude::*;

#[kernel(fast)]
fn with_arguments(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

fn main() {}
