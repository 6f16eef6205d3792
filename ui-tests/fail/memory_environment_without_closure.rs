//! `memory_environment!` ends with the closure that receives the memory.

use scoped::prelude::*;

#[kernel]
fn no_closure(group: WorkGroup<1>) {
    memory_environment!(group, require_local_mem::<[i32; 4]>());
}

fn main() {}
