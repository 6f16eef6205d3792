//! `scoped` in a default build (no flags: launches dispatch to the CPU's
//! best level, or run at the level they are held at) against `scoped`
//! built for the native CPU or for that level. Two builds are two
//! processes, so they cannot run back to back in one: the runner
//! alternates a child of each, several times, and pairs them, every
//! child's large arrays in the same physical memory where the system has
//! files of shared memory (`shared_pages.rs`). Each child measures one
//! kernel, so the two children of a pair run seconds apart, not minutes:
//! the host's memory drifts over minutes.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use scoped::Isa;

use crate::builds::run_child;
use crate::measure::{median, median_ratio};
use crate::results::{BuildPairs, Row};
use crate::shared_pages::{Pages, SHM_DIR};

/// A kernel whose pairs of children took less than this gets more pairs,
/// up to [`MAX_PAIRS_FACTOR`] times as many: a short kernel's ratio
/// scatters more between processes, and its pairs cost little.
pub(crate) const SHORT_KERNEL: Duration = Duration::from_secs(20);
pub(crate) const MAX_PAIRS_FACTOR: usize = 3;

/// For each of `kernels`, `pairs` pairs (more for a short kernel) of
/// children of the two builds measuring that kernel, each held at its
/// level if one is given (else dispatching), one after the other, the
/// first build first in every other pair. `args` are the children's
/// arguments but the kernel.
pub(crate) fn run_pairs(
    first: (&Path, Option<Isa>),
    second: (&Path, Option<Isa>),
    pairs: usize,
    runs: usize,
    args: &[String],
    kernels: &[&str],
) -> Result<BuildPairs, String> {
    // One set of files for every child of these pairs, removed after.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let prefix = Path::new(SHM_DIR).is_dir().then(|| {
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        format!("{SHM_DIR}/scoped-bench-{}-{call}", std::process::id())
    });
    let pairs_run = run_pairs_sharing(
        first,
        second,
        (pairs, runs),
        args,
        kernels,
        prefix.as_deref(),
    );
    if let Some(prefix) = &prefix {
        Pages::remove_files(prefix);
    }
    pairs_run
}

/// [`run_pairs`], the children's large arrays in the files `prefix` names.
fn run_pairs_sharing(
    first: (&Path, Option<Isa>),
    second: (&Path, Option<Isa>),
    (pairs, runs): (usize, usize),
    args: &[String],
    kernels: &[&str],
    prefix: Option<&str>,
) -> Result<BuildPairs, String> {
    let (mut rows, mut builds) = (Vec::new(), (None, None));
    for kernel in kernels {
        // `scoped` against `scoped`: the peers run apart from the kernels
        // (see `Measurement::turn_peers_apart`).
        let args: Vec<String> = args
            .iter()
            .cloned()
            .chain(["--peers-apart", "--kernel", kernel].map(String::from))
            .collect();
        let (started, mut runs_of) = (Instant::now(), Vec::new());
        while wants_another_pair(runs_of.len(), pairs, started.elapsed()) {
            eprintln!(
                "compare: {kernel}, {} against {}, pair {} (at least {pairs})",
                first.0.display(),
                second.0.display(),
                runs_of.len() + 1
            );
            // The first build first in every other pair.
            let first_first = runs_of.len() % 2 == 0;
            let (mut a, mut b) = (None, None);
            for is_first in [first_first, !first_first] {
                let (exe, isa) = if is_first { first } else { second };
                let child = run_child(exe, isa, &args, prefix)?;
                if is_first {
                    builds.0 = Some(child.build);
                    a = Some(child.rows);
                } else {
                    builds.1 = Some(child.build);
                    b = Some(child.rows);
                }
            }
            runs_of.extend(a.zip(b));
        }
        rows.extend(compare(&runs_of));
    }
    // Every kernel at one thread count, then at the next, as in a level's
    // table.
    rows.sort_by_key(|r| r.threads);
    Ok(BuildPairs {
        default: builds.0.ok_or("no kernel to pair")?,
        other: builds.1.ok_or("no kernel to pair")?,
        pairs,
        runs,
        shared_pages: prefix.is_some(),
        rows,
    })
}

/// Whether a kernel that has had `done` pairs, taking `spent`, gets
/// another: `pairs` always, up to [`MAX_PAIRS_FACTOR`] times as many while
/// they take less than [`SHORT_KERNEL`].
fn wants_another_pair(done: usize, pairs: usize, spent: Duration) -> bool {
    done < pairs || (done < pairs * MAX_PAIRS_FACTOR && spent < SHORT_KERNEL)
}

/// One variant at one thread count, over the pairs of children.
pub(crate) struct PairRow {
    pub(crate) kernel: &'static str,
    pub(crate) variant: &'static str,
    pub(crate) threads: usize,
    /// Medians over the default build's children of their medians.
    pub(crate) default: Duration,
    pub(crate) other: Duration,
    /// Median over the pairs of default time / other time, for the
    /// `scoped` variant and for its peer.
    pub(crate) ratio: f64,
    pub(crate) peer_ratio: f64,
}

/// The rows of `pairs` (a default child's rows, the other's rows,
/// run one after the other), per variant and thread count of the first
/// default child; variants a child lacks are left out.
pub(crate) fn compare(pairs: &[(Vec<Row>, Vec<Row>)]) -> Vec<PairRow> {
    let Some((first, _)) = pairs.first() else {
        return Vec::new();
    };
    let find = |rows: &[Row], r: &Row| {
        rows.iter()
            .find(|o| (o.kernel, o.variant, o.threads) == (r.kernel, r.variant, r.threads))
            .map(|o| (o.scoped, o.peer))
    };
    first
        .iter()
        .filter_map(|r| {
            let (mut default, mut other, mut ratios, mut peer_ratios) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (d, n) in pairs {
                let ((d, d_peer), (n, n_peer)) = (find(d, r)?, find(n, r)?);
                default.push(d);
                other.push(n);
                ratios.push(d.as_secs_f64() / n.as_secs_f64());
                peer_ratios.push(d_peer.as_secs_f64() / n_peer.as_secs_f64());
            }
            Some(PairRow {
                kernel: r.kernel,
                variant: r.variant,
                threads: r.threads,
                default: median(&mut default),
                other: median(&mut other),
                ratio: median_ratio(&mut ratios),
                peer_ratio: median_ratio(&mut peer_ratios),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{compare, wants_another_pair, SHORT_KERNEL};
    use crate::results::Row;
    use crate::units::Work;

    fn row(variant: &'static str, threads: usize, scoped_ms: u64, peer_ms: u64) -> Row {
        Row {
            kernel: "n-body",
            variant,
            size: String::new(),
            threads,
            scoped: Duration::from_millis(scoped_ms),
            peer: Duration::from_millis(peer_ms),
            work: Work::Flops(1e9),
            ratio: 1.0,
            twin_ratio: None,
            against_first: None,
        }
    }

    #[test]
    fn short_kernels_get_up_to_three_times_the_pairs() {
        let (quick, slow) = (Duration::from_secs(1), SHORT_KERNEL);
        // A slow kernel: exactly the pairs asked for.
        assert!(wants_another_pair(4, 5, slow * 10));
        assert!(!wants_another_pair(5, 5, slow));
        // A short one: more, up to three times as many.
        assert!(wants_another_pair(5, 5, quick));
        assert!(wants_another_pair(14, 5, quick));
        assert!(!wants_another_pair(15, 5, quick));
        // Time runs out between the two.
        assert!(!wants_another_pair(9, 5, slow + quick));
    }

    #[test]
    fn ratios_are_medians_over_the_pairs() {
        // Three pairs: default/native 1.1, 1.0 and 0.5; the peer's 4, 2, 3.
        let pairs = vec![
            (
                vec![row("private", 1, 110, 400)],
                vec![row("private", 1, 100, 100)],
            ),
            (
                vec![row("private", 1, 100, 200)],
                vec![row("private", 1, 100, 100)],
            ),
            (
                vec![row("private", 1, 50, 300)],
                vec![row("private", 1, 100, 100)],
            ),
        ];
        let rows = compare(&pairs);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.kernel, r.variant, r.threads), ("n-body", "private", 1));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(
            close(r.ratio, 1.0) && close(r.peer_ratio, 3.0),
            "{} {}",
            r.ratio,
            r.peer_ratio
        );
        assert_eq!(r.default, Duration::from_millis(100));
        assert_eq!(r.other, Duration::from_millis(100));
    }

    #[test]
    fn rows_are_matched_by_variant_and_threads() {
        let pairs = vec![(
            vec![row("tiled", 1, 10, 10), row("tiled", 2, 30, 10)],
            vec![row("tiled", 2, 10, 10), row("tiled", 1, 20, 10)],
        )];
        let rows = compare(&pairs);
        let ratios: Vec<(usize, f64)> = rows.iter().map(|r| (r.threads, r.ratio)).collect();
        assert_eq!(ratios.len(), 2);
        assert_eq!((ratios[0].0, ratios[1].0), (1, 2));
        assert!((ratios[0].1 - 0.5).abs() < 1e-12 && (ratios[1].1 - 3.0).abs() < 1e-12);
        // A variant missing from one child is left out.
        let pairs = vec![(
            vec![row("tiled", 1, 10, 10)],
            vec![row("private", 1, 10, 10)],
        )];
        assert!(compare(&pairs).is_empty());
        assert!(compare(&[]).is_empty());
    }
}
