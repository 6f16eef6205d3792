//! Scoped parallelism v2, "Example of okay": every collective on the
//! innermost group, none inside `distribute_items!`. Each level counts the
//! items it visits, so the run checks that the hierarchy covers every item.

use std::sync::atomic::{AtomicUsize, Ordering};

use scoped::prelude::*;
use scoped::DEFAULT_SUB_GROUP_SIZE;

#[kernel]
fn okay(group: WorkGroup<1>, counts: &[AtomicUsize; 4]) {
    distribute_items!(group, |_idx| {
        counts[0].fetch_add(1, Ordering::Relaxed);
    });
    group_barrier(group);
    distribute_groups!(group, |subgroup| {
        distribute_items!(subgroup, |_idx| {
            counts[1].fetch_add(1, Ordering::Relaxed);
        });
        single_item!(subgroup, || {
            counts[2].fetch_add(1, Ordering::Relaxed);
        });
        distribute_groups!(subgroup, |subsubgroup| {
            distribute_items!(subsubgroup, |_idx| {
                counts[3].fetch_add(1, Ordering::Relaxed);
            });
        });
        group_barrier(subgroup);
    });
}

fn main() {
    let counts: [AtomicUsize; 4] = Default::default();
    let (groups, size) = (3, 20);
    Queue::new()
        .parallel(groups, size, |group: WorkGroup<1>| okay(group, &counts))
        .unwrap();
    let counts = counts.map(AtomicUsize::into_inner);
    let items = groups * size;
    let sub_groups_per_group = size.div_ceil(DEFAULT_SUB_GROUP_SIZE);
    assert_eq!(counts, [items, items, groups * sub_groups_per_group, items]);
}
