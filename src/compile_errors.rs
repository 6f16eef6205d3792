//! Programs that must not compile because of rustc's own checks on what
//! the macros generate, as `compile_fail` doctests pinned to the error
//! code alone (rustc's wording is its own).
//!
//! Private memory borrows its environment's stack room, so it cannot be
//! swapped into an outer environment, which would keep it past the end of
//! the inner one (E0716, a temporary dropped while borrowed):
//!
//! ```compile_fail,E0716
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn swapped(group: WorkGroup<1>) {
//!     memory_environment!(group, require_private_mem::<i32>(), |outer| {
//!         distribute_groups!(group, |sub| {
//!             memory_environment!(sub, require_private_mem::<i32>(), |inner| {
//!                 std::mem::swap(outer, inner);
//!             });
//!         });
//!         distribute_items!(group, |idx| {
//!             outer[idx] += 1;
//!         });
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! The same kernel without the swap compiles:
//!
//! ```
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn separate(group: WorkGroup<1>) {
//!     memory_environment!(group, require_private_mem::<i32>(), |outer| {
//!         distribute_groups!(group, |sub| {
//!             memory_environment!(sub, require_private_mem::<i32>(), |inner| {
//!                 distribute_items!(sub, |idx| inner[idx] = 1);
//!             });
//!         });
//!         distribute_items!(group, |idx| {
//!             outer[idx] += 1;
//!         });
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! A const-generic kernel sizes its local memory per instantiation, and
//! each instantiation is held to `MAX_LOCAL_MEM_BYTES` (64 KiB) when it
//! compiles (E0080, a failed `const` assertion): `N = 16384` `f32`s fit,
//! `N = 16385` do not.
//!
//! ```compile_fail,E0080
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn tile<const N: usize>(group: WorkGroup<1>) {
//!     memory_environment!(group, require_local_mem::<[f32; N]>(), |t| {
//!         single_item!(group, || t[0] = 1.0);
//!     });
//! }
//!
//! fn main() {
//!     Queue::new().parallel(1, 8, tile::<16384>).unwrap();
//!     Queue::new().parallel(1, 8, tile::<16385>).unwrap();
//! }
//! ```
//!
//! ```
//! # use scoped::prelude::*;
//! # #[kernel]
//! # fn tile<const N: usize>(group: WorkGroup<1>) {
//! #     memory_environment!(group, require_local_mem::<[f32; N]>(), |t| {
//! #         single_item!(group, || t[0] = 1.0);
//! #     });
//! # }
//! Queue::new().parallel(1, 8, tile::<16384>).unwrap();
//! ```
