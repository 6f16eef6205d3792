//! SYCL's idiom for launch reductions: every logical item combines into the
//! group's reducer inside `distribute_items!` (a reducer is reduction
//! memory, not a physical item's variable, so rule 4 allows it).

use scoped::prelude::*;

#[kernel]
fn sum_and_max(
    group: WorkGroup<1>,
    input: &[i64],
    mut sum: Reducer<'_, i64, Plus>,
    mut max: Reducer<'_, i64, Maximum>,
) {
    distribute_items!(group, |idx| {
        let x = input[idx.global_linear_id()];
        sum += x;
        max.combine(x);
    });
}

fn main() {
    let input: Vec<i64> = (0..1000).map(|i| (i * 37) % 101 - 50).collect();
    let (mut sum, mut max) = (0i64, i64::MIN);
    Queue::new()
        .parallel_with(
            10,
            100,
            (reduction(&mut sum, plus()), reduction(&mut max, maximum())),
            |g, (s, m)| sum_and_max(g, &input, s, m),
        )
        .unwrap();
    assert_eq!(sum, input.iter().sum::<i64>());
    assert_eq!(max, *input.iter().max().unwrap());
}
