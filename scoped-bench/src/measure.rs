//! One kernel's measurement at one thread count: the checked first runs,
//! then its share of every round, then its rows.
//!
//! The runner interleaves the kernels round by round (see `main`), so
//! every kernel is measured across the whole run rather than in one spell
//! of it, and rates of different kernels (the triad's bandwidth against the
//! others') compare under the same machine conditions.

use std::time::{Duration, Instant};

use rayon::ThreadPool;
use scoped::Queue;

use crate::kernels::Kernel;
use crate::order::balanced_order;
use crate::results::{self, AgainstFirst, Row};

pub(crate) fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

pub(crate) fn median_ratio(ratios: &mut [f64]) -> f64 {
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// The variant a round's slot runs: its own, or the first for the
/// control slot after the variants.
fn slot_variant(slot: usize, variants: usize) -> usize {
    if slot < variants {
        slot
    } else {
        0
    }
}

/// A kernel's turn in a round lasts at least this long where it can: a
/// shorter one runs its slots again, up to [`MAX_REPEATS`] times. A 3 ms
/// reduction's ratio to its peer read 0.93–1.16 over six processes of 5
/// rounds, 0.99–1.07 over six of 41 (KVM Intel Xeon, one thread), and
/// short kernels cost little to repeat.
pub(crate) const SHORT_TURN: Duration = Duration::from_millis(200);
pub(crate) const MAX_REPEATS: usize = 16;

/// How many times a kernel whose turn took `turn` runs it in later
/// rounds.
fn repeats_for(turn: Duration) -> usize {
    let turn = turn.as_secs_f64().max(1e-9);
    ((SHORT_TURN.as_secs_f64() / turn).ceil() as usize).clamp(1, MAX_REPEATS)
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// The times one kernel collects over the rounds at one thread count.
pub(crate) struct Measurement<'k> {
    kernel: &'k mut dyn Kernel,
    threads: usize,
    /// Whether each variant has a twin (the same algorithm by hand).
    has_twin: Vec<bool>,
    /// Whether the first variant also runs a second time in every round:
    /// for kernels with a sub-group variant, the noise floor of the
    /// sub-groups/first comparison.
    control: bool,
    /// Per slot (every variant, then the control), its `scoped` times.
    scoped_times: Vec<Vec<Duration>>,
    /// Per variant, `scoped` time / peer time, round by round.
    ratios: Vec<Vec<f64>>,
    /// Per variant with a twin, `scoped` time / twin time.
    twin_ratios: Vec<Vec<f64>>,
    peer_times: Vec<Duration>,
    /// Whether the peer runs only after every round (see
    /// [`Measurement::turn_peers_apart`]).
    peers_apart: bool,
    /// Times each later round runs the kernel's turn, set by the first
    /// round's length (see [`SHORT_TURN`]).
    repeats: Option<usize>,
    /// Turns run so far: the row of the balanced order the next one takes.
    turns: usize,
}

impl<'k> Measurement<'k> {
    /// Runs every variant, the peer and the twins once on `pool` and
    /// checks each result against the serial reference. Returns the
    /// measurement, or the mismatches.
    pub(crate) fn checked(
        kernel: &'k mut dyn Kernel,
        threads: usize,
        peers_apart: bool,
        pool: &ThreadPool,
        queue: &Queue,
    ) -> Result<Self, Vec<String>> {
        let name = kernel.name();
        let variants = kernel.variants();
        let mut errors = Vec::new();
        for (v, variant) in variants.iter().enumerate() {
            kernel.clear();
            pool.install(|| kernel.run_scoped(queue, v));
            if let Err(e) = kernel.check() {
                errors.push(format!(
                    "{name} (scoped, {variant}, {threads} threads): {e}"
                ));
            }
        }
        kernel.clear();
        pool.install(|| kernel.run_peer());
        if let Err(e) = kernel.check() {
            errors.push(format!("{name} (peer, {threads} threads): {e}"));
        }
        let mut has_twin = Vec::with_capacity(variants.len());
        for (v, variant) in variants.iter().enumerate() {
            kernel.clear();
            let ran = pool.install(|| kernel.run_twin(v));
            if ran {
                if let Err(e) = kernel.check() {
                    errors.push(format!(
                        "{name} (twin of {variant}, {threads} threads): {e}"
                    ));
                }
            }
            has_twin.push(ran);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let control = variants.contains(&results::SUB_GROUPS);
        let slots = variants.len() + usize::from(control);
        Ok(Self {
            kernel,
            threads,
            has_twin,
            control,
            scoped_times: vec![Vec::new(); slots],
            ratios: vec![Vec::new(); variants.len()],
            twin_ratios: vec![Vec::new(); variants.len()],
            peer_times: Vec::new(),
            peers_apart,
            repeats: None,
            turns: 0,
        })
    }

    /// The kernel's share of one round: its turn (see
    /// [`Measurement::turn`]), once in the first round and in later ones
    /// as many times as make them last [`SHORT_TURN`].
    pub(crate) fn round(&mut self, pool: &ThreadPool, queue: &Queue) {
        let started = Instant::now();
        for _ in 0..self.repeats.unwrap_or(1) {
            self.turn(pool, queue);
        }
        self.repeats
            .get_or_insert_with(|| repeats_for(started.elapsed()));
    }

    /// One turn of the kernel: one untimed run of the peer, so
    /// that the first timed run does not find the caches full of the
    /// kernel that ran before, then every slot back to back with the
    /// peer, in alternating order, so each ratio compares two runs under
    /// the same machine conditions.
    ///
    /// With `peers_apart`, only the `scoped` runs (see
    /// [`Measurement::turn_peers_apart`]).
    fn turn(&mut self, pool: &ThreadPool, queue: &Queue) {
        let round = self.turns;
        self.turns += 1;
        if self.peers_apart {
            self.turn_peers_apart(round, pool, queue);
            return;
        }
        let kernel = &mut *self.kernel;
        pool.install(|| kernel.run_peer());
        let variants = self.ratios.len();
        // Each round takes the next row of a design balanced for what ran
        // just before (see `order`): in one fixed order, the same kernel
        // measured up to 1% faster in the third place than in the first.
        for slot in balanced_order(self.scoped_times.len(), round) {
            let v = slot_variant(slot, variants);
            let (scoped, peer) = if round.is_multiple_of(2) {
                let scoped = timed(|| pool.install(|| kernel.run_scoped(queue, v)));
                (scoped, timed(|| pool.install(|| kernel.run_peer())))
            } else {
                let peer = timed(|| pool.install(|| kernel.run_peer()));
                (timed(|| pool.install(|| kernel.run_scoped(queue, v))), peer)
            };
            self.scoped_times[slot].push(scoped);
            self.peer_times.push(peer);
            if slot == variants {
                continue;
            }
            self.ratios[v].push(scoped.as_secs_f64() / peer.as_secs_f64());
            if self.has_twin[v] {
                // The twin runs right after the scoped run's partner.
                let twin = timed(|| {
                    pool.install(|| kernel.run_twin(v));
                });
                self.twin_ratios[v].push(scoped.as_secs_f64() / twin.as_secs_f64());
            }
        }
    }

    /// A turn for a child that compares two builds of `scoped`: an
    /// untimed run of the first variant, then every slot back to back; the
    /// peer runs only after the last round ([`Measurement::peers_after`]).
    /// Such a comparison takes `scoped` times of two processes whose peers
    /// differ (a default build's is compiled for the baseline), and a
    /// peer's scalar code before a kernel slowed the kernel: matmul 1.3–2×
    /// after a scalar loop of 0.7 s, in a native build as in the default
    /// one; layer norm at 2 threads 1.25–1.35× when its turns alternated
    /// with the default build's peer, 0.99–1.09× a build for v4 without
    /// the peer (KVM Intel Xeon). No twins run.
    fn turn_peers_apart(&mut self, round: usize, pool: &ThreadPool, queue: &Queue) {
        let kernel = &mut *self.kernel;
        pool.install(|| kernel.run_scoped(queue, 0));
        let variants = self.ratios.len();
        for slot in balanced_order(self.scoped_times.len(), round) {
            let v = slot_variant(slot, variants);
            let scoped = timed(|| pool.install(|| kernel.run_scoped(queue, v)));
            self.scoped_times[slot].push(scoped);
        }
    }

    /// With `peers_apart`, the peer's runs, after every round: an untimed
    /// one, then one per turn. Each variant's ratio is then its `scoped`
    /// times against the peer's median. Nothing otherwise.
    pub(crate) fn peers_after(&mut self, pool: &ThreadPool) {
        if !self.peers_apart {
            return;
        }
        let kernel = &mut *self.kernel;
        pool.install(|| kernel.run_peer());
        for _ in 0..self.turns {
            let peer = timed(|| pool.install(|| kernel.run_peer()));
            self.peer_times.push(peer);
        }
        let peer = median(&mut self.peer_times).as_secs_f64();
        for (ratios, times) in self.ratios.iter_mut().zip(&self.scoped_times) {
            ratios.extend(times.iter().map(|t| t.as_secs_f64() / peer));
        }
    }

    /// One row per variant, from the rounds run so far (at least one).
    pub(crate) fn rows(mut self) -> Vec<Row> {
        let variants = self.kernel.variants();
        // Every variant (and the control) against the first one, round by
        // round: both ran in the same round, so a slow spell of the machine
        // affects both.
        let mut first_ratios: Vec<Vec<f64>> = self
            .scoped_times
            .iter()
            .map(|times| {
                times
                    .iter()
                    .zip(&self.scoped_times[0])
                    .map(|(t, first)| t.as_secs_f64() / first.as_secs_f64())
                    .collect()
            })
            .collect();
        let first_again = self
            .control
            .then(|| median_ratio(&mut first_ratios[variants.len()]));
        let peer = median(&mut self.peer_times);
        let (kernel, threads, work, size) = (
            self.kernel.name(),
            self.threads,
            self.kernel.work(),
            self.kernel.size(),
        );
        variants
            .iter()
            .enumerate()
            .zip(self.scoped_times.iter_mut().zip(&mut self.ratios))
            .zip(self.twin_ratios.iter_mut().zip(&mut first_ratios))
            .map(
                |(((v, variant), (times, ratios)), (twin_ratios, first_ratios))| Row {
                    kernel,
                    variant,
                    size: size.clone(),
                    threads,
                    scoped: median(times),
                    peer,
                    work,
                    ratio: median_ratio(ratios),
                    twin_ratio: (!twin_ratios.is_empty()).then(|| median_ratio(twin_ratios)),
                    against_first: (v > 0).then(|| AgainstFirst {
                        first: variants[0],
                        ratio: median_ratio(first_ratios),
                        first_again,
                    }),
                },
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Work;

    /// Records which runs happen, in order: `s0`, `s1` for the variants,
    /// `p` for the peer.
    struct Log(Vec<String>);

    impl Kernel for Log {
        fn name(&self) -> &'static str {
            "log"
        }
        fn size(&self) -> String {
            String::new()
        }
        fn work(&self) -> Work {
            Work::Flops(1.0)
        }
        fn variants(&self) -> &'static [&'static str] {
            &["first", "second"]
        }
        fn run_scoped(&mut self, _: &Queue, variant: usize) {
            self.0.push(format!("s{variant}"));
        }
        fn run_peer(&mut self) {
            self.0.push("p".into());
        }
        fn clear(&mut self) {}
        fn check(&self) -> Result<(), String> {
            Ok(())
        }
    }

    /// The runs `f` makes of a [`Log`] kernel's measurement on one thread,
    /// after the checked runs (both variants and the peer).
    fn runs_of(peers_apart: bool, f: impl FnOnce(Measurement, &ThreadPool, &Queue)) -> Vec<String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let queue = Queue::new();
        let mut log = Log(Vec::new());
        let m = Measurement::checked(&mut log, 1, peers_apart, &pool, &queue).unwrap();
        f(m, &pool, &queue);
        assert_eq!(log.0[..3], ["s0", "s1", "p"]);
        log.0.split_off(3)
    }

    /// The runs of two turns, one list per turn, and those after them.
    fn turns(peers_apart: bool) -> (Vec<Vec<String>>, Vec<String>) {
        let per_turn = if peers_apart { 3 } else { 5 };
        let mut runs = runs_of(peers_apart, |mut m, pool, queue| {
            m.turn(pool, queue);
            m.turn(pool, queue);
            m.peers_after(pool);
            let rows = m.rows();
            assert_eq!(rows.len(), 2);
            assert!(rows.iter().all(|r| r.ratio.is_finite()));
        });
        let after = runs.split_off(2 * per_turn);
        (
            runs.chunks(per_turn).map(<[String]>::to_vec).collect(),
            after,
        )
    }

    #[test]
    fn short_turns_repeat_up_to_a_limit() {
        assert_eq!(repeats_for(SHORT_TURN * 2), 1);
        assert_eq!(repeats_for(SHORT_TURN), 1);
        assert_eq!(repeats_for(SHORT_TURN / 4), 4);
        assert_eq!(repeats_for(SHORT_TURN / 5 + Duration::from_micros(1)), 5);
        assert_eq!(repeats_for(Duration::ZERO), MAX_REPEATS);
        // A kernel that takes no time: its first round is one turn, each
        // later one the most turns, of five runs each.
        let runs = runs_of(false, |mut m, pool, queue| {
            m.round(pool, queue);
            m.round(pool, queue);
            assert_eq!(m.turns, 1 + MAX_REPEATS);
        });
        assert_eq!(runs.len(), 5 * (1 + MAX_REPEATS));
    }

    #[test]
    fn peers_apart_run_only_after_every_turn() {
        // An untimed first variant and both variants a turn; then an
        // untimed peer and one per turn.
        let (turns, after) = turns(true);
        for turn in turns {
            assert_eq!(turn[0], "s0");
            let mut variants = turn[1..].to_vec();
            variants.sort();
            assert_eq!(variants, ["s0", "s1"]);
        }
        assert_eq!(after, ["p", "p", "p"]);
    }

    #[test]
    fn otherwise_peers_run_between_scoped_runs() {
        // An untimed peer, then each variant beside a peer; nothing after.
        let (turns, after) = turns(false);
        for turn in turns {
            assert_eq!(turn[0], "p");
            assert!(turn[1..].chunks(2).all(|pair| pair.contains(&"p".into())));
        }
        assert!(after.is_empty(), "{after:?}");
    }
}
