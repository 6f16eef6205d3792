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
//! A `move` item closure inside `distribute_groups!` is created once per
//! sub-group, so it cannot take a value that is not `Copy` into itself:
//! the sub-group closure runs more than once (E0507, a move out of a
//! captured variable of an `FnMut` closure):
//!
//! ```compile_fail,E0507
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn moved(group: WorkGroup<1, 4>, out: &std::sync::Mutex<Vec<usize>>) {
//!     let label = String::from("item");
//!     distribute_groups!(group, |sg| {
//!         distribute_items!(sg, move |idx| {
//!             out.lock().unwrap().push(label.len() + idx.global_linear_id());
//!         })
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! Rule 4: inside `distribute_items!`, a `&mut self` method of a variable
//! declared outside it writes the physical item's private memory. Only the
//! method's type tells a write from a read, so the kernel reads such
//! variables through `Rule4ReadOnly`, which rustc refuses to borrow
//! mutably (E0596):
//!
//! ```compile_fail,E0596
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn collect(group: WorkGroup<1>) {
//!     let mut ids = Vec::new();
//!     distribute_items!(group, |idx| ids.push(idx.global_linear_id()));
//! }
//! # fn main() {}
//! ```
//!
//! and so is an `FnMut` that the syntax does not show as a closure:
//!
//! ```compile_fail,E0596
//! use scoped::prelude::*;
//!
//! fn counter() -> impl FnMut() -> u32 {
//!     let mut count = 0;
//!     move || {
//!         count += 1;
//!         count
//!     }
//! }
//!
//! #[kernel]
//! fn count(group: WorkGroup<1>) {
//!     let mut next = counter();
//!     distribute_items!(group, |_idx| {
//!         next();
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! Reads compile: `&self` methods, `Copy` methods and `Fn` calls.
//!
//! ```
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn read(group: WorkGroup<1>, out: &std::sync::Mutex<Vec<usize>>) {
//!     let mut ids = vec![1, 2];
//!     ids.push(3);
//!     let shift = |x: usize| x + ids.len();
//!     distribute_items!(group, |idx| {
//!         let id = idx.global_linear_id().max(ids[0]);
//!         out.lock().unwrap().push(shift(id) + ids.iter().sum::<usize>());
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! Sizes and shapes the runtime cannot run are errors while the kernel
//! compiles (E0080, a failed constant evaluation), also under `cargo
//! check` where the kernel names the types: local memory above 64 KiB,
//!
//! ```compile_fail,E0080
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn too_big(group: WorkGroup<1>) {
//!     local_memory_environment!(group, [f32; 20000], |tile| {
//!         single_item!(group, || tile[0] = 1.0);
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! more than 3 dimensions,
//!
//! ```compile_fail,E0080
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn four(_group: WorkGroup<4>) {}
//! # fn main() {}
//! ```
//!
//! or sub-groups of no items:
//!
//! ```compile_fail,E0080
//! use scoped::prelude::*;
//!
//! #[kernel]
//! fn no_lanes(_group: WorkGroup<1, 0>) {}
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
