//! The names of the runtime's collectives, the one list that nesting
//! rules 1–3 recognise them by. The runtime's test
//! `scoped-runtime/tests/collective_names.rs` reads it (through the hidden
//! macro `__collective_names!`) and fails when a runtime function or
//! method that takes a group is missing here, or a name here is no longer
//! one of them.

/// Free functions whose first argument is the group they operate on.
pub(crate) const FUNCTIONS: &[&str] = &[
    // Barriers (SYCL 2020 `group_barrier`).
    "group_barrier",
    "group_barrier_with_scope",
    // OpenCL C++ synchronization functions.
    "work_group_barrier",
    "work_group_barrier_with_scope",
    "sub_group_barrier",
    "sub_group_barrier_with_scope",
    "work_group_named_barrier",
    // Broadcasts (SYCL 2020 `group_broadcast`).
    "group_broadcast",
    "group_broadcast_id",
    "group_broadcast_linear",
    // Reductions and scans over private memory (SYCL 2020).
    "reduce_over_group",
    "reduce_over_group_with_init",
    "inclusive_scan_over_group",
    "inclusive_scan_over_group_with_init",
    "exclusive_scan_over_group",
    "exclusive_scan_over_group_with_init",
    // Predicates (SYCL 2020 `*_of_group`).
    "all_of_group",
    "all_of_group_by",
    "any_of_group",
    "any_of_group_by",
    "none_of_group",
    "none_of_group_by",
    // Joint algorithms over a range (SYCL 2020 `joint_*`).
    "joint_reduce",
    "joint_reduce_with_init",
    "joint_inclusive_scan",
    "joint_inclusive_scan_with_init",
    "joint_exclusive_scan",
    "joint_exclusive_scan_with_init",
    "joint_all_of",
    "joint_any_of",
    "joint_none_of",
    // Shuffles (SYCL 2020 group functions).
    "shift_group_left",
    "shift_group_right",
    "permute_group_by_xor",
    "select_from_group",
    // OpenCL C++ work-group and sub-group functions.
    "work_group_all",
    "work_group_any",
    "work_group_broadcast",
    "work_group_reduce",
    "work_group_scan_inclusive",
    "work_group_scan_exclusive",
    "sub_group_all",
    "sub_group_any",
    "sub_group_broadcast",
    "sub_group_reduce",
    "sub_group_scan_inclusive",
    "sub_group_scan_exclusive",
];

/// Methods of the group types that are collectives on their receiver
/// (`g.wait_for(..)`, or `WorkGroup::wait_for(&g, ..)`).
pub(crate) const METHODS: &[&str] = &[
    "async_work_group_copy",
    "async_work_group_copy_src_stride",
    "async_work_group_copy_dest_stride",
    "wait_for",
    // Waits on a group's synchronisation objects (a named barrier's
    // `b.wait(flags)`, a `DeviceEvent`'s `e.wait()`): their receiver is not
    // a group, so rules 2 and 3 apply to them, not rule 1.
    "wait",
    "wait_with_scope",
];
