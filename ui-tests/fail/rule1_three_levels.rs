//! Nesting rule 1 at every depth: each collective must take the group of
//! the innermost `distribute_groups!`, also through an alias of a group.

use scoped::prelude::*;

#[kernel]
fn three_levels(group: WorkGroup<1>) {
    let outer = group;
    distribute_groups!(group, |subgroup| {
        distribute_groups!(subgroup, |scalar| {
            single_item!(subgroup, || {});
            distribute_items_and_wait!(outer, |_idx| {});
            group_barrier_with_scope(subgroup, MemoryScope::Device);
            single_item!(scalar, || {});
        });
    });
}

fn main() {}
