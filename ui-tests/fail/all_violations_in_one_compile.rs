//! Every violation of a kernel is reported in one compile, each at its
//! own code.

use scoped::prelude::*;

#[kernel]
fn many(group: WorkGroup<1>) {
    let mut count = 0;
    distribute_items!(group, |_idx| {
        count += 1;
        group_barrier(group);
    });
    distribute_groups!(group, |subgroup| {
        single_item!(group, || {});
        if subgroup.leader() {
            group_barrier(subgroup);
        }
    });
    let _ = count;
}

fn main() {}
