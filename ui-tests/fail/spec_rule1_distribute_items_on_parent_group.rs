//! Scoped parallelism v2, "Example of NOT okay", second case:
//! `distribute_items` on the parent group inside `distribute_groups`
//! (nesting rule 1).

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        // Invalid (rule 1): distribute_items() is not operating on the
        // closest group object (should operate on subgroup)
        distribute_items!(group, |_idx| {});
    });
}

fn main() {}
