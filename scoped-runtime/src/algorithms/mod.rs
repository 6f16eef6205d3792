//! Group algorithms for every scoped group kind (scoped parallelism v2,
//! "Supported group algorithms": `*_over_group` over private memory
//! wrappers and `joint_*`), following SYCL 2020's group functions and
//! algorithms and the OpenCL C++ work-group functions.
//!
//! Every algorithm is a free function whose first argument is the group,
//! by value: a [`WorkGroup`](crate::WorkGroup), a
//! [`SubGroup`](crate::SubGroup) or a [`ScalarGroup`](crate::ScalarGroup).
//! They are collectives: call them outside `distribute_items!`, on the
//! innermost group in scope (nesting rules 1–3; debug builds check rule 2
//! at run time). Per-item arguments and results are private memory
//! wrappers from `memory_environment!`, made on the group or on a group
//! that contains it; the values of the group's items are read in
//! increasing local linear id.
//!
//! | concept | functions | spec |
//! | --- | --- | --- |
//! | broadcast | [`group_broadcast`], [`group_broadcast_linear`], [`group_broadcast_id`] | SYCL 2020 `group_broadcast` (3 forms) |
//! | barrier | [`group_barrier`](crate::group_barrier), [`group_barrier_with_scope`](crate::group_barrier_with_scope) | SYCL 2020 `group_barrier` |
//! | OpenCL barriers | [`work_group_barrier`](crate::work_group_barrier), [`sub_group_barrier`](crate::sub_group_barrier), [`work_group_named_barrier`](crate::work_group_named_barrier), [`MemFence`](crate::MemFence) | OpenCL C++ synchronization functions |
//! | reduce | [`reduce_over_group`], [`reduce_over_group_with_init`] | SYCL 2020 `reduce_over_group` |
//! | scan | [`inclusive_scan_over_group`], [`exclusive_scan_over_group`] and `_with_init` | SYCL 2020 `*_scan_over_group` |
//! | predicates | [`any_of_group`], [`all_of_group`], [`none_of_group`] and `_by` | SYCL 2020 `*_of_group` |
//! | joint | [`joint_reduce`], [`joint_inclusive_scan`], [`joint_exclusive_scan`] (and `_with_init`), [`joint_any_of`], [`joint_all_of`], [`joint_none_of`] | SYCL 2020 `joint_*` |
//! | shuffles | [`shift_group_left`], [`shift_group_right`], [`permute_group_by_xor`], [`select_from_group`] | SYCL 2020 group functions |
//! | OpenCL | `work_group_*`, `sub_group_*`, [`WorkGroupOp`] | OpenCL C++ work-group functions |
//! | launch reductions | [`reduction`], [`Reduction`], [`Reducer`]; over arrays [`reduction_span`], [`ReductionSpan`], [`SpanReducer`] | SYCL 2020 `reduction` (scalar and span) |
//!
//! Operators and identities are listed on [`GroupOperator`].
//!
//! # Order and floating point
//!
//! Scans run in increasing local linear id, and every algorithm keeps the
//! values of lower ids as the left operand. Reductions and scans with the
//! built-in operators on `f32`, `f64` and the integer types run on SIMD
//! lanes (`wide` vectors; integer reductions in a loop the compiler
//! vectorises at the kernel's ISA level), which combine values in another
//! grouping than a serial loop: exact for integers (whose arithmetic
//! wraps), but for floats a
//! result may differ from a serial loop by rounding, by at most about
//! `n · ε · Σ|xi|` for `n` values (ε = 2⁻²³ for `f32`, 2⁻⁵² for `f64`).
//! The order is fixed for a given group size, so results are
//! reproducible.
//! `f16` and user-defined operators run a serial loop. The sign of a zero
//! result of [`Minimum`]/[`Maximum`] on floats is unspecified, and NaN
//! operands are ignored by them (so a group of only NaNs gives the
//! identity). The cargo feature `scalar-algorithms` replaces every SIMD
//! loop by a serial one.

mod broadcast;
mod joint;
mod opencl;
mod operators;
mod partials;
mod predicates;
mod reduce;
mod reduction;
mod reduction_span;
mod scan;
mod shuffle;
mod shuffle_lanes;
mod simd;
mod values;

pub use broadcast::{group_broadcast, group_broadcast_id, group_broadcast_linear};
pub use joint::{
    joint_all_of, joint_any_of, joint_exclusive_scan, joint_exclusive_scan_with_init,
    joint_inclusive_scan, joint_inclusive_scan_with_init, joint_none_of, joint_reduce,
    joint_reduce_with_init,
};
pub use opencl::{
    sub_group_all, sub_group_any, sub_group_broadcast, sub_group_reduce, sub_group_scan_exclusive,
    sub_group_scan_inclusive, work_group_all, work_group_any, work_group_broadcast,
    work_group_reduce, work_group_scan_exclusive, work_group_scan_inclusive, WorkGroupOp,
};
pub use operators::{
    bit_and, bit_or, bit_xor, custom_operator, logical_and, logical_or, maximum, minimum,
    multiplies, plus, BitAnd, BitOr, BitXor, CustomOperator, GroupOperator, LogicalAnd, LogicalOr,
    Maximum, Minimum, Multiplies, Plus,
};
pub use predicates::{
    all_of_group, all_of_group_by, any_of_group, any_of_group_by, none_of_group, none_of_group_by,
};
pub use reduce::{reduce_over_group, reduce_over_group_with_init};
pub use reduction::{reduction, Reducer, Reduction};
pub use reduction_span::{reduction_span, ReductionSpan, SpanReducer};
pub use scan::{
    exclusive_scan_over_group, exclusive_scan_over_group_with_init, inclusive_scan_over_group,
    inclusive_scan_over_group_with_init,
};
pub use shuffle::{permute_group_by_xor, select_from_group, shift_group_left, shift_group_right};
