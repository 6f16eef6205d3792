//! # scoped
//!
//! Hierarchical, SYCL-style kernels for CPUs: the *scoped parallelism*
//! model of AdaptiveCpp, in Rust.
//!
//! A kernel is a function marked [`#[kernel]`](kernel) that receives a
//! [`WorkGroup`]. Inside it, `distribute_items!` visits the group's logical
//! items, `distribute_groups!` subdivides it into sub-groups (whose items
//! run in SIMD lanes) and scalar groups, `single_item!` runs code once per
//! group, and `memory_environment!` allocates group-local memory and memory
//! private to each logical item. A [`Queue`] runs the work groups on
//! rayon's threads, one thread per group.
//!
//! ```
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn block_sums(group: WorkGroup<1>, input: &[i32], mut sums: ChunkWindow<'_, i64>) {
//!     memory_environment!(group, require_local_mem::<[i64; 1]>(), |total| {
//!         distribute_items!(group, |idx| {
//!             total[0] += i64::from(input[idx.global_linear_id()]);
//!         });
//!         single_item!(group, || {
//!             sums[group.group_linear_id()] = total[0];
//!         });
//!     });
//! }
//!
//! let input: Vec<i32> = (0..1000).collect();
//! let mut sums = vec![0i64; 10];
//! Queue::new()
//!     .parallel_with(10, 100, ChunksMut::new(&mut sums, 1), |group, window| {
//!         block_sums(group, &input, window)
//!     })
//!     .unwrap();
//! assert_eq!(sums[0], (0..100).sum::<i64>());
//! ```
//!
//! How to write kernels that run fast on a CPU: the [`guide`].

/// The attribute and collective macros, listed once for the root and the
/// prelude.
mod macros {
    pub use scoped_macros::{
        distribute_groups, distribute_groups_and_wait, distribute_items, distribute_items_and_wait,
        group_function, kernel, kernel_closure, local_memory_environment, memory_environment,
        private_memory_environment, single_item, single_item_and_wait,
    };
}

pub use macros::*;
pub use scoped_runtime::*;

/// `bytemuck`, whose [`Zeroable`] bounds memory without an initial value
/// (local memory of a generic `T` needs `T: Zeroable`). Its derives work
/// without a dependency of one's own when told the path:
/// `#[derive(Zeroable)] #[bytemuck(crate = "scoped::bytemuck")]`.
pub use bytemuck;
pub use bytemuck::{Pod, Zeroable};

/// Everything a kernel usually needs: `use scoped::prelude::*;`.
pub mod prelude {
    pub use crate::macros::*;
    pub use bytemuck::{Pod, Zeroable};
    /// Group algorithms, their operators, OpenCL aliases and launch reductions.
    pub use scoped_runtime::algorithms::*;
    pub use scoped_runtime::{
        group_barrier, group_barrier_with_scope, sub_group_barrier, sub_group_barrier_with_scope,
        work_group_barrier, work_group_barrier_with_scope, work_group_named_barrier, AtomicRef,
        AtomicView, ChunkWindow, ChunksMut, Id, ItemsMut, ItemsRef, ItemsRefWindow, ItemsWindow,
        LaunchError, MappedMut, MappedWindow, MemFence, MemoryOrder, MemoryScope, PrivateMem,
        Queue, Range, RangeMapper, SItem, ScalarGroup, ScatterMut, ScopedGroup, SubGroup,
        WorkGroup, DEFAULT_SUB_GROUP_SIZE, SUB_GROUP_SIZES,
    };
}

#[doc(hidden)]
pub use scoped_runtime::__private;

pub mod guide;

/// What must not compile for rustc's own reasons, as doctests.
#[cfg(doctest)]
mod compile_errors;

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
