//! Runtime of `scoped`: the scoped-parallelism execution model of
//! AdaptiveCpp (SYCL) on CPU threads.
//!
//! Use it through the `scoped` crate, whose macros lower kernels onto the
//! items here. One module per concept:
//!
//! * [`Id`], [`Range`] — index spaces; [`SItem`] — a logical work item;
//! * [`ScopedGroup`] and the group types [`WorkGroup`], [`SubGroup`],
//!   [`ScalarGroup`]; [`MemoryScope`];
//! * [`Queue`] — launches on rayon; [`ItemsMut`], [`ChunksMut`] — outputs
//!   written safely by many groups at once;
//! * [`PrivateMem`] and local memory requests — memory environments;
//! * [`group_barrier`], `async_work_group_copy`;
//! * [`algorithms`] — group algorithms (`reduce_over_group`, scans,
//!   broadcasts, `joint_*`, shuffles, OpenCL aliases) and reductions in
//!   launches, re-exported here.

pub mod algorithms;
mod async_copy;
mod barrier;
mod group;
mod id;
mod inputs;
mod item;
mod launch;
mod lowering;
mod memory;
mod memory_scope;
mod outputs;
mod queue;
mod rules;

pub use algorithms::*;
pub use async_copy::DeviceEvent;
pub use barrier::{group_barrier, group_barrier_with_scope};
pub use group::{
    is_group, IsGroup, ScalarGroup, ScopedGroup, SubGroup, WorkGroup, DEFAULT_SUB_GROUP_SIZE,
};
pub use id::{Id, Range};
pub use inputs::{ItemsRef, ItemsRefWindow};
pub use item::SItem;
pub use launch::{LaunchArgs, LaunchError, LaunchShape};
pub use memory::{LocalInit, PrivateMem, MAX_LOCAL_MEM_BYTES, PRIVATE_STACK_BYTES};
pub use memory_scope::MemoryScope;
pub use outputs::{ChunkWindow, ChunksMut, ItemsMut, ItemsWindow};
pub use queue::{Queue, QueueError};

/// What the macros' generated code calls. Not a public API: it may change
/// in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::lowering::distribute::{
        distribute_groups, distribute_groups_and_wait, distribute_items, distribute_items_and_wait,
        single_item, single_item_and_wait,
    };
    pub use crate::lowering::fuse::distribute_groups_items;
    pub use crate::lowering::guard::{
        distribute_items_below, distribute_items_below_and_wait, ItemBound, OtherBound, UsizeBound,
    };
    pub use crate::lowering::interchange::{
        distribute_items_interchanged, distribute_items_interchanged_and_wait, ItemChunk, Rezip,
        Unzip, INTERCHANGE_LANES,
    };
    pub use crate::lowering::item_copy::{
        distribute_items_copied, distribute_items_copied_and_wait, CopyItems, GroupItems, ItemCopy,
        ItemCopyPlace, LocalSlice, NoItemCopy,
    };
    pub use crate::lowering::GroupLoops;
    pub use crate::memory::{
        local_mem_filled, local_mem_zeroed, private_mem_filled, private_mem_zeroed, PrivateStorage,
    };
}
