//! The comparison runner: every kernel of the suite in its `scoped`
//! variants and as its hand-written rayon peer, alternately, in one
//! process, at 1 thread and at all threads, the kernels taking turns
//! round by round (the method: `README.md`).
//!
//! ```sh
//! cargo run --release -p scoped-bench                 # full sizes, 31 rounds
//! cargo run --release -p scoped-bench -- --quick      # smaller sizes, 5 rounds: under a minute
//! cargo run --release -p scoped-bench -- --kernel triad --threads 2 --runs 30
//! cargo run --release -p scoped-bench -- --quick --threads 1 --sub-group-sizes all
//! ```
//!
//! With `--sub-group-sizes` the runner instead compares the variants
//! generic over their sub-group size at those sizes, at every
//! instruction-set level the CPU has (`sizes`), and writes nothing.
//!
//! Each kernel's first run at each thread count (scoped variants and peer)
//! is checked against the serial reference; a mismatch is reported and
//! the runner exits with status 1 and writes nothing. Otherwise it prints
//! the report and writes it to `BENCHMARKS.md` at the repository root,
//! with the chart of the ratios in `scoped-bench/ratios.png`.

mod bandwidth;
mod cache;
mod chart;
mod kernels;
mod launch;
mod machine;
mod markdown;
mod measure;
mod options;
mod order;
mod results;
mod sizes;
mod units;

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use kernels::{Kernel, Scale};
use launch::measure_launch;
use machine::Machine;
use measure::Measurement;
use options::options;
use order::balanced_order;
use results::{Report, Row};
use scoped::Queue;
use units::ms;

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
    if !options.sub_group_sizes.is_empty() {
        eprintln!("compare: sub-group sizes {:?}", options.sub_group_sizes);
        return match sizes::sweep(
            &mut kernels,
            &options.sub_group_sizes,
            &options.threads,
            options.runs,
        ) {
            Ok(report) => {
                println!("{report}");
                ExitCode::SUCCESS
            }
            Err(errors) => {
                for e in &errors {
                    eprintln!("compare: WRONG RESULT: {e}");
                }
                ExitCode::FAILURE
            }
        };
    }
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
                eprintln!("  {}", progress(&row));
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
        args: std::env::args().skip(1).collect(),
        machine: Machine::detect(),
    };
    let markdown = markdown::markdown(&report);
    println!("{markdown}");
    if options.write {
        if let Err(e) = write(&report, &markdown) {
            eprintln!("compare: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// One line of the progress log.
fn progress(r: &Row) -> String {
    let twin = r
        .twin_ratio
        .map_or(String::new(), |t| format!(", against its twin {t:.3}"));
    let (scoped_rate, peer_rate, unit) = r.rates();
    format!(
        "{} [{}] {} thr: scoped {:.3} ms, peer {:.3} ms, ratio {:.3}{twin}, {scoped_rate:.1} / {peer_rate:.1} {unit}",
        r.kernel,
        r.variant,
        r.threads,
        ms(r.scoped),
        ms(r.peer),
        r.ratio,
    )
}

/// Writes `markdown` to `BENCHMARKS.md` at the repository root and, if
/// any kernel ran, the chart.
fn write(report: &Report, markdown: &str) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is in the workspace's root");
    let file = root.join("BENCHMARKS.md");
    std::fs::write(&file, markdown).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    eprintln!("compare: wrote {}", file.display());
    if !report.rows.is_empty() {
        let chart = root.join(markdown::CHART);
        chart::draw(&report.rows, &chart)
            .map_err(|e| format!("cannot draw {}: {e}", chart.display()))?;
        eprintln!("compare: wrote {}", chart.display());
    }
    Ok(())
}
