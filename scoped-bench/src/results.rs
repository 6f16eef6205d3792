//! What one run of the runner measured: a row per kernel variant and
//! thread count, the launch overhead, and the targets they are read
//! against.

use std::time::Duration;

use scoped::Isa;

use crate::build_pairs::PairRow;
use crate::machine::{Build, Machine};
use crate::probe::Plateau;
use crate::units::Work;

/// One `scoped` variant of one kernel at one thread count.
#[derive(Debug)]
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
#[derive(Clone, Copy, Debug)]
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
    pub(crate) fn rates(&self) -> (f64, f64, &'static str) {
        let (scoped, unit) = self.work.rate(self.scoped.as_secs_f64());
        let (peer, _) = self.work.rate(self.peer.as_secs_f64());
        (scoped, peer, unit)
    }

    /// GB/s the memory moves on the `scoped` side and on the peer's, for
    /// kernels that move bytes.
    pub(crate) fn moved_rates(&self) -> Option<(f64, f64)> {
        Some((
            self.work.moved_rate(self.scoped.as_secs_f64())?,
            self.work.moved_rate(self.peer.as_secs_f64())?,
        ))
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
    /// The same launches submitted inside a `Queue::scope`, per launch.
    pub(crate) in_scope: Duration,
    /// Median over the batches of in-scope / blocking launches on one
    /// queue's pool, run back to back.
    pub(crate) scope_ratio: f64,
}

/// The rows measured at one instruction-set level, by a build for it.
pub(crate) struct Level {
    pub(crate) isa: Isa,
    pub(crate) build: Build,
    pub(crate) rows: Vec<Row>,
}

/// The default build against another (the native one, or one for a lower
/// level), paired child by child.
pub(crate) struct BuildPairs {
    pub(crate) default: Build,
    pub(crate) other: Build,
    /// Pairs of children run.
    pub(crate) pairs: usize,
    /// Rounds each child ran.
    pub(crate) runs: usize,
    /// Whether the children's large arrays were in shared pages.
    pub(crate) shared_pages: bool,
    pub(crate) rows: Vec<PairRow>,
}

/// Everything one run of the runner measured.
pub(crate) struct Report {
    /// Whether the kernels ran at their quick sizes.
    pub(crate) quick: bool,
    /// Rounds per thread count.
    pub(crate) runs: usize,
    pub(crate) levels: Vec<Level>,
    pub(crate) native: Option<BuildPairs>,
    /// The default build held at each level below the CPU's best (but
    /// the baseline) against the build for that level.
    pub(crate) below: Vec<BuildPairs>,
    /// Where the memory's rate begins, if the triad ran.
    pub(crate) plateau: Option<Plateau>,
    pub(crate) launch: Vec<LaunchRow>,
    /// The build the launch overhead was measured in: the runner's own.
    pub(crate) launch_build: Build,
    pub(crate) elapsed: Duration,
    /// The runner's command-line arguments.
    pub(crate) args: Vec<String>,
    pub(crate) machine: Machine,
}

/// Ratio `scoped`/peer a kernel should not exceed.
pub(crate) const TARGET_RATIO: f64 = 1.05;
/// Ratio of launch overheads `scoped`/rayon to aim at.
pub(crate) const LAUNCH_TARGET: f64 = 1.2;
/// The name of the variants that subdivide with `distribute_groups!`.
pub(crate) const SUB_GROUPS: &str = "sub-groups";
/// How the names of other variants built on sub-groups begin (the
/// reduction's per-lane accumulators, "sub-group lanes").
pub(crate) const SUB_GROUP_PREFIX: &str = "sub-group";
