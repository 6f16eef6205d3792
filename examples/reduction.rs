//! The main job: the reduction kernel of the scoped-parallelism spec
//! (scoped parallelism v2, "Example code"), at 2^24 `i32` inputs in work
//! groups of 128.
//!
//! The kernel is in `reduction/kernel.rs`. Every group's sum is checked
//! against a serial loop; the kernel time is the median of several runs
//! after a warm-up, each run followed by one of the same sums written by
//! hand with rayon on the same thread pool, for comparison.
//!
//! `cargo run --release --example reduction [-- --size N --runs R --threads T]`

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use scoped::prelude::*;

#[path = "reduction/kernel.rs"]
mod kernel;

use kernel::{reduce, GROUP_SIZE};

/// Deterministic inputs in -1000..=1000, so that no group sum overflows.
fn input(size: usize) -> Vec<i32> {
    (0..size)
        .map(|i| ((i.wrapping_mul(2_654_435_761) >> 7) % 2001) as i32 - 1000)
        .collect()
}

struct Options {
    size: usize,
    runs: usize,
    threads: Option<usize>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        size: 1 << 24,
        runs: 15,
        threads: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            let text = args.next().ok_or_else(|| format!("{name} needs a value"))?;
            text.parse()
                .map_err(|_| format!("{name}: `{text}` is not a non-negative integer"))
        };
        match flag.as_str() {
            "--size" => options.size = value("--size")?,
            "--runs" => options.runs = value("--runs")?.max(1),
            "--threads" => options.threads = Some(value("--threads")?),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (expected --size, --runs, --threads)"
                ))
            }
        }
    }
    if options.size == 0 || !options.size.is_multiple_of(GROUP_SIZE) {
        return Err(format!(
            "--size {} must be a positive multiple of {GROUP_SIZE}",
            options.size
        ));
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("reduction: {e}");
            return ExitCode::from(2);
        }
    };
    // One pool for the kernel and the hand-written sums: with a pool
    // each, the idle pool's threads spun for the cores while the other
    // ran. The pool's threads get the stack `scoped`'s own pools give
    // them, room for the kernels' local memory; `Queue::new()` launches on
    // the pool it is called from.
    if let Some(threads) = options.threads {
        let most = rayon::max_num_threads();
        if !(1..=most).contains(&threads) {
            eprintln!("reduction: --threads {threads}: a pool has 1 ..= {most} threads");
            return ExitCode::from(2);
        }
    }
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .stack_size(scoped::WORKER_STACK_BYTES)
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("reduction: cannot build a thread pool: {e}");
            return ExitCode::from(2);
        }
    };
    let queue = Queue::new();
    let original = input(options.size);
    let groups = options.size / GROUP_SIZE;
    let mut data = original.clone();
    let mut by_hand = original.clone();
    let (mut times, mut rayon_times) = (Vec::new(), Vec::new());
    // Each run copies the input in and times one launch. The kernel and
    // the hand-written sums take turns going first, so that neither always
    // follows the other's memory traffic.
    let mut run_kernel = || {
        data.copy_from_slice(&original);
        let start = Instant::now();
        let launched = pool.install(|| {
            queue.parallel_with(
                groups,
                GROUP_SIZE,
                ItemsMut::new(&mut data),
                |group, window| reduce(group, window),
            )
        });
        launched.map(|()| start.elapsed())
    };
    // The same sums by hand, each group's written over its first element,
    // as the kernel does.
    let mut run_rayon = || {
        by_hand.copy_from_slice(&original);
        let start = Instant::now();
        pool.install(|| {
            by_hand
                .par_chunks_mut(GROUP_SIZE)
                .for_each(|chunk| chunk[0] = chunk.iter().sum())
        });
        start.elapsed()
    };
    for run in 0..=options.runs {
        let (launched, rayon_elapsed) = if run % 2 == 0 {
            let launched = run_kernel();
            (launched, run_rayon())
        } else {
            let rayon_elapsed = run_rayon();
            (run_kernel(), rayon_elapsed)
        };
        let elapsed = match launched {
            Ok(elapsed) => elapsed,
            Err(e) => {
                eprintln!("reduction: {e}");
                return ExitCode::FAILURE;
            }
        };
        if run > 0 {
            // Run 0 is the warm-up.
            times.push(elapsed);
            rayon_times.push(rayon_elapsed);
        }
    }

    let mut wrong = 0usize;
    for (group, chunk) in original.chunks(GROUP_SIZE).enumerate() {
        let expected: i32 = chunk.iter().sum();
        let got = data[group * GROUP_SIZE];
        if got != expected {
            if wrong < 5 {
                eprintln!("wrong result in group {group}: got {got}, expected {expected}");
            }
            wrong += 1;
        }
    }

    times.sort();
    let median: Duration = times[times.len() / 2];
    let bytes = (options.size * std::mem::size_of::<i32>()) as f64;
    println!(
        "reduction: {} i32 in {groups} groups of {GROUP_SIZE} on {} thread{}: median {:.3} ms over {} \
         runs ({:.2} GB/s read), min {:.3} ms",
        options.size,
        pool.current_num_threads(),
        if pool.current_num_threads() == 1 { "" } else { "s" },
        median.as_secs_f64() * 1e3,
        times.len(),
        bytes / median.as_secs_f64() / 1e9,
        times[0].as_secs_f64() * 1e3,
    );
    rayon_times.sort();
    let rayon_median = rayon_times[rayon_times.len() / 2];
    println!(
        "reduction: the same sums by hand with rayon: median {:.3} ms (kernel/rayon {:.2})",
        rayon_median.as_secs_f64() * 1e3,
        median.as_secs_f64() / rayon_median.as_secs_f64(),
    );
    if wrong > 0 {
        eprintln!("reduction: FAILED, {wrong} of {groups} group sums are wrong");
        return ExitCode::FAILURE;
    }
    if by_hand != data {
        eprintln!("reduction: the sums written by hand with rayon differ from the kernel's");
        return ExitCode::FAILURE;
    }
    println!("reduction: all {groups} group sums match the serial loop");
    ExitCode::SUCCESS
}
