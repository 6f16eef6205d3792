//! The arguments between the group and the closure of
//! `memory_environment!` are memory requests.

use scoped::prelude::*;

#[kernel]
fn bad_request(group: WorkGroup<1>) {
    memory_environment!(group, vec![0; 4], |memory| {
        memory[0] = 1;
    });
}

fn main() {}
