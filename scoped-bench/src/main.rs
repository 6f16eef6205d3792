//! The comparison runner: every kernel of the suite in its `scoped`
//! variants and as its hand-written rayon peer, alternately, in one
//! process, at 1 thread and at all threads, the kernels taking turns
//! round by round (the method: `README.md`); at every instruction-set
//! level the CPU has, each in a build of the runner for that level.
//!
//! ```sh
//! cargo run --release -p scoped-bench                 # full sizes, 31 rounds, every level
//! cargo run --release -p scoped-bench -- --quick      # smaller sizes, 5 rounds
//! cargo run --release -p scoped-bench -- --isa v3 --kernel triad --threads 2 --runs 30
//! cargo run --release -p scoped-bench -- --quick --threads 1 --sub-group-sizes all
//! ```
//!
//! The runner builds itself once per level (`-C target-cpu=x86-64`,
//! `x86-64-v3`, `x86-64-v4`, into `target/isa/<level>`; its own build
//! serves the level its flags give) and runs each build as a child with
//! `SCOPED_ISA=<level>`, which hands its rows back on its standard output
//! (`child`). Then it alternates children of a default build and of a
//! native one (`native`), and measures the launch overhead itself.
//!
//! With `--sub-group-sizes` the runner instead compares the variants
//! generic over their sub-group size at those sizes, at every
//! instruction-set level the CPU has, in its own build (`sizes`), and
//! writes nothing.
//!
//! Each kernel's first run at each thread count (scoped variants and peer)
//! is checked against the serial reference; a mismatch is reported and
//! the runner exits with status 1 and writes nothing. Otherwise it prints
//! the report and writes it to `BENCHMARKS.md` at the repository root,
//! with the chart of the ratios in `scoped-bench/ratios.png`.

mod bandwidth;
mod build_pairs;
mod builds;
mod chart;
mod child;
mod kernels;
mod launch;
mod levels;
mod machine;
mod markdown;
mod measure;
mod options;
mod order;
mod probe;
mod results;
mod shared_pages;
mod sizes;
mod units;

use std::process::ExitCode;
use std::time::Instant;

use builds::{run_child, Builds};
use kernels::{Kernel, Scale};
use launch::measure_launch;
use machine::{Build, Machine};
use measure::Measurement;
use options::{options, Options};
use order::balanced_order;
use results::{Level, Report, Row};
use scoped::{Isa, Queue};
use units::ms;

/// Large arrays from files of shared memory in the children of build
/// pairs (`shared_pages`), from the system otherwise.
#[global_allocator]
static ALLOCATOR: shared_pages::SharedPages = shared_pages::SharedPages;

/// Pairs of children of the default and the native build.
const NATIVE_PAIRS: usize = 5;
const NATIVE_PAIRS_QUICK: usize = 3;

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("compare: {e}");
            return ExitCode::from(2);
        }
    };
    if !options.sub_group_sizes.is_empty() {
        eprintln!("compare: sub-group sizes {:?}", options.sub_group_sizes);
        let mut kernels = setup(&options);
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
    if options.child {
        shared_pages::enable_from_env();
        return match measure(&options) {
            Ok(rows) => {
                print!("{}", child::format(&Build::own(), &rows));
                ExitCode::SUCCESS
            }
            Err(errors) => {
                for e in &errors {
                    eprintln!("compare: WRONG RESULT: {e}");
                }
                eprintln!("compare: {} mismatches", errors.len());
                ExitCode::FAILURE
            }
        };
    }
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("compare: {e}; nothing written");
            ExitCode::FAILURE
        }
    }
}

/// The runner: builds, children, probe, launch overhead, report.
fn run(options: &Options) -> Result<(), String> {
    let started = Instant::now();
    // Everything is built before anything is measured.
    let mut builds = Builds::default();
    let mut level_exes = Vec::new();
    for &isa in &options.isa {
        level_exes.push((isa, builds.executable(isa.name(), &levels::rustflags(isa))?));
    }
    let native_exes = if options.native {
        Some((
            builds.executable("default", "")?,
            builds.executable("native", levels::NATIVE)?,
        ))
    } else {
        None
    };
    eprintln!(
        "compare: builds ready after {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let measuring = Instant::now();
    let triad = options.kernels.is_empty() || options.kernels.iter().any(|k| k == "triad");
    let plateau = triad.then(|| {
        let threads = options.threads.iter().copied().max().unwrap_or(1);
        eprintln!("compare: probing where the memory's rate begins ({threads} threads)");
        probe::probe(threads, probe::SMALLEST, probe::LARGEST)
    });
    let mut levels = Vec::new();
    for (isa, exe) in &level_exes {
        eprintln!("compare: level {isa}: {}", exe.display());
        let child = run_child(exe, Some(*isa), &options.child_args(options.runs), None)?;
        levels.push(Level {
            isa: *isa,
            build: child.build,
            rows: child.rows,
        });
    }
    let (mut native, mut below) = (None, Vec::new());
    if let Some((default_exe, native_exe)) = &native_exes {
        let pairs = match options.scale {
            Scale::Quick | Scale::Test => NATIVE_PAIRS_QUICK,
            Scale::Full => NATIVE_PAIRS,
        };
        let runs = (options.runs / pairs).max(3);
        let (args, kernels) = (
            options.child_args_but_kernels(runs),
            options.measured_kernels(),
        );
        native = Some(build_pairs::run_pairs(
            (default_exe, None),
            (native_exe, None),
            pairs,
            runs,
            &args,
            &kernels,
        )?);
        // What a crate without flags gets on a CPU whose best level is
        // lower than this one's: the default build held at that level,
        // against a build for it. The baseline builds are one binary.
        let best = Isa::detected();
        for (isa, exe) in level_exes
            .iter()
            .filter(|(isa, _)| *isa != Isa::Baseline && *isa < best)
        {
            below.push(build_pairs::run_pairs(
                (default_exe, Some(*isa)),
                (exe, Some(*isa)),
                pairs,
                runs,
                &args,
                &kernels,
            )?);
        }
    }
    let mut launch = Vec::new();
    if options.launch {
        eprintln!("compare: launch overhead");
        for &threads in &options.threads {
            launch.extend(measure_launch(threads, options.runs.max(10)));
        }
    }
    let report = Report {
        quick: options.scale == Scale::Quick,
        runs: options.runs,
        levels,
        native,
        below,
        plateau,
        launch,
        launch_build: Build::own(),
        elapsed: measuring.elapsed(),
        args: std::env::args().skip(1).collect(),
        machine: Machine::detect(),
    };
    let markdown = markdown::markdown(&report);
    println!("{markdown}");
    if options.write {
        write(&report, &markdown)?;
    }
    Ok(())
}

/// Sets up the kernels `options` names (inputs and serial references).
fn setup(options: &Options) -> Vec<Box<dyn Kernel>> {
    kernels::all()
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
        .collect()
}

/// Sets up the kernels `options` names and measures them in this
/// process's build; the error lists the wrong results.
fn measure(options: &Options) -> Result<Vec<Row>, Vec<String>> {
    let mut kernels = setup(options);
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
            match Measurement::checked(kernel.as_mut(), threads, options.peers_apart, &pool, &queue)
            {
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
                measurements[k].round(&pool, &queue);
            }
        }
        for m in &mut measurements {
            m.peers_after(&pool);
        }
        eprintln!();
        for m in measurements {
            for row in m.rows() {
                eprintln!("  {}", progress(&row));
                rows.push(row);
            }
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors)
    }
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
/// any kernel ran, the chart of the highest level.
fn write(report: &Report, markdown: &str) -> Result<(), String> {
    let root = builds::root();
    let file = root.join("BENCHMARKS.md");
    std::fs::write(&file, markdown).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    eprintln!("compare: wrote {}", file.display());
    if let Some(level) = report.levels.last().filter(|l| !l.rows.is_empty()) {
        let chart = root.join(markdown::CHART);
        chart::draw(&level.rows, &chart)
            .map_err(|e| format!("cannot draw {}: {e}", chart.display()))?;
        eprintln!("compare: wrote {}", chart.display());
    }
    Ok(())
}
