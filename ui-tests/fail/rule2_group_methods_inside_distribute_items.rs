//! Nesting rule 2 for the group's collective methods: the copies and
//! `wait_for` are collectives too.

use scoped::prelude::*;

#[kernel]
fn copies(group: WorkGroup<1>, input: &[u8]) {
    local_memory_environment!(group, [u8; 16], |tile| {
        distribute_items!(group, |_idx| {
            let copied = group.async_work_group_copy(&mut tile[..], input, 16);
            group.wait_for([copied]);
        });
    });
}

fn main() {}
