//! Scoped parallelism v2, "Example of NOT okay", first case: a group
//! algorithm called from within `distribute_items` (nesting rule 2).

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {
        // Invalid (rule 2): group algorithm from within distribute_items()
        group_barrier(group);
    });
}

fn main() {}
