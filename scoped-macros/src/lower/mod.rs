//! Lowering: a checked [`Invocation`] into calls of the runtime's loop
//! nests, reached through the facade's hidden path `::scoped::__private`.
//!
//! * [`closure`]: the plain lowering of `distribute_items!`,
//!   `distribute_groups!` and `single_item!` (and their `_and_wait` forms);
//! * [`memory`]: the memory environments, with [`const_checks`] of what
//!   rustc can check while the kernel compiles;
//! * [`read_only`]: method calls on, and calls of, variables that
//!   `distribute_items!` may only read (rule 4);
//! * the shortcuts, each taken only where its result is what the plain
//!   loop computes: [`fuse`] (a lone `distribute_items!` in
//!   `distribute_groups!`), [`guard`] (an item loop behind a bound),
//!   [`item_copy`] (a staging copy, and after it the body's other
//!   statements where [`copy_rest`] allows), [`group_slice`] (slice reads at
//!   the global id), [`interchange`] (a loop the same for every
//!   item, run with the items inside it, its index reads checked ahead
//!   by [`lane_check`] and taken through windows by [`lane_window`]), [`chunk_check`] (slice reads at computed
//!   indices, checked a chunk at a time, fetched a step ahead in a loop by
//!   [`next_step`]), [`row_store`] (a last store to
//!   an output by item, a row of lanes at a time; an `if` on the ids
//!   there taken once per row by [`row_branch`]), [`edges`] (statements for the
//!   items on one edge, run on that edge alone) and [`grid_stride`]
//!   (a grid-stride loop, run in rounds across the items), [`stride_nest`]
//!   (a tile walked by group-stride loops per dimension, run as rounds of
//!   item loops), with the
//!   item-query syntax they share in [`item_syntax`]; before them all,
//!   [`global_id`] (a window indexed by the item's global id, indexed
//!   through the item); inside
//!   `distribute_items!`, [`exclusive_atomic`] (an atomic update through a
//!   reference made for it alone); at group scope, [`unroll`] (a loop over
//!   a few literals that calls a group function, written out per
//!   element) and [`subgroup_memory`] (private memory that only one
//!   `distribute_groups!` uses, made per sub-group).

mod chunk_check;
mod closure;
mod const_checks;
mod copy_rest;
mod edges;
pub(crate) mod exclusive_atomic;
mod fuse;
pub(crate) mod global_id;
mod grid_stride;
pub(crate) mod group_slice;
mod guard;
pub(crate) mod interchange;
mod item_copy;
pub(crate) mod item_syntax;
pub(crate) mod lane_check;
mod lane_window;
mod memory;
pub(crate) mod next_step;
mod read_only;
mod row_branch;
mod row_store;
mod stride_nest;
pub(crate) mod subgroup_memory;
pub(crate) mod unroll;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::{Expr, Ident};

pub(crate) use const_checks::group_shape;
pub(crate) use global_id::ItemWindow;
pub(crate) use lane_check::Indexed;
pub(crate) use read_only::read_only;

use crate::parse::{Collective, Invocation};

/// The expression that replaces `inv`, in a function with the type and
/// const parameters `generics`; `slices` are the shared-slice parameters
/// in scope where it is (see [`group_slice`]), `windows` the per-item
/// window parameters (see [`global_id`]).
/// `indexed` are the names whose index reads `lane_check` may check ahead.
pub(crate) fn invocation(
    inv: &Invocation,
    generics: &[Ident],
    slices: &[Ident],
    windows: &[ItemWindow],
    indexed: &[Indexed],
) -> TokenStream {
    let group = strip_reference(&inv.group);
    match inv.kind {
        Collective::DistributeItems => {
            // Windows at the global id indexed through the item, for every
            // shortcut and the plain loop alike.
            let rewritten = global_id::rewrite(inv, windows);
            let inv = rewritten.as_ref().unwrap_or(inv);
            let before_rounds = guard::distribute_items(inv, group)
                .or_else(|| edges::distribute_items(inv, group, generics, slices, windows, indexed))
                .or_else(|| {
                    item_copy::distribute_items(
                        inv,
                        group,
                        || item_loop(inv, group, slices, indexed),
                        |rest| invocation(rest, generics, slices, windows, indexed),
                    )
                })
                .or_else(|| grid_stride::distribute_items(inv, group, slices));
            if before_rounds.is_none() {
                // Each round is an item loop lowered (and copied) on its own.
                let rounds = stride_nest::distribute_items(inv, group, |round| {
                    invocation(round, generics, slices, windows, indexed)
                });
                if let Some(rounds) = rounds {
                    return waited(inv, group, rounds);
                }
            }
            let lowered = before_rounds.unwrap_or_else(|| item_loop(inv, group, slices, indexed));
            waited(inv, group, lowered)
        }
        Collective::DistributeGroups => waited(
            inv,
            group,
            fuse::distribute_groups(inv, group)
                .or_else(|| fuse::distribute_groups_looped(inv, group))
                .unwrap_or_else(|| closure::call(inv, group)),
        ),
        Collective::SingleItem => waited(inv, group, closure::call(inv, group)),
        Collective::MemoryEnvironment
        | Collective::LocalMemoryEnvironment
        | Collective::PrivateMemoryEnvironment => memory::memory_environment(inv, group, generics),
    }
}

/// The item loop of a `distribute_items!` that no shortcut before the
/// rounds took: the first of the loop shortcuts that fits, else the plain
/// loop.
fn item_loop(inv: &Invocation, group: &Expr, slices: &[Ident], indexed: &[Indexed]) -> TokenStream {
    interchange::distribute_items(inv, group, indexed)
        .or_else(|| group_slice::distribute_items(inv, group, slices))
        .or_else(|| chunk_check::distribute_items(inv, group, slices))
        .or_else(|| row_store::distribute_items(inv, group))
        .unwrap_or_else(|| closure::call(inv, group))
}

/// `lowered`, and for the `_and_wait` forms the barrier after it,
/// whichever lowering ran.
fn waited(inv: &Invocation, group: &Expr, lowered: TokenStream) -> TokenStream {
    if !inv.wait {
        return lowered;
    }
    let (span, result) = (
        inv.name.span(),
        format_ident!("__scoped_result", span = Span::mixed_site()),
    );
    quote_spanned! {span=>
        {
            let #result = #lowered;
            ::scoped::__private::and_wait(&#group);
            #result
        }
    }
}

/// `&g` and `g` both name the group `g`.
fn strip_reference(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(r) if r.mutability.is_none() => &r.expr,
        other => other,
    }
}

/// What replaces a collective that cannot be lowered (its syntax or its
/// group argument is wrong, and an error says so): an expression that fits
/// any type, so that rustc adds no errors of its own to ours.
pub(crate) fn placeholder() -> Expr {
    syn::parse_quote!(::core::unreachable!())
}

#[cfg(test)]
pub(crate) use tests::distribute_items_on_g;

#[cfg(test)]
mod tests {
    use syn::Expr;

    use crate::parse::{invocation, Collective, Invocation};

    /// `distribute_items!(g, <closure>)` parsed, and the group `g`: what the
    /// shortcuts' tests feed them.
    pub(crate) fn distribute_items_on_g(closure: &str) -> (Invocation, Expr) {
        let inv = invocation(
            Collective::DistributeItems,
            false,
            quote::format_ident!("distribute_items"),
            format!("g, {closure}").parse().unwrap(),
        )
        .unwrap();
        (inv, syn::parse_str("g").unwrap())
    }

    /// Where the runtime does not copy, a copy body runs the item loop
    /// the later shortcuts give it: an output stored from private memory
    /// on a group of a required size is a row store.
    #[test]
    fn a_copy_body_falls_back_to_the_later_shortcuts() {
        let (mut inv, _) = distribute_items_on_g("|i| c[i] = acc[i]");
        let lowered = |inv: &Invocation| super::invocation(inv, &[], &[], &[], &[]).to_string();
        let plain = lowered(&inv);
        assert!(plain.contains("ItemCopy"), "{plain}");
        assert!(!plain.contains("distribute_items_row_stored"), "{plain}");
        inv.required_size = true;
        let sized = lowered(&inv);
        assert!(sized.contains("ItemCopy"), "{sized}");
        assert_eq!(
            sized.matches("distribute_items_row_stored").count(),
            1,
            "{sized}"
        );
        assert!(sized.contains("if ! __scoped_copied"), "{sized}");
    }
}
