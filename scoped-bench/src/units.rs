//! Units: what one run of a kernel does, the rates it turns a time into,
//! and the conversions the report prints in.

use std::time::Duration;

/// What one run of a kernel does, to turn a time into a rate.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Work {
    /// Bytes the algorithm reads from and writes to memory, each once
    /// (reported in GB/s of their sum, as STREAM counts), and the size in
    /// bytes of its largest array: unless that is several times the
    /// last-level cache, part of the traffic is served by the cache.
    Bytes {
        read: f64,
        written: f64,
        largest_array: f64,
    },
    /// Floating-point operations (reported in GFLOP/s).
    Flops(f64),
}

impl Work {
    /// The rate for one run taking `seconds`, and its unit.
    pub(crate) fn rate(self, seconds: f64) -> (f64, &'static str) {
        match self {
            Work::Bytes { read, written, .. } => ((read + written) / seconds / 1e9, "GB/s"),
            Work::Flops(f) => (f / seconds / 1e9, "GFLOP/s"),
        }
    }

    /// GB/s the memory moves in one run taking `seconds`, for kernels that
    /// move bytes: the caches read every line before writing it
    /// (write-allocate), so each byte written is moved twice.
    pub(crate) fn moved_rate(self, seconds: f64) -> Option<f64> {
        match self {
            Work::Bytes { read, written, .. } => Some((read + 2.0 * written) / seconds / 1e9),
            Work::Flops(_) => None,
        }
    }
}

/// Bytes in MiB.
pub(crate) fn mib(bytes: f64) -> f64 {
    bytes / f64::from(1 << 20)
}

/// A duration in milliseconds.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A duration in microseconds.
pub(crate) fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
