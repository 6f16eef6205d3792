//! A `#[group_function]` is checked like a kernel, with its group
//! parameter as the innermost group.

use scoped::prelude::*;

#[group_function]
fn load_tile<G: ScopedGroup<1>>(group: G, input: &[f32], tile: &mut [f32]) {
    let mut loaded = 0;
    distribute_items!(group, |idx| {
        tile[idx.local_linear_id(&group)] = input[idx.global_linear_id()];
        loaded += 1;
        group_barrier(group);
    });
    distribute_groups!(group, |subgroup| {
        single_item!(group, || {});
        let _ = subgroup;
    });
    let _ = loaded;
}

fn main() {}
