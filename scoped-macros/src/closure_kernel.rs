//! `kernel_closure!(|group, args| body)`: a kernel written at its launch.
//! The closure's first parameter is the work group; its body is walked,
//! checked and lowered exactly like a `#[kernel]` function's body.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Error, ExprClosure, Pat};

use crate::check::{pat_ident, BindingKind, Context};
use crate::kernel::is_reducer;
use crate::walk::Walker;

const EXAMPLE: &str = "`kernel_closure!(|group: WorkGroup<1>| ...)`";

/// Expands `kernel_closure!(input)`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut closure = match syn::parse2::<ExprClosure>(input.clone()) {
        Ok(closure) => closure,
        Err(_) => {
            let message = format!("kernel_closure! takes one closure, as in {EXAMPLE}");
            let span = input
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            return Error::new(span, message).to_compile_error();
        }
    };
    let mut errors = Vec::new();
    let (group, untyped) = match group_parameter(&mut closure) {
        Ok(group) => group,
        Err(error) => {
            errors.push(error);
            (None, false)
        }
    };
    let mut ctx = Context::function(group.clone());
    ctx.poisoned = !errors.is_empty();
    for param in closure.inputs.iter().skip(1) {
        let kind = match param {
            // A reducer is shared reduction memory, as in `#[kernel]`.
            Pat::Type(typed) if is_reducer(&typed.ty) => BindingKind::Memory,
            _ => BindingKind::Param,
        };
        ctx.bind_pat(param, &kind, None);
    }

    let mut walker = Walker::new(ctx);
    walker.visit_expr_mut(&mut closure.body);
    errors.extend(walker.errors);
    if errors.is_empty() {
        let group = group.clone().or_else(|| name_typed_wild(&mut closure));
        if let Some(group) = &group {
            at_launch_level(&mut closure, group);
        }
    }
    if let (Some(group), true) = (group, untyped) {
        // An untyped group has the default sub-group size, as
        // `WorkGroup<D>` written out has: without it nothing would fix `S`.
        let body = &closure.body;
        *closure.body = syn::parse_quote!({
            ::scoped::__private::default_sub_group_size(&#group);
            #body
        });
    }
    if errors.is_empty() {
        return closure.into_token_stream();
    }
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote!({
        #(#errors)*
        #[allow(unused)]
        #closure
    })
}

/// Makes the closure's body a closure that the runtime runs at the
/// instruction-set level of the launch that made `group`, as `#[kernel]`
/// does. Not `move`: the kernel closure's own captures stay borrowed from
/// it (a `Fn` closure cannot give them away); parameters the body moves
/// are still captured by value. The inner closure keeps the kernel's return
/// type, so that `return` keeps its meaning.
fn at_launch_level(closure: &mut ExprClosure, group: &Ident) {
    let output = match &closure.output {
        syn::ReturnType::Default => TokenStream::new(),
        syn::ReturnType::Type(arrow, ty) => quote!(#arrow #ty),
    };
    let body = crate::levels::at_launch_level(group, TokenStream::new(), output, &closure.body);
    *closure.body = syn::parse_quote!({ #body });
}

/// A typed `_: WorkGroup<D>` group renamed, so that the body can run at
/// the launch's level; `None` if the group is not such a parameter.
fn name_typed_wild(closure: &mut ExprClosure) -> Option<Ident> {
    match closure.inputs.first_mut() {
        Some(Pat::Type(typed)) if matches!(*typed.pat, Pat::Wild(_)) => {
            let name = Ident::new("__scoped_group", Span::call_site());
            *typed.pat = syn::parse_quote!(#name);
            Some(name)
        }
        _ => None,
    }
}

/// The group parameter's name (`None` for `_`) and whether it is untyped.
/// An untyped `_` is renamed so that its sub-group size can be fixed.
fn group_parameter(closure: &mut ExprClosure) -> Result<(Option<Ident>, bool), Error> {
    let Some(first) = closure.inputs.first_mut() else {
        let message = format!("a kernel closure takes its `WorkGroup<D>` first, as in {EXAMPLE}");
        let (or1, or2) = (&closure.or1_token, &closure.or2_token);
        return Err(Error::new_spanned(quote!(#or1 #or2), message));
    };
    match first {
        Pat::Type(typed) => {
            let name = named(&typed.pat)?;
            if is_work_group(&typed.ty) {
                return Ok((name, false));
            }
            if let syn::Type::Reference(r) = &*typed.ty {
                if is_work_group(&r.elem) {
                    let message = format!(
                        "a kernel closure takes its group by value (groups are `Copy`): write \
                         `{}: {}`",
                        name.map_or_else(|| "_".into(), |n| n.to_string()),
                        r.elem.to_token_stream().to_string().replace(' ', "")
                    );
                    return Err(Error::new_spanned(&typed.ty, message));
                }
            }
            let message =
                format!("a kernel closure takes its `WorkGroup<D>` first, as in {EXAMPLE}");
            Err(Error::new_spanned(&*first, message))
        }
        Pat::Wild(wild) => {
            let name = Ident::new("__scoped_group", wild.underscore_token.span);
            *first = syn::parse_quote!(#name);
            Ok((Some(name), true))
        }
        pat => Ok((Some(named(pat)?.expect("not `_`")), true)),
    }
}

/// The name of a group pattern: a plain identifier or `_`.
fn named(pat: &Pat) -> Result<Option<Ident>, Error> {
    if matches!(pat, Pat::Wild(_)) {
        return Ok(None);
    }
    pat_ident(pat).map(Some).ok_or_else(|| {
        Error::new_spanned(
            pat,
            format!(
                "name the group parameter of a kernel closure with a plain identifier, as in \
                 {EXAMPLE}"
            ),
        )
    })
}

fn is_work_group(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "WorkGroup"),
        syn::Type::Paren(p) => is_work_group(&p.elem),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::{Ident, Span, TokenStream};
    use quote::quote;

    use super::expand;

    /// `tokens` as printed after a round trip through syn (`| |` for `||`).
    fn same_syntax(tokens: TokenStream) -> String {
        let closure: syn::ExprClosure = syn::parse2(tokens).unwrap();
        quote!(#closure).to_string()
    }

    #[test]
    fn body_is_lowered_and_an_untyped_group_gets_the_default_size() {
        let lowered = expand(quote! {
            |g, data: &[i32]| {
                distribute_items!(g, |idx| { let _ = data[idx.global_linear_id()]; });
            }
        })
        .to_string();
        for part in [
            ":: scoped :: __private :: default_sub_group_size (& g) ;",
            ":: scoped :: __private :: distribute_items (& g , # [inline (always)] | idx |",
        ] {
            assert!(lowered.contains(part), "missing `{part}` in {lowered}");
        }
        assert!(!lowered.contains("compile_error"), "{lowered}");
    }

    #[test]
    fn a_typed_group_keeps_its_type_and_the_body_runs_at_the_launch_level() {
        let lowered = expand(quote!(|g: WorkGroup<1, 4>| {})).to_string();
        let g = Ident::new("g", Span::call_site());
        let body =
            crate::levels::at_launch_level(&g, TokenStream::new(), TokenStream::new(), &quote!({}));
        assert_eq!(lowered, same_syntax(quote!(|g: WorkGroup<1, 4>| { #body })));
        assert!(body.to_string().contains("body_level (& g)"), "{body}");
        // A typed `_` group is named so that its body can run at the level.
        let lowered = expand(quote!(|_: WorkGroup<1>| -> () {
            return;
        }))
        .to_string();
        let g = Ident::new("__scoped_group", Span::call_site());
        let body = crate::levels::at_launch_level(
            &g,
            TokenStream::new(),
            quote!(-> ()),
            &quote!({
                return;
            }),
        );
        assert_eq!(
            lowered,
            same_syntax(quote!(|__scoped_group: WorkGroup<1>| -> () { #body }))
        );
    }

    #[test]
    fn rule_violations_and_bad_signatures_are_errors() {
        for (closure, starts) in [
            (
                quote!(|g| distribute_items!(g, |_i| group_barrier(g))),
                "rule 2: `group_barrier`",
            ),
            (
                quote!(|g: &WorkGroup<1>| {}),
                "a kernel closure takes its group by value",
            ),
            (
                quote!(|x: &[i32]| {}),
                "a kernel closure takes its `WorkGroup<D>` first",
            ),
            (
                quote!(|| {}),
                "a kernel closure takes its `WorkGroup<D>` first",
            ),
            (
                quote!(
                    fn f() {}
                ),
                "kernel_closure! takes one closure",
            ),
        ] {
            let lowered = expand(closure).to_string();
            let error = lowered
                .split("compile_error ! { \"")
                .nth(1)
                .unwrap_or_else(|| panic!("no error in {lowered}"));
            assert!(error.starts_with(starts), "{error}");
        }
    }
}
