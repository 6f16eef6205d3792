//! A private memory wrapper borrows its environment's stack room: it
//! cannot be swapped into an outer environment, which would keep it past
//! the end of the inner one.

use scoped::prelude::*;

#[kernel]
fn swapped(group: WorkGroup<1>) {
    memory_environment!(group, require_private_mem::<i32>(), |outer| {
        distribute_groups!(group, |sub| {
            memory_environment!(sub, require_private_mem::<i32>(), |inner| {
                std::mem::swap(outer, inner);
            });
        });
        distribute_items!(group, |idx| {
            outer[idx] += 1;
        });
    });
}

fn main() {}
