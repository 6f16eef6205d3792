//! `reduce_over_group` and `inclusive_scan_over_group` (f32 and i32, work
//! groups of 128 and 1024 items) against a plain scalar loop over the same
//! private memory, in elements per second.
//!
//! Each measured launch runs one work group on one thread, which repeats
//! the operation until it has processed `ELEMENTS_PER_LAUNCH` values, so
//! the launch itself costs little. The plain loops are what a user would
//! write: `fold` with `+` for the sum (which rustc vectorises for `i32`
//! but not for `f32`, since it may not reorder float adds) and a running
//! total for the scan. A sub-group variant reduces each sub-group of 8.
//!
//! `cargo bench -p scoped-bench --bench group_algorithms`; add
//! `--features scalar-algorithms` to measure the library's scalar path
//! instead.
//!
//! The loops here are short enough for code placement to dominate: the
//! `i32` sum of 1024 values measured 10.7 Gelem/s against the plain
//! loop's 16.7 in one build, and 16.3 against 17.9 with loops aligned to
//! 64 bytes (`RUSTFLAGS="-C target-cpu=native -C
//! llvm-args=-align-loops=64"`), the same instructions in both: the
//! fold's 32-byte loop had straddled a 64-byte boundary. Check a gap
//! with that flag before reading it as the algorithm's.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::ops::Add;
use std::time::Duration;

use bytemuck::Zeroable;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use scoped::prelude::*;

const ELEMENTS_PER_LAUNCH: usize = 1 << 18;

#[derive(Clone, Copy, Debug)]
enum Variant {
    Reduce,
    ReduceLoop,
    Scan,
    ScanLoop,
    SubGroupReduce,
    SubGroupReduceLoop,
}

fn plain_sum<T: Copy + Default + Add<Output = T>>(values: &[T]) -> T {
    values.iter().fold(T::default(), |acc, &x| acc + x)
}

fn plain_scan<T: Copy + Default + Add<Output = T>>(values: &[T], out: &mut [T]) {
    let mut acc = T::default();
    for (o, &x) in out.iter_mut().zip(values) {
        acc = acc + x;
        *o = acc;
    }
}

#[kernel]
fn repeat<T>(
    group: WorkGroup<1, 8>,
    input: &[T],
    variant: Variant,
    reps: usize,
    mut out: ChunkWindow<'_, T>,
) where
    T: Copy + Default + Zeroable + Add<Output = T>,
    Plus: GroupOperator<T>,
{
    memory_environment!(
        group,
        require_private_mem::<T>(),
        require_private_mem::<T>(),
        |x, y| {
            distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
            let last = group.logical_local_linear_range() - 1;
            let mut acc = T::default();
            for _ in 0..reps {
                let result = match variant {
                    Variant::Reduce => reduce_over_group(group, black_box(&*x), plus()),
                    Variant::ReduceLoop => plain_sum(black_box(x.as_slice())),
                    Variant::Scan => {
                        inclusive_scan_over_group(group, black_box(&*x), y, plus());
                        black_box(y.as_slice())[last]
                    }
                    Variant::ScanLoop => {
                        plain_scan(black_box(x.as_slice()), y.as_mut_slice());
                        black_box(y.as_slice())[last]
                    }
                    Variant::SubGroupReduce | Variant::SubGroupReduceLoop => {
                        let mut total = T::default();
                        distribute_groups!(group, |sg| {
                            let sum = match variant {
                                Variant::SubGroupReduce => {
                                    reduce_over_group(sg, black_box(&*x), plus())
                                }
                                _ => {
                                    let start = sg.group_linear_id() * 8;
                                    let len = sg.logical_local_linear_range();
                                    plain_sum(black_box(&x.as_slice()[start..start + len]))
                                }
                            };
                            total = total + sum;
                        });
                        total
                    }
                };
                acc = acc + result;
            }
            single_item!(group, || out[0] = acc);
        }
    );
}

fn run<T>(queue: &Queue, input: &[T], variant: Variant) -> T
where
    T: Copy + Default + Zeroable + Add<Output = T> + Send + Sync,
    Plus: GroupOperator<T>,
{
    let mut out = [T::default()];
    let reps = ELEMENTS_PER_LAUNCH / input.len();
    queue
        .parallel_with(1, input.len(), ChunksMut::new(&mut out, 1), |g, w| {
            repeat(g, input, variant, reps, w)
        })
        .expect("launch");
    out[0]
}

fn bench_type<T>(c: &mut Criterion, name: &str, make: impl Fn(usize) -> T)
where
    T: Copy + Default + Zeroable + Add<Output = T> + Send + Sync,
    Plus: GroupOperator<T>,
{
    let queue = Queue::with_threads(1).expect("a one-thread queue");
    let mut group = c.benchmark_group(format!("group_algorithms/{name}"));
    group.throughput(Throughput::Elements(ELEMENTS_PER_LAUNCH as u64));
    for size in [128usize, 1024] {
        let input: Vec<T> = (0..size).map(&make).collect();
        for variant in [
            Variant::Reduce,
            Variant::ReduceLoop,
            Variant::Scan,
            Variant::ScanLoop,
            Variant::SubGroupReduce,
            Variant::SubGroupReduceLoop,
        ] {
            let id = BenchmarkId::new(format!("{variant:?}"), size);
            group.bench_with_input(id, &input, |b, input| {
                b.iter(|| run(&queue, input, variant))
            });
        }
    }
    group.finish();
}

fn group_algorithms(c: &mut Criterion) {
    bench_type(c, "f32", |i| (i % 17) as f32 * 0.25 - 2.0);
    bench_type(c, "i32", |i| (i % 23) as i32 - 11);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = group_algorithms
}
criterion_main!(benches);
