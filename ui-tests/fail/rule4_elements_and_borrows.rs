//! Rule 4 (memory placement) for elements, fields and `&mut` borrows of a
//! variable declared outside `distribute_items!`.

use scoped::prelude::*;

struct Stats {
    count: usize,
}

#[kernel]
fn parts(group: WorkGroup<1>) {
    let mut histogram = [0u32; 4];
    let mut stats = Stats { count: 0 };
    let mut last = 0;
    distribute_items!(group, |idx| {
        histogram[idx.global_linear_id() % 4] = 1;
        stats.count += 1;
        let slot = &mut last;
        *slot = idx.global_linear_id();
    });
    let _ = (histogram, stats.count, last);
}

fn main() {}
