//! Rule 4 (memory placement) for parameters: writing through a parameter
//! reaches global memory and is fine, but assigning the parameter itself
//! changes the physical item's own copy.

use scoped::prelude::*;

#[kernel]
fn budget(group: WorkGroup<1>, mut remaining: usize, mut out: ItemsWindow<'_, usize>) {
    distribute_items!(group, |idx| {
        out[idx.global_id()] = remaining;
        remaining -= 1;
    });
}

fn main() {}
