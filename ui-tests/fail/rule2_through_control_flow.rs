//! Nesting rule 2 is checked through every kind of Rust control flow inside
//! `distribute_items!`: blocks, `if`, `match`, loops and closures.

use scoped::prelude::*;

#[kernel]
fn deep(group: WorkGroup<1>, flag: bool) {
    distribute_items_and_wait!(group, |idx| {
        {
            group_barrier(group);
        }
        if flag {
            single_item!(group, || {});
        }
        match idx.global_linear_id() {
            0 => group_barrier(group),
            _ => {}
        }
        for _ in 0..2 {
            while flag {
                group_barrier(group);
            }
        }
        let later = || group_barrier(group);
        later();
    });
}

fn main() {}
