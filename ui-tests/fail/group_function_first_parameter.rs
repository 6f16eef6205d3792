//! The first parameter of a `#[group_function]` is the group it operates
//! on: a type bounded by `ScopedGroup<D>` or a group type.

use scoped::prelude::*;

#[group_function]
fn no_group(data: &[i32]) -> i32 {
    data[0]
}

#[group_function]
fn unbounded<G: Copy>(group: G) {
    single_item!(group, || {});
}

fn main() {}
