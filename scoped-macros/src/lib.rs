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
mod kernel;
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
/// rules") and memory placement rule; every violation is a compile error
/// at the offending code:
///
/// 1. a collective (the macros, `group_barrier`, group algorithms,
///    `async_work_group_copy`, `wait_for`) operates on the innermost group
///    in scope;
/// 2. no collective, memory environment or private memory request inside
///    `distribute_items!`;
/// 3. no collective under control flow that can differ between the
///    physical items of the group (a condition, loop or early exit on
///    `leader()` or a physical id or range), nor inside `single_item!`;
/// 4. inside `distribute_items!`, no assignment or `&mut` borrow of a
///    variable declared outside it (the physical item's private memory);
///    kernel parameters (global memory) and `memory_environment!` memory
///    may be written.
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

fn outside_kernel(name: &str) -> TokenStream {
    let message = format!(
        "`{name}!` can only be used inside a `#[kernel]` or `#[group_function]` function (at \
         any depth of its body, but not in a nested function); mark the enclosing function with \
         `#[kernel]` or `#[group_function]`"
    );
    syn::Error::new(Span::call_site(), message)
        .to_compile_error()
        .into()
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
    /// loops over the items below `bound` alone; the items it skips are
    /// those whose guard fails, so the effect is the same. A body that
    /// stages every item's element of a per-item input in local memory,
    /// `local[idx.innermost_local_id_dim(0)] = input[idx]`, is one slice
    /// copy when `group` is a 1-D work group, `local` an array or slice and
    /// `input` an `ItemsRefWindow` or `ItemsWindow`; it writes what the
    /// loop would.
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
    /// in order.
    memory_environment;
    /// `local_memory_environment!(group, T, |local| { ... })`: same as
    /// `memory_environment!(group, require_local_mem::<T>(), |local| { ... })`.
    local_memory_environment;
    /// `private_memory_environment!(group, T, |private| { ... })`: same as
    /// `memory_environment!(group, require_private_mem::<T>(), |private| { ... })`.
    private_memory_environment;
}
