//! `#[kernel]` looks inside other macros whose arguments are expressions:
//! a collective in `assert!` or `format!` inside `distribute_items!`
//! breaks nesting rule 2 all the same.

use scoped::prelude::*;

#[kernel]
fn in_macros(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {
        assert_eq!(single_item!(group, || 1), 1);
        let _text = format!("{:?}", group_barrier(group));
    });
}

fn main() {}
