//! Nesting rule 3: a `match` on a physical id chooses different code for
//! different physical items.

use scoped::prelude::*;

#[kernel]
fn by_id(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        match subgroup.physical_local_linear_id() {
            0 => group_barrier(subgroup),
            _ => {}
        }
    });
}

fn main() {}
