//! The comparison runner: every kernel of the suite in its `scoped`
//! variants and as its hand-written rayon peer, alternately, in one
//! process, at 1 thread and at all threads.
//!
//! ```sh
//! cargo bench --bench compare                 # full sizes, 31 runs each
//! cargo bench --bench compare -- --quick      # smaller sizes, 5 runs: under a minute
//! cargo bench --bench compare -- --kernel triad --threads 2 --runs 30
//! ```
//!
//! Each kernel's first run at each thread count (scoped variants and peer)
//! is checked against the serial reference; a mismatch is reported and
//! the runner exits with status 1 and writes nothing. Otherwise it prints
//! the table (median times, ratio `scoped`/peer, GB/s or GFLOP/s), the
//! launch overhead against rayon, and writes both to `BENCHMARKS.md` with
//! the machine it ran on and a bar chart of the ratios,
//! `benches/ratios.png`.

#[path = "kernels/mod.rs"]
mod kernels;
#[path = "compare/order.rs"]
mod order;
#[path = "compare/report.rs"]
mod report;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use kernels::{launch_overhead, Kernel, Scale};
use order::balanced_order;
use report::{AgainstFirst, LaunchRow, Report, Row};
use scoped::Queue;

struct Options {
    scale: Scale,
    threads: Vec<usize>,
    kernels: Vec<String>,
    runs: usize,
    write: bool,
    launch: bool,
}

const USAGE: &str = "usage: cargo bench --bench compare -- [--quick] [--threads N[,N...]] \
                     [--kernel NAME]... [--runs N] [--no-write] [--no-launch]";

fn options() -> Result<Options, String> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1, all];
    threads.dedup();
    let mut o = Options {
        scale: Scale::Full,
        threads,
        kernels: Vec::new(),
        runs: 0,
        write: true,
        launch: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            // Passed by `cargo bench` to every bench target.
            "--bench" => {}
            "--quick" => o.scale = Scale::Quick,
            "--no-write" => o.write = false,
            "--no-launch" => o.launch = false,
            "--threads" => {
                let text = value("--threads")?;
                o.threads = text
                    .split(',')
                    .map(|t| match t.parse::<usize>() {
                        Ok(n) if n > 0 => Ok(n),
                        _ => Err(format!("--threads: `{t}` is not a positive integer")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--kernel" => o.kernels.push(value("--kernel")?),
            "--runs" => {
                let text = value("--runs")?;
                o.runs = match text.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--runs: `{text}` is not a positive integer")),
                };
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if o.runs == 0 {
        o.runs = match o.scale {
            Scale::Full => 31,
            Scale::Quick | Scale::Test => 5,
        };
    }
    let names: Vec<&str> = kernels::all().iter().map(|e| e.name).collect();
    for k in &o.kernels {
        if !names.contains(&k.as_str()) {
            return Err(format!(
                "--kernel: no kernel named `{k}` (kernels: {})",
                names.join(", ")
            ));
        }
    }
    Ok(o)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn median_ratio(ratios: &mut [f64]) -> f64 {
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Runs one kernel at `threads` threads: a checked first run of every
/// variant and of the peer, then `runs` timed rounds, in each of which
/// every variant runs back to back with the peer. Returns one row per
/// variant, or the mismatches.
fn measure(kernel: &mut dyn Kernel, threads: usize, runs: usize) -> Result<Vec<Row>, Vec<String>> {
    // One pool for both sides, as in a program that uses rayon and
    // `scoped` together: `Queue::new()` launches on the pool it is called
    // in. With a pool each (a queue's own and a rayon pool) two sets of
    // threads take turns on the cores: matmul measured 1.05-1.11x at 2
    // threads that way, with the same CPU time on both sides (perf), so the
    // difference was time off the cores, not work; in one pool 0.97-0.99x.
    // The stack is the one a queue's own pool gives, room for local memory.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(16 << 20)
        .build()
        .expect("rayon pool");
    let queue = Queue::new();
    let variants = kernel.variants();
    let mut errors = Vec::new();
    for (v, variant) in variants.iter().enumerate() {
        kernel.clear();
        pool.install(|| kernel.run_scoped(&queue, v));
        if let Err(e) = kernel.check() {
            errors.push(format!(
                "{} (scoped, {variant}, {threads} threads): {e}",
                kernel.name()
            ));
        }
    }
    kernel.clear();
    pool.install(|| kernel.run_peer());
    if let Err(e) = kernel.check() {
        errors.push(format!("{} (peer, {threads} threads): {e}", kernel.name()));
    }
    let mut has_twin = Vec::with_capacity(variants.len());
    for (v, variant) in variants.iter().enumerate() {
        kernel.clear();
        let ran = pool.install(|| kernel.run_twin(v));
        if ran {
            if let Err(e) = kernel.check() {
                errors.push(format!(
                    "{} (twin of {variant}, {threads} threads): {e}",
                    kernel.name()
                ));
            }
        }
        has_twin.push(ran);
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    // Every variant runs back to back with the peer, in alternating order,
    // so each ratio compares two runs under the same machine conditions.
    // Kernels with a sub-group variant also run their first variant a
    // second time in every round (slot `variants.len()`), paired the same
    // way: that copy against the first is the noise floor of the
    // sub-groups/first comparison, measured in the same rounds.
    let control = variants.contains(&report::SUB_GROUPS);
    let slots = variants.len() + usize::from(control);
    let mut scoped_times = vec![Vec::with_capacity(runs); slots];
    let mut ratios = vec![Vec::with_capacity(runs); variants.len()];
    let mut twin_ratios = vec![Vec::with_capacity(runs); variants.len()];
    let mut peer_times = Vec::with_capacity(runs * slots);
    for round in 0..runs {
        // Each round takes the next row of a design balanced for what ran
        // just before (see `order`): in one fixed order, the same kernel
        // measured up to 1% faster in the third place than in the first.
        for slot in balanced_order(slots, round) {
            let v = if slot < variants.len() { slot } else { 0 };
            let (scoped, peer) = if round % 2 == 0 {
                let scoped = timed(|| pool.install(|| kernel.run_scoped(&queue, v)));
                (scoped, timed(|| pool.install(|| kernel.run_peer())))
            } else {
                let peer = timed(|| pool.install(|| kernel.run_peer()));
                (
                    timed(|| pool.install(|| kernel.run_scoped(&queue, v))),
                    peer,
                )
            };
            scoped_times[slot].push(scoped);
            peer_times.push(peer);
            if slot == variants.len() {
                continue;
            }
            ratios[v].push(scoped.as_secs_f64() / peer.as_secs_f64());
            if has_twin[v] {
                // The twin runs right after the scoped run's partner.
                let twin = timed(|| {
                    pool.install(|| kernel.run_twin(v));
                });
                twin_ratios[v].push(scoped.as_secs_f64() / twin.as_secs_f64());
            }
        }
    }
    // Every variant (and the control) against the first one, round by
    // round: both ran in the same round, so a slow spell of the machine
    // affects both.
    let mut first_ratios: Vec<Vec<f64>> = scoped_times
        .iter()
        .map(|times| {
            times
                .iter()
                .zip(&scoped_times[0])
                .map(|(t, first)| t.as_secs_f64() / first.as_secs_f64())
                .collect()
        })
        .collect();
    let first_again = control.then(|| median_ratio(&mut first_ratios[variants.len()]));
    let peer = median(&mut peer_times);
    let work = kernel.work();
    Ok(variants
        .iter()
        .enumerate()
        .zip(scoped_times.iter_mut().zip(&mut ratios))
        .zip(twin_ratios.iter_mut().zip(&mut first_ratios))
        .map(
            |(((v, variant), (times, ratios)), (twin_ratios, first_ratios))| Row {
                kernel: kernel.name(),
                variant,
                size: kernel.size(),
                threads,
                scoped: median(times),
                peer,
                work,
                ratio: median_ratio(ratios),
                twin_ratio: (!twin_ratios.is_empty()).then(|| median_ratio(twin_ratios)),
                against_first: (v > 0).then(|| AgainstFirst {
                    first: variants[0],
                    ratio: median_ratio(first_ratios),
                    first_again,
                }),
            },
        )
        .collect())
}

/// Launch overhead at `threads` threads: batches of launches of the empty
/// kernel and of rayon's empty `par_iter`, alternately.
fn measure_launch(threads: usize, runs: usize) -> Vec<LaunchRow> {
    const BATCH: usize = 200;
    // Both run on this one pool, entered from this thread every time: with
    // a pool each, the idle threads of the one that ran last still spin on
    // the cores while the other wakes up, which is most of a launch's few
    // microseconds. (A queue's own pool is a plain rayon pool: alternated
    // with one, it launches in the same time.) `Queue::new()` launches on
    // the pool it is called in.
    let queue = Queue::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    launch_overhead::GROUP_COUNTS
        .iter()
        .map(|&groups| {
            let (mut scoped, mut rayon, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
            // One untimed round to wake the threads up.
            for round in 0..=runs {
                let scoped_batch = || {
                    launch_overhead::time_batch(BATCH, || {
                        pool.install(|| launch_overhead::scoped_launch(&queue, groups))
                    })
                };
                let rayon_batch = || {
                    launch_overhead::time_batch(BATCH, || {
                        pool.install(|| launch_overhead::rayon_launch(groups))
                    })
                };
                // Alternating which goes first, as for the kernels: the
                // pool that ran last may still be spinning on the cores.
                let (s, r) = if round % 2 == 0 {
                    let s = scoped_batch();
                    (s, rayon_batch())
                } else {
                    let r = rayon_batch();
                    (scoped_batch(), r)
                };
                if round > 0 {
                    scoped.push(s);
                    rayon.push(r);
                    ratios.push(s.as_secs_f64() / r.as_secs_f64());
                }
            }
            LaunchRow {
                groups,
                threads,
                scoped: median(&mut scoped),
                rayon: median(&mut rayon),
                ratio: median_ratio(&mut ratios),
            }
        })
        .collect()
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("compare: {e}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for entry in kernels::all() {
        if !options.kernels.is_empty() && !options.kernels.iter().any(|k| k == entry.name) {
            continue;
        }
        eprintln!(
            "compare: setting up {} (inputs and serial reference)",
            entry.name
        );
        let mut kernel = (entry.setup)(options.scale);
        for &threads in &options.threads {
            eprintln!("compare: {} at {threads} threads", entry.name);
            match measure(kernel.as_mut(), threads, options.runs) {
                Ok(r) => {
                    for row in &r {
                        eprintln!("  {}", row.line());
                    }
                    rows.extend(r);
                }
                Err(e) => errors.extend(e),
            }
        }
    }
    let mut launch = Vec::new();
    if options.launch {
        eprintln!("compare: launch overhead");
        for &threads in &options.threads {
            launch.extend(measure_launch(threads, options.runs.max(10)));
        }
    }

    if !errors.is_empty() {
        for e in &errors {
            eprintln!("compare: WRONG RESULT: {e}");
        }
        eprintln!("compare: {} mismatches; nothing written", errors.len());
        return ExitCode::FAILURE;
    }
    let report = Report {
        quick: options.scale == Scale::Quick,
        runs: options.runs,
        rows,
        launch,
        elapsed: started.elapsed(),
        args: std::env::args()
            .skip(1)
            .filter(|a| a != "--bench")
            .collect(),
    };
    let markdown = report.markdown();
    println!("{markdown}");
    if options.write {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        if let Err(e) = report.write(root) {
            eprintln!("compare: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
