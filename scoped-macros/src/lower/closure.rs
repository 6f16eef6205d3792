//! The plain lowering of the closure collectives: a call of the runtime's
//! loop of the same name.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use crate::parse::{Collective, Invocation};

/// `::scoped::__private::<name>(&group, closure)` for `distribute_items!`,
/// `distribute_groups!` and `single_item!`.
pub(super) fn call(inv: &Invocation, group: &Expr) -> TokenStream {
    let span = inv.name.span();
    let function = match inv.kind {
        Collective::DistributeItems => "distribute_items",
        Collective::DistributeGroups => "distribute_groups",
        _ => "single_item",
    };
    // Every closure, not only the item loop's: a kernel body is compiled
    // once per instruction-set level, and a closure left out of line would
    // be one function shared by those copies, at the baseline level.
    let closure = item_closure(&inv.closure);
    let function = format_ident!("{}", function, span = span);
    quote_spanned! {span=> ::scoped::__private::#function(&#group, #closure) }
}

/// The closure a `distribute_items!` runs once per item, marked to be
/// always inlined: a full sub-group's item loop unrolls into one call per
/// lane, and the optimiser maps the lanes onto SIMD instructions only once
/// every call is inlined (left to its cost model, it keeps large bodies as
/// eight scalar calls).
pub(super) fn item_closure(closure: &impl quote::ToTokens) -> TokenStream {
    quote!(#[inline(always)] #closure)
}
