//! The forms a kernel may take: a method (the group after `self`), a
//! `mut` or unused group parameter, an explicit sub-group size, two
//! dimensions, and helpers that receive an output window by `&mut`.

use scoped::prelude::*;

struct Scale {
    factor: i32,
}

fn store(out: &mut ItemsWindow<'_, i32, 2>, idx: &SItem<2>, value: i32) {
    out[idx.global_id()] = value;
}

impl Scale {
    #[kernel]
    fn run(&self, group: WorkGroup<2, 4>, input: &[i32], mut out: ItemsWindow<'_, i32, 2>) {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                let value = input[idx.global_linear_id()] * self.factor;
                store(&mut out, &idx, value);
            });
        });
    }
}

#[kernel]
fn shadowed(mut group: WorkGroup<1>, mut out: ChunkWindow<'_, usize>) {
    let original = group;
    group = original;
    single_item!(group, || out[group.group_linear_id()] =
        group.group_linear_id());
}

#[kernel]
fn no_collectives(_: WorkGroup<1>) {}

fn main() {
    let input: Vec<i32> = (0..48).collect();
    let mut out = vec![0i32; 48];
    let scale = Scale { factor: 3 };
    Queue::new()
        .parallel_with([2, 1], [3, 8], ItemsMut::new(&mut out), |g, window| {
            scale.run(g, &input, window)
        })
        .unwrap();
    assert_eq!(out, input.iter().map(|x| 3 * x).collect::<Vec<_>>());

    let mut ids = vec![usize::MAX; 3];
    Queue::new()
        .parallel_with(3, 2, ChunksMut::new(&mut ids, 1), shadowed)
        .unwrap();
    assert_eq!(ids, [0, 1, 2]);
    Queue::new().parallel(2, 2, no_collectives).unwrap();
}
