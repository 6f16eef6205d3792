//! `Queue`: launches kernels on a rayon thread pool.

use std::error::Error;
use std::fmt;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::group::WorkGroup;
use crate::id::Range;
use crate::isa::{Isa, IsaError, SupportedIsa};
use crate::launch::{LaunchArgs, LaunchError, LaunchShape};
use crate::lowering::const_checks::group_shape;
use crate::lowering::group_size::GroupSizeCheck;
use crate::memory::WORKER_STACK_BYTES;
use crate::rules::{GroupScope, Nesting};
use crate::tag::LaunchTags;

/// Runs kernels: every work group of a launch exactly once, spread over a
/// rayon thread pool, one thread per group at a time (scoped parallelism
/// v2, `queue::parallel`).
///
/// [`Queue::new`] launches on the rayon pool of the calling thread, or,
/// called from any other thread, on a pool that all such queues share;
/// [`Queue::with_threads`] builds a pool of its own. The pools `scoped`
/// builds give their threads [`WORKER_STACK_BYTES`] of stack, room for
/// [`LOCAL_MEM_NESTING`](crate::LOCAL_MEM_NESTING) nested local memory
/// requests. A panic inside a work group reaches the caller of the launch
/// once the other groups are done; the queue stays usable.
///
/// Each launch runs its kernel compiled for an instruction-set level
/// ([`Isa`]): [`Isa::selected`] unless [`Queue::with_isa`] chose one.
#[derive(Clone, Default)]
pub struct Queue {
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The level forced by [`Queue::with_isa`].
    isa: Option<SupportedIsa>,
}

/// Why a queue could not be made.
#[derive(Debug)]
pub struct QueueError {
    threads: usize,
    reason: String,
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot make a queue with {} threads: {}",
            self.threads, self.reason
        )
    }
}

impl Error for QueueError {}

/// A pool of `threads` threads (0: rayon's default count) with stacks of
/// `WORKER_STACK_BYTES`.
fn build_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(WORKER_STACK_BYTES)
        .thread_name(|i| format!("scoped-worker-{i}"))
        .build()
}

/// The pool of `Queue::new()` launched from outside any rayon pool, built
/// on first use with rayon's default thread count; `None` if it could not
/// be built (the launch then runs on rayon's global pool).
fn shared_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| build_pool(0).ok()).as_ref()
}

impl Queue {
    /// A queue on the rayon pool of the calling thread when it is one of a
    /// pool's threads (a launch from inside a kernel, or inside
    /// `pool.install`), else on a pool shared by all such queues, built on
    /// first use with rayon's default thread count and stacks of
    /// [`WORKER_STACK_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self {
            pool: None,
            isa: None,
        }
    }

    /// A queue on a pool of its own with `threads` threads, each with a
    /// stack of [`WORKER_STACK_BYTES`].
    ///
    /// # Errors
    /// If `threads` is 0 or above rayon's limit
    /// ([`rayon::max_num_threads`], 65 535), or the pool cannot be built;
    /// the error names the thread count and the reason.
    pub fn with_threads(threads: usize) -> Result<Self, QueueError> {
        let limit = rayon::max_num_threads();
        if threads == 0 || threads > limit {
            return Err(QueueError {
                threads,
                reason: format!("a queue has 1 ..= {limit} threads (rayon's limit)"),
            });
        }
        let pool = build_pool(threads).map_err(|e| QueueError {
            threads,
            reason: e.to_string(),
        })?;
        Ok(Self {
            pool: Some(Arc::new(pool)),
            isa: None,
        })
    }

    /// This queue, its launches compiled for `isa` whatever
    /// [`Isa::selected`] (and `SCOPED_ISA`) says.
    ///
    /// # Errors
    /// [`IsaError::Unsupported`] if the running CPU lacks features of
    /// `isa`, naming them.
    ///
    /// # Examples
    /// ```
    /// use scoped_runtime::{Isa, Queue};
    /// let queue = Queue::new().with_isa(Isa::Baseline).unwrap();
    /// assert_eq!(queue.isa(), Ok(Isa::Baseline));
    /// ```
    pub fn with_isa(self, isa: Isa) -> Result<Self, IsaError> {
        Ok(Self {
            isa: Some(SupportedIsa::new(isa)?),
            ..self
        })
    }

    /// The level this queue's launches are compiled for.
    ///
    /// # Errors
    /// The error of [`Isa::selected`] when the queue has no level of its
    /// own.
    pub fn isa(&self) -> Result<Isa, IsaError> {
        self.supported_isa().map(SupportedIsa::isa)
    }

    pub(crate) fn supported_isa(&self) -> Result<SupportedIsa, IsaError> {
        match self.isa {
            Some(isa) => Ok(isa),
            None => Isa::selected().and_then(SupportedIsa::new),
        }
    }

    /// The pool launches run on; `None` for the calling thread's own.
    pub(crate) fn pool(&self) -> Option<&rayon::ThreadPool> {
        match &self.pool {
            Some(pool) => Some(pool),
            None if rayon::current_thread_index().is_some() => None,
            None => shared_pool(),
        }
    }

    /// Number of threads that run this queue's work groups.
    #[must_use]
    pub fn num_threads(&self) -> usize {
        match self.pool() {
            Some(pool) => pool.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// Runs `kernel` once for each of `num_groups` work groups of
    /// `group_size` logical items and returns when all are done.
    ///
    /// `D` (1, 2 or 3) and the sub-group size `S` come from the kernel's
    /// group parameter type, `WorkGroup<D, S>`.
    ///
    /// # Errors
    /// Before anything runs: [`LaunchError::ZeroRange`] if a range has a
    /// zero dimension, [`LaunchError::Overflow`] if the item count
    /// overflows `usize`, [`LaunchError::Isa`] if the queue's level
    /// cannot be used (see [`Queue::isa`]); before any kernel body runs,
    /// [`LaunchError::GroupSize`] if the kernel requires another group
    /// size (`#[kernel(group_size = ...)]`).
    ///
    /// # Panics
    /// If a work group panics, with that panic, after the other groups end.
    ///
    /// # Examples
    /// ```
    /// use scoped_runtime::{Queue, WorkGroup, ScopedGroup};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let groups = AtomicUsize::new(0);
    /// Queue::new()
    ///     .parallel(10, 4, |_g: WorkGroup<1>| {
    ///         groups.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .unwrap();
    /// assert_eq!(groups.into_inner(), 10);
    /// ```
    pub fn parallel<const D: usize, const S: usize, K>(
        &self,
        num_groups: impl Into<Range<D>>,
        group_size: impl Into<Range<D>>,
        kernel: K,
    ) -> Result<(), LaunchError>
    where
        K: Fn(WorkGroup<D, S>) + Sync,
    {
        self.parallel_with(num_groups, group_size, (), |group, ()| kernel(group))
    }

    /// Like [`parallel`](Self::parallel), with arguments that give each
    /// work group a part of its own: `args` is an output view
    /// ([`ItemsMut`](crate::ItemsMut), [`ChunksMut`](crate::ChunksMut)) or
    /// a tuple of them, and `kernel` receives the group's window(s) as
    /// its second argument.
    ///
    /// # Errors
    /// As for [`parallel`](Self::parallel), and
    /// [`LaunchError::OutputTooShort`] (naming the argument, its length
    /// and what it must cover) if a view is shorter than the launch needs.
    ///
    /// # Panics
    /// If a work group panics, with that panic, after the other groups end.
    pub fn parallel_with<const D: usize, const S: usize, A, K>(
        &self,
        num_groups: impl Into<Range<D>>,
        group_size: impl Into<Range<D>>,
        args: A,
        kernel: K,
    ) -> Result<(), LaunchError>
    where
        A: LaunchArgs<D>,
        K: Fn(WorkGroup<D, S>, A::PerGroup) + Sync,
    {
        const { group_shape::<D, S>() };
        let shape = LaunchShape::new(num_groups.into(), group_size.into())?;
        args.__check(&shape, 0)?;
        let isa = self.supported_isa().map_err(LaunchError::Isa)?;
        let tags = LaunchTags::for_launch(&shape)?;
        self.run_checked(shape, tags, isa, args, kernel)
    }

    /// Runs a launch whose `args` passed `__check` for `shape`, with the
    /// group tags reserved for it, at `isa`.
    ///
    /// # Errors
    /// [`LaunchError::GroupSize`] if the kernel requires another group
    /// size; no kernel body has run then.
    pub(crate) fn run_checked<const D: usize, const S: usize, A, K>(
        &self,
        shape: LaunchShape<D>,
        tags: LaunchTags,
        isa: SupportedIsa,
        args: A,
        kernel: K,
    ) -> Result<(), LaunchError>
    where
        A: LaunchArgs<D>,
        K: Fn(WorkGroup<D, S>, A::PerGroup) + Sync,
    {
        const { group_shape::<D, S>() };
        let sizes = GroupSizeCheck::default();
        // What every group of one of rayon's pieces shares is set up once
        // per piece: the group-size watch, the thread's nesting counts
        // (each group leaves them as it found them) and the dispatch to
        // the level's copy of the group loop.
        let run_piece = |groups: std::ops::Range<usize>| {
            let Some(watch) = sizes.watch() else {
                return;
            };
            let nesting = Nesting::current();
            let _fresh = GroupScope::enter(nesting);
            // Always inlined into each level's copy, with the level as a
            // constant: see `isa.rs`.
            let run_group = group_fn(
                #[inline(always)]
                |linear: usize, isa| {
                    if watch.refused() {
                        return;
                    }
                    nesting.start_group();
                    let group_id = shape.num_groups.delinearize(linear);
                    let tag = tags.group(linear);
                    let group = WorkGroup::new(
                        group_id,
                        shape.num_groups,
                        shape.group_size,
                        shape.global_range,
                        tag,
                        nesting,
                        isa,
                    );
                    // SAFETY: the caller checked `args` for `shape`,
                    // `group_id` is inside `num_groups`, and the pieces
                    // rayon runs split the linear ids without overlap, so
                    // no two windows for the same group exist.
                    let part = unsafe { args.__for_group(group_id, &shape, tag) };
                    kernel(group, part);
                },
            );
            isa.run_groups(groups, &run_group);
        };
        let run = || rayon::iter::split(0..shape.num_groups.size(), halves).for_each(run_piece);
        match self.pool() {
            Some(pool) => pool.install(run),
            None => run(),
        }
        sizes.finish()?;
        args.__finish();
        Ok(())
    }
}

/// Splits a piece of linear group ids in two halves, down to single
/// groups: rayon splits as it does a range (adaptively, on demand).
fn halves(
    groups: std::ops::Range<usize>,
) -> (std::ops::Range<usize>, Option<std::ops::Range<usize>>) {
    if groups.len() < 2 {
        return (groups, None);
    }
    let mid = groups.start + groups.len() / 2;
    (groups.start..mid, Some(mid..groups.end))
}

/// `f`: a place where a closure may carry `#[inline(always)]`.
fn group_fn<F: Fn(usize, SupportedIsa)>(f: F) -> F {
    f
}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("threads", &self.num_threads())
            .field("isa", &self.isa())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::ScopedGroup;

    /// Splits `groups` all the way down, as rayon may.
    fn split_fully(groups: std::ops::Range<usize>, pieces: &mut Vec<usize>) {
        match halves(groups) {
            (one, None) => pieces.extend(one),
            (left, Some(right)) => {
                assert!(!left.is_empty() && !right.is_empty());
                assert_eq!(left.end, right.start);
                split_fully(left, pieces);
                split_fully(right, pieces);
            }
        }
    }

    #[test]
    fn halves_cover_every_group_once() {
        for n in [0, 1, 2, 3, 7, 64, 1000] {
            let mut seen = Vec::new();
            split_fully(5..5 + n, &mut seen);
            assert_eq!(seen, (5..5 + n).collect::<Vec<_>>(), "{n}");
        }
    }

    #[test]
    fn groups_of_one_piece_start_with_fresh_counts() {
        // One thread: rayon runs the launch in few pieces of many groups.
        let queue = Queue::with_threads(1).unwrap();
        let seen = std::sync::Mutex::new(Vec::new());
        queue
            .parallel(64, 2, |group: WorkGroup<1>| {
                let counts = format!("{:?}", group.__nesting());
                seen.lock().unwrap().push(counts);
                crate::lowering::distribute::single_item(&group, || {});
            })
            .unwrap();
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen, vec!["Nesting(0x0)"; 64]);
    }
}
