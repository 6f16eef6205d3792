//! Checks the runtime makes while a kernel compiles (1 to 3 dimensions, a
//! sub-group size of at least 1, local memory of at most 64 KiB), as
//! `const _` items wherever the kernel names the types without generic
//! parameters. The runtime's own checks sit in generic code, which rustc
//! evaluates only when it generates code; `cargo check` evaluates these.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{GenericArgument, Ident, PathArguments, Type};

/// Whether a `const` item can name `tokens`: no generic parameter of the
/// function, `Self`, `impl` or lifetime in them.
fn nameable(tokens: TokenStream, generics: &[Ident]) -> bool {
    tokens.into_iter().all(|tree| match tree {
        TokenTree::Ident(ident) => ident != "Self" && ident != "impl" && !generics.contains(&ident),
        TokenTree::Punct(punct) => punct.as_char() != '\'',
        TokenTree::Group(group) => nameable(group.stream(), generics),
        TokenTree::Literal(_) => true,
    })
}

/// `const _` checking the shape of a group parameter of type `ty`
/// (`WorkGroup<D>`, `WorkGroup<D, S>`, `SubGroup<D, S>`, `ScalarGroup<D>`).
pub(crate) fn group_shape(ty: &Type, generics: &[Ident]) -> Option<TokenStream> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    if path.qself.is_some() || !nameable(ty.to_token_stream(), generics) {
        return None;
    }
    let args: Vec<TokenStream> = args
        .args
        .iter()
        .map(|arg| match arg {
            GenericArgument::Const(expr) => Some(quote_spanned! {arg.span()=> { #expr } }),
            GenericArgument::Type(ty) => Some(quote_spanned! {arg.span()=> { #ty } }),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let sub_group_size = match (last.ident.to_string().as_str(), args.as_slice()) {
        ("ScalarGroup", [_]) => quote_spanned! {ty.span()=> 1 },
        ("WorkGroup" | "SubGroup", [_]) => {
            quote_spanned! {ty.span()=> { ::scoped::DEFAULT_SUB_GROUP_SIZE } }
        }
        ("WorkGroup" | "SubGroup", [_, s]) => s.clone(),
        _ => return None,
    };
    let dimensions = &args[0];
    Some(quote_spanned! {ty.span()=>
        const _: () = ::scoped::__private::group_shape::<#dimensions, #sub_group_size>();
    })
}

/// `const _` checking the size of a local memory request of type `ty`.
pub(crate) fn local_mem(ty: &Type, span: Span, generics: &[Ident]) -> Option<TokenStream> {
    nameable(ty.to_token_stream(), generics).then(|| {
        quote_spanned! {span=> const _: () = ::scoped::__private::local_mem_size::<#ty>(); }
    })
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use super::*;

    fn shape(ty: &str, generics: &[&str]) -> Option<String> {
        let generics: Vec<Ident> = generics.iter().map(|g| format_ident!("{}", g)).collect();
        group_shape(&syn::parse_str(ty).unwrap(), &generics).map(|t| t.to_string())
    }

    #[test]
    fn concrete_group_types_are_checked_by_const_items() {
        for (ty, args) in [
            (
                "WorkGroup<4>",
                "< { 4 } , { :: scoped :: DEFAULT_SUB_GROUP_SIZE } >",
            ),
            ("scoped::WorkGroup<1, 0>", "< { 1 } , { 0 } >"),
            ("SubGroup<DIMS, 8>", "< { DIMS } , { 8 } >"),
            ("ScalarGroup<2>", "< { 2 } , 1 >"),
        ] {
            let item = shape(ty, &["T"]).unwrap_or_else(|| panic!("{ty} not checked"));
            assert!(item.starts_with("const _ : ()"), "{item}");
            assert!(item.contains(&format!("group_shape :: {args}")), "{item}");
        }
    }

    #[test]
    fn generic_group_types_are_left_to_the_runtime() {
        for ty in [
            "WorkGroup<D>",
            "WorkGroup<1, S>",
            "G",
            "Self",
            "impl ScopedGroup<1>",
        ] {
            assert_eq!(shape(ty, &["D", "S", "G"]), None, "{ty}");
        }
    }

    #[test]
    fn local_memory_is_checked_unless_generic() {
        let generics = [format_ident!("T"), format_ident!("N")];
        let check =
            |ty: &str| local_mem(&syn::parse_str(ty).unwrap(), Span::call_site(), &generics);
        let item = check("[f32; 20000]").expect("checked").to_string();
        assert!(
            item.contains("local_mem_size :: < [f32 ; 20000] >"),
            "{item}"
        );
        for ty in ["[T; 4]", "[f32; N]", "&'a [f32; 4]", "Self"] {
            assert!(check(ty).is_none(), "{ty}");
        }
    }
}
