//! Nesting rule 3 for loops: a loop whose condition depends on the physical
//! items, or that some items leave early, runs its collectives a different
//! number of times on different items.

use scoped::prelude::*;

#[kernel]
fn loops(group: WorkGroup<1>) {
    let mut i = 0;
    while i < group.physical_local_range_dim(0) {
        distribute_items_and_wait!(group, |_idx| {});
        i += 1;
    }
    loop {
        group_barrier(group);
        if group.leader() {
            break;
        }
    }
}

fn main() {}
