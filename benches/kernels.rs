//! Criterion benches of the suite's kernels, for finer study than the
//! comparison runner gives: every `scoped` variant and the rayon peer of
//! every kernel, at 1 thread and at all threads, at full size.
//!
//! ```sh
//! cargo bench --bench kernels                  # everything (several minutes)
//! cargo bench --bench kernels -- triad         # one kernel
//! SCOPED_BENCH_QUICK=1 cargo bench --bench kernels   # the quick sizes
//! ```
//!
//! The kernels are the modules in `benches/kernels/`, shared with
//! `benches/compare.rs`; results are checked against the serial reference
//! once before timing.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

// The comparison runner uses parts of the modules (the launch overhead,
// the list of kernels by name) that these benches do not.
#[allow(dead_code)]
#[path = "kernels/mod.rs"]
mod kernels;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernels::{launch_overhead, Scale, Work};
use scoped::Queue;

fn thread_counts() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, all];
    counts.dedup();
    counts
}

fn bench_kernels(c: &mut Criterion) {
    let scale = if std::env::var_os("SCOPED_BENCH_QUICK").is_some() {
        Scale::Quick
    } else {
        Scale::Full
    };
    for entry in kernels::all() {
        let mut kernel = (entry.setup)(scale);
        let mut group = c.benchmark_group(entry.name);
        group.sample_size(10);
        group.throughput(match kernel.work() {
            Work::Bytes { read, written, .. } => Throughput::Bytes((read + written) as u64),
            // Criterion has no flop unit: one "element" is one flop.
            Work::Flops(f) => Throughput::Elements(f as u64),
        });
        for threads in thread_counts() {
            let queue = Queue::with_threads(threads).expect("scoped queue");
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("rayon pool");
            for (v, variant) in kernel.variants().iter().enumerate() {
                kernel.clear();
                kernel.run_scoped(&queue, v);
                kernel
                    .check()
                    .unwrap_or_else(|e| panic!("{} scoped {variant}: {e}", entry.name));
                group.bench_function(
                    BenchmarkId::new(format!("scoped {variant}"), threads),
                    |b| b.iter(|| kernel.run_scoped(&queue, v)),
                );
            }
            kernel.clear();
            pool.install(|| kernel.run_peer());
            kernel
                .check()
                .unwrap_or_else(|e| panic!("{} peer: {e}", entry.name));
            group.bench_function(BenchmarkId::new("rayon peer", threads), |b| {
                b.iter(|| pool.install(|| kernel.run_peer()))
            });
        }
        group.finish();
    }
}

fn bench_launch(c: &mut Criterion) {
    let mut group = c.benchmark_group("launch overhead");
    for threads in thread_counts() {
        let queue = Queue::with_threads(threads).expect("scoped queue");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("rayon pool");
        for groups in launch_overhead::GROUP_COUNTS {
            let id = format!("{groups} groups, {threads} threads");
            group.bench_function(BenchmarkId::new("scoped", &id), |b| {
                b.iter(|| launch_overhead::scoped_launch(&queue, groups))
            });
            group.bench_function(BenchmarkId::new("rayon par_iter", &id), |b| {
                b.iter(|| pool.install(|| launch_overhead::rayon_launch(groups)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_launch, bench_kernels);
criterion_main!(benches);
