//! Rule 4 (memory placement) for calls inside `distribute_items!` of a
//! closure declared `mut` outside it: an `FnMut` writes what it captured,
//! the physical item's private memory.

use scoped::prelude::*;

#[kernel]
fn calls(group: WorkGroup<1>) {
    let mut count = 0;
    let mut bump = || count += 1;
    distribute_items!(group, |_idx| {
        bump();
    });
    let mut seen = Vec::new();
    let mut record = |id: usize| seen.push(id);
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| record(idx.global_linear_id()));
    });
}

fn main() {}
