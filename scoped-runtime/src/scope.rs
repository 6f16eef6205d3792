//! Asynchronous launches: [`Queue::scope`] and its [`Scope`], an in-order
//! queue in the manner of [`std::thread::scope`].
//!
//! One job per scope, on the queue's pool, runs the submitted launches one
//! after the other; the submitting thread only checks each launch and
//! hands it over. The
//! borrow checker keeps everything a launch borrows alive and, for a
//! mutable borrow, untouched until the scope ends, and the scope does not
//! end before its last launch.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Mutex, PoisonError};

use crate::group::WorkGroup;
use crate::id::Range;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape};
use crate::queue::Queue;
use crate::tag::LaunchTags;

/// A launch handed to the scope's thread.
type Job<'env> = Box<dyn FnOnce() + Send + 'env>;

/// Submits launches to run asynchronously, in submission order (an
/// in-order SYCL queue). Made by [`Queue::scope`].
pub struct Scope<'env> {
    queue: Queue,
    jobs: mpsc::Sender<Job<'env>>,
    /// Invariant in `'env`, as `std::thread::Scope` is, so that borrows
    /// cannot be shortened to fit.
    _env: PhantomData<&'env mut &'env ()>,
}

impl Queue {
    /// Runs `f` with a [`Scope`] whose launches run asynchronously, one
    /// after the other in submission order, and returns when `f` has
    /// returned and every launch has finished (SYCL: an in-order queue
    /// and `queue::wait`; Rust: [`std::thread::scope`]).
    ///
    /// A submission checks its launch (as
    /// [`parallel_with`](Queue::parallel_with) does) and returns at once;
    /// launch `k + 1` starts only after launch `k` has finished, so a
    /// launch sees everything earlier launches wrote. Whatever a launch
    /// borrows stays borrowed until the scope ends: data a launch writes
    /// cannot be read or written by the caller or another launch inside
    /// the same scope, and data borrowed from inside `f` cannot be
    /// launched on (it would not live long enough).
    ///
    /// The scope runs its launches from a job on the queue's pool (for a
    /// queue from [`Queue::new`], the pool it would launch on), so each
    /// launch starts from one of the pool's threads, without the hand-over
    /// and wait a blocking launch pays; that job holds one of the pool's
    /// threads while it waits for submissions.
    ///
    /// # Panics
    /// If a work group panics, with that panic, once `f` has returned and
    /// the running launch has ended; launches submitted after the one that
    /// panicked do not run. If `f` panics, with its panic, after the
    /// launches submitted so far have run.
    ///
    /// # Examples
    /// ```
    /// use scoped::prelude::*;
    ///
    /// let input: Vec<f32> = (0..256).map(|i| i as f32).collect();
    /// let (mut doubled, mut squared) = (vec![0.0; 256], vec![0.0; 256]);
    /// Queue::new().scope(|s| {
    ///     s.parallel_with(4, 64, ItemsMut::new(&mut doubled), kernel_closure!(|g, mut out| {
    ///         distribute_items!(g, |idx| out[idx] = 2.0 * input[idx.global_linear_id()]);
    ///     }))
    ///     .unwrap();
    ///     s.parallel_with(4, 64, ItemsMut::new(&mut squared), kernel_closure!(|g, mut out| {
    ///         distribute_items!(g, |idx| out[idx] = input[idx.global_linear_id()].powi(2));
    ///     }))
    ///     .unwrap();
    ///     // Both launches may still be running here.
    /// });
    /// assert_eq!((doubled[10], squared[10]), (20.0, 100.0));
    /// ```
    pub fn scope<'env, F, R>(&self, f: F) -> R
    where
        F: FnOnce(&Scope<'env>) -> R,
    {
        let (jobs, queued) = mpsc::channel::<Job<'env>>();
        let kernel_panic = Mutex::new(None);
        let scope = Scope {
            queue: self.clone(),
            jobs,
            _env: PhantomData,
        };
        // The runner is a job of the pool the launches run on, so that each
        // launch starts from one of its threads: no hand-over to the pool
        // and wait for its end per launch, as from a thread outside it.
        let result = match self.pool() {
            Some(pool) => {
                pool.in_place_scope(|threads| run_scope(threads, queued, &kernel_panic, scope, f))
            }
            None => {
                rayon::in_place_scope(|threads| run_scope(threads, queued, &kernel_panic, scope, f))
            }
        };
        let kernel_panic = kernel_panic
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        match (result, kernel_panic) {
            (Err(payload), _) | (Ok(_), Some(payload)) => panic::resume_unwind(payload),
            (Ok(value), None) => value,
        }
    }
}

/// Starts the runner on `threads`, runs `f` and closes the channel.
fn run_scope<'scope, 'env: 'scope, F, R>(
    threads: &rayon::Scope<'scope>,
    queued: mpsc::Receiver<Job<'env>>,
    kernel_panic: &'scope Mutex<Option<Box<dyn Any + Send>>>,
    scope: Scope<'env>,
    f: F,
) -> std::thread::Result<R>
where
    F: FnOnce(&Scope<'env>) -> R,
{
    threads.spawn(move |_| {
        let failure = run_in_order(queued);
        *kernel_panic.lock().unwrap_or_else(PoisonError::into_inner) = failure;
    });
    let result = panic::catch_unwind(AssertUnwindSafe(|| f(&scope)));
    // Closing the channel lets the runner end after the last job.
    drop(scope);
    result
}

/// Runs the jobs in order until the channel closes; after a panic, drops
/// the remaining jobs unrun and returns the panic.
fn run_in_order(queued: mpsc::Receiver<Job<'_>>) -> Option<Box<dyn Any + Send>> {
    let mut failure = None;
    for job in queued {
        if failure.is_none() {
            failure = panic::catch_unwind(AssertUnwindSafe(job)).err();
        }
    }
    failure
}

impl<'env> Scope<'env> {
    /// Submits [`Queue::parallel`]: `kernel` on each of `num_groups` work
    /// groups of `group_size` items, after every earlier submission.
    ///
    /// # Errors
    /// As [`Queue::parallel`], before anything is submitted.
    pub fn parallel<const D: usize, const S: usize, K>(
        &self,
        num_groups: impl Into<Range<D>>,
        group_size: impl Into<Range<D>>,
        kernel: K,
    ) -> Result<(), LaunchError>
    where
        K: Fn(WorkGroup<D, S>) + Sync + Send + 'env,
    {
        self.parallel_with(num_groups, group_size, (), move |group, ()| kernel(group))
    }

    /// Submits [`Queue::parallel_with`]: like [`parallel`](Self::parallel),
    /// with per-group arguments (output views, inputs, reductions).
    /// Reductions hold their result once the scope has returned.
    ///
    /// # Errors
    /// As [`Queue::parallel_with`], before anything is submitted; nothing
    /// of the refused launch runs. A kernel that requires another group
    /// size (`#[kernel(group_size = ...)]`) is refused only when its
    /// launch runs: no body of it runs, and the scope panics at its end
    /// with the [`LaunchError::GroupSize`] message, as for a kernel panic.
    pub fn parallel_with<const D: usize, const S: usize, A, K>(
        &self,
        num_groups: impl Into<Range<D>>,
        group_size: impl Into<Range<D>>,
        args: A,
        kernel: K,
    ) -> Result<(), LaunchError>
    where
        A: LaunchArgs<D> + Send + 'env,
        K: Fn(WorkGroup<D, S>, A::PerGroup) + Sync + Send + 'env,
    {
        let shape = LaunchShape::new(num_groups.into(), group_size.into())?;
        args.__check(&shape, 0)?;
        let isa = self.queue.supported_isa().map_err(LaunchError::Isa)?;
        let tags = LaunchTags::for_launch(&shape)?;
        let queue = self.queue.clone();
        // A kernel's required group size is checked as its groups start,
        // after this call has returned: a refusal panics like a kernel.
        let job: Job<'env> = Box::new(move || {
            if let Err(refused) = queue.run_checked(shape, tags, isa, args, kernel) {
                panic!("{refused}");
            }
        });
        self.jobs
            .send(job)
            .expect("the runner lives until the scope's end");
        Ok(())
    }
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}
