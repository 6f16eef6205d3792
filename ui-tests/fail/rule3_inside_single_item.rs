//! Nesting rule 3: the body of `single_item!` runs on one physical item,
//! so no collective may be called inside it.

use scoped::prelude::*;

#[kernel]
fn single(group: WorkGroup<1>) {
    single_item!(group, || {
        group_barrier(group);
        distribute_groups!(group, |_subgroup| {});
    });
}

fn main() {}
