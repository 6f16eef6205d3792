//! Nesting rule 2: no `distribute_groups!` (or `distribute_items!`) inside
//! `distribute_items!`.

use scoped::prelude::*;

#[kernel]
fn nested(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {
        distribute_groups!(group, |subgroup| {
            single_item!(subgroup, || {});
        });
        distribute_items!(group, |_inner| {});
    });
}

fn main() {}
