//! Lowering of the memory environments: a block of `let` bindings, local
//! memory a value on the stack, run-time-sized local memory and private
//! memory a wrapper that borrows stack room declared before it (so it
//! cannot outlive the environment).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Expr, Ident, Pat};

use crate::parse::{Invocation, Place, Request};

/// A block that allocates every request, binds the closure's parameters to
/// the allocations, and runs the closure's body once (as a closure, so
/// that `return` keeps its meaning).
pub(super) fn memory_environment(
    inv: &Invocation,
    group: &Expr,
    generics: &[Ident],
) -> TokenStream {
    let group_var = format_ident!(
        "__scoped_group",
        span = Span::mixed_site().located_at(inv.name.span())
    );
    let mut allocations = Vec::new();
    let mut bindings = Vec::new();
    for (index, (request, param)) in inv.requests.iter().zip(&inv.closure.inputs).enumerate() {
        // Hygienic names located at the user's request, so that borrow
        // errors about the memory point at it, not at `#[kernel]`.
        let here = Span::mixed_site().located_at(request.span);
        let storage = format_ident!("__scoped_memory_{}", index, span = here);
        let allocate = match request.place {
            Place::Local => {
                allocations.extend(super::const_checks::local_mem(
                    &request.ty,
                    request.span,
                    generics,
                ));
                allocate_local(request)
            }
            Place::LocalSlice => {
                // Stack room for a short slice, declared first, as for
                // private memory.
                let room = format_ident!("__scoped_room_{}", index, span = here);
                let span = request.span;
                allocations.push(quote_spanned! {span=>
                    let mut #room = ::scoped::__private::LocalSliceStorage::new();
                });
                allocate_local_slice(request, &room)
            }
            Place::Private => {
                // Stack room the private memory may borrow; declared first,
                // so that it outlives the memory.
                let room = format_ident!("__scoped_room_{}", index, span = here);
                let span = request.span;
                allocations.push(quote_spanned! {span=>
                    let mut #room = ::scoped::__private::PrivateStorage::new();
                });
                allocate_private(request, &group_var, &room)
            }
        };
        let span = request.span;
        allocations.push(quote_spanned! {span=> let mut #storage = #allocate; });
        let value = match request.place {
            // The closure gets the slice, `&mut [T]`.
            Place::LocalSlice => quote_spanned! {span=> #storage.as_mut_slice() },
            // Local memory is the field of a cache-line-aligned wrapper.
            Place::Local => quote_spanned! {span=> &mut #storage.0 },
            Place::Private => quote_spanned! {span=> &mut #storage },
        };
        bindings.push(bind(param, &value));
    }
    let body = &inv.closure.body;
    let movement = &inv.closure.capture;
    let output = &inv.closure.output;
    // The closure call stays the macro's: it is no code of the user's.
    // Always inlined: a kernel body is compiled once per instruction-set
    // level, and a closure left out of line would be shared by the copies.
    let call = quote! {
        ::scoped::__private::run_once(#[inline(always)] #movement || #output #body)
    };
    quote_spanned! {inv.name.span()=>
        {
            let #group_var = &#group;
            #(#allocations)*
            #(#bindings)*
            #call
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
    let span = syn::spanned::Spanned::span(param);
    match param {
        Pat::Type(typed) => {
            let (pat, ty) = (&typed.pat, &typed.ty);
            quote_spanned! {span=> let #pat: #ty = #value; }
        }
        pat => quote_spanned! {span=> let #pat = #value; },
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::{TokenStream, TokenTree};

    use crate::kernel::expand;
    use crate::signature::Flavor;

    /// The lines of every token named `name` in `tokens`.
    fn lines_of(tokens: TokenStream, name: &str, lines: &mut Vec<usize>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) if ident == name => lines.push(ident.span().start().line),
                TokenTree::Group(group) => lines_of(group.stream(), name, lines),
                _ => {}
            }
        }
    }

    #[test]
    fn the_memory_and_its_room_point_at_the_request() {
        let kernel: TokenStream = "fn k(group: WorkGroup<1>) {\n\
             memory_environment!(group,\n\
                 require_local_mem::<[i32; 4]>(),\n\
                 require_private_mem::<i32>(),\n\
                 |local, private| {});\n\
             }"
        .parse()
        .unwrap();
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel);
        for (name, line) in [
            ("__scoped_memory_0", 3),
            ("__scoped_memory_1", 4),
            ("__scoped_room_1", 4),
            ("__scoped_group", 2),
        ] {
            let mut lines = Vec::new();
            lines_of(lowered.clone(), name, &mut lines);
            assert!(!lines.is_empty(), "no `{name}` in {lowered}");
            assert!(
                lines.iter().all(|&l| l == line),
                "`{name}` at lines {lines:?}, not {line}"
            );
        }
    }
}
