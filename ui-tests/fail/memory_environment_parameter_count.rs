//! The closure of `memory_environment!` takes one parameter per request.

use scoped::prelude::*;

#[kernel]
fn counts(group: WorkGroup<1>) {
    memory_environment!(
        group,
        require_local_mem::<[i32; 4]>(),
        require_private_mem::<i32>(),
        |local| {
            local[0] = 1;
        }
    );
}

fn main() {}
