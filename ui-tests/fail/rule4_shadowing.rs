//! Rule 4 (memory placement) follows Rust's scopes: the inner `total` is
//! declared inside `distribute_items!` and may be assigned; the outer one
//! may not. A `let` that shadows a kernel parameter is a local variable.

use scoped::prelude::*;

#[kernel]
fn shadows(group: WorkGroup<1>, mut out: ItemsWindow<'_, u32>) {
    let mut total = 0u32;
    let mut out_copy = [0u32; 2];
    distribute_items!(group, |idx| {
        {
            let mut total = 1u32;
            total += 1;
            out[idx.global_id_dim(0)] = total;
        }
        total = 2;
        out_copy[0] = total;
    });
    let _ = (total, out_copy);
}

fn main() {}
