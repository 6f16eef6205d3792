//! What rule 4 (memory placement) allows inside `distribute_items!`:
//! writing through kernel parameters (global memory, also by passing them
//! on with `&mut`), memory-environment memory, variables declared inside,
//! and through references declared outside; reading every variable.

use scoped::prelude::*;

fn add_to(totals: &mut ChunkWindow<'_, i64>, group: usize, value: i64) {
    totals[group] += value;
}

#[kernel]
fn allowed(
    group: WorkGroup<1>,
    input: &[i64],
    mut out: ItemsWindow<'_, i64>,
    mut totals: ChunkWindow<'_, i64>,
) {
    let scale = 3;
    let mut per_group = [0i64; 1];
    let total = &mut per_group;
    memory_environment!(
        group,
        require_local_mem::<[i64; 1]>(),
        require_private_mem::<i64>(),
        |sum, private| {
            distribute_items!(group, |idx| {
                let mut scaled = input[idx.global_linear_id()];
                scaled *= scale;
                private[idx] = scaled;
                sum[0] += scaled;
                total[0] += 1;
                out[idx.global_id()] = private[idx];
                add_to(&mut totals, group.group_linear_id(), 0);
            });
        }
    );
    totals[group.group_linear_id()] = per_group[0];
}

fn main() {
    let input: Vec<i64> = (0..24).collect();
    let mut out = vec![0i64; 24];
    let mut counts = vec![0i64; 3];
    Queue::new()
        .parallel_with(
            3,
            8,
            (ItemsMut::new(&mut out), ChunksMut::new(&mut counts, 1)),
            |g, (window, totals)| allowed(g, &input, window, totals),
        )
        .unwrap();
    assert_eq!(out, input.iter().map(|x| 3 * x).collect::<Vec<_>>());
    assert_eq!(counts, [8, 8, 8]);
}
