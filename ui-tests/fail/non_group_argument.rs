//! The first argument of a collective macro is the innermost group, named
//! by a variable.

use scoped::prelude::*;

#[kernel]
fn arguments(group: WorkGroup<1>, data: &[i32]) {
    distribute_items!(data, |_idx| {});
    distribute_items!(grp, |_idx| {});
    single_item!(Some(group), || {});
    let run = |sg: WorkGroup<1>| {
        distribute_items!(sg, |_idx| {});
    };
    let _ = run;
}

fn main() {}
