//! What rule 4 (memory placement) allows inside `distribute_items!`
//! beyond plain writes: writes through a slice made from a kernel
//! parameter (`as_mut_slice`, `split_at_mut`), `&self` methods and `Copy`
//! methods of variables declared outside (also when they are `mut`),
//! calls of `Fn` closures, and interior mutability the user chose.

use std::cell::Cell;

use scoped::prelude::*;

#[kernel]
fn derived(group: WorkGroup<1>, mut dst: ItemsWindow<'_, f32>, mut halves: ChunkWindow<'_, f32>) {
    let dr = dst.as_mut_slice();
    let (left, right) = halves.as_mut_slice().split_at_mut(4);
    let mut limit = 2.0f32;
    limit += 1.0;
    let names = vec![1.0f32, 2.0];
    let scale = |x: f32| x * 2.0;
    let hits = Cell::new(0);
    distribute_items!(group, |idx| {
        let col = idx.local_linear_id(&group);
        dr[col] = scale(limit.min(col as f32)) + names.len() as f32;
        if col < 4 {
            left[col] = names[0];
        } else {
            right[col - 4] = names[1];
        }
        hits.set(hits.get() + 1);
    });
    assert_eq!(hits.get(), 8);
}

fn main() {
    let mut dst = vec![0.0f32; 16];
    let mut halves = vec![0.0f32; 16];
    Queue::new()
        .parallel_with(
            2,
            8,
            (ItemsMut::new(&mut dst), ChunksMut::new(&mut halves, 8)),
            |g, (d, h)| derived(g, d, h),
        )
        .unwrap();
    let expected: Vec<f32> = (0..16)
        .map(|i| 2.0 * 3.0f32.min((i % 8) as f32) + 2.0)
        .collect();
    assert_eq!(dst, expected);
    assert_eq!(halves, [[1.0f32; 4], [2.0; 4], [1.0; 4], [2.0; 4]].concat());
}
