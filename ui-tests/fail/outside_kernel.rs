//! The collective macros only exist inside a `#[kernel]` or
//! `#[group_function]` function.

use scoped::prelude::*;

fn not_a_kernel(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

fn main() {
    let _ = not_a_kernel;
}
