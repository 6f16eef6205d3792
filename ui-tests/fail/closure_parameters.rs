//! Each collective macro takes a closure with a fixed number of
//! parameters: one item, one subgroup, or none.

use scoped::prelude::*;

#[kernel]
fn arity(group: WorkGroup<1>) {
    distribute_items!(group, |idx, extra| {});
    distribute_groups!(group, || {});
    single_item_and_wait!(group, |item| {});
}

fn main() {}
