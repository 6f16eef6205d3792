//! Nesting rule 2: private memory may not be requested inside
//! `distribute_items!`, and local memory belongs to the group's scope.

use scoped::prelude::*;

#[kernel]
fn requests(group: WorkGroup<1>) {
    distribute_items!(group, |idx| {
        memory_environment!(group, require_private_mem::<i32>(), |private| {
            private[idx] = 1;
        });
        local_memory_environment!(group, [i32; 4], |local| {
            local[0] = 1;
        });
    });
}

fn main() {}
