//! The cost of one empty launch at 2 threads: blocking `Queue::parallel`
//! against the same launches submitted inside a `Queue::scope`, which
//! returns at once and runs them in order on the scope's thread.
//!
//! `cargo run --release --example async_launches` prints the medians over
//! rounds of 200 launches each, the two kinds taking turns, and the median
//! of the per-round ratios.

use std::hint::black_box;
use std::time::Instant;

use scoped::prelude::*;

const BATCH: u32 = 200;
const ROUNDS: usize = 31;

fn empty(group: WorkGroup<1>) {
    black_box(group.group_linear_id());
}

/// Mean nanoseconds per launch of `groups` empty groups, blocking.
fn blocking(queue: &Queue, groups: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..BATCH {
        queue.parallel(groups, 1, empty).expect("empty launch");
    }
    start.elapsed().as_nanos() as f64 / f64::from(BATCH)
}

/// Mean nanoseconds per launch inside one scope, from its start to its
/// end (the scope's thread started and joined included).
fn in_scope(queue: &Queue, groups: usize) -> f64 {
    let start = Instant::now();
    queue.scope(|s| {
        for _ in 0..BATCH {
            s.parallel(groups, 1, empty).expect("empty launch");
        }
    });
    start.elapsed().as_nanos() as f64 / f64::from(BATCH)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split(':').nth(1)?.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn main() {
    let queue = Queue::with_threads(2).expect("a queue of 2 threads");
    println!(
        "{} ({} threads), {ROUNDS} rounds of {BATCH} empty launches",
        cpu(),
        queue.num_threads()
    );
    println!(
        "{:>7} {:>14} {:>14} {:>16}",
        "groups", "blocking", "in a scope", "scope/blocking"
    );
    for groups in [1, 1024] {
        let (mut b, mut s, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        // Round 0 wakes the threads and is not counted.
        for round in 0..=ROUNDS {
            let (tb, ts) = if round % 2 == 0 {
                let tb = blocking(&queue, groups);
                (tb, in_scope(&queue, groups))
            } else {
                let ts = in_scope(&queue, groups);
                (blocking(&queue, groups), ts)
            };
            if round > 0 {
                b.push(tb);
                s.push(ts);
                ratios.push(ts / tb);
            }
        }
        println!(
            "{groups:>7} {:>11.2} µs {:>11.2} µs {:>16.2}",
            median(&mut b) / 1e3,
            median(&mut s) / 1e3,
            median(&mut ratios)
        );
    }
}
