//! Scoped parallelism v2, "Example of NOT okay", fifth case:
//! `group_barrier` on the parent group inside `distribute_groups`
//! (nesting rule 1).

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        distribute_items!(subgroup, |_idx| {});
        // Invalid (rule 1): group_barrier() is not operating on the
        // closest group object (should operate on subgroup)
        group_barrier(group);
    });
}

fn main() {}
