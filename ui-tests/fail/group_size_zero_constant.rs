//! An extent of `#[kernel(group_size = ...)]` given by a constant is
//! checked when the kernel compiles: 0 is an error at the constant.

use scoped::prelude::*;

const EMPTY: usize = 0;

#[kernel(group_size = [8, EMPTY])]
fn empty_rows(group: WorkGroup<2>) {
    distribute_items!(group, |_idx| {});
}

fn main() {
    let _ = Queue::new().parallel([1, 1], [8, 1], empty_rows);
}
