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
//! What a launch in [`Queue::scope`](crate::Queue::scope) borrows must
//! outlive the scope: a value made inside the scope's closure does not
//! (E0373).
//!
//! ```compile_fail,E0373
//! use scoped::prelude::*;
//!
//! Queue::new().scope(|s| {
//!     let local = vec![1; 8];
//!     s.parallel(1, 8, |_g: WorkGroup<1>| {
//!         let _ = local.len();
//!     })
//!     .unwrap();
//! });
//! ```
//!
//! And it stays borrowed until the scope ends: output that a launch
//! writes cannot be read inside the scope, where the launch may still run
//! (E0502).
//!
//! ```compile_fail,E0502
//! use scoped::prelude::*;
//!
//! let mut out = vec![0; 8];
//! Queue::new().scope(|s| {
//!     s.parallel_with(1, 8, ItemsMut::new(&mut out), |_g: WorkGroup<1>, _w| {})
//!         .unwrap();
//!     let _ = out[0];
//! });
//! ```
//!
//! Both compile with the data outside the scope and read after it:
//!
//! ```
//! use scoped::prelude::*;
//!
//! let local = vec![1; 8];
//! let mut out = vec![0; 8];
//! Queue::new().scope(|s| {
//!     s.parallel(1, 8, |_g: WorkGroup<1>| {
//!         let _ = local.len();
//!     })
//!     .unwrap();
//!     s.parallel_with(1, 8, ItemsMut::new(&mut out), |_g: WorkGroup<1>, mut w| {
//!         w[0] = 5;
//!     })
//!     .unwrap();
//! });
//! assert_eq!(out[0], 5);
//! ```
