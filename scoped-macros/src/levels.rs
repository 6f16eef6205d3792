//! A kernel's body run at the instruction-set level of its launch: written
//! once per level (x86-64 baseline, v3, v4), one copy in each arm of a
//! `match` on the level (`body_level` in the runtime). Each copy's
//! closures are types of their own, so every generic helper the body calls
//! is instantiated once per level and called from one place, which is
//! what lets the optimiser inline it into that level's copy; one closure
//! shared by the three levels left such helpers out of line, compiled for
//! the baseline. Bodies that declare what must exist once (an `impl`, a
//! `static`, an item from a macro) keep one closure for all levels.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit::Visit;

/// `body` as a closure run at the level of the launch that made `group`:
/// `capture` is `move` or nothing, `output` the closure's `-> Type` (or
/// nothing), so that `return` and `?` keep their meaning.
pub(crate) fn at_launch_level(
    group: &syn::Ident,
    capture: TokenStream,
    output: TokenStream,
    body: &impl ToTokens,
) -> TokenStream {
    let closure = quote!(#[inline(always)] #capture || #output #body);
    let body_tokens = body.to_token_stream();
    if !can_be_copied(body_tokens.clone()) {
        return quote!(::scoped::__private::run_kernel_body(&#group, #closure));
    }
    let arms = ["V4", "V3", "Baseline"].map(|level| {
        let level = syn::Ident::new(level, proc_macro2::Span::call_site());
        quote!(::scoped::__private::BodyLevel::#level(__scoped_level) => __scoped_level.run(#closure),)
    });
    quote!(
        match ::scoped::__private::body_level(&#group) {
            #(#arms)*
        }
    )
}

/// Whether writing `body` three times keeps its meaning: it declares no
/// `impl` (three would conflict), no `static` or `extern` block (three
/// would be three places), no item by a macro and calls no macro that may
/// expand to items, except the standard library's expression macros.
pub(crate) fn can_be_copied(body: TokenStream) -> bool {
    let Ok(block) = syn::parse2::<syn::Block>(quote!({ #body })) else {
        return false;
    };
    let mut finder = OnceOnly { found: false };
    finder.visit_block(&block);
    !finder.found
}

/// Macros of the standard library that expand to an expression of their
/// arguments only.
const EXPRESSION_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "matches",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// Finds what must exist once.
struct OnceOnly {
    found: bool,
}

impl Visit<'_> for OnceOnly {
    fn visit_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Impl(_)
            | syn::Item::Static(_)
            | syn::Item::ForeignMod(_)
            | syn::Item::Macro(_) => self.found = true,
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_macro(&mut self, mac: &syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        let std = name.is_some_and(|n| EXPRESSION_MACROS.contains(&n.as_str()))
            && (mac.path.segments.len() == 1
                || mac
                    .path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "std" || s.ident == "core"));
        if !std {
            self.found = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(body: TokenStream) -> String {
        let group = syn::Ident::new("group", proc_macro2::Span::call_site());
        let block: syn::Block = syn::parse2(body).unwrap();
        at_launch_level(&group, quote!(move), quote!(-> ()), &block).to_string()
    }

    #[test]
    fn a_body_is_written_once_per_level() {
        let out = lowered(quote!({
            let x = 1;
            assert_eq!(x, 1);
            println!("{x}");
        }));
        let expected = quote!(match ::scoped::__private::body_level(&group) {
            ::scoped::__private::BodyLevel::V4(__scoped_level) => __scoped_level.run(
                #[inline(always)]
                move || -> () {
                    let x = 1;
                    assert_eq!(x, 1);
                    println!("{x}");
                }
            ),
            ::scoped::__private::BodyLevel::V3(__scoped_level) => __scoped_level.run(
                #[inline(always)]
                move || -> () {
                    let x = 1;
                    assert_eq!(x, 1);
                    println!("{x}");
                }
            ),
            ::scoped::__private::BodyLevel::Baseline(__scoped_level) => __scoped_level.run(
                #[inline(always)]
                move || -> () {
                    let x = 1;
                    assert_eq!(x, 1);
                    println!("{x}");
                }
            ),
        });
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn what_must_exist_once_keeps_one_closure() {
        for body in [
            quote!({
                impl Foo for Bar {}
            }),
            quote!({
                static COUNT: u32 = 0;
            }),
            quote!({
                if !can_be_copied(body_tokens) {
                    extern "C" {
                        fn f();
                    }
                }
            }),
            quote!({
                thread_local!(static X: u8 = 0);
            }),
            quote!({
                let x = my_macro!(1);
            }),
            quote!({
                let x = other::vec![1];
            }),
        ] {
            let out = lowered(body.clone());
            assert!(
                out.starts_with(":: scoped :: __private :: run_kernel_body (& group"),
                "{body}: {out}"
            );
        }
        // Items that may be written three times: functions, types, consts.
        let out = lowered(quote!({
            fn f() {}
            struct T;
            const C: u8 = 1;
            let v = std::vec![C];
        }));
        assert!(out.starts_with("match"), "{out}");
    }
}
