//! The report as Markdown: what `BENCHMARKS.md` holds and what the runner
//! prints. The report's prose is here alone, short and fixed; how the
//! runner measures is the crate's README.

use std::fmt::Write as _;

use scoped::Isa;
use time::macros::format_description;

use crate::bandwidth::{bandwidth, Bandwidth, TRIAD_TARGET};
use crate::build_pairs::{MAX_PAIRS_FACTOR, SHORT_KERNEL};
use crate::machine::Machine;
use crate::measure::{MAX_REPEATS, SHORT_TURN};
use crate::probe::{Plateau, TOLERANCE};
use crate::results::{
    AgainstFirst, BuildPairs, Level, Report, Row, LAUNCH_TARGET, SUB_GROUP_PREFIX, TARGET_RATIO,
};
use crate::units::{mib, ms, us};

/// The chart, relative to the repository root where `BENCHMARKS.md` is.
pub(crate) const CHART: &str = "scoped-bench/ratios.png";

/// `BENCHMARKS.md`.
pub(crate) fn markdown(report: &Report) -> String {
    let mut s = String::new();
    let mut command = "cargo run --release -p scoped-bench".to_string();
    if !report.args.is_empty() {
        let quoted = |a: &String| {
            if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.clone()
            }
        };
        let args: Vec<String> = report.args.iter().map(quoted).collect();
        command = format!("{command} -- {}", args.join(" "));
    }
    let sizes = if report.quick {
        "quick sizes"
    } else {
        "full sizes"
    };
    let _ = writeln!(
        s,
        "# Benchmarks\n\n\
         Written by `{command}` ({sizes}, medians of {} rounds, a kernel's turn repeated in \
         each round after the first until it lasts {} ms, at most {}×; {:.0} s of measuring \
         after the builds). Method: [scoped-bench/README.md](scoped-bench/README.md); \
         kernels: `scoped-bench/src/kernels/`.\n",
        report.runs,
        SHORT_TURN.as_millis(),
        MAX_REPEATS,
        report.elapsed.as_secs_f64()
    );
    machine(&mut s, report);
    for (i, level) in report.levels.iter().enumerate() {
        kernels(&mut s, level, i == 0);
        if let Some(plateau) = &report.plateau {
            if let Some(b) = bandwidth(&level.rows, plateau.from) {
                bandwidth_line(&mut s, &b);
            }
        }
        sub_groups(&mut s, &level.rows);
    }
    if let Some(native) = &report.native {
        native_section(&mut s, native);
    }
    for below in &report.below {
        below_section(&mut s, below);
    }
    launch(&mut s, report);
    if let Some(level) = report.levels.last().filter(|l| !l.rows.is_empty()) {
        let _ = writeln!(
            s,
            "\n## Ratios\n\nAt level {}.\n\n![scoped/peer ratio per kernel]({CHART})",
            level.isa
        );
    }
    s
}

/// A table: `columns` are each a header and whether it is right-aligned.
fn table(s: &mut String, columns: &[(&str, bool)], rows: impl IntoIterator<Item = Vec<String>>) {
    let line = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
    let _ = writeln!(
        s,
        "{}",
        line(columns.iter().map(|c| c.0.to_string()).collect())
    );
    let rules = columns.iter().map(|c| if c.1 { "---:" } else { "---" });
    let _ = writeln!(s, "{}", line(rules.map(String::from).collect()));
    for row in rows {
        let _ = writeln!(s, "{}", line(row));
    }
}

fn machine(s: &mut String, report: &Report) {
    let m: &Machine = &report.machine;
    let date = m
        .date
        .format(format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        ))
        .unwrap_or_default();
    let levels: Vec<String> = report
        .levels
        .iter()
        .map(|l| format!("{} ({})", l.isa, l.build.flags()))
        .collect();
    let _ = writeln!(
        s,
        "## Machine\n\n\
         * CPU: {}, highest instruction-set level {} (AVX-512: {})\n\
         * threads available: {}\n\
         * transparent huge pages: {}\n\
         * compiler: {}, release profile\n\
         * levels, each measured in a build of the runner (kernels and peers) with these \
         flags: {}",
        m.cpu.as_deref().unwrap_or("unknown"),
        m.detected,
        if m.detected == Isa::V4 { "yes" } else { "no" },
        m.threads,
        huge_pages(m.huge_pages.as_deref()),
        m.compiler.as_deref().unwrap_or("unknown"),
        if levels.is_empty() {
            "none".to_string()
        } else {
            levels.join(", ")
        },
    );
    if let Some(p) = &report.plateau {
        memory_line(s, p);
    }
    let _ = writeln!(s, "* date: {date}");
}

/// The transparent huge pages setting, with what it means for the
/// suite's arrays (allocated without advice).
fn huge_pages(mode: Option<&str>) -> String {
    match mode {
        Some("always") => "`always` (large arrays may get 2 MiB pages)".into(),
        Some(mode) => format!("`{mode}` (arrays in 4 KiB pages)"),
        None => "unknown".into(),
    }
}

/// Where the probe found the memory's rate to begin.
fn memory_line(s: &mut String, p: &Plateau) {
    let points: Vec<String> = p
        .points
        .iter()
        .map(|&(size, rate)| format!("{:.0} MiB {rate:.0}", mib(size)))
        .collect();
    let found = match p.from {
        Some(from) => format!(
            "is no more than {:.0}% above a larger array's from {:.0} MiB per array on",
            100.0 * TOLERANCE,
            mib(from)
        ),
        None => format!(
            "is more than {:.0}% above the largest array's one size below it",
            100.0 * TOLERANCE
        ),
    };
    let _ = writeln!(
        s,
        "* memory: a triad's rate at {} threads {found} (best of 5, GB/s the memory \
         moves: {})",
        p.threads,
        points.join(", ")
    );
}

fn kernels(s: &mut String, level: &Level, first: bool) {
    let b = &level.build;
    let _ = writeln!(
        s,
        "\n## Level {}\n\n\
         Build flags: {}; compiled-in target features: {}; launches ran at level {}; \
         sub-group size {}.\n",
        level.isa,
        b.flags(),
        if b.target_features.is_empty() {
            "none".to_string()
        } else {
            b.target_features.join(", ")
        },
        b.isa,
        b.sub_group_size,
    );
    if first {
        let _ = writeln!(
            s,
            "scoped/peer: median over the turns of the two times measured back to back; \
             below 1 `scoped` is faster, ✗ above the target of {TARGET_RATIO:.2}. \
             scoped/twin: against the same algorithm written by hand with rayon.\n"
        );
    }
    let rows = &level.rows;
    let columns = [
        ("kernel", false),
        ("variant", false),
        ("size", false),
        ("threads", true),
        ("scoped (ms)", true),
        ("peer (ms)", true),
        ("scoped/peer", true),
        ("rate (scoped / peer)", true),
        ("scoped/twin", true),
    ];
    table(
        s,
        &columns,
        rows.iter().map(|r| {
            let flag = if r.ratio > TARGET_RATIO { " ✗" } else { "" };
            let (scoped_rate, peer_rate, unit) = r.rates();
            vec![
                r.kernel.to_string(),
                r.variant.to_string(),
                r.size.clone(),
                r.threads.to_string(),
                format!("{:.3}", ms(r.scoped)),
                format!("{:.3}", ms(r.peer)),
                format!("{:.3}{flag}", r.ratio),
                format!("{scoped_rate:.1} / {peer_rate:.1} {unit}"),
                r.twin_ratio.map_or(String::new(), |t| format!("{t:.3}")),
            ]
        }),
    );
}

fn bandwidth_line(s: &mut String, b: &Bandwidth) {
    let Some(least) = b.least else {
        let _ = writeln!(
            s,
            "\nMemory bandwidth: the probe found no size from which the rate stops \
             depending on it; no kernel's rates count as the memory's."
        );
        return;
    };
    let Some(best) = b.best else {
        let _ = writeln!(
            s,
            "\nMemory bandwidth: no kernel's largest array reaches {:.0} MiB, where the \
             probe found the memory's rate to begin; the rates measure the caches as much \
             as the memory.",
            mib(least)
        );
        return;
    };
    let rule = format!(
        "kernels whose largest array is at least {:.0} MiB, where the probe found the \
         memory's rate to begin",
        mib(least)
    );
    let best_side = if best.peer {
        format!("{} peer", best.row.kernel)
    } else {
        format!("{} scoped {}", best.row.kernel, best.row.variant)
    };
    let share = |rate: f64| 100.0 * b.triad_moved / rate;
    let _ = write!(
        s,
        "\nMemory bandwidth at {} threads, in bytes the memory moves (writes twice: \
         write-allocate), counting {rule}: best {:.1} GB/s ({best_side}); the `scoped` \
         triad ({}) moves {:.1} GB/s, {:.0}% of it (target: at least {:.0}%).",
        b.threads,
        best.rate,
        b.triad.variant,
        b.triad_moved,
        share(best.rate),
        100.0 * TRIAD_TARGET
    );
    for l in &b.left_out {
        let _ = write!(
            s,
            " Not counted: {} ({:.0} MiB arrays, {:.1} GB/s; the triad {:.0}% of it).",
            l.kernel,
            mib(l.largest_array),
            l.rate,
            share(l.rate)
        );
    }
    let _ = writeln!(s);
}

fn sub_groups(s: &mut String, rows: &[Row]) {
    let rows: Vec<(&Row, AgainstFirst)> = rows
        .iter()
        .filter(|r| r.variant.starts_with(SUB_GROUP_PREFIX))
        .filter_map(|r| r.against_first.map(|against| (r, against)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n### Sub-group SIMD\n\n\
         Variants built on sub-groups against their kernel's first variant, in the same \
         rounds; again/first: a second run of the first variant, 1 but for noise.\n"
    );
    let columns = [
        ("kernel", false),
        ("variant", false),
        ("threads", true),
        ("against", false),
        ("variant (ms)", true),
        ("variant/against", true),
        ("again/first", true),
    ];
    table(
        s,
        &columns,
        rows.into_iter().map(|(r, against)| {
            vec![
                r.kernel.to_string(),
                r.variant.to_string(),
                r.threads.to_string(),
                against.first.to_string(),
                format!("{:.3}", ms(r.scoped)),
                format!("{:.3}", against.ratio),
                against
                    .first_again
                    .map_or(String::new(), |a| format!("{a:.3}")),
            ]
        }),
    );
}

fn native_section(s: &mut String, n: &BuildPairs) {
    let _ = writeln!(
        s,
        "\n## Default build against native\n\n\
         `scoped` built with flags {} (launches ran at level {}) against a build with flags \
         {} (level {}): for each kernel, {} pairs of child processes measuring it ({} for a \
         kernel whose first pairs took less than {} s), one of each build run one after the \
         other (the default first in every other pair), each child {} rounds, each round's \
         `scoped` runs back to back, the peer's runs only after the last round (the default \
         build's peer is compiled for the baseline, and a kernel run after seconds of scalar \
         code ran up to 2× slow, in either build); default/native is the median over the pairs \
         of the ratio of the two children's median times, and peer default/native the same \
         for the hand-written peer, which has no dispatch. {}\n",
        n.default.flags(),
        n.default.isa,
        n.other.flags(),
        n.other.isa,
        n.pairs,
        pairs_range(n),
        SHORT_KERNEL.as_secs(),
        n.runs,
        placement(n),
    );
    pairs_table(s, n, "native");
}

/// How many pairs a short kernel gets: "up to N".
fn pairs_range(n: &BuildPairs) -> String {
    format!("up to {}", n.pairs * MAX_PAIRS_FACTOR)
}

/// Where the pairs' children had their arrays.
fn placement(n: &BuildPairs) -> String {
    if n.shared_pages {
        format!(
            "Every child's arrays of {} MiB or more were mappings of the same files of shared \
             memory, so both builds ran on the same physical memory.",
            crate::shared_pages::THRESHOLD >> 20
        )
    } else {
        "No files of shared memory here: each child's arrays lay where the OS put them, which \
         moves a memory-bound kernel's time between processes by up to 30%."
            .to_string()
    }
}

/// The default build held at a level below the CPU's best: what a crate
/// without flags gets on a CPU whose best level that is.
fn below_section(s: &mut String, n: &BuildPairs) {
    let _ = writeln!(
        s,
        "\n## Default build at {isa} against a build for {isa}\n\n\
         What a crate without flags gets on a CPU whose best level is {isa}: `scoped` built \
         with flags {} and held at level {isa} (`{}={isa}`) against a build with flags {}, \
         paired as above ({} pairs per kernel, {} for a short one, {} rounds per child). The \
         peer of the default build is compiled for the baseline, hence peer default/{isa}. {}\n",
        n.default.flags(),
        scoped::ISA_ENV,
        n.other.flags(),
        n.pairs,
        pairs_range(n),
        n.runs,
        placement(n),
        isa = n.other.isa,
    );
    pairs_table(s, n, &n.other.isa);
}

/// The rows of a pairing of two builds, the second called `second`.
fn pairs_table(s: &mut String, n: &BuildPairs, second: &str) {
    let headers = [
        "kernel".to_string(),
        "variant".to_string(),
        "threads".to_string(),
        "default (ms)".to_string(),
        format!("{second} (ms)"),
        format!("default/{second}"),
        format!("peer default/{second}"),
    ];
    let columns: Vec<(&str, bool)> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i >= 2))
        .collect();
    table(
        s,
        &columns,
        n.rows.iter().map(|r| {
            vec![
                r.kernel.to_string(),
                r.variant.to_string(),
                r.threads.to_string(),
                format!("{:.3}", ms(r.default)),
                format!("{:.3}", ms(r.other)),
                format!("{:.3}", r.ratio),
                format!("{:.3}", r.peer_ratio),
            ]
        }),
    );
}

fn launch(s: &mut String, report: &Report) {
    if report.launch.is_empty() {
        return;
    }
    let b = &report.launch_build;
    let _ = writeln!(
        s,
        "\n## Launch overhead\n\n\
         Measured in the runner's own build (flags {}, launches at level {}). \
         An empty kernel against rayon's empty `par_iter`, per launch; target: at most \
         {LAUNCH_TARGET:.1}× rayon. The last two columns: the same launches submitted \
         inside a `Queue::scope` (asynchronous, in order), against blocking launches on \
         the same queue.\n",
        b.flags(),
        b.isa,
    );
    let columns = [
        ("groups", true),
        ("threads", true),
        ("scoped (µs)", true),
        ("rayon (µs)", true),
        ("scoped/rayon", true),
        ("in a scope (µs)", true),
        ("scope/blocking", true),
    ];
    table(
        s,
        &columns,
        report.launch.iter().map(|l| {
            let flag = if l.ratio > LAUNCH_TARGET { " ✗" } else { "" };
            vec![
                l.groups.to_string(),
                l.threads.to_string(),
                format!("{:.2}", us(l.scoped)),
                format!("{:.2}", us(l.rayon)),
                format!("{:.2}{flag}", l.ratio),
                format!("{:.2}", us(l.in_scope)),
                format!("{:.2}", l.scope_ratio),
            ]
        }),
    );
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use scoped::Isa;
    use time::OffsetDateTime;

    use super::{markdown, table};
    use crate::build_pairs::PairRow;
    use crate::machine::{Build, Machine};
    use crate::probe::Plateau;
    use crate::results::{BuildPairs, Level, Report};

    fn build(flags: &str, isa: &str) -> Build {
        Build {
            rustflags: flags.into(),
            target_features: Vec::new(),
            isa: isa.into(),
            sub_group_size: 8,
        }
    }

    #[test]
    fn the_report_names_the_cpu_the_levels_their_flags_and_the_memory() {
        let level = |isa: Isa, flags: &str| Level {
            isa,
            build: build(flags, isa.name()),
            rows: Vec::new(),
        };
        const MIB: f64 = (1 << 20) as f64;
        let report = Report {
            quick: true,
            runs: 5,
            levels: vec![
                level(Isa::Baseline, ""),
                level(Isa::V3, "-C target-cpu=x86-64-v3"),
            ],
            below: vec![BuildPairs {
                default: build("", "v3"),
                other: build("-C target-cpu=x86-64-v3", "v3"),
                pairs: 3,
                runs: 3,
                shared_pages: false,
                rows: vec![PairRow {
                    kernel: "reduction",
                    variant: "flat",
                    threads: 1,
                    default: Duration::from_millis(3),
                    other: Duration::from_millis(2),
                    ratio: 1.5,
                    peer_ratio: 1.25,
                }],
            }],
            native: Some(BuildPairs {
                default: build("", "v3"),
                other: build("-C target-cpu=native", "v3"),
                pairs: 3,
                runs: 3,
                shared_pages: true,
                rows: vec![PairRow {
                    kernel: "n-body",
                    variant: "private",
                    threads: 2,
                    default: Duration::from_millis(10),
                    other: Duration::from_millis(9),
                    ratio: 1.111,
                    peer_ratio: 4.5,
                }],
            }),
            plateau: Some(Plateau {
                threads: 2,
                points: vec![(MIB, 90.0), (2.0 * MIB, 30.0), (4.0 * MIB, 30.0)],
                from: Some(2.0 * MIB),
            }),
            launch: Vec::new(),
            launch_build: build("", "v3"),
            elapsed: Duration::from_secs(1),
            args: vec!["--quick".into()],
            machine: Machine {
                cpu: Some("AMD EPYC".into()),
                huge_pages: Some("madvise".into()),
                detected: Isa::V3,
                threads: 2,
                compiler: Some("rustc 1.95.0".into()),
                date: OffsetDateTime::UNIX_EPOCH,
            },
        };
        let md = markdown(&report);
        for wanted in [
            "* CPU: AMD EPYC, highest instruction-set level v3 (AVX-512: no)",
            "* transparent huge pages: `madvise` (arrays in 4 KiB pages)",
            "baseline (none), v3 (`-C target-cpu=x86-64-v3`)",
            "## Level baseline",
            "## Level v3\n\nBuild flags: `-C target-cpu=x86-64-v3`",
            "from 2 MiB per array",
            "| n-body | private | 2 | 10.000 | 9.000 | 1.111 | 4.500 |",
            "## Default build at v3 against a build for v3",
            "held at level v3 (`SCOPED_ISA=v3`) against a build with flags \
             `-C target-cpu=x86-64-v3`",
            "| kernel | variant | threads | default (ms) | v3 (ms) | default/v3 | peer default/v3 |",
            "| reduction | flat | 1 | 3.000 | 2.000 | 1.500 | 1.250 |",
            "arrays of 1 MiB or more were mappings of the same files of shared memory",
            "each child's arrays lay where the OS put them",
            "* date: 1970-01-01 00:00 UTC",
        ] {
            assert!(md.contains(wanted), "{wanted:?} not in:\n{md}");
        }
    }

    #[test]
    fn tables_are_markdown_with_right_aligned_numbers() {
        let mut s = String::new();
        let rows = [vec!["triad".to_string(), "1.018".to_string()]];
        table(&mut s, &[("kernel", false), ("ratio", true)], rows);
        assert_eq!(s, "| kernel | ratio |\n| --- | ---: |\n| triad | 1.018 |\n");
    }
}
