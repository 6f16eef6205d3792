//! The bandwidth rule: which kernels' rates count as memory bandwidth, and
//! the triad's share of the best of them.

use crate::kernels::triad;
use crate::results::Row;
use crate::units::Work;

/// The share of the best memory bandwidth the triad should reach.
pub(crate) const TRIAD_TARGET: f64 = 0.9;

/// A row of a kernel that moves bytes, with the larger of its two sides'
/// rates in bytes the memory moves.
#[derive(Clone, Copy)]
pub(crate) struct Moved<'r> {
    pub(crate) row: &'r Row,
    /// GB/s the memory moves.
    pub(crate) rate: f64,
    /// Whether that rate is the peer's (else the `scoped` variant's).
    pub(crate) peer: bool,
    /// Bytes of the kernel's largest array.
    pub(crate) largest_array: f64,
}

impl<'r> Moved<'r> {
    fn of(row: &'r Row) -> Option<Self> {
        let Work::Bytes { largest_array, .. } = row.work else {
            return None;
        };
        let (scoped, peer) = row.moved_rates()?;
        Some(Self {
            row,
            rate: scoped.max(peer),
            peer: peer > scoped,
            largest_array,
        })
    }
}

/// A kernel whose arrays are too small to count: its largest array and
/// its best rate in bytes the memory moves.
pub(crate) struct LeftOut {
    pub(crate) kernel: &'static str,
    pub(crate) largest_array: f64,
    pub(crate) rate: f64,
}

/// The triad against the best memory bandwidth the suite measured at the
/// largest thread count.
pub(crate) struct Bandwidth<'r> {
    pub(crate) threads: usize,
    /// The size a largest array needs to count: where the probe found
    /// the memory's rate to begin (see `probe`); `None` if it found no
    /// such size, and then no kernel counts.
    pub(crate) least: Option<f64>,
    /// The fastest of the kernels that count; `None` if none does.
    pub(crate) best: Option<Moved<'r>>,
    /// The `scoped` triad variant that moved the most, and its rate.
    pub(crate) triad: &'r Row,
    pub(crate) triad_moved: f64,
    /// Kernels that do not count, in table order.
    pub(crate) left_out: Vec<LeftOut>,
}

/// The rule applied to `rows`; `None` if the triad did not run.
/// `least` is the size a largest array needs to count (`None`: none
/// counts).
pub(crate) fn bandwidth(rows: &[Row], least: Option<f64>) -> Option<Bandwidth<'_>> {
    let threads = rows.iter().map(|r| r.threads).max()?;
    let moved: Vec<Moved> = rows
        .iter()
        .filter(|r| r.threads == threads)
        .filter_map(Moved::of)
        .collect();
    let (triad, triad_moved) = moved
        .iter()
        .filter(|m| m.row.kernel == triad::NAME)
        .filter_map(|m| Some((m.row, m.row.moved_rates()?.0)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let counts = |m: &Moved| least.is_some_and(|least| m.largest_array >= least);
    let best = moved
        .iter()
        .copied()
        .filter(|m| counts(m))
        .max_by(|a, b| a.rate.total_cmp(&b.rate));
    let mut left_out: Vec<LeftOut> = Vec::new();
    for m in moved.iter().filter(|m| !counts(m)) {
        match left_out.iter_mut().find(|l| l.kernel == m.row.kernel) {
            Some(l) => l.rate = l.rate.max(m.rate),
            None => left_out.push(LeftOut {
                kernel: m.row.kernel,
                largest_array: m.largest_array,
                rate: m.rate,
            }),
        }
    }
    Some(Bandwidth {
        threads,
        least,
        best,
        triad,
        triad_moved,
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::bandwidth;
    use crate::results::Row;
    use crate::units::Work;

    const MIB: f64 = (1 << 20) as f64;

    /// A row moving `read` and `written` MiB with its largest array of
    /// `largest` MiB, in `scoped` and `peer` milliseconds.
    fn row(kernel: &'static str, threads: usize, mib: [f64; 3], ms: [u64; 2]) -> Row {
        let [read, written, largest] = mib.map(|m| m * MIB);
        Row {
            kernel,
            variant: "flat",
            size: String::new(),
            threads,
            scoped: Duration::from_millis(ms[0]),
            peer: Duration::from_millis(ms[1]),
            work: Work::Bytes {
                read,
                written,
                largest_array: largest,
            },
            ratio: ms[0] as f64 / ms[1] as f64,
            twin_ratio: None,
            against_first: None,
        }
    }

    /// GB/s the memory moves: reads once, writes twice (write-allocate).
    fn moved(read: f64, written: f64, ms: u64) -> f64 {
        (read + 2.0 * written) * MIB / (ms as f64 * 1e-3) / 1e9
    }

    fn rows() -> Vec<Row> {
        vec![
            // At 1 thread: not looked at.
            row("triad", 1, [256.0, 128.0, 128.0], [5, 5]),
            row("triad", 2, [256.0, 128.0, 128.0], [20, 22]),
            // Below the plateau (64 MiB < 128 MiB), and faster.
            row("jacobi", 2, [64.0, 64.0, 64.0], [5, 4]),
            row("reduction", 2, [512.0, 0.0, 512.0], [30, 25]),
        ]
    }

    #[test]
    fn only_arrays_from_the_plateau_count() {
        let rows = rows();
        let b = bandwidth(&rows, Some(128.0 * MIB)).expect("the triad ran");
        assert_eq!(b.threads, 2);
        assert_eq!(b.least, Some(128.0 * MIB));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
        assert!(close(b.triad_moved, moved(256.0, 128.0, 20)));
        // The triad's 512 MiB moved in 20 ms beats the reduction's peer,
        // 512 MiB in 25 ms.
        let best = b.best.expect("two kernels count");
        assert_eq!((best.row.kernel, best.peer), ("triad", false));
        assert_eq!(b.left_out.len(), 1);
        assert_eq!(b.left_out[0].kernel, "jacobi");
        assert!(close(b.left_out[0].rate, moved(64.0, 64.0, 4)));
    }

    #[test]
    fn a_lower_plateau_counts_the_faster_kernel() {
        let rows = rows();
        let b = bandwidth(&rows, Some(64.0 * MIB)).expect("the triad ran");
        let best = b.best.expect("every kernel counts");
        assert_eq!((best.row.kernel, best.peer), ("jacobi", true));
        assert!(b.left_out.is_empty());
    }

    #[test]
    fn no_plateau_counts_no_kernel() {
        let rows = rows();
        let b = bandwidth(&rows, None).expect("the triad ran");
        assert!(b.best.is_none());
        let left: Vec<&str> = b.left_out.iter().map(|l| l.kernel).collect();
        assert_eq!(left, ["triad", "jacobi", "reduction"]);
    }

    #[test]
    fn no_triad_no_rule() {
        let rows: Vec<Row> = rows().into_iter().filter(|r| r.kernel != "triad").collect();
        assert!(bandwidth(&rows, None).is_none());
    }
}
