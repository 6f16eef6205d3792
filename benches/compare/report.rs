//! The comparison runner's output: the table, the machine, and the bar
//! chart of the ratios, as printed and as written to `BENCHMARKS.md`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::cache::LastLevelCache;
use crate::kernels::Work;

/// One `scoped` variant of one kernel at one thread count.
pub(crate) struct Row {
    pub(crate) kernel: &'static str,
    pub(crate) variant: &'static str,
    pub(crate) size: String,
    pub(crate) threads: usize,
    pub(crate) scoped: Duration,
    pub(crate) peer: Duration,
    /// What one run does, which turns the times into rates.
    pub(crate) work: Work,
    /// Median over the rounds of `scoped` time / peer time, the two run
    /// back to back.
    pub(crate) ratio: f64,
    /// For variants with a twin (the same algorithm written by hand), the
    /// median over the rounds of `scoped` time / twin time.
    pub(crate) twin_ratio: Option<f64>,
    /// For every variant but the kernel's first: how it compares with the
    /// first variant in the same rounds.
    pub(crate) against_first: Option<AgainstFirst>,
}

/// A variant against its kernel's first variant, round by round.
#[derive(Clone, Copy)]
pub(crate) struct AgainstFirst {
    /// The first variant's name.
    pub(crate) first: &'static str,
    /// Median over the rounds of this variant's time / the first
    /// variant's time in the same round.
    pub(crate) ratio: f64,
    /// For kernels with a sub-group variant: the same median for a second
    /// run of the first variant in every round, the noise floor of
    /// `ratio` (1 but for noise).
    pub(crate) first_again: Option<f64>,
}

impl Row {
    /// The `scoped` and the peer rate, as the table gives them, and their
    /// unit.
    fn rates(&self) -> (f64, f64, &'static str) {
        let (scoped, unit) = self.work.rate(self.scoped.as_secs_f64());
        let (peer, _) = self.work.rate(self.peer.as_secs_f64());
        (scoped, peer, unit)
    }

    /// GB/s the memory moves on the `scoped` side and on the peer's, for
    /// kernels that move bytes.
    fn moved_rates(&self) -> Option<(f64, f64)> {
        Some((
            self.work.moved_rate(self.scoped.as_secs_f64())?,
            self.work.moved_rate(self.peer.as_secs_f64())?,
        ))
    }

    /// One line for the progress log.
    pub(crate) fn line(&self) -> String {
        let twin = self
            .twin_ratio
            .map_or(String::new(), |t| format!(", against its twin {t:.3}"));
        let (scoped_rate, peer_rate, unit) = self.rates();
        format!(
            "{} [{}] {} thr: scoped {:.3} ms, peer {:.3} ms, ratio {:.3}{twin}, {:.1} / {:.1} {}",
            self.kernel,
            self.variant,
            self.threads,
            ms(self.scoped),
            ms(self.peer),
            self.ratio,
            scoped_rate,
            peer_rate,
            unit
        )
    }
}

/// Launch overhead at one group count and thread count.
pub(crate) struct LaunchRow {
    pub(crate) groups: usize,
    pub(crate) threads: usize,
    pub(crate) scoped: Duration,
    pub(crate) rayon: Duration,
    /// Median over the batches of `scoped` / rayon, the two run back to
    /// back.
    pub(crate) ratio: f64,
}

/// Everything one run of the runner measured.
pub(crate) struct Report {
    pub(crate) quick: bool,
    pub(crate) runs: usize,
    pub(crate) rows: Vec<Row>,
    pub(crate) launch: Vec<LaunchRow>,
    pub(crate) elapsed: Duration,
    pub(crate) args: Vec<String>,
    /// The machine's last-level cache, if known: it decides which
    /// kernels' rates count as memory bandwidth.
    pub(crate) cache: Option<LastLevelCache>,
}

/// Ratio `scoped`/peer a kernel should not exceed.
const TARGET_RATIO: f64 = 1.05;
/// Ratio of launch overheads `scoped`/rayon to aim at.
const LAUNCH_TARGET: f64 = 1.2;
/// The name of the variants that subdivide with `distribute_groups!`.
pub(crate) const SUB_GROUPS: &str = "sub-groups";
/// How the names of other variants built on sub-groups begin (the
/// reduction's per-lane accumulators, "sub-group lanes").
const SUB_GROUP_PREFIX: &str = "sub-group";
/// Where the chart goes, relative to the package root.
const CHART: &str = "benches/ratios.png";

/// A row of a kernel that moves bytes, with the larger of its two sides'
/// moved rates.
struct Moved<'r> {
    row: &'r Row,
    /// GB/s the memory moves.
    rate: f64,
    /// Which side that is: "<kernel> scoped <variant>" or "<kernel> peer".
    what: String,
    largest_array: f64,
}

impl<'r> Moved<'r> {
    fn of(row: &'r Row) -> Option<Self> {
        let Work::Bytes { largest_array, .. } = row.work else {
            return None;
        };
        let (scoped, peer) = row.moved_rates()?;
        let (rate, what) = if scoped >= peer {
            (scoped, format!("{} scoped {}", row.kernel, row.variant))
        } else {
            (peer, format!("{} peer", row.kernel))
        };
        Some(Self {
            row,
            rate,
            what,
            largest_array,
        })
    }
}

/// How many times the last-level cache a kernel's largest array must be
/// for its rate to count as memory bandwidth: STREAM's rule for its
/// arrays. The Jacobi peer's sweeps moved 7-11% more bytes per second
/// over its 64 MiB grids (twice a 32 MiB L3) than over 128 MiB ones
/// (8192×4096), alternated in one process.
const STREAM_CACHE_MULTIPLE: f64 = 4.0;

fn mib(bytes: f64) -> f64 {
    bytes / f64::from(1 << 20)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

impl Report {
    /// The report as Markdown: what `BENCHMARKS.md` holds, and what the
    /// runner prints.
    pub(crate) fn markdown(&self) -> String {
        let mut s = String::new();
        let command = if self.args.is_empty() {
            "cargo bench --bench compare".to_string()
        } else {
            format!("cargo bench --bench compare -- {}", self.args.join(" "))
        };
        let _ = writeln!(s, "# Benchmarks\n");
        let _ = writeln!(
            s,
            "Written by `{command}` ({}, median of {} runs per entry, {:.0} s in all). \
             Each kernel's `scoped` variants and its hand-written rayon peer run \
             in one process, on one rayon pool of the given number of threads, in \
             rounds. In every round every kernel takes its turn, so that all are \
             measured over the whole run under the same conditions: an untimed run \
             of its peer (to fill the caches with its data), then each variant back \
             to back with a run of the peer (the peer first in every other round). \
             Kernels, and each kernel's variants, go in the rows of a Williams \
             design (each in every place, after every other one equally often). \
             The first run of each is checked against a serial reference. \
             Sources: `benches/kernels/` (one module per kernel, `scoped` and peer \
             side by side).\n",
            if self.quick {
                "quick mode: smaller sizes, fewer runs"
            } else {
                "full sizes"
            },
            self.runs,
            self.elapsed.as_secs_f64()
        );
        let _ = writeln!(s, "## Machine\n");
        for line in machine(self.cache) {
            let _ = writeln!(s, "* {line}");
        }
        let _ = writeln!(s, "\n## Kernels\n");
        let _ = writeln!(
            s,
            "Ratio = the median over the rounds of `scoped` time / peer time, the two \
             measured back to back, so that a slow spell of the machine affects both \
             (times and rates are the medians of each side alone). Below 1 `scoped` is \
             faster; the target is at most {TARGET_RATIO:.2}. Rates are `scoped` / peer. \
             Variants whose algorithm differs from the peer's (values staged through \
             memory) also run against a twin, the same algorithm written by hand with \
             rayon and slices: `scoped/twin` (paired the same way) is what the lowering \
             costs, `scoped/peer` what the algorithm costs on a CPU.\n"
        );
        let _ = writeln!(
            s,
            "| kernel | variant | size | threads | scoped (ms) | peer (ms) | scoped/peer | rate (scoped / peer) | scoped/twin |"
        );
        let _ = writeln!(
            s,
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        );
        for r in &self.rows {
            let flag = if r.ratio > TARGET_RATIO { " ✗" } else { "" };
            let twin = r.twin_ratio.map_or(String::new(), |t| format!("{t:.3}"));
            let (scoped_rate, peer_rate, unit) = r.rates();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3}{flag} | {:.1} / {:.1} {} | {twin} |",
                r.kernel,
                r.variant,
                r.size,
                r.threads,
                ms(r.scoped),
                ms(r.peer),
                r.ratio,
                scoped_rate,
                peer_rate,
                unit
            );
        }
        if let Some(line) = self.bandwidth() {
            let _ = writeln!(s, "\n{line}");
        }
        self.sub_groups(&mut s);
        if !self.launch.is_empty() {
            let _ = writeln!(s, "\n## Launch overhead\n");
            let _ = writeln!(
                s,
                "An empty kernel (work groups of one item) against \
                 `(0..n).into_par_iter().for_each(|i| black_box(i))`, both entered from \
                 the main thread into one pool of that size; mean per launch over batches of 200, the two alternating (each first \
                 every other round); times are \
                 medians of the batches, the ratio the median of the back-to-back batch \
                 ratios. Target: at most {LAUNCH_TARGET:.1}× rayon.\n"
            );
            let _ = writeln!(
                s,
                "| groups | threads | scoped (µs) | rayon (µs) | scoped/rayon |"
            );
            let _ = writeln!(s, "| ---: | ---: | ---: | ---: | ---: |");
            for l in &self.launch {
                let ratio = l.ratio;
                let flag = if ratio > LAUNCH_TARGET { " ✗" } else { "" };
                let _ = writeln!(
                    s,
                    "| {} | {} | {:.2} | {:.2} | {ratio:.2}{flag} |",
                    l.groups,
                    l.threads,
                    us(l.scoped),
                    us(l.rayon)
                );
            }
        }
        if !self.rows.is_empty() {
            let _ = writeln!(s, "\n## Ratios\n\n![scoped/peer ratio per kernel]({CHART})");
        }
        s
    }

    /// The section on sub-group variants against their kernel's first
    /// variant, if any ran.
    fn sub_groups(&self, s: &mut String) {
        let rows: Vec<(&Row, AgainstFirst)> = self
            .rows
            .iter()
            .filter(|r| r.variant.starts_with(SUB_GROUP_PREFIX))
            .filter_map(|r| r.against_first.map(|against| (r, against)))
            .collect();
        if rows.is_empty() {
            return;
        }
        let _ = writeln!(s, "\n## Sub-group SIMD\n");
        let _ = writeln!(
            s,
            "Each `sub-groups` variant (the kernel's body with `distribute_groups!` \
             handing the items to SIMD-wide sub-groups) against the kernel's first \
             variant, which distributes the work group's items directly: the median \
             over the rounds of the two times measured in the same round. At most 1 \
             means the sub-group form costs nothing: its items run in SIMD lanes as \
             the flat loop's do. Other variants built on sub-groups (the reduction's \
             `sub-group lanes`, an accumulator per lane) are listed too. The first \
             variant also runs a second time in every round; that run against the \
             first (`again/first`) would be 1 but for noise, so it shows how far \
             from 1 a ratio in the same row can stray by chance.\n"
        );
        let _ = writeln!(
            s,
            "| kernel | variant | threads | against | variant (ms) | variant/against | again/first |"
        );
        let _ = writeln!(s, "| --- | --- | ---: | --- | ---: | ---: | ---: |");
        for (r, against) in rows {
            let again = against
                .first_again
                .map_or(String::new(), |a| format!("{a:.3}"));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.3} | {:.3} | {again} |",
                r.kernel,
                r.variant,
                r.threads,
                against.first,
                ms(r.scoped),
                against.ratio
            );
        }
    }

    /// The triad against the best bandwidth the suite measured at the
    /// largest thread count, counting only kernels whose arrays are large
    /// enough to measure the memory rather than the cache.
    fn bandwidth(&self) -> Option<String> {
        let threads = self.rows.iter().map(|r| r.threads).max()?;
        let least = self.cache.map(|c| STREAM_CACHE_MULTIPLE * c.bytes as f64);
        let moved: Vec<Moved> = self
            .rows
            .iter()
            .filter(|r| r.threads == threads)
            .filter_map(Moved::of)
            .collect();
        // The line is about the triad: without it, nothing to say.
        let (triad, triad_moved) = moved
            .iter()
            .filter(|m| m.row.kernel == crate::kernels::triad::NAME)
            .filter_map(|m| Some((m.row, m.row.moved_rates()?.0)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let counts = |m: &&Moved| least.is_none_or(|least| m.largest_array >= least);
        let Some(best) = moved
            .iter()
            .filter(counts)
            .max_by(|a, b| a.rate.total_cmp(&b.rate))
        else {
            return Some(format!(
                "Memory bandwidth: no kernel's largest array reaches {:.0} MiB, \
                 {STREAM_CACHE_MULTIPLE} times the last-level cache, as STREAM requires \
                 of its arrays; at these sizes the rates measure the caches as much as \
                 the memory.",
                mib(least.unwrap_or_default())
            ));
        };
        let rule = match self.cache.zip(least) {
            Some((cache, least)) => format!(
                "counting the kernels whose largest array is at least \
                 {STREAM_CACHE_MULTIPLE} times the last-level cache ({:.0} MiB, L{}), as \
                 STREAM requires of its arrays, so that the bytes come from memory \
                 ({:.0} MiB or more)",
                mib(cache.bytes as f64),
                cache.level,
                mib(least),
            ),
            None => "counting every kernel (the size of the last-level cache is unknown)".into(),
        };
        // Per kernel left out: its largest array and best rate.
        let mut left_out: Vec<(&str, f64, f64)> = Vec::new();
        for m in moved.iter().filter(|m| !counts(m)) {
            match left_out.iter_mut().find(|l| l.0 == m.row.kernel) {
                Some(l) => l.2 = l.2.max(m.rate),
                None => left_out.push((m.row.kernel, m.largest_array, m.rate)),
            }
        }
        let left_out = if left_out.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = left_out
                .iter()
                .map(|(kernel, array, rate)| {
                    format!(
                        "{kernel} ({:.0} MiB arrays): {rate:.1} GB/s, the triad's rate \
                         {:.0}% of it",
                        mib(*array),
                        100.0 * triad_moved / rate
                    )
                })
                .collect();
            format!(
                " Not counted, as partly served by the cache: {}.",
                list.join("; ")
            )
        };
        Some(format!(
            "Memory bandwidth at {threads} threads, in bytes the memory moves, {rule}: \
             the best the suite measured is {:.1} GB/s ({}). The `scoped` triad ({}) \
             moves {triad_moved:.1} GB/s, {:.0}% of it (target: at least 90%).{left_out} \
             The table's rates count each byte a kernel reads or writes once, as \
             STREAM does (12 per triad element, {:.1} GB/s here); the caches also read \
             every line before writing it (write-allocate), so the memory moves each \
             byte written twice (16 per triad element).",
            best.rate,
            best.what,
            triad.variant,
            100.0 * triad_moved / best.rate,
            triad.rates().0,
        ))
    }

    /// Writes `BENCHMARKS.md` and the chart under `root`.
    pub(crate) fn write(&self, root: &Path) -> Result<(), String> {
        let markdown = root.join("BENCHMARKS.md");
        std::fs::write(&markdown, self.markdown())
            .map_err(|e| format!("cannot write {}: {e}", markdown.display()))?;
        if !self.rows.is_empty() {
            let chart = root.join(CHART);
            chart::draw(&self.rows, &chart)
                .map_err(|e| format!("cannot draw {}: {e}", chart.display()))?;
            eprintln!(
                "compare: wrote {} and {}",
                markdown.display(),
                chart.display()
            );
        } else {
            eprintln!("compare: wrote {}", markdown.display());
        }
        Ok(())
    }
}

/// Lines describing the machine and the build.
fn machine(cache: Option<LastLevelCache>) -> Vec<String> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rustc =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "unknown".into());
    let features: Vec<&str> = [
        ("avx512f", cfg!(target_feature = "avx512f")),
        ("avx2", cfg!(target_feature = "avx2")),
        ("fma", cfg!(target_feature = "fma")),
        ("sse4.2", cfg!(target_feature = "sse4.2")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(name, _)| *name)
    .collect();
    vec![
        format!("CPU: {cpu}"),
        format!("threads available: {cores}"),
        match cache {
            Some(c) => format!(
                "last-level cache: L{}, {:.0} MiB",
                c.level,
                mib(c.bytes as f64)
            ),
            None => "last-level cache: unknown".into(),
        },
        format!("compiler: {rustc}"),
        format!(
            "flags: `-C target-cpu=native` (from `.cargo/config.toml`), bench profile; \
             target features: {}; sub-group size {}",
            features.join(", "),
            scoped::DEFAULT_SUB_GROUP_SIZE
        ),
        format!("date: {}", utc_now()),
    ]
}

/// The current date and time in UTC, `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The bar chart, drawn with plotters' bitmap backend and an embedded
/// font (no system libraries).
mod chart {
    use std::path::Path;

    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};

    use super::{Row, TARGET_RATIO};

    const WIDTH: u32 = 1000;
    const BAR: i32 = 22;
    const GAP: i32 = 6;
    const TOP: i32 = 60;
    const LEFT: i32 = 330;
    const RIGHT: i32 = 90;
    const BOTTOM: i32 = 50;

    pub(super) fn draw(rows: &[Row], path: &Path) -> Result<(), String> {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded font is invalid".to_string())?;
        let height = TOP + rows.len() as i32 * (BAR + GAP) + BOTTOM;
        let root = BitMapBackend::new(path, (WIDTH, height as u32)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;

        let max_ratio = rows.iter().map(|r| r.ratio).fold(1.5f64, f64::max);
        let x_max = (max_ratio * 2.0).ceil() / 2.0;
        let plot_width = (WIDTH as i32 - LEFT - RIGHT) as f64;
        let x_of = |ratio: f64| LEFT + (ratio.min(x_max) / x_max * plot_width) as i32;
        let font = |size: f64| ("sans-serif", size).into_font();

        root.draw(&Text::new(
            "scoped / hand-written rayon: median time ratio (lower is better)",
            (LEFT - 300, 15),
            font(20.0).color(&BLACK),
        ))
        .map_err(e)?;
        let one_thread = RGBColor(66, 120, 200);
        let all_threads = RGBColor(230, 140, 40);
        let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1);
        for (i, (label, color)) in [
            ("1 thread".to_string(), one_thread),
            (format!("{max_threads} threads"), all_threads),
        ]
        .into_iter()
        .enumerate()
        {
            let x = LEFT + 160 * i as i32;
            root.draw(&Rectangle::new([(x, 40), (x + 14, 52)], color.filled()))
                .map_err(e)?;
            root.draw(&Text::new(label, (x + 20, 38), font(15.0).color(&BLACK)))
                .map_err(e)?;
        }

        let bottom = TOP + rows.len() as i32 * (BAR + GAP);
        for (i, row) in rows.iter().enumerate() {
            let y = TOP + i as i32 * (BAR + GAP);
            let color = if row.threads == 1 {
                one_thread
            } else {
                all_threads
            };
            root.draw(&Rectangle::new(
                [(LEFT, y), (x_of(row.ratio), y + BAR)],
                color.filled(),
            ))
            .map_err(e)?;
            let label = format!("{} · {} · {} thr", row.kernel, row.variant, row.threads);
            let right = font(14.0)
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center));
            root.draw(&Text::new(label, (LEFT - 8, y + BAR / 2), right))
                .map_err(e)?;
            let left = font(14.0)
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center));
            // Right of the bar, or of the target line if the bar ends
            // before it, so that no line crosses the number.
            root.draw(&Text::new(
                format!("{:.2}", row.ratio),
                (x_of(row.ratio.max(TARGET_RATIO)) + 6, y + BAR / 2),
                left,
            ))
            .map_err(e)?;
        }

        // Axis with ticks every 0.5 (or wider for a long axis), and the
        // lines at 1 and at the target.
        root.draw(&PathElement::new(
            vec![(LEFT, bottom), (LEFT + plot_width as i32, bottom)],
            BLACK,
        ))
        .map_err(e)?;
        let step = match x_max {
            m if m <= 4.0 => 0.5,
            m if m <= 10.0 => 1.0,
            _ => 2.0,
        };
        let mut tick = 0.0;
        while tick <= x_max + 1e-9 {
            let x = x_of(tick);
            root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + 5)], BLACK))
                .map_err(e)?;
            let centred = font(13.0)
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top));
            root.draw(&Text::new(format!("{tick:.1}"), (x, bottom + 8), centred))
                .map_err(e)?;
            tick += step;
        }
        for (ratio, style) in [
            (1.0, BLACK.stroke_width(2)),
            (TARGET_RATIO, RED.stroke_width(1)),
        ] {
            let x = x_of(ratio);
            root.draw(&PathElement::new(vec![(x, TOP - 4), (x, bottom)], style))
                .map_err(e)?;
        }
        root.present().map_err(e)?;
        Ok(())
    }
}
