//! Rule 4 (memory placement): a variable declared outside
//! `distribute_items!` lives in the physical item's private memory; the
//! logical items may read it but not assign it.

use scoped::prelude::*;

#[kernel]
fn sum(group: WorkGroup<1>, input: &[i32]) {
    let mut total = 0;
    distribute_items!(group, |idx| {
        total += input[idx.global_linear_id()];
    });
    let _ = total;
}

fn main() {}
