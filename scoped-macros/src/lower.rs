//! Lowering: a checked [`Invocation`] into calls of the runtime's loop
//! nests, reached through the facade's hidden path `::scoped::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Pat};

use crate::parse::{Invocation, Kind, Place, Request};

/// The expression that replaces `inv`.
pub(crate) fn invocation(inv: &Invocation) -> TokenStream {
    let group = strip_reference(&inv.group);
    let closure = &inv.closure;
    let span = inv.name.span();
    if let Some(fused) = crate::fuse::distribute_groups(inv, group) {
        return fused;
    }
    if let Some(shortened) = crate::guard::distribute_items(inv, group) {
        return shortened;
    }
    if let Some(copy) = crate::copy::distribute_items(inv, group) {
        return copy;
    }
    let function = match (inv.kind, inv.wait) {
        (Kind::DistributeItems, false) => "distribute_items",
        (Kind::DistributeItems, true) => "distribute_items_and_wait",
        (Kind::DistributeGroups, false) => "distribute_groups",
        (Kind::DistributeGroups, true) => "distribute_groups_and_wait",
        (Kind::SingleItem, false) => "single_item",
        (Kind::SingleItem, true) => "single_item_and_wait",
        _ => return memory_environment(inv, group),
    };
    let function = format_ident!("{}", function, span = span);
    // Every closure, not only the item loop's: a kernel body is compiled
    // once per instruction-set level, and a closure left out of line would
    // be one function shared by those copies, at the baseline level.
    let closure = item_closure(closure);
    quote_spanned! {span=> ::scoped::__private::#function(&#group, #closure) }
}

/// The closure a `distribute_items!` runs once per item, marked to be
/// always inlined: a full sub-group's item loop unrolls into one call per
/// lane, and the optimiser maps the lanes onto SIMD instructions only once
/// every call is inlined (left to its cost model, it keeps large bodies as
/// eight scalar calls).
pub(crate) fn item_closure(closure: &impl quote::ToTokens) -> TokenStream {
    quote!(#[inline(always)] #closure)
}

/// `&g` and `g` both name the group `g`.
fn strip_reference(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(r) if r.mutability.is_none() => &r.expr,
        other => other,
    }
}

/// A block that allocates every request, binds the closure's parameters to
/// the allocations, and runs the closure's body once (as a closure, so
/// that `return` keeps its meaning; always inlined, see [`invocation`]).
fn memory_environment(inv: &Invocation, group: &Expr) -> TokenStream {
    let group_var = quote::format_ident!("__scoped_group", span = Span::mixed_site());
    let mut allocations = Vec::new();
    let mut bindings = Vec::new();
    for (index, (request, param)) in inv.requests.iter().zip(&inv.closure.inputs).enumerate() {
        let storage = format_ident!("__scoped_memory_{}", index, span = Span::mixed_site());
        let allocate = match request.place {
            Place::Local => allocate_local(request),
            Place::Private => {
                // Stack room the private memory may borrow; declared first,
                // so that it outlives the memory.
                let room = format_ident!("__scoped_room_{}", index, span = Span::mixed_site());
                let span = request.span;
                allocations.push(quote_spanned! {span=>
                    let mut #room = ::scoped::__private::PrivateStorage::new();
                });
                allocate_private(request, &group_var, &room)
            }
        };
        allocations.push(quote! { let mut #storage = #allocate; });
        bindings.push(bind(param, &storage));
    }
    let body = &inv.closure.body;
    let movement = &inv.closure.capture;
    let output = &inv.closure.output;
    quote! {
        {
            let #group_var = &#group;
            #(#allocations)*
            #(#bindings)*
            ::scoped::__private::run_once(#[inline(always)] #movement || #output #body)
        }
    }
}

/// The value of a local memory request.
fn allocate_local(request: &Request) -> TokenStream {
    let (ty, span) = (&request.ty, request.span);
    match &request.init {
        None => quote_spanned! {span=> ::scoped::__private::local_mem_zeroed::<#ty>() },
        Some(init) => {
            quote_spanned! {span=> ::scoped::__private::local_mem_filled::<#ty, _>(#init) }
        }
    }
}

/// The wrapper of a private memory request, which may borrow `room`.
fn allocate_private(request: &Request, group_var: &syn::Ident, room: &syn::Ident) -> TokenStream {
    let (ty, span) = (&request.ty, request.span);
    match &request.init {
        None => quote_spanned! {span=>
            ::scoped::__private::private_mem_zeroed::<#ty, _, _>(#group_var, &mut #room)
        },
        Some(init) => quote_spanned! {span=>
            ::scoped::__private::private_mem_filled::<#ty, _, _>(#group_var, &mut #room, #init)
        },
    }
}

/// `let <param> = &mut <storage>;`, keeping a type annotation if the
/// closure parameter had one.
fn bind(param: &Pat, storage: &syn::Ident) -> TokenStream {
    match param {
        Pat::Type(typed) => {
            let (pat, ty) = (&typed.pat, &typed.ty);
            quote! { let #pat: #ty = &mut #storage; }
        }
        pat => quote! { let #pat = &mut #storage; },
    }
}

/// What replaces a collective that cannot be lowered (its syntax or its
/// group argument is wrong, and an error says so): an expression that fits
/// any type, so that rustc adds no errors of its own to ours.
pub(crate) fn placeholder() -> Expr {
    syn::parse_quote!(::core::unreachable!())
}
