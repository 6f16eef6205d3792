//! Memory environments: group-local and logical-item-private memory
//! (scoped parallelism v2, "Explicit allocation of local and private memory").
//!
//! `memory_environment!` turns each `require_local_mem::<T>(…)` request into
//! a `T` on the stack of the thread that runs the group (reused by every
//! group that thread runs, never heap-allocated), and each
//! `require_private_mem::<T>(…)` request into a [`PrivateMem`]: one `T` per
//! logical item of the group, on the stack too when it fits in
//! [`PRIVATE_STACK_BYTES`], else in a heap block of its own, allocated when
//! the environment starts and freed when it ends. Each
//! `require_local_mem_slice::<T>(len)` request is a `&mut [T]` of a
//! run-time length: on the stack up to [`LOCAL_SLICE_STACK_BYTES`], else in
//! a block of the thread's arena, reused by the next group.

mod arena;
mod heap;
mod local;
mod local_slice;
mod private;

pub use local::{LocalInit, LOCAL_MEM_NESTING, MAX_LOCAL_MEM_BYTES, WORKER_STACK_BYTES};
pub use local_slice::{LOCAL_SLICE_STACK_BYTES, MAX_LOCAL_MEM_SLICE_BYTES};
pub use private::{PrivateMem, PRIVATE_STACK_BYTES};

#[doc(hidden)]
pub use local::{local_mem_filled, local_mem_zeroed, LocalStorage};
#[doc(hidden)]
pub use local_slice::{
    local_mem_slice_filled, local_mem_slice_zeroed, LocalMemSlice, LocalSliceStorage,
};
#[doc(hidden)]
pub use private::{private_mem_filled, private_mem_zeroed, PrivateStorage};
