//! Lowering of the memory environments: a block of `let` bindings, local
//! memory a value on the stack, run-time-sized local memory and private
//! memory a wrapper that borrows stack room declared before it (so it
//! cannot outlive the environment).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Pat};

use crate::parse::{Invocation, Place, Request};

/// A block that allocates every request, binds the closure's parameters to
/// the allocations, and runs the closure's body once (as a closure, so
/// that `return` keeps its meaning).
pub(super) fn memory_environment(inv: &Invocation, group: &Expr) -> TokenStream {
    let group_var = quote::format_ident!("__scoped_group", span = Span::mixed_site());
    let mut allocations = Vec::new();
    let mut bindings = Vec::new();
    for (index, (request, param)) in inv.requests.iter().zip(&inv.closure.inputs).enumerate() {
        let storage = format_ident!("__scoped_memory_{}", index, span = Span::mixed_site());
        let allocate = match request.place {
            Place::Local => allocate_local(request),
            Place::LocalSlice => {
                // Stack room for a short slice, declared first, as for
                // private memory.
                let room = format_ident!("__scoped_room_{}", index, span = Span::mixed_site());
                let span = request.span;
                allocations.push(quote_spanned! {span=>
                    let mut #room = ::scoped::__private::LocalSliceStorage::new();
                });
                allocate_local_slice(request, &room)
            }
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
        let value = match request.place {
            // The closure gets the slice, `&mut [T]`.
            Place::LocalSlice => quote! { #storage.as_mut_slice() },
            Place::Local | Place::Private => quote! { &mut #storage },
        };
        bindings.push(bind(param, &value));
    }
    let body = &inv.closure.body;
    let movement = &inv.closure.capture;
    let output = &inv.closure.output;
    quote! {
        {
            let #group_var = &#group;
            #(#allocations)*
            #(#bindings)*
            (#movement || #output #body)()
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

/// The memory of a run-time-sized local request, which may borrow `room`.
fn allocate_local_slice(request: &Request, room: &syn::Ident) -> TokenStream {
    let (ty, span) = (&request.ty, request.span);
    let len = &request.len;
    match &request.init {
        None => quote_spanned! {span=>
            ::scoped::__private::local_mem_slice_zeroed::<#ty>(&mut #room, #len)
        },
        Some(init) => quote_spanned! {span=>
            ::scoped::__private::local_mem_slice_filled::<#ty>(&mut #room, #len, #init)
        },
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

/// `let <param> = <value>;`, keeping a type annotation if the closure
/// parameter had one.
fn bind(param: &Pat, value: &TokenStream) -> TokenStream {
    match param {
        Pat::Type(typed) => {
            let (pat, ty) = (&typed.pat, &typed.ty);
            quote! { let #pat: #ty = #value; }
        }
        pat => quote! { let #pat = #value; },
    }
}
