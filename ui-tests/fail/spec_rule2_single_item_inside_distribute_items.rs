//! Scoped parallelism v2, "Example of NOT okay", third case: `single_item`
//! invoked from within `distribute_items` (nesting rule 2). The spec's
//! `distribute_items` runs on the parent group, which is its own case
//! (rule 1); here it runs on the subgroup, so that only rule 2 is broken.

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        distribute_items!(subgroup, |_idx| {
            // Invalid (rule 2): single_item() is invoked from within
            // distribute_items()
            single_item!(subgroup, || {});
        });
    });
}

fn main() {}
