//! A kernel closure is checked as a `#[kernel]` function is: the same
//! nesting rules, the same errors.

use scoped::prelude::*;

fn main() {
    let queue = Queue::new();
    queue
        .parallel(1, 8, kernel_closure!(|group| {
            distribute_items!(group, |_idx| {
                group_barrier(group);
            });
            distribute_groups!(group, |sub| {
                single_item!(group, || {});
                let _ = sub;
            });
            let mut seen = 0;
            distribute_items!(group, |_idx| seen += 1);
            let _ = seen;
        }))
        .unwrap();
}
