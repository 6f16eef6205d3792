//! What a kernel needs is reachable from `scoped` alone: `Zeroable` for
//! generic local memory, and bytemuck's derives through `scoped::bytemuck`.

use scoped::prelude::*;

/// Per-group sums through local memory of a generic element type.
#[kernel]
fn group_sums<T>(group: WorkGroup<1>, input: &[T], mut sums: ChunkWindow<'_, T>)
where
    T: Zeroable + Copy + std::ops::AddAssign + Send + Sync,
{
    local_memory_environment!(group, [T; 1], |total| {
        distribute_items!(group, |idx| total[0] += input[idx.global_linear_id()]);
        single_item!(group, || sums[group.group_linear_id()] = total[0]);
    });
}

#[derive(Clone, Copy, Debug, PartialEq, scoped::Zeroable)]
#[bytemuck(crate = "scoped::bytemuck")]
struct Pair {
    a: i32,
    b: i32,
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, other: Pair) {
        self.a += other.a;
        self.b += other.b;
    }
}

#[test]
fn generic_local_memory_with_a_derived_zeroable_type() {
    let input: Vec<Pair> = (0..64).map(|i| Pair { a: i, b: 2 * i }).collect();
    let mut sums = vec![Pair { a: -1, b: -1 }; 4];
    Queue::new()
        .parallel_with(4, 16, ChunksMut::new(&mut sums, 1), |g, w| {
            group_sums(g, &input, w)
        })
        .unwrap();
    let expected: Vec<Pair> = input
        .chunks(16)
        .map(|c| Pair {
            a: c.iter().map(|p| p.a).sum(),
            b: c.iter().map(|p| p.b).sum(),
        })
        .collect();
    assert_eq!(sums, expected);
    // `Pod` casts, through the re-export.
    let bytes: [u8; 8] = scoped::bytemuck::cast([1i32, 2]);
    assert_eq!(scoped::bytemuck::cast::<[u8; 8], [i32; 2]>(bytes), [1, 2]);
    fn pod<T: scoped::Pod>() {}
    pod::<f32>();
}
