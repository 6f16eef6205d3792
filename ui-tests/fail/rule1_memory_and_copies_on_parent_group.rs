//! Nesting rule 1 for memory environments and the group's copy methods:
//! inside `distribute_groups!`, they operate on the subgroup.

use scoped::prelude::*;

#[kernel]
fn on_parent(group: WorkGroup<1>, input: &[f32]) {
    distribute_groups!(group, |subgroup| {
        memory_environment!(group, require_local_mem::<[f32; 8]>(), |tile| {
            let copy = group.async_work_group_copy(&mut tile[..], input, 8);
            group.wait_for([copy]);
        });
        private_memory_environment!(subgroup, f32, |_private| {});
    });
}

fn main() {}
