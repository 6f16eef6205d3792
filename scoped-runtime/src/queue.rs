//! `Queue`: launches kernels on a rayon thread pool.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use rayon::prelude::*;

use crate::group::WorkGroup;
use crate::id::Range;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape};
use crate::lowering::const_checks::group_shape;
use crate::rules::GroupScope;

/// Stack size of the threads of a queue's own pool: room for nested local
/// memory environments (see [`MAX_LOCAL_MEM_BYTES`](crate::MAX_LOCAL_MEM_BYTES)).
const STACK_BYTES: usize = 16 << 20;

/// Runs kernels: every work group of a launch exactly once, spread over a
/// rayon thread pool, one thread per group at a time (scoped parallelism
/// v2, `queue::parallel`).
///
/// [`Queue::new`] uses rayon's global pool; [`Queue::with_threads`] builds
/// a pool of its own. A panic inside a work group reaches the caller of the
/// launch once the other groups are done; the queue stays usable.
#[derive(Clone, Default)]
pub struct Queue {
    pool: Option<Arc<rayon::ThreadPool>>,
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

impl Queue {
    /// A queue on rayon's global thread pool.
    #[must_use]
    pub fn new() -> Self {
        Self { pool: None }
    }

    /// A queue on a pool of its own with `threads` threads.
    ///
    /// # Errors
    /// If `threads` is 0, or the pool cannot be built; the error names the
    /// thread count.
    pub fn with_threads(threads: usize) -> Result<Self, QueueError> {
        if threads == 0 {
            return Err(QueueError {
                threads,
                reason: "a queue needs at least one thread".into(),
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("scoped-worker-{i}"))
            .build()
            .map_err(|e| QueueError {
                threads,
                reason: e.to_string(),
            })?;
        Ok(Self {
            pool: Some(Arc::new(pool)),
        })
    }

    /// Number of threads that run this queue's work groups.
    #[must_use]
    pub fn num_threads(&self) -> usize {
        match &self.pool {
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
    /// overflows `usize`.
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
        self.run_checked(shape, args, kernel);
        Ok(())
    }

    /// Runs a launch whose `args` passed `__check` for `shape`.
    pub(crate) fn run_checked<const D: usize, const S: usize, A, K>(
        &self,
        shape: LaunchShape<D>,
        args: A,
        kernel: K,
    ) where
        A: LaunchArgs<D>,
        K: Fn(WorkGroup<D, S>, A::PerGroup) + Sync,
    {
        const { group_shape::<D, S>() };
        let run_group = |linear: usize| {
            let group_id = shape.num_groups.delinearize(linear);
            let group = WorkGroup::new(
                group_id,
                shape.num_groups,
                shape.group_size,
                shape.global_range,
            );
            // SAFETY: the caller checked `args` for `shape`, `group_id` is
            // inside `num_groups`, and rayon runs each linear id exactly
            // once, so no two windows for the same group exist.
            let part = unsafe { args.__for_group(group_id, &shape) };
            let _fresh = GroupScope::enter();
            kernel(group, part);
        };
        let run = || {
            (0..shape.num_groups.size())
                .into_par_iter()
                .for_each(run_group)
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
        args.__finish();
    }
}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("threads", &self.num_threads())
            .finish()
    }
}
