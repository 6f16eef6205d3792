//! Reductions in launches (SYCL 2020 `sycl::reduction` and `reducer`;
//! scoped parallelism v2, `handler::parallel(…, Reductions… redu, f)`).
//!
//! A launch argument [`reduction(&mut target, op)`](reduction) hands every
//! work group a [`Reducer`]. Each group combines values into its reducer;
//! when the group's kernel returns, the reducer stores the group's partial
//! result in a slot of its own (no lock, no shared atomic counter). After
//! all groups have finished, the launch folds the slots in increasing work
//! group linear id into the target:
//!
//! `target = target op p0 op p1 op … op p(G-1)`
//!
//! where `pk` is what group `k` combined, in the order it combined it. The
//! result therefore does not depend on the number of threads or on which
//! thread ran which group: float sums are reproducible run to run for one
//! launch shape (the fold over the slots uses SIMD lanes for the built-in
//! operators, so they still differ by rounding from a serial loop over all
//! values).
//!
//! How a dropped reducer stays sound: a reducer that is leaked
//! (`mem::forget`) or smuggled out of its kernel and dropped after the
//! launch would write into freed memory. Each slot therefore records
//! whether its reducer was handed out and whether it has been dropped; if a
//! reducer is still alive when the slots are freed, the slots are leaked
//! instead, so a late write lands in memory that stays allocated.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ops::{AddAssign, BitAndAssign, BitOrAssign, BitXorAssign, MulAssign};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::id::Id;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape, Sealed};
use crate::tag::GroupTag;

use super::operators::{BitAnd, BitOr, BitXor, GroupOperator, Multiplies, Plus};

/// A launch argument that reduces values from all work groups into
/// `target` with an operator (SYCL 2020 `sycl::reduction(var, combiner)`).
/// Made by [`reduction`]; each work group receives a [`Reducer`].
///
/// By default the target's value when the launch starts takes part in the
/// reduction, as in SYCL; [`initialize_to_identity`] discards it.
///
/// [`initialize_to_identity`]: Reduction::initialize_to_identity
pub struct Reduction<'a, T, Op> {
    target: &'a mut T,
    op: Op,
    initialize_to_identity: bool,
    partials: OnceLock<Partials<T>>,
}

/// Reduces into `target` with `op` across a launch (SYCL 2020
/// `sycl::reduction(&var, combiner)`).
///
/// Pass it to [`Queue::parallel_with`](crate::Queue::parallel_with), alone
/// or in a tuple with outputs and other reductions; the kernel receives a
/// [`Reducer`] in the same position. When the launch returns `Ok`, `target`
/// holds `target op (everything every group combined)`; see the module
/// notes on [`Reducer`] for the order. If a work group panics, `target` is
/// left unchanged.
///
/// **Floating point**: partial results are combined in a fixed order
/// (work group linear id), so a float result is the same on every run with
/// the same launch shape and thread count does not matter, but it may
/// differ from a serial loop by rounding.
///
/// # Examples
/// A whole-array sum and maximum, with no second pass:
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn stats(
///     group: WorkGroup<1>,
///     input: &[f32],
///     mut sum: Reducer<'_, f32, Plus>,
///     mut max: Reducer<'_, f32, Maximum>,
/// ) {
///     memory_environment!(group, require_private_mem::<f32>(), |x| {
///         distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
///         sum.combine(reduce_over_group(group, x, plus()));
///         max.combine(reduce_over_group(group, x, maximum()));
///     });
/// }
///
/// let input: Vec<f32> = (0..4096).map(|i| (i % 100) as f32).collect();
/// let (mut sum, mut max) = (0.0f32, f32::NEG_INFINITY);
/// Queue::new()
///     .parallel_with(
///         32,
///         128,
///         (reduction(&mut sum, plus()), reduction(&mut max, maximum())),
///         |g, (s, m)| stats(g, &input, s, m),
///     )
///     .unwrap();
/// assert_eq!(sum, input.iter().sum::<f32>());
/// assert_eq!(max, 99.0);
/// ```
#[must_use = "a reduction does nothing until it is passed to a launch"]
pub fn reduction<T, Op>(target: &mut T, op: Op) -> Reduction<'_, T, Op>
where
    T: Copy + Send + Sync,
    Op: GroupOperator<T> + Send + Sync,
{
    Reduction {
        target,
        op,
        initialize_to_identity: false,
        partials: OnceLock::new(),
    }
}

impl<T, Op> Reduction<'_, T, Op> {
    /// Ignores the target's value when the launch starts: the target
    /// receives only what the groups combined, or the operator's identity
    /// if they combined nothing (SYCL 2020
    /// `property::reduction::initialize_to_identity`).
    #[must_use]
    pub fn initialize_to_identity(mut self) -> Self {
        self.initialize_to_identity = true;
        self
    }
}

impl<T: fmt::Debug, Op: fmt::Debug> fmt::Debug for Reduction<'_, T, Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reduction")
            .field("target", &self.target)
            .field("op", &self.op)
            .field("initialize_to_identity", &self.initialize_to_identity)
            .finish_non_exhaustive()
    }
}

/// What one work group adds to a [`Reduction`] (SYCL 2020 `reducer`).
///
/// It starts at the operator's identity; [`combine`](Self::combine) (or
/// `+=`, `*=`, `&=`, `|=`, `^=` for the matching operator) folds values in,
/// in call order. When the reducer is dropped at the end of the group's
/// kernel, its value becomes the group's partial result.
///
/// The reducer belongs to the group: its items may combine into it inside
/// `distribute_items!` (`sum += x`, as in SYCL; `#[kernel]` treats a
/// `Reducer` parameter as reduction memory, not as a variable of the
/// physical item), or the group combines once with the result of
/// [`reduce_over_group`](crate::reduce_over_group), which runs on SIMD
/// lanes.
///
/// A reducer stays on the thread that runs its group (it is neither `Send`
/// nor `Sync`). Letting it outlive its kernel (`mem::forget`, or storing it
/// elsewhere) makes the launch panic at its end, since that group's result
/// would be lost.
pub struct Reducer<'a, T: Copy, Op: GroupOperator<T>> {
    value: T,
    op: Op,
    state: NonNull<AtomicU8>,
    slot: NonNull<Slot<T>>,
    _target: PhantomData<&'a mut T>,
}

impl<T: Copy, Op: GroupOperator<T>> Reducer<'_, T, Op> {
    /// Folds `value` into this group's partial result: `partial = partial
    /// op value` (SYCL 2020 `reducer::combine`).
    #[inline(always)]
    pub fn combine(&mut self, value: T) {
        self.value = self.op.combine(self.value, value);
    }

    /// The operator's identity (SYCL 2020 `reducer::identity`).
    #[inline(always)]
    #[must_use]
    pub fn identity(&self) -> T {
        self.op.identity()
    }
}

impl<T: Copy, Op: GroupOperator<T>> Drop for Reducer<'_, T, Op> {
    fn drop(&mut self) {
        // SAFETY: `slot` and `state` point into the `Partials` of the
        // reduction that made this reducer, and no other reducer has them.
        // That memory is still allocated: `Partials` is only freed when no
        // slot is `HANDED_OUT` (see its `Drop`), and this slot stays
        // `HANDED_OUT` until the store below. The value is written before
        // the `Release` store that publishes it.
        unsafe {
            (*self.slot.as_ptr())
                .get()
                .write(MaybeUninit::new(self.value));
            self.state.as_ref().store(DONE, Ordering::Release);
        }
    }
}

impl<T: Copy + fmt::Debug, Op: GroupOperator<T> + fmt::Debug> fmt::Debug for Reducer<'_, T, Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reducer")
            .field("value", &self.value)
            .field("op", &self.op)
            .finish_non_exhaustive()
    }
}

macro_rules! assign_ops {
    ($($trait:ident $method:ident for $op:ident;)*) => {$(
        #[doc = concat!("`reducer ", stringify!($method), " x` is `reducer.combine(x)` for [`", stringify!($op), "`] (SYCL 2020 reducer operators).")]
        impl<T: Copy> $trait<T> for Reducer<'_, T, $op>
        where
            $op: GroupOperator<T>,
        {
            #[inline(always)]
            fn $method(&mut self, value: T) {
                self.combine(value);
            }
        }
    )*};
}

assign_ops! {
    AddAssign add_assign for Plus;
    MulAssign mul_assign for Multiplies;
    BitAndAssign bitand_assign for BitAnd;
    BitOrAssign bitor_assign for BitOr;
    BitXorAssign bitxor_assign for BitXor;
}

/// Slot states.
const UNUSED: u8 = 0;
const HANDED_OUT: u8 = 1;
const DONE: u8 = 2;

type Slot<T> = UnsafeCell<MaybeUninit<T>>;

/// One slot per work group: its state and, once `DONE`, its partial result.
struct Partials<T> {
    states: Box<[AtomicU8]>,
    values: Box<[Slot<T>]>,
}

// SAFETY: a slot's value is written by exactly one reducer (the one its
// group received) and read only after its state is `DONE` (acquire after
// release), so sharing `Partials` between the launch's threads only moves
// `T`s from one thread to another, which `T: Send` allows.
unsafe impl<T: Send> Sync for Partials<T> {}

impl<T> Partials<T> {
    /// Slots for `groups` work groups, or `None` if they cannot be
    /// allocated (rather than aborting the process).
    fn new(groups: usize) -> Option<Self> {
        let mut states = Vec::new();
        states.try_reserve_exact(groups).ok()?;
        states.extend((0..groups).map(|_| AtomicU8::new(UNUSED)));
        let mut values = Vec::new();
        values.try_reserve_exact(groups).ok()?;
        values.extend((0..groups).map(|_| UnsafeCell::new(MaybeUninit::uninit())));
        Some(Self {
            states: states.into_boxed_slice(),
            values: values.into_boxed_slice(),
        })
    }

    /// Every partial result in work group order, or the linear id of a
    /// group whose reducer was not dropped.
    fn results(&self) -> Result<&[T], usize> {
        if let Some(group) = self
            .states
            .iter()
            .position(|s| s.load(Ordering::Acquire) != DONE)
        {
            return Err(group);
        }
        // SAFETY: every slot is `DONE`: its reducer wrote it before the
        // release store that this thread acquired, and nothing writes it
        // again (a reducer writes once, when dropped). `UnsafeCell` and
        // `MaybeUninit` are `repr(transparent)`, so the slots are `T`s.
        Ok(unsafe {
            std::slice::from_raw_parts(self.values.as_ptr().cast::<T>(), self.values.len())
        })
    }
}

impl<T> Drop for Partials<T> {
    fn drop(&mut self) {
        if self
            .states
            .iter()
            .any(|s| s.load(Ordering::Acquire) == HANDED_OUT)
        {
            // A reducer is still alive and will write into these buffers
            // when dropped: keep them allocated.
            std::mem::forget(std::mem::take(&mut self.states));
            std::mem::forget(std::mem::take(&mut self.values));
        }
    }
}

impl<T, Op> Sealed for Reduction<'_, T, Op> {}

impl<'a, T, Op, const D: usize> LaunchArgs<D> for Reduction<'a, T, Op>
where
    T: Copy + Send + Sync,
    Op: GroupOperator<T> + Send + Sync,
{
    type PerGroup = Reducer<'a, T, Op>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let groups = shape.num_groups.size();
        if self.partials.get().is_none() {
            let partials = Partials::new(groups).ok_or_else(|| LaunchError::OutOfMemory {
                position,
                what: format!(
                    "a reduction's results of {groups} work groups, {} bytes each",
                    1 + std::mem::size_of::<T>()
                ),
                bytes: groups.checked_mul(1 + std::mem::size_of::<T>()),
            })?;
            let _ = self.partials.set(partials);
        }
        let partials = self.partials.get().expect("set above");
        assert_eq!(
            partials.states.len(),
            groups,
            "reduction (launch argument {position}) was checked for another launch shape"
        );
        Ok(())
    }

    #[inline]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        _: GroupTag,
    ) -> Reducer<'a, T, Op> {
        let partials = self
            .partials
            .get()
            .expect("a reduction is checked before its launch runs");
        let linear = shape.num_groups.linearize(group_id);
        let state = &partials.states[linear];
        state.store(HANDED_OUT, Ordering::Relaxed);
        Reducer {
            value: self.op.identity(),
            op: self.op,
            state: NonNull::from(state),
            slot: NonNull::from(&partials.values[linear]),
            _target: PhantomData,
        }
    }

    fn __finish(self) {
        let Reduction {
            target,
            op,
            initialize_to_identity,
            partials,
        } = self;
        let init = if initialize_to_identity {
            op.identity()
        } else {
            *target
        };
        let Some(partials) = partials.into_inner() else {
            return;
        };
        match partials.results() {
            Ok(results) => *target = op.__fold(init, results),
            Err(group) => panic!(
                "reduction: the Reducer of work group {group} (linear id) was not dropped when the \
                 launch ended (leaked, or moved out of its kernel), so its partial result is \
                 lost; the target is left unchanged"
            ),
        }
    }
}
