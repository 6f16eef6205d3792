//! Procedural macros of `scoped`. Use them through the `scoped` crate.
//!
//! `#[kernel]` and `#[group_function]` do the work: they walk the
//! function's body (`walk`), parse every collective macro in it (`parse`),
//! check the spec's nesting rules and memory placement rule (`check`) and
//! lower each macro to a loop nest of the runtime (`lower`). The
//! function-like macros exported here only exist to name the collectives;
//! used outside such a function they are a compile error.

use proc_macro::TokenStream;
use proc_macro2::Span;

mod check;
mod closure_kernel;
mod group_size;
mod kernel;
mod levels;
mod lower;
mod parse;
mod signature;
mod walk;

/// Marks a kernel: a function whose first parameter is the work group
/// (`group: WorkGroup<D>` or `WorkGroup<D, S>`, by value). Inside it, the
/// collective macros (`distribute_items!`, `distribute_groups!`,
/// `single_item!`, their `_and_wait` forms and the memory environments)
/// are lowered to loops, and the whole body is checked against the spec's
/// nesting rules (scoped parallelism v2, "Scoped parallelism nesting
/// rules") and memory placement rule: every violation is a compile error
/// at the offending code, whose message starts with its rule (`rule 2:`).
///
/// # Rules
///
/// A *collective* is one of the macros, `group_barrier`, a group algorithm
/// (`reduce_over_group`, `group_broadcast`, `joint_*`, ...), an OpenCL C++
/// function (`work_group_*`, `sub_group_*`, including the barriers and
/// `work_group_named_barrier`), `async_work_group_copy`, `wait_for`, or a
/// `wait` / `wait_with_scope` method (named barriers, device events).
///
/// 1. **A collective operates on the innermost group in scope.** Inside
///    `distribute_groups!(group, |sub| ...)` only the items of `sub` take
///    part, so a collective on `group` there would wait for items that never
///    come: pass `sub`. A `distribute_groups!` closure must name its
///    subgroup to pass it. A group that a closure or a helper receives as a
///    parameter is not known as a group: move that code into a
///    `#[group_function]`.
/// 2. **Nothing collective inside `distribute_items!`,** whose body runs
///    once per logical item: call collectives outside it, in the group's
///    scope; for a barrier at its end write `distribute_items_and_wait!`.
///    Memory environments open around `distribute_items!`: local memory
///    belongs to the group, and private memory is indexed with the item
///    (`memory[idx]`); a plain variable declared inside `distribute_items!`
///    is private to its logical item already.
/// 3. **Every physical item reaches every collective.** No collective under
///    a condition, in a loop, or after an early exit (`return`, `break`,
///    `continue`, `?`, `let ... else`) that depends on `leader()` or on a
///    physical id or range, directly or through a variable holding one; and
///    none inside `single_item!`, which one physical item runs. Call the
///    collective where every item reaches it, put code for one item into
///    `single_item!`, and bound loops by values every item shares (kernel
///    arguments, constants, logical ranges).
/// 4. **Logical items only read the physical item's private memory.** A
///    variable declared outside `distribute_items!` (or a parameter passed
///    by value) lives in the private memory of the physical item, which all
///    its logical items share: inside `distribute_items!` they may read it
///    but not assign it, borrow it mutably, call a `&mut self` method on it
///    or call it as an `FnMut` closure. Declare the variable inside
///    `distribute_items!` for a value per logical item, or use a
///    `memory_environment!`: `require_local_mem::<T>()` for a value per
///    group, `require_private_mem::<T>()` for one per logical item
///    (`memory[idx]`). Method calls on such a variable, and calls of it, go
///    through a shared reference, so a `&mut self` method or an `FnMut`
///    that the syntax cannot tell from a read is rustc's error E0596,
///    naming `Rule4ReadOnly`. Writes through a reference reach other
///    memory and are allowed: elements of a kernel parameter (global
///    memory), of a slice or window made from one (`dst.as_mut_slice()`,
///    any method with a `mut` word in its name, or a `let` with a `&mut`
///    type), of memory-environment memory, or through interior mutability
///    (`Cell`, atomics) that the kernel chose.
///
/// Other errors name what to write instead: a collective's group argument
/// that is not a group in scope, a collective macro's arguments, or the
/// kernel's signature.
///
/// # Sizes and shapes
///
/// A kernel's work group has 1, 2 or 3 dimensions and a sub-group size
/// `S` of at least 1, and a local memory request holds at most
/// `MAX_LOCAL_MEM_BYTES` (64 KiB). Where the kernel names these types
/// without generic parameters (`WorkGroup<2>`, `require_local_mem::<[f32;
/// 256]>()`), breaking a limit is an error of `cargo check`, at the type.
/// In generic code (`WorkGroup<D>`, `[T; N]`, a `#[group_function]` over
/// `G`) the runtime checks them when it generates code for each use, so
/// the error comes with `cargo build`, not `cargo check`: Rust evaluates
/// such assertions only then.
///
/// # Required group size
///
/// `#[kernel(group_size = 128)]` (`[16, 16]` for a `WorkGroup<2>`,
/// `[a, b, c]` for a `WorkGroup<3>`) requires every launch of the kernel to
/// have groups of exactly that range, as SYCL 2020's
/// `reqd_work_group_size` does (section 5.8.1). One extent per dimension
/// of the group parameter, each a constant `usize` of at least 1: a
/// literal, a `const` item, a const generic parameter or arithmetic on
/// them (`group_size = [TILE, TILE]`, `group_size = W` in a kernel generic
/// over `const W: usize`). A literal 0 is an error of the attribute; a
/// constant is evaluated when the kernel compiles (for a generic kernel,
/// at each instance: `cargo build`, not `cargo check`), and 0 or a value
/// that is not a constant `usize` is an error at the expression. The
/// kernel returns `()`.
///
/// The range is then a compile-time constant of the kernel: its item
/// loops have constant trip counts, with no remainder loop when the vector
/// width divides the extent. A launch with another group size returns
/// `LaunchError::GroupSize` naming both ranges, and no kernel body runs:
/// each group checks its range before the kernel's first statement and on
/// a mismatch the kernel returns at once; the launch then starts no more
/// groups and returns the error (nothing is written, launch reductions
/// keep their targets). Every group of a launch has the same range, so
/// either all groups run or none.
///
/// ```ignore
/// use scoped::prelude::*;
/// use scoped::LaunchError;
///
/// #[kernel(group_size = 4)]
/// fn fill(group: WorkGroup<1>, mut out: ItemsWindow<'_, usize>) {
///     distribute_items!(group, |idx| out[idx] = idx.global_linear_id());
/// }
///
/// let mut out = vec![0; 8];
/// let refused = Queue::new()
///     .parallel_with(4, 2, ItemsMut::new(&mut out), |g, w| fill(g, w))
///     .unwrap_err();
/// assert_eq!(
///     refused,
///     LaunchError::GroupSize { required: "4".into(), group_size: "2".into() }
/// );
/// assert_eq!(out, [0; 8]);
/// Queue::new()
///     .parallel_with(2, 4, ItemsMut::new(&mut out), |g, w| fill(g, w))
///     .unwrap();
/// assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
/// ```
///
/// # Outputs
///
/// Global memory that groups write comes in as a window or a shared view,
/// not as `&mut [T]`: a launch calls the kernel from many threads through
/// one `Fn` closure, which cannot lend each call the same `&mut`, so
/// rustc refuses with E0596 ("cannot borrow `data` as mutable, as it is a
/// captured variable in a `Fn` closure"). Take an `ItemsWindow`,
/// `ChunkWindow` or `MappedWindow` (from `ItemsMut`, `ChunksMut`,
/// `MappedMut` passed to `parallel_with`), atomics (`&[AtomicU32]`,
/// `AtomicView`) or a `ScatterMut`; the guide
/// `scoped::guide::scatter_and_atomics` says which.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(signature::Flavor::Kernel, attr.into(), item.into()).into()
}

/// Marks a group function: a helper that takes a group as its first
/// parameter (any group type `G: ScopedGroup<D>`, `impl ScopedGroup<D>`,
/// or a concrete `WorkGroup`, `SubGroup` or `ScalarGroup`, by value) and
/// uses collectives on it, like a reusable "load a tile" step. Its body is
/// lowered and checked like a kernel's, with that parameter as the
/// innermost group.
///
/// A kernel calls it like any function, in the group's scope. Called
/// inside `distribute_items!` (nesting rule 2) or `single_item!` (rule 3),
/// where `#[kernel]` cannot see that it is collective, its first collective
/// panics with the rule's message in debug builds; release builds do not
/// check. Which group a kernel passes to it is not checked (rule 1): pass
/// the innermost group.
///
/// ```ignore
/// use scoped::prelude::*;
///
/// /// Copies the group's items of `input` into `tile`, then waits.
/// #[group_function]
/// fn load_tile<G: ScopedGroup<1>>(group: G, input: &[f32], tile: &mut [f32]) {
///     distribute_items_and_wait!(group, |idx| {
///         tile[idx.local_linear_id(&group)] = input[idx.global_linear_id()];
///     });
/// }
///
/// #[kernel]
/// fn tiled(group: WorkGroup<1>, input: &[f32]) {
///     local_memory_environment!(group, [f32; 64], |tile| {
///         load_tile(group, input, &mut tile[..]);
///         // ... every item of the group can now read the whole tile
///     });
/// }
/// ```
#[proc_macro_attribute]
pub fn group_function(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(signature::Flavor::GroupFunction, attr.into(), item.into()).into()
}

/// A kernel written where it is launched: `kernel_closure!(|group, args| body)`
/// is the closure `|group, args| body` with its body checked and lowered
/// as `#[kernel]` does a function's (same nesting rules, same errors).
///
/// The first parameter is the work group: `group: WorkGroup<D>` or
/// `WorkGroup<D, S>` by value, or untyped (`|group|`), which gives it the
/// default sub-group size, as `WorkGroup<D>` does. The other parameters
/// are what the launch hands every group: none for
/// `Queue::parallel`, the
/// windows of its arguments for `parallel_with`; a parameter typed as a
/// `Reducer` or `SpanReducer` may be combined into inside
/// `distribute_items!`.
///
/// ```ignore
/// use scoped::prelude::*;
///
/// let mut out = vec![0; 64];
/// Queue::new()
///     .parallel_with(4, 16, ItemsMut::new(&mut out), kernel_closure!(|group, mut out| {
///         distribute_items!(group, |idx| out[idx] = idx.global_linear_id());
///     }))
///     .unwrap();
/// assert_eq!(out[63], 63);
/// ```
#[proc_macro]
pub fn kernel_closure(input: TokenStream) -> TokenStream {
    closure_kernel::expand(input.into()).into()
}

fn outside_kernel(name: &str) -> TokenStream {
    let message = format!(
        "`{name}!` works only in a `#[kernel]` or `#[group_function]`: mark the enclosing function"
    );
    syn::Error::new(Span::call_site(), message)
        .to_compile_error()
        .into()
}

/// The names of the collective functions and methods that nesting rules
/// 1–3 recognise: `(functions, methods)`, two `&[&str]`. For the
/// runtime's test that every collective it defines is among them.
#[doc(hidden)]
#[proc_macro]
pub fn __collective_names(_input: TokenStream) -> TokenStream {
    let (functions, methods) = (check::calls::FUNCTIONS, check::calls::METHODS);
    quote::quote!((&[#(#functions),*], &[#(#methods),*])).into()
}

macro_rules! collective_macros {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[proc_macro]
        pub fn $name(_input: TokenStream) -> TokenStream {
            outside_kernel(stringify!($name))
        }
    )*};
}

collective_macros! {
    /// `distribute_items!(group, |idx| { ... })`: runs the closure once for
    /// every logical item of `group`, in increasing linear id (scoped
    /// parallelism v2, `distribute_items`). Does not synchronise.
    ///
    /// A body that is only a guard on a local id of `group`,
    /// `let lid = idx.innermost_local_id_dim(0); if lid < bound { ... }`,
    /// loops over the items below `bound` alone when `bound` is made of
    /// integer literals, primitive integer variables and constants, casts
    /// and arithmetic that the body does not write; the items it skips are
    /// those whose guard fails, so the effect is the same. A body that
    /// stages every item's element of a per-item input in local memory,
    /// `local[idx.innermost_local_id_dim(0)] = input[idx]`, is one slice
    /// copy when `group` is a 1-D work group, `local` an array or slice and
    /// `input` an `ItemsRefWindow` or `ItemsWindow`; it writes what the
    /// loop would.
    ///
    /// A body of `let`s of item queries, statements, and then one or more
    /// statements `if lid == value { ... }` (no `else`; `lid` a local id
    /// of `group` in one dimension, directly or through a `let`; `value`
    /// made like a guard's bound and only read in the body) runs the
    /// statements before the guards as a loop of their own, then each
    /// guarded statement over the items on its edge (`lid` equal to
    /// `value`) alone; each guarded statement keeps its `if`. The body has
    /// no other `let`s, and the closure the shape below requires (no
    /// `move`, return type, `return`, `?`, labels or macros hiding them).
    /// Each item runs its own statements in its own order; every item's
    /// first part runs before any item's guarded statements, which no
    /// program may observe without a race.
    ///
    /// A body of statements, a `for` loop whose iterations are the same
    /// for every item, and more statements runs the loop outside and the
    /// items inside it, in chunks of `W` items consecutive along the
    /// fastest dimension (`W` the default sub-group size, 8, or two such
    /// chunks side by side): each item of a chunk runs the statements
    /// before the loop, then every iteration runs for all `W` items, then
    /// each item runs the statements after it. Items that do not fill a
    /// chunk (the end of a row) run the plain body afterwards. Each item runs its own
    /// statements in its own order, so every value it computes, floats
    /// included, is the plain loop's; only the interleaving of items
    /// changes, which no program may observe without a race (items share
    /// no order in the spec). The shape, exactly:
    ///
    /// * the closure is `|idx| { ... }` (no `move`, return type, `async`);
    /// * the loop is `for PAT in ITER` at the top of the body, the first
    ///   that fits; `ITER` is a range `a..b` / `a..=b`, `t.iter()` or `&t`,
    ///   with any of `.step_by(s)`, `.rev()`, `.enumerate()`, `.copied()`,
    ///   `.skip(n)`, `.take(n)`, `.zip(ITER)`; its parts are literals,
    ///   names, fields, indices, casts, arithmetic and `.len()`, naming
    ///   neither the item nor a `let` of the body, and only read anywhere
    ///   in the body (never assigned, borrowed, passed on, or named in a
    ///   macro);
    /// * the statements before the loop bind with `let` of names, tuples
    ///   and slices (no `ref`, `let ... else` or uninitialised `let`),
    ///   declare no items, and borrow none of their bindings nor the item
    ///   (`&x`, a closure, a method call other than numeric ones such as
    ///   `sqrt` or `mul_add`); at most 12 of their bindings are used later;
    /// * nothing in the body returns, uses `?`, `.await`, `async`, `yield`,
    ///   labels, or a macro that may hide `return`, `break` or `continue`;
    ///   the loop body neither leaves its loop (`break`, `continue` outside
    ///   a nested loop) nor rebinds the item or a binding from before the
    ///   loop, and names those bindings in no closure or macro.
    ///
    /// A body that reads a `&[T]` parameter of the kernel at an index made
    /// of `+`, `-`, `*`, integer literals, item queries and names it only
    /// reads (`a[(row0 + r) * n + c]` after `let (r, c) =
    /// (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));`) runs
    /// in chunks of 16 items along the fastest dimension (the rest of a
    /// row item by item). A chunk whose reads each move by one element per
    /// item and lie in their slices (the rows of a tile load) reads one
    /// array of 16 elements per read,
    /// with no check per item, and vectorises; any other chunk checks all
    /// its reads together, then runs its items. Each item still computes
    /// its indices as written (overflow checks included), reads
    /// `&a[index]` and panics where indexing would.
    ///
    /// A loop of at most 16 iterations (its `size_hint`, read before the
    /// items run) keeps the plain loop, where the optimiser unrolls it and
    /// vectorises the item loop, except on the group of a kernel with a
    /// required size (`#[kernel(group_size = ...)]`): its range is a
    /// constant, each lane's tile reads need no check, and loops of any
    /// length are interchanged. A sub-group smaller than `W` keeps the
    /// plain loop.
    /// `let`s of item queries alone (`let (r, c) = (idx.local_id_dim(&g,
    /// 0), ..)`) run again for each lane where they are used, rather than
    /// being kept in the lanes. Any other body runs the plain loop.
    ///
    /// Inside the loop, reads `name[index]` of a shared-slice parameter, of
    /// a slice taken from one by ranges (`let x = &a[r..][..n];`) or of a
    /// `ChunkWindow` parameter have their bounds checked once per step for
    /// the `W` lanes, without a branch per lane, when `index` is `+`, `-`,
    /// `*` of integer literals, item queries, names of the loop's pattern,
    /// top-level `let`s of the loop body made the same way, and names from
    /// outside the body (a slice's index not a lone name other than a
    /// query). The lanes then run as written, in either case. Where such
    /// reads depend on the item, each step first takes, for every read
    /// whose `W` indices are consecutive and lie in its slice or window,
    /// the `W` elements as one array, and the lanes read lane `l` of it
    /// (computing the index as written, for its overflow checks): the same
    /// element, with no check. A read is taken so only where every name in
    /// its index holds one value through the step (bound once, not `mut`,
    /// a `let` before the read, or a name from outside the item body the
    /// loop only reads), no macro in the loop names them, the loop body
    /// never assigns a slice it reads that way, and a `ChunkWindow` is
    /// named once in the loop body; at most eight a step.
    ///
    /// A loop that uses at most one binding from before it that it changes
    /// (a running sum) and at most one that it only reads runs two
    /// neighbouring chunks of a row as one step of `2 W` items: one chain
    /// of dependent adds per vector leaves the adder waiting on its own
    /// latency.
    distribute_items;
    /// `distribute_items_and_wait!(group, |idx| { ... })`:
    /// `distribute_items!` followed by `group_barrier(group)`.
    distribute_items_and_wait;
    /// `distribute_groups!(group, |subgroup| { ... })`: runs the closure once
    /// per subgroup of `group` (work group → sub-groups → scalar groups).
    distribute_groups;
    /// `distribute_groups_and_wait!(group, |subgroup| { ... })`:
    /// `distribute_groups!` followed by `group_barrier(group)`.
    distribute_groups_and_wait;
    /// `single_item!(group, || { ... })`: runs the closure exactly once for
    /// `group`.
    single_item;
    /// `single_item_and_wait!(group, || { ... })`: `single_item!` followed by
    /// `group_barrier(group)`.
    single_item_and_wait;
    /// `memory_environment!(group, require_local_mem::<T>(), require_private_mem::<U>(init), |local, private| { ... })`:
    /// allocates each request and passes `&mut` references to the closure,
    /// in order. `require_local_mem_slice::<T>(len)` (or `(len, init)`) is
    /// local memory of `len` elements known at run time (SYCL's
    /// `local_accessor` with a run-time range), passed as `&mut [T]`. In a
    /// const-generic kernel (`fn k<const N: usize>(group: WorkGroup<1>)`),
    /// `require_local_mem::<[T; N]>()` is sized per instantiation, each
    /// checked against `MAX_LOCAL_MEM_BYTES` when it compiles.
    memory_environment;
    /// `local_memory_environment!(group, T, |local| { ... })`: same as
    /// `memory_environment!(group, require_local_mem::<T>(), |local| { ... })`.
    local_memory_environment;
    /// `private_memory_environment!(group, T, |private| { ... })`: same as
    /// `memory_environment!(group, require_private_mem::<T>(), |private| { ... })`.
    private_memory_environment;
}
