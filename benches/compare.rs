//! The comparison runner: every kernel of the suite in its `scoped`
//! variants and as its hand-written rayon peer, alternately, in one
//! process, at 1 thread and at all threads, the kernels taking turns
//! round by round.
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

#[path = "compare/cache.rs"]
mod cache;
#[path = "kernels/mod.rs"]
mod kernels;
#[path = "compare/measure.rs"]
mod measure;
#[path = "compare/order.rs"]
mod order;
#[path = "compare/report.rs"]
mod report;

use std::process::ExitCode;
use std::time::Instant;

use kernels::{launch_overhead, Kernel, Scale};
use measure::{median, median_ratio, Measurement};
use order::balanced_order;
use report::{LaunchRow, Report};
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
    let mut kernels: Vec<Box<dyn Kernel>> = kernels::all()
        .into_iter()
        .filter(|entry| {
            options.kernels.is_empty() || options.kernels.iter().any(|k| k == entry.name)
        })
        .map(|entry| {
            eprintln!(
                "compare: setting up {} (inputs and serial reference)",
                entry.name
            );
            (entry.setup)(options.scale)
        })
        .collect();
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for &threads in &options.threads {
        // One pool for both sides, as in a program that uses rayon and
        // `scoped` together: `Queue::new()` launches on the pool it is
        // called in. With a pool each (a queue's own and a rayon pool) two
        // sets of threads take turns on the cores: matmul measured
        // 1.05-1.11x at 2 threads that way, with the same CPU time on both
        // sides (perf), so the difference was time off the cores, not
        // work; in one pool 0.97-0.99x. The stack is the one a queue's own
        // pool gives, room for local memory.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(16 << 20)
            .build()
            .expect("rayon pool");
        let queue = Queue::new();
        eprintln!("compare: {threads} threads: checking every kernel's results");
        let mut measurements = Vec::new();
        for kernel in &mut kernels {
            match Measurement::checked(kernel.as_mut(), threads, &pool, &queue) {
                Ok(m) => measurements.push(m),
                Err(e) => errors.extend(e),
            }
        }
        if !errors.is_empty() {
            // Nothing will be written: no point timing.
            continue;
        }
        // Round by round, every kernel takes its turn, in an order
        // balanced for which kernel ran before: each kernel is measured
        // over the whole run, not in one spell of it, so that rates of
        // different kernels (the triad's bandwidth against the others')
        // compare. This machine's memory bandwidth drifts by 10-30% over
        // minutes.
        for round in 0..options.runs {
            if round == 0 {
                eprint!("compare: {threads} threads: {} rounds:", options.runs);
            }
            eprint!(" {}", round + 1);
            for k in balanced_order(measurements.len(), round) {
                measurements[k].round(round, &pool, &queue);
            }
        }
        eprintln!();
        for m in measurements {
            for row in m.rows() {
                eprintln!("  {}", row.line());
                rows.push(row);
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
        cache: cache::last_level_cache(),
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
