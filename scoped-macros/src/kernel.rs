//! `#[kernel]` and `#[group_function]`: find the function's group, walk
//! its body (checking the nesting rules and lowering every collective
//! macro), and report every error of the function in one compile.

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Error, FnArg, Item};

use crate::check::{Context, Kind};
use crate::signature::{self, Flavor};
use crate::walk::Walker;

/// Expands the attribute `flavor` with arguments `attr` on `item`.
pub(crate) fn expand(flavor: Flavor, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    if !attr.is_empty() {
        errors.push(Error::new_spanned(
            attr,
            format!("{} takes no arguments", flavor.attribute()),
        ));
    }
    let mut function = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        Ok(other) => {
            errors.push(signature::not_a_function(flavor, &other));
            return with_errors(item, errors);
        }
        // rustc reports the item's own syntax errors.
        Err(_) => return with_errors(item, errors),
    };

    let group = signature::group_parameter(flavor, &function);
    let mut ctx = Context::function(group.name.clone());
    if let Some(error) = group.error {
        errors.push(error);
        ctx.poisoned = true;
    }
    for (index, arg) in function.sig.inputs.iter().enumerate() {
        if let FnArg::Typed(param) = arg {
            let is_group = index == 0 && group.name.is_some();
            let named_group = group
                .name
                .as_ref()
                .is_some_and(|g| crate::check::pat_ident(&param.pat).as_ref() == Some(g));
            if !is_group && !named_group {
                ctx.bind_pat(&param.pat, &Kind::Param, None);
            }
        }
    }

    let mut walker = Walker::new(ctx);
    walker.visit_block_mut(&mut function.block);
    errors.extend(walker.errors);
    if !errors.is_empty() {
        // The errors are the user's to fix; the placeholders that replace
        // what could not be lowered would add only lint noise.
        function.attrs.push(syn::parse_quote!(#[allow(unused)]));
    }
    with_errors(quote!(#function), errors)
}

fn with_errors(item: TokenStream, errors: Vec<Error>) -> TokenStream {
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote! { #item #(#errors)* }
}
