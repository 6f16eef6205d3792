//! Guides: how to write kernels for `scoped`, beyond the API reference.
//!
//! * [`writing_fast_kernels`]: the kernel shapes the compiler turns into
//!   vector loops, the lowering shortcuts and how to hit them, and what
//!   costs time on a CPU; each rule with the measurement behind it.
//! * [`scatter_and_atomics`]: writing outside a group's own items: mapped
//!   windows, atomics, the `unsafe` scatter, and the E0596 a `&mut [T]`
//!   kernel parameter gives.
//! * [`porting`]: SYCL and CUDA next to `scoped`: kernels and launches, ids
//!   and dimension order, local memory, barriers, private values,
//!   atomics, grid-stride loops, sub-group sizes, the rules, and the
//!   mistakes a GPU lets pass.
//! * [`closures_and_async`]: kernels written as closures at the launch
//!   (`kernel_closure!`), kernels generic over the sub-group size, many
//!   launch arguments and span reductions, and asynchronous launches in a
//!   `Queue::scope`.
//!
//! The numbers are ratios of time to a hand-written rayon peer of the same
//! kernel (below 1 is faster), from the benchmark crate `scoped-bench`
//! (`BENCHMARKS.md`) on a 2-core AMD EPYC.

#[doc = include_str!("guide/writing_fast_kernels.md")]
pub mod writing_fast_kernels {}

#[doc = include_str!("guide/scatter_and_atomics.md")]
pub mod scatter_and_atomics {}

#[doc = include_str!("guide/porting.md")]
pub mod porting {}

#[doc = include_str!("guide/closures_and_async.md")]
pub mod closures_and_async {}
