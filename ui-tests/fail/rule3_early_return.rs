//! Nesting rule 3: after an early `return` on `leader()`, the rest of the
//! kernel is not reached by every physical item.

use scoped::prelude::*;

#[kernel]
fn early(group: WorkGroup<1>) {
    if !group.leader() {
        return;
    }
    distribute_items!(group, |_idx| {});
}

fn main() {}
