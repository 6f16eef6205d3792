//! `--sub-group-sizes`: the suite's variants that are generic over their
//! sub-group size, run at several sizes and at every instruction-set level
//! the CPU has, each size against the best one.
//!
//! For one variant at one level, every round runs each size once, in an
//! order balanced for what ran before; a size's figure is the median over
//! the rounds of its time divided by the time of the best size (by
//! median) in the same round. Times are CPU time, not wall time (on a
//! machine shared with other work, wall times of one thread came in steps
//! of the scheduler's 4 ms slices): the running thread's at one thread,
//! the process's at more. The first run at each
//! size is checked against the serial reference.

use std::fmt::Write;
use std::time::Duration;

use rayon::ThreadPool;
use scoped::{Isa, Queue};

use crate::kernels::Kernel;
use crate::machine::{Build, Machine};
use crate::measure::{median, median_ratio};
use crate::order::balanced_order;
use crate::units::ms;

/// One variant at one level and thread count: per size, its median time
/// and its median ratio to the best size.
struct Line {
    kernel: &'static str,
    variant: &'static str,
    isa: Isa,
    threads: usize,
    /// Per size: median time, median ratio to the best size.
    sizes: Vec<(Duration, f64)>,
}

/// Measures every sized variant of `kernels` at `sizes`, at every level
/// the CPU supports and at each of `threads`, over `runs` rounds. Returns
/// the report (a markdown table), or the results that did not match the
/// reference.
pub(crate) fn sweep(
    kernels: &mut [Box<dyn Kernel>],
    sizes: &[usize],
    threads: &[usize],
    runs: usize,
) -> Result<String, Vec<String>> {
    let levels: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.is_supported()).collect();
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for &threads in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(16 << 20)
            .build()
            .expect("rayon pool");
        for kernel in kernels.iter_mut() {
            for &variant in kernel.sized_variants() {
                for &isa in &levels {
                    let queue = Queue::new().with_isa(isa).expect("a supported level");
                    match measure(
                        kernel.as_mut(),
                        variant,
                        isa,
                        sizes,
                        threads,
                        runs,
                        &pool,
                        &queue,
                    ) {
                        Ok(line) => {
                            eprintln!("  {}", describe(&line, sizes));
                            lines.push(line);
                        }
                        Err(e) => errors.extend(e),
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(format!("{}\n\n{}", header(runs), table(&lines, sizes)))
    } else {
        Err(errors)
    }
}

/// One variant at one level: the checked first runs, then the rounds.
#[allow(clippy::too_many_arguments)]
fn measure(
    kernel: &mut dyn Kernel,
    variant: usize,
    isa: Isa,
    sizes: &[usize],
    threads: usize,
    runs: usize,
    pool: &ThreadPool,
    queue: &Queue,
) -> Result<Line, Vec<String>> {
    let name = kernel.name();
    let variant_name = kernel.variants()[variant];
    let mut errors = Vec::new();
    for &size in sizes {
        kernel.clear();
        pool.install(|| kernel.run_sized(queue, variant, size));
        if let Err(e) = kernel.check() {
            errors.push(format!(
                "{name} ({variant_name}, S = {size}, {isa}, {threads} threads): {e}"
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // One thread runs the whole launch (the queue launches on the pool it
    // is called in): its own clock leaves out the pool's idle spinning.
    let clock = if threads == 1 {
        libc::CLOCK_THREAD_CPUTIME_ID
    } else {
        libc::CLOCK_PROCESS_CPUTIME_ID
    };
    let mut times = vec![Vec::with_capacity(runs); sizes.len()];
    for round in 0..runs {
        for s in balanced_order(sizes.len(), round) {
            let time = pool.install(|| {
                let start = cpu_time(clock);
                kernel.run_sized(queue, variant, sizes[s]);
                cpu_time(clock).saturating_sub(start)
            });
            times[s].push(time);
        }
    }
    let medians: Vec<Duration> = times.iter().map(|t| median(&mut t.clone())).collect();
    let best = (0..sizes.len()).min_by_key(|&s| medians[s]).unwrap_or(0);
    let sizes = times
        .iter()
        .zip(&medians)
        .map(|(t, &m)| {
            let mut ratios: Vec<f64> = t
                .iter()
                .zip(&times[best])
                .map(|(t, b)| t.as_secs_f64() / b.as_secs_f64())
                .collect();
            (m, median_ratio(&mut ratios))
        })
        .collect();
    Ok(Line {
        kernel: name,
        variant: variant_name,
        isa,
        threads,
        sizes,
    })
}

/// CPU time so far of `clock`: the calling thread's
/// (`CLOCK_THREAD_CPUTIME_ID`) or the whole process's.
fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer,
    // which points to a live, writable `timespec`.
    let status = unsafe { libc::clock_gettime(clock, &mut t) };
    assert_eq!(status, 0, "clock_gettime({clock}) failed");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// One line of the progress log.
fn describe(line: &Line, sizes: &[usize]) -> String {
    let mut text = format!(
        "{} [{}] {} {} thr:",
        line.kernel, line.variant, line.isa, line.threads
    );
    for (size, (time, ratio)) in sizes.iter().zip(&line.sizes) {
        let _ = write!(text, " S={size} {:.3} ms ({ratio:.2})", ms(*time));
    }
    text
}

/// What was measured where: the CPU, whether it has AVX-512, the flags.
fn header(runs: usize) -> String {
    let machine = Machine::detect();
    let avx512 = if Isa::V4.is_supported() {
        "has"
    } else {
        "lacks"
    };
    format!(
        "CPU: {} ({avx512} AVX-512), rustflags: {}; ratio of each size's time to the best \
         size's, median over {runs} rounds, sizes alternating within a round",
        machine.cpu.as_deref().unwrap_or("unknown"),
        Build::own().flags(),
    )
}

/// The markdown table: one row per variant, level and thread count, one
/// column per size with its ratio to the best size, and the best time.
fn table(lines: &[Line], sizes: &[usize]) -> String {
    let mut text = String::from("| kernel | variant | level | threads |");
    for size in sizes {
        let _ = write!(text, " S = {size} |");
    }
    text.push_str(" best (ms) |\n|---|---|---|---|");
    for _ in sizes {
        text.push_str("---|");
    }
    text.push_str("---|\n");
    for line in lines {
        let _ = write!(
            text,
            "| {} | {} | {} | {} |",
            line.kernel, line.variant, line.isa, line.threads
        );
        for (_, ratio) in &line.sizes {
            let _ = write!(text, " {ratio:.2} |");
        }
        let best = line.sizes.iter().map(|(t, _)| *t).min().unwrap_or_default();
        let _ = writeln!(text, " {:.3} |", ms(best));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::cpu_time;
    use libc::CLOCK_THREAD_CPUTIME_ID as THREAD;

    #[test]
    fn cpu_time_counts_work_not_sleep() {
        let start = cpu_time(THREAD);
        std::thread::sleep(std::time::Duration::from_millis(30));
        let slept = cpu_time(THREAD) - start;
        let start = cpu_time(THREAD);
        let mut x = 1u64;
        let wall = std::time::Instant::now();
        while wall.elapsed().as_millis() < 30 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = cpu_time(THREAD) - start;
        assert!(
            slept.as_millis() < 10,
            "{slept:?} of CPU time while sleeping"
        );
        assert!(worked > slept, "{worked:?} working, {slept:?} sleeping");
    }
}
