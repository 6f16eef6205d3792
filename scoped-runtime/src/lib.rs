//! Runtime of `scoped`: the scoped-parallelism execution model of
//! AdaptiveCpp (SYCL) on CPU threads.
//!
//! Use it through the `scoped` crate, whose macros lower kernels onto the
//! items here. One module per concept:
//!
//! * [`Id`], [`Range`] — index spaces; [`SItem`] — a logical work item;
//! * [`ScopedGroup`] and the group types [`WorkGroup`], [`SubGroup`],
//!   [`ScalarGroup`]; [`MemoryScope`];
//! * [`Queue`] — launches on rayon, compiled per instruction-set level
//!   ([`Isa`]); [`ItemsMut`], [`ChunksMut`] — outputs
//!   written safely by many groups at once; [`MappedMut`] — windows placed
//!   by a [`RangeMapper`]; [`AtomicView`], [`AtomicRef`] — atomics over
//!   plain memory; [`ScatterMut`] — `unsafe` arbitrary writes;
//! * [`PrivateMem`] and local memory requests — memory environments;
//! * [`group_barrier`], `async_work_group_copy`; [`synchronization`], the OpenCL C++
//!   barriers [`work_group_barrier`], [`sub_group_barrier`] and
//!   [`work_group_named_barrier`] with [`MemFence`] flags;
//! * [`algorithms`] — group algorithms (`reduce_over_group`, scans,
//!   broadcasts, `joint_*`, shuffles, OpenCL aliases) and reductions in
//!   launches, re-exported here.

pub mod algorithms;
mod async_copy;
mod atomic;
mod barrier;
mod group;
mod id;
mod inputs;
mod isa;
mod item;
mod launch;
mod lowering;
mod mapped;
mod memory;
mod memory_scope;
mod outputs;
mod queue;
mod rules;
mod scatter;
mod scope;
pub mod synchronization;
mod tag;

pub use algorithms::*;
pub use async_copy::DeviceEvent;
pub use atomic::{
    AtomicArithmetic, AtomicBitwise, AtomicElement, AtomicRef, AtomicView, MemoryOrder,
};
pub use barrier::{group_barrier, group_barrier_with_scope};
pub use group::{
    is_group, IsGroup, ScalarGroup, ScopedGroup, SubGroup, WorkGroup, DEFAULT_SUB_GROUP_SIZE,
    SUB_GROUP_SIZES,
};
pub use id::{Id, Range};
pub use inputs::{ItemsRef, ItemsRefWindow};
pub use isa::{Isa, IsaError, ISA_ENV};
pub use item::SItem;
pub use launch::{LaunchArgs, LaunchError, LaunchShape};
pub use mapped::{MappedMut, MappedWindow, RangeMapper};
pub use memory::{
    LocalInit, PrivateMem, LOCAL_MEM_NESTING, LOCAL_SLICE_STACK_BYTES, MAX_LOCAL_MEM_BYTES,
    MAX_LOCAL_MEM_SLICE_BYTES, PRIVATE_STACK_BYTES, WORKER_STACK_BYTES,
};
pub use memory_scope::MemoryScope;
pub use outputs::{ChunkWindow, ChunksMut, ItemsMut, ItemsWindow};
pub use queue::{Queue, QueueError};
pub use scatter::ScatterMut;
pub use scope::Scope;
pub use synchronization::{
    sub_group_barrier, sub_group_barrier_with_scope, work_group_barrier,
    work_group_barrier_with_scope, work_group_named_barrier, MemFence, WorkGroupNamedBarrier,
};

/// What the macros' generated code calls. Not a public API: it may change
/// in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::isa::{body_level, run_kernel_body, run_once, BodyLevel, InLoop};
    pub use crate::lowering::chunk_check::{
        consecutive, distribute_items_chunk_checked, distribute_items_on_edge_chunk_checked,
        index_term, prefetch_window, window, Ahead, StageByRef, StageByValue, Staged,
        CHUNK_CHECK_LANES,
    };
    pub use crate::lowering::const_checks::{group_shape, local_mem_size};
    pub use crate::lowering::distribute::{
        and_wait, distribute_groups, distribute_items, single_item,
    };
    pub use crate::lowering::edges::distribute_items_on_edge;
    pub use crate::lowering::exclusive_atomic::{
        exclusive_fetch_add, exclusive_fetch_sub, ExclusiveArithmetic,
    };
    pub use crate::lowering::fuse::{
        distribute_groups_items, distribute_groups_lanes, distribute_groups_looped,
    };
    pub use crate::lowering::global_id::{GlobalIdOf, GlobalIndex};
    pub use crate::lowering::grid_stride::{
        distribute_items_grid_stride, element_address, GridStep,
    };
    pub use crate::lowering::group_size::{group_size_extent, require_group_size};
    pub use crate::lowering::group_slice::{distribute_items_sliced, GroupSlice};
    pub use crate::lowering::guard::{
        distribute_items_below, BoundLeaf, ItemBound, OtherBound, OtherLeaf, PlainLeaf, UsizeBound,
    };
    pub use crate::lowering::interchange::{
        distribute_items_interchanged, distribute_items_interchanged_wide, held_lanes, lane_array,
        pair_lane_array, ItemChunk, ItemLanePair, ItemLanes, Rezip, Unzip, WideItemChunk,
        INTERCHANGE_LANES, INTERCHANGE_MAX_PLAIN_TRIPS, INTERCHANGE_WIDE_LANES,
    };
    pub use crate::lowering::item_copy::{
        CopyItems, GroupItems, ItemCopy, ItemCopyPlace, LocalSlice, NoItemCopy,
    };
    pub use crate::lowering::lane_window::{
        lane_window, with_windows, with_windows_2, with_windows_3, with_windows_4, with_windows_5,
        with_windows_6, with_windows_7, with_windows_8, LaneWindow, WindowBound,
    };
    pub use crate::lowering::read_only::Rule4ReadOnly;
    pub use crate::lowering::row_branch::{
        row_all, row_any, row_comparison, row_not, uniform_branch, OtherSides, RowComparison,
        RowSides, UsizeSides,
    };
    pub use crate::lowering::row_store::{
        distribute_items_row_stored, item_value, NotARow, Row, RowElement, ROW_STORE_LANES,
    };
    pub use crate::lowering::stride_nest::{group_stride_round_full, group_stride_rounds};
    pub use crate::lowering::window_plan::{WindowPlan, WindowSource, WindowSources};
    pub use crate::lowering::GroupLoops;

    /// Fixes the sub-group size of an untyped kernel closure's group to
    /// the default, as the type `WorkGroup<D>` written out does.
    #[inline(always)]
    pub fn default_sub_group_size<const D: usize>(_group: &crate::WorkGroup<D>) {}
    pub use crate::memory::{
        local_mem_filled, local_mem_slice_filled, local_mem_slice_zeroed, local_mem_zeroed,
        private_mem_filled, private_mem_zeroed, LocalMemSlice, LocalSliceStorage, LocalStorage,
        PrivateStorage,
    };
    pub use crate::tag::GroupTag;
}
