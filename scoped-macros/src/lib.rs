//! Procedural macros of `scoped`. Use them through the `scoped` crate.
//!
//! `#[kernel]` does the work: it parses every collective macro in the
//! kernel body (`parse`), checks the spec's nesting rules (`check`) and
//! lowers each to a loop nest of the runtime (`lower`). The function-like
//! macros exported here only exist to name the collectives; used outside a
//! `#[kernel]` function they are a compile error.

use proc_macro::TokenStream;
use proc_macro2::Span;

mod check;
mod kernel;
mod lower;
mod parse;

/// Marks a kernel: a function whose first parameter is the work group
/// (`group: WorkGroup<D>` or `WorkGroup<D, S>`). Inside it, the collective
/// macros (`distribute_items!`, `distribute_groups!`, `single_item!`,
/// their `_and_wait` forms and the memory environments) are checked
/// against the nesting rules and lowered to loops.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into()).into()
}

fn outside_kernel(name: &str) -> TokenStream {
    let message = format!(
        "`{name}!` can only be used inside a `#[kernel]` function (at any depth of its body); \
         mark the enclosing function with `#[kernel]`"
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
