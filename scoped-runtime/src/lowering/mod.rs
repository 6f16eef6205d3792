//! What the macros' lowering calls: the loops behind `distribute_items!`,
//! `distribute_groups!` and `single_item!`, and the lowering shortcuts.
//! Reached only through `scoped::__private`; not a public API.
//!
//! * [`const_checks`]: shapes and sizes checked while a kernel compiles;
//! * [`loops`]: [`GroupLoops`], the loops every group type runs;
//! * [`distribute`]: the plain collectives;
//! * [`fuse`], [`guard`], [`item_copy`], [`group_slice`], [`global_id`],
//!   [`interchange`],
//!   [`chunk_check`], [`row_store`], [`edges`], [`grid_stride`],
//!   [`stride_nest`], [`exclusive_atomic`]: the
//!   shortcuts, each computing what the plain code would;
//! * [`lane_window`]: the windows an interchanged loop's step reads
//!   its lanes through, and [`window_plan`]: their checks made once for
//!   a loop whose windows step by a fixed distance;
//! * [`prefetch`]: the cache-line prefetches the shortcuts and windows
//!   ask for;
//! * [`read_only`]: how `distribute_items!` reads the physical item's
//!   variables (rule 4);
//! * [`group_size`]: the check `#[kernel(group_size = ...)]` starts a
//!   kernel with, and what a launch watches for it.

pub(crate) mod chunk_check;
pub(crate) mod const_checks;
pub(crate) mod distribute;
pub(crate) mod edges;
pub(crate) mod exclusive_atomic;
pub(crate) mod fuse;
pub(crate) mod global_id;
pub(crate) mod grid_stride;
pub(crate) mod group_size;
pub(crate) mod group_slice;
pub(crate) mod guard;
pub(crate) mod interchange;
pub(crate) mod item_copy;
pub(crate) mod lane_window;
pub(crate) mod loops;
pub(crate) mod prefetch;
pub(crate) mod read_only;
pub(crate) mod row_branch;
pub(crate) mod row_store;
pub(crate) mod stride_nest;
pub(crate) mod window_plan;

pub(crate) use interchange::{ItemChunk, ItemLanes};
pub use loops::GroupLoops;
