//! Nesting rule 3 through a variable: `lead` holds `leader()`, so a
//! condition on it diverges as well.

use scoped::prelude::*;

#[kernel]
fn through_variable(group: WorkGroup<1>) {
    distribute_groups!(group, |subgroup| {
        let lead = subgroup.leader();
        if lead {
            single_item!(subgroup, || {});
        }
    });
}

fn main() {}
