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
//! How a dropped reducer stays sound: see [`partials`](super::partials),
//! which keeps the slots of both kinds of reduction.

use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ops::{AddAssign, BitAndAssign, BitOrAssign, BitXorAssign, MulAssign};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU8;
use std::sync::OnceLock;

use crate::id::Id;
use crate::launch::{LaunchArgs, LaunchError, LaunchShape, Sealed};
use crate::tag::GroupTag;

use super::operators::{BitAnd, BitOr, BitXor, GroupOperator, Multiplies, Plus};
use super::partials::{publish, Partials, Slot};

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
            publish(self.state.as_ref());
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
            let partials = Partials::new(groups, 1).ok_or_else(|| LaunchError::OutOfMemory {
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
            partials.groups(),
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
        let (state, slots) = partials.hand_out(linear);
        Reducer {
            value: self.op.identity(),
            op: self.op,
            state: NonNull::from(state),
            slot: NonNull::from(&slots[0]),
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
