//! What the macros' lowering calls: the loops behind `distribute_items!`,
//! `distribute_groups!` and `single_item!`, and the lowering shortcuts.
//! Reached only through `scoped::__private`; not a public API.
//!
//! * [`loops`]: [`GroupLoops`], the loops every group type runs;
//! * [`distribute`]: the plain collectives;
//! * [`fuse`], [`guard`], [`item_copy`], [`interchange`]: the shortcuts,
//!   each computing what the plain loop would.

pub(crate) mod distribute;
pub(crate) mod fuse;
pub(crate) mod guard;
pub(crate) mod interchange;
pub(crate) mod item_copy;
pub(crate) mod loops;

pub(crate) use interchange::{ItemChunk, ItemLanes};
pub use loops::GroupLoops;
