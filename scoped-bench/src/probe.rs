//! Where the memory's rate begins: a triad `a = b + s·c` over arrays of
//! growing size, to find the size from which its rate no longer depends
//! on the size. Kernels whose largest array reaches it measure the
//! memory, not the caches. Measured rather than read from the cache size
//! sysfs lists: a virtual machine can list its host's (a 2-core VM listed
//! a 480 MiB L3, and then no kernel counted).

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

/// The smallest and the largest array the probe uses, in bytes.
pub(crate) const SMALLEST: usize = 1 << 20;
pub(crate) const LARGEST: usize = 256 << 20;
/// How much faster than a larger array a size may be and still be on the
/// plateau. The Jacobi peer moved 7-11% more bytes per second over 64 MiB
/// grids (twice the 32 MiB L3 of an EPYC) than over 128 MiB ones: a looser
/// bound would count the former.
pub(crate) const TOLERANCE: f64 = 0.05;
/// Rounds over all sizes; each size's rate is its best round, as STREAM
/// takes the best of its runs.
const ROUNDS: usize = 5;

/// What the probe measured.
pub(crate) struct Plateau {
    pub(crate) threads: usize,
    /// Bytes per array and the best rate in GB/s the memory moved (each
    /// byte written counted twice: write-allocate), smallest first.
    pub(crate) points: Vec<(f64, f64)>,
    /// The size from which no rate is more than [`TOLERANCE`] above the
    /// rate of a larger array: `None` if that is the largest size alone.
    pub(crate) from: Option<f64>,
}

/// Runs the probe on a pool of `threads` threads, over arrays of
/// `smallest` to `largest` bytes, doubling (the runner's: [`SMALLEST`]
/// and [`LARGEST`]).
pub(crate) fn probe(threads: usize, smallest: usize, largest: usize) -> Plateau {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    let n = largest / 4;
    let (mut a, b, c) = pool.install(|| {
        let fill = |v: f32| (0..n).into_par_iter().map(|i| v + (i % 7) as f32).collect();
        let a: Vec<f32> = fill(0.0);
        (a, fill(1.0), fill(2.0))
    });
    let sizes: Vec<usize> = std::iter::successors(Some(smallest), |&s| Some(s * 2))
        .take_while(|&s| s <= largest)
        .collect();
    let mut best = vec![0.0f64; sizes.len()];
    for _ in 0..ROUNDS {
        for (size, best) in sizes.iter().zip(&mut best) {
            let len = size / 4;
            // Every size moves about as many bytes per timing as the
            // largest, after an untimed pass that fills the caches.
            let passes = largest / size;
            let (a, b, c) = (&mut a[..len], &b[..len], &c[..len]);
            let chunk = len.div_ceil(threads * 4).max(4096);
            let mut triad = || {
                pool.install(|| {
                    a.par_chunks_mut(chunk)
                        .zip(b.par_chunks(chunk).zip(c.par_chunks(chunk)))
                        .for_each(|(a, (b, c))| {
                            for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                                *a = b + 3.0 * c;
                            }
                        });
                });
                black_box(&mut *a);
            };
            triad();
            let started = Instant::now();
            for _ in 0..passes {
                triad();
            }
            let seconds = started.elapsed().as_secs_f64();
            // Two arrays read, one written (twice: write-allocate).
            let rate = 4.0 * (*size * passes) as f64 / seconds / 1e9;
            *best = best.max(rate);
        }
    }
    let points: Vec<(f64, f64)> = sizes.iter().map(|&s| s as f64).zip(best).collect();
    Plateau {
        threads,
        from: plateau_start(&points, TOLERANCE),
        points,
    }
}

/// The smallest size in `points` (bytes, rate; smallest first) from which
/// no rate is more than `tolerance` above the rate of a larger size, if
/// that is not the largest size alone. One-sided: the caches only make a
/// size faster, and a larger size that happens to run faster (a quiet
/// moment of a shared machine) must not hide the plateau.
pub(crate) fn plateau_start(points: &[(f64, f64)], tolerance: f64) -> Option<f64> {
    let mut slowest = f64::INFINITY;
    let mut start = points.len();
    for (i, &(_, rate)) in points.iter().enumerate().rev() {
        if rate > (1.0 + tolerance) * slowest {
            break;
        }
        slowest = slowest.min(rate);
        start = i;
    }
    (start + 1 < points.len()).then(|| points[start].0)
}

#[cfg(test)]
mod tests {
    use super::{plateau_start, probe};

    const MIB: f64 = (1 << 20) as f64;

    fn points(rates: &[f64]) -> Vec<(f64, f64)> {
        let size = |i: usize| MIB * (1u64 << i) as f64;
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| (size(i), r))
            .collect()
    }

    #[test]
    fn the_plateau_begins_where_the_rate_stops_falling() {
        // Cache rates, then a knee at 8 MiB, then the memory.
        let p = points(&[90.0, 88.0, 70.0, 40.0, 31.0, 30.5, 30.0]);
        assert_eq!(plateau_start(&p, 0.05), Some(16.0 * MIB));
        // A size faster than a larger one by more than the bound moves the
        // start above it.
        let p = points(&[90.0, 31.0, 30.5, 35.0, 30.2, 30.0]);
        assert_eq!(plateau_start(&p, 0.05), Some(16.0 * MIB));
    }

    #[test]
    fn a_faster_large_size_does_not_hide_the_plateau() {
        // As measured on a loaded 2-core EPYC VM: the 256 MiB arrays ran in
        // a quieter moment than the others.
        let p = points(&[76.0, 84.0, 87.0, 48.0, 12.0, 13.0, 13.0, 13.0, 17.0]);
        assert_eq!(plateau_start(&p, 0.05), Some(16.0 * MIB));
    }

    #[test]
    fn flat_rates_are_a_plateau_from_the_smallest_size() {
        let p = points(&[30.0, 30.5, 29.5, 30.0]);
        assert_eq!(plateau_start(&p, 0.05), Some(MIB));
    }

    #[test]
    fn a_rate_still_falling_at_the_largest_size_is_no_plateau() {
        let p = points(&[90.0, 70.0, 50.0, 40.0]);
        assert_eq!(plateau_start(&p, 0.05), None);
        assert_eq!(plateau_start(&[], 0.05), None);
        assert_eq!(plateau_start(&[(MIB, 30.0)], 0.05), None);
    }

    #[test]
    fn the_probe_measures_every_size() {
        let p = probe(1, 1 << 20, 4 << 20);
        assert_eq!(p.points.len(), 3);
        assert_eq!(p.points[0].0, MIB);
        assert!(
            p.points.iter().all(|&(_, rate)| rate > 0.1),
            "{:?}",
            p.points
        );
        if let Some(from) = p.from {
            assert!(p.points.iter().any(|&(size, _)| size == from));
        }
    }
}
