//! Reductions over an array in launches (SYCL 2020 `sycl::reduction(span,
//! combiner)`, the span reduction): a histogram, per-bin counts, any
//! result with one value per index.
//!
//! Each work group gets a [`SpanReducer`] over a partial array of its own
//! (the length of the target, starting at the identity), combines values
//! into its elements, and leaves it behind when its kernel returns. After
//! all groups have finished, the launch folds the partial arrays into the
//! target element by element, in increasing work group linear id:
//!
//! `target[i] = target[i] op p0[i] op p1[i] op … op p(G-1)[i]`
//!
//! so the result does not depend on the thread count (float sums are
//! reproducible for one launch shape). The partial arrays take `G × len`
//! values of memory for `G` work groups, allocated at the launch.
//!
//! A reducer that outlives its kernel (leaked, or moved out) is handled as
//! for [`Reducer`](crate::Reducer): the launch panics, and the partial
//! arrays are leaked rather than freed while a reducer may still write.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU8;
use std::sync::OnceLock;

use crate::id::Id;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape, Sealed};

use super::operators::GroupOperator;
use super::partials::{publish, Partials};

/// A launch argument that reduces values from all work groups into each
/// element of `target` with an operator (SYCL 2020 span reduction). Made by
/// [`reduction_span`]; each work group receives a [`SpanReducer`].
///
/// By default the target's values when the launch starts take part, as in
/// SYCL; [`initialize_to_identity`](Self::initialize_to_identity) discards
/// them.
pub struct ReductionSpan<'a, T, Op> {
    target: &'a mut [T],
    op: Op,
    initialize_to_identity: bool,
    partials: OnceLock<Partials<T>>,
}

/// Reduces into every element of `target` with `op` across a launch (SYCL
/// 2020 `sycl::reduction(span<T>, combiner)`).
///
/// Pass it to [`Queue::parallel_with`](crate::Queue::parallel_with), alone
/// or in a tuple; the kernel receives a [`SpanReducer`] in the same
/// position and calls [`combine(i, x)`](SpanReducer::combine). When the
/// launch returns `Ok`, `target[i]` holds `target[i] op (everything the
/// groups combined at i)`, folded in work group order. If a work group
/// panics, `target` is left unchanged. Memory: `len × num_groups` values.
///
/// # Examples
/// A histogram of 8 bins:
/// ```
/// use scoped::prelude::*;
///
/// let input: Vec<u8> = (0..1000u32).map(|i| (i * 37 % 256) as u8).collect();
/// let mut bins = [0u32; 8];
/// Queue::new()
///     .parallel_with(10, 100, reduction_span(&mut bins, plus()), kernel_closure!(|group, mut bins| {
///         distribute_items!(group, |idx| {
///             bins.combine(usize::from(input[idx.global_linear_id()] / 32), 1);
///         });
///     }))
///     .unwrap();
/// let mut expected = [0u32; 8];
/// input.iter().for_each(|&x| expected[usize::from(x / 32)] += 1);
/// assert_eq!(bins, expected);
/// ```
#[must_use = "a reduction does nothing until it is passed to a launch"]
pub fn reduction_span<T, Op>(target: &mut [T], op: Op) -> ReductionSpan<'_, T, Op>
where
    T: Copy + Send + Sync,
    Op: GroupOperator<T> + Send + Sync,
{
    ReductionSpan {
        target,
        op,
        initialize_to_identity: false,
        partials: OnceLock::new(),
    }
}

impl<T, Op> ReductionSpan<'_, T, Op> {
    /// Ignores the target's values when the launch starts: each element
    /// receives only what the groups combined there, or the operator's
    /// identity (SYCL 2020 `property::reduction::initialize_to_identity`).
    #[must_use]
    pub fn initialize_to_identity(mut self) -> Self {
        self.initialize_to_identity = true;
        self
    }
}

impl<T: fmt::Debug, Op: fmt::Debug> fmt::Debug for ReductionSpan<'_, T, Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReductionSpan")
            .field("target", &self.target)
            .field("op", &self.op)
            .field("initialize_to_identity", &self.initialize_to_identity)
            .finish_non_exhaustive()
    }
}

/// What one work group adds to a [`ReductionSpan`]: an array of the
/// target's length, starting at the operator's identity (SYCL 2020
/// `reducer` of a span reduction).
///
/// It belongs to the group and stays on its thread (neither `Send` nor
/// `Sync`); its items may combine into it inside `distribute_items!`
/// (`#[kernel]` and `kernel_closure!` treat a parameter typed
/// `SpanReducer` as reduction memory).
pub struct SpanReducer<'a, T: Copy, Op: GroupOperator<T>> {
    values: NonNull<T>,
    len: usize,
    op: Op,
    state: NonNull<AtomicU8>,
    _target: PhantomData<&'a mut T>,
}

impl<T: Copy, Op: GroupOperator<T>> SpanReducer<'_, T, Op> {
    /// Folds `value` into element `index` of this group's partial array:
    /// `partial[index] = partial[index] op value`.
    ///
    /// # Panics
    /// If `index` is not below [`len`](Self::len), naming both.
    #[inline(always)]
    pub fn combine(&mut self, index: usize, value: T) {
        assert!(
            index < self.len,
            "span reduction: index {index} is out of the span of {} elements",
            self.len
        );
        // SAFETY: `index < len`, and `values` points at this reducer's own
        // `len` initialised elements, which nothing else reads or writes
        // while it is alive (see `__for_group`).
        unsafe {
            let slot = self.values.as_ptr().add(index);
            *slot = self.op.combine(*slot, value);
        }
    }

    /// Number of elements of the span (SYCL 2020 `reducer::size`).
    #[inline(always)]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the span has no elements.
    #[inline(always)]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The operator's identity (SYCL 2020 `reducer::identity`).
    #[inline(always)]
    #[must_use]
    pub fn identity(&self) -> T {
        self.op.identity()
    }
}

impl<T: Copy, Op: GroupOperator<T>> Drop for SpanReducer<'_, T, Op> {
    fn drop(&mut self) {
        // SAFETY: `state` points into the `Partials` that made this
        // reducer, which stays allocated while its state is `HANDED_OUT`
        // (see its `Drop`). The `Release` store publishes the values.
        unsafe { publish(self.state.as_ref()) };
    }
}

impl<T: Copy + fmt::Debug, Op: GroupOperator<T> + fmt::Debug> fmt::Debug
    for SpanReducer<'_, T, Op>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpanReducer")
            .field("len", &self.len)
            .field("op", &self.op)
            .finish_non_exhaustive()
    }
}

impl<T, Op> Sealed for ReductionSpan<'_, T, Op> {}

impl<'a, T, Op, const D: usize> LaunchArgs<D> for ReductionSpan<'a, T, Op>
where
    T: Copy + Send + Sync,
    Op: GroupOperator<T> + Send + Sync,
{
    type PerGroup = SpanReducer<'a, T, Op>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let groups = shape.num_groups.size();
        if self.partials.get().is_none() {
            let len = self.target.len();
            let each = 1 + len.saturating_mul(std::mem::size_of::<T>());
            let partials = Partials::new(groups, len).ok_or_else(|| LaunchError::OutOfMemory {
                position,
                what: format!(
                    "a span reduction's results of {groups} work groups, {len} values each"
                ),
                bytes: groups.checked_mul(each),
            })?;
            let _ = self.partials.set(partials);
        }
        let partials = self.partials.get().expect("set above");
        assert_eq!(
            partials.groups(),
            groups,
            "span reduction (launch argument {position}) was checked for another launch shape"
        );
        Ok(())
    }

    #[inline]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        _: crate::tag::GroupTag,
    ) -> Self::PerGroup {
        let partials = self
            .partials
            .get()
            .expect("a span reduction is checked before its launch runs");
        let linear = shape.num_groups.linearize(group_id);
        let len = partials.len();
        let (state, array) = partials.hand_out(linear);
        let identity = self.op.identity();
        for slot in array {
            // SAFETY: by the caller's contract no other reducer exists for
            // this group, so nothing else accesses its array.
            unsafe { (*slot.get()).write(identity) };
        }
        SpanReducer {
            // `UnsafeCell<MaybeUninit<T>>` has `T`'s layout and the array
            // is initialised just above; `combine` stays below `len`.
            values: NonNull::new(UnsafeCell::raw_get(array.as_ptr()).cast::<T>())
                .expect("a slice's pointer is not null"),
            len,
            op: self.op,
            state: NonNull::from(state),
            _target: PhantomData,
        }
    }

    fn __finish(self) {
        let ReductionSpan {
            target,
            op,
            initialize_to_identity,
            partials,
        } = self;
        let Some(partials) = partials.into_inner() else {
            return;
        };
        let results = match partials.results() {
            Ok(results) => results,
            Err(group) => panic!(
                "span reduction: the SpanReducer of work group {group} (linear id) was not \
                 dropped when the launch ended (leaked, or moved out of its kernel), so its \
                 partial result is lost; the target is left unchanged"
            ),
        };
        if initialize_to_identity {
            target.fill(op.identity());
        }
        if partials.len() == 0 {
            return;
        }
        for partial in results.chunks_exact(partials.len()) {
            for (t, &p) in target.iter_mut().zip(partial) {
                *t = op.combine(*t, p);
            }
        }
    }
}
