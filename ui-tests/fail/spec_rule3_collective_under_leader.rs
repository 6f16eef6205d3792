//! Scoped parallelism v2, "Example of NOT okay", fourth case: a collective
//! that only the leader of the group reaches (nesting rule 3).

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        distribute_groups!(subgroup, |subsubgroup| {
            // Invalid (rule 3): Only one physical work item (the leader)
            // of subsubgroup will reach the distribute_items call.
            if subsubgroup.leader() {
                distribute_items!(subsubgroup, |_idx| {});
            }
        });
    });
}

fn main() {}
