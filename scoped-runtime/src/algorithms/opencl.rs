//! The OpenCL C++ work-group and sub-group functions (OpenCL C++ 1.0,
//! "Work-group Functions", header `<opencl_work_group>`), as thin aliases
//! of the SYCL 2020 group algorithms for code ported from OpenCL.
//!
//! | OpenCL C++ | here | same as |
//! | --- | --- | --- |
//! | `work_group_all(p)` | [`work_group_all`]`(g, &p)` | [`all_of_group`](super::all_of_group) |
//! | `work_group_any(p)` | [`work_group_any`]`(g, &p)` | [`any_of_group`](super::any_of_group) |
//! | `work_group_broadcast(a, x[, y[, z]])` | [`work_group_broadcast`]`(g, &a, id)` | [`group_broadcast_id`](super::group_broadcast_id) |
//! | `work_group_reduce<op>(x)` | [`work_group_reduce`]`(g, &x, op)` | [`reduce_over_group`](super::reduce_over_group) |
//! | `work_group_scan_inclusive<op>(x)` | [`work_group_scan_inclusive`]`(g, &x, &mut r, op)` | [`inclusive_scan_over_group`](super::inclusive_scan_over_group) |
//! | `work_group_scan_exclusive<op>(x)` | [`work_group_scan_exclusive`]`(g, &x, &mut r, op)` | [`exclusive_scan_over_group`](super::exclusive_scan_over_group) |
//! | `sub_group_*` | `sub_group_*(sg, …)` | the same, on a [`SubGroup`] |
//!
//! A per-item argument of OpenCL (`x`, `a`, `predicate`) is a private
//! memory wrapper here, and a per-item result is written to a second one.
//! The `work_group_*` forms take a [`WorkGroup`], the `sub_group_*` forms a
//! [`SubGroup`]. `op` is a [`WorkGroupOp`] value instead of a template
//! argument; identities are OpenCL's: 0 for `Add`, `INT_MAX`/`UINT_MAX`/…
//! and `+INF` for `Min`, `INT_MIN`/`0`/… and `−INF` for `Max`. Scans run in
//! increasing local linear id, and as OpenCL notes, the order of
//! floating-point operations is not guaranteed.
//!
//! One difference in ids: OpenCL's `local_id_x` is the fastest-varying
//! dimension, SYCL's is the last one, so OpenCL's `(x, y, z)` is
//! `Id::new([z, y, x])` here.

use crate::group::{ScopedGroup, SubGroup, WorkGroup};
use crate::id::Id;
use crate::memory::PrivateMem;
use crate::rules::check_collective;

use super::operators::{GroupOperator, Maximum, Minimum, Plus};
use super::scan::{exclusive, inclusive, scan_over_group};
use super::simd;
use super::values::group_values;

/// The operator of OpenCL's numeric work-group functions (OpenCL C++
/// `enum class work_group_op { add, min, max }`).
///
/// It is also a [`GroupOperator`] on every type that has [`Plus`],
/// [`Minimum`] and [`Maximum`], so the SYCL functions accept it too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkGroupOp {
    /// Sum, identity 0 (the [`Plus`] operator).
    Add,
    /// Minimum, identity `T::MAX` or `+INF` (the [`Minimum`] operator).
    Min,
    /// Maximum, identity `T::MIN` or `−INF` (the [`Maximum`] operator).
    Max,
}

impl<T: Copy> GroupOperator<T> for WorkGroupOp
where
    Plus: GroupOperator<T>,
    Minimum: GroupOperator<T>,
    Maximum: GroupOperator<T>,
{
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        match self {
            WorkGroupOp::Add => Plus.combine(a, b),
            WorkGroupOp::Min => Minimum.combine(a, b),
            WorkGroupOp::Max => Maximum.combine(a, b),
        }
    }

    #[inline(always)]
    fn identity(&self) -> T {
        match self {
            WorkGroupOp::Add => Plus.identity(),
            WorkGroupOp::Min => Minimum.identity(),
            WorkGroupOp::Max => Maximum.identity(),
        }
    }

    #[inline(always)]
    fn __fold(&self, init: T, values: &[T]) -> T {
        match self {
            WorkGroupOp::Add => Plus.__fold(init, values),
            WorkGroupOp::Min => Minimum.__fold(init, values),
            WorkGroupOp::Max => Maximum.__fold(init, values),
        }
    }

    #[inline(always)]
    fn __scan(&self, carry: T, src: &[T], dst: &mut [T]) {
        match self {
            WorkGroupOp::Add => Plus.__scan(carry, src, dst),
            WorkGroupOp::Min => Minimum.__scan(carry, src, dst),
            WorkGroupOp::Max => Maximum.__scan(carry, src, dst),
        }
    }
}

/// The `work_group_*` or `sub_group_*` aliases for group type `$group`.
macro_rules! aliases {
    (
        $group:ident, $kind:literal,
        $all:ident, $any:ident, $reduce:ident, $inclusive:ident, $exclusive:ident
    ) => {
        #[doc = concat!("`", stringify!($all), "(predicate)`: whether every item of the ", $kind)]
        /// holds `true` in `predicates` (alias of
        /// [`all_of_group`](super::all_of_group); `true` is the identity).
        ///
        #[doc = concat!("OpenCL C++ `", stringify!($all), "`. A collective: call it outside")]
        /// `distribute_items!`, on the innermost group.
        ///
        /// # Panics
        /// If `predicates` does not hold the items of `group`.
        #[inline]
        #[track_caller]
        pub fn $all<const D: usize, const S: usize>(
            group: $group<D, S>,
            predicates: &PrivateMem<'_, bool, D>,
        ) -> bool {
            check_collective(group.__nesting(), stringify!($all));
            simd::all_true(group_values(stringify!($all), &group, predicates))
        }

        #[doc = concat!("`", stringify!($any), "(predicate)`: whether any item of the ", $kind)]
        /// holds `true` in `predicates` (alias of
        /// [`any_of_group`](super::any_of_group); `false` is the identity).
        ///
        #[doc = concat!("OpenCL C++ `", stringify!($any), "`. A collective: call it outside")]
        /// `distribute_items!`, on the innermost group.
        ///
        /// # Panics
        /// If `predicates` does not hold the items of `group`.
        #[inline]
        #[track_caller]
        pub fn $any<const D: usize, const S: usize>(
            group: $group<D, S>,
            predicates: &PrivateMem<'_, bool, D>,
        ) -> bool {
            check_collective(group.__nesting(), stringify!($any));
            simd::any_true(group_values(stringify!($any), &group, predicates))
        }

        #[doc = concat!("`", stringify!($reduce), "<op>(x)`: `op` over the values of all items of the ", $kind)]
        /// in `values` (alias of [`reduce_over_group`](super::reduce_over_group)).
        ///
        /// The result is `identity op x0 op … op x(n-1)` with OpenCL's
        /// identities (see [`WorkGroupOp`]). As OpenCL notes, the order of
        /// floating-point operations is not guaranteed (SIMD lanes here), so
        /// float results may differ from a serial loop by rounding.
        ///
        #[doc = concat!("OpenCL C++ `", stringify!($reduce), "`. A collective: call it outside")]
        /// `distribute_items!`, on the innermost group.
        ///
        /// # Panics
        /// If `values` does not hold the items of `group`.
        #[inline]
        #[track_caller]
        pub fn $reduce<T: Copy, const D: usize, const S: usize>(
            group: $group<D, S>,
            values: &PrivateMem<'_, T, D>,
            op: WorkGroupOp,
        ) -> T
        where
            WorkGroupOp: GroupOperator<T>,
        {
            check_collective(group.__nesting(), stringify!($reduce));
            let values = group_values(stringify!($reduce), &group, values);
            op.__fold(op.identity(), values)
        }

        #[doc = concat!("`", stringify!($inclusive), "<op>(x)`: inclusive scan of the values of the items of the ", $kind)]
        /// in `values`, written to `results` (alias of
        /// [`inclusive_scan_over_group`](super::inclusive_scan_over_group)).
        ///
        /// Item `i` receives `x0 op … op xi`: the scan order is increasing
        /// linear id (OpenCL: "increasing 1D linear global ID"). With `Add`,
        /// `[3 1 7 0 4 1 6 3]` gives `[3 4 11 11 15 16 22 25]`. The order of
        /// floating-point operations is not guaranteed.
        ///
        #[doc = concat!("OpenCL C++ `", stringify!($inclusive), "`. A collective: call it outside")]
        /// `distribute_items!`, on the innermost group.
        ///
        /// # Panics
        /// If `values` or `results` does not hold the items of `group`.
        #[inline]
        #[track_caller]
        pub fn $inclusive<T: Copy, const D: usize, const S: usize>(
            group: $group<D, S>,
            values: &PrivateMem<'_, T, D>,
            results: &mut PrivateMem<'_, T, D>,
            op: WorkGroupOp,
        ) where
            WorkGroupOp: GroupOperator<T>,
        {
            let what = stringify!($inclusive);
            scan_over_group(what, group, values, results, op.identity(), op, inclusive);
        }

        #[doc = concat!("`", stringify!($exclusive), "<op>(x)`: exclusive scan of the values of the items of the ", $kind)]
        /// in `values`, written to `results` (alias of
        /// [`exclusive_scan_over_group`](super::exclusive_scan_over_group)).
        ///
        /// Item 0 receives the identity (0 for `Add`, `INT_MAX`/… or `+INF`
        /// for `Min`, `INT_MIN`/`0`/… or `−INF` for `Max`), item `i`
        /// receives `x0 op … op x(i-1)`, in increasing linear id. With `Add`,
        /// `[3 1 7 0 4 1 6 3]` gives `[0 3 4 11 11 15 16 22]`. The order of
        /// floating-point operations is not guaranteed.
        ///
        #[doc = concat!("OpenCL C++ `", stringify!($exclusive), "`. A collective: call it outside")]
        /// `distribute_items!`, on the innermost group.
        ///
        /// # Panics
        /// If `values` or `results` does not hold the items of `group`.
        #[inline]
        #[track_caller]
        pub fn $exclusive<T: Copy, const D: usize, const S: usize>(
            group: $group<D, S>,
            values: &PrivateMem<'_, T, D>,
            results: &mut PrivateMem<'_, T, D>,
            op: WorkGroupOp,
        ) where
            WorkGroupOp: GroupOperator<T>,
        {
            let what = stringify!($exclusive);
            scan_over_group(what, group, values, results, op.identity(), op, exclusive);
        }
    };
}

aliases!(
    WorkGroup,
    "work group",
    work_group_all,
    work_group_any,
    work_group_reduce,
    work_group_scan_inclusive,
    work_group_scan_exclusive
);
aliases!(
    SubGroup,
    "sub-group",
    sub_group_all,
    sub_group_any,
    sub_group_reduce,
    sub_group_scan_inclusive,
    sub_group_scan_exclusive
);

/// `work_group_broadcast(a, local_id…)`: the value that the item with local
/// id `local_id` holds in `values` (alias of
/// [`group_broadcast_id`](super::group_broadcast_id)).
///
/// `local_id` is a `usize` in 1-D, a `(usize, usize)` or
/// `(usize, usize, usize)` tuple, or an [`Id<D>`], in SYCL's row-major
/// order: OpenCL's `work_group_broadcast(a, x, y)` is
/// `work_group_broadcast(g, &a, (y, x))` here.
///
/// OpenCL C++ `work_group_broadcast`. A collective: call it outside
/// `distribute_items!`, on the innermost group.
///
/// # Panics
/// If `local_id` is outside the group's range (naming both), or if `values`
/// does not hold the items of `group`.
#[inline]
#[track_caller]
pub fn work_group_broadcast<T: Copy, const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    values: &PrivateMem<'_, T, D>,
    local_id: impl Into<Id<D>>,
) -> T {
    check_collective(group.__nesting(), "work_group_broadcast");
    let local_id = local_id.into();
    let range = group.logical_local_range();
    if !range.contains(local_id) {
        panic!("work_group_broadcast: local id {local_id} is outside the group's range {range}");
    }
    group_values("work_group_broadcast", &group, values)[range.linearize(local_id)]
}

/// `sub_group_broadcast(a, sub_group_local_id)`: the value that the item
/// with sub-group local id `sub_group_local_id` holds in `values` (alias of
/// [`group_broadcast_linear`](super::group_broadcast_linear)).
///
/// OpenCL C++ `sub_group_broadcast`. A collective: call it outside
/// `distribute_items!`, on the innermost group.
///
/// # Panics
/// If `sub_group_local_id` is not below the sub-group's size (naming both),
/// or if `values` does not hold the items of `group`.
#[inline]
#[track_caller]
pub fn sub_group_broadcast<T: Copy, const D: usize, const S: usize>(
    group: SubGroup<D, S>,
    values: &PrivateMem<'_, T, D>,
    sub_group_local_id: usize,
) -> T {
    check_collective(group.__nesting(), "sub_group_broadcast");
    let values = group_values("sub_group_broadcast", &group, values);
    match values.get(sub_group_local_id) {
        Some(&value) => value,
        None => panic!(
            "sub_group_broadcast: sub-group local id {sub_group_local_id} is outside the \
             sub-group, which has {} items",
            values.len()
        ),
    }
}
