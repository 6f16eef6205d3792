//! Lowering step after the others: a `distribute_items!` whose body
//! indexes names with its item, `out[idx] = …`, runs its lowering in one
//! of two identical copies,
//!
//! ```text
//! let same = same_group(&group, [tag of out, …]);
//! if same { <lowered> } else { <lowered> }
//! ```
//!
//! where `tag of out` is the tag of a per-item window (`ItemsWindow`,
//! `ItemsRefWindow`) and `None` for any other type
//! (`__private::same_group`). In the first copy the optimiser knows every
//! window to belong to the group, so the per-item tag compares fold away.
//! It sees that anyway where the body is inlined into the launch's group
//! loop (`v3`, `v4`): the condition is then `true` and the second copy is
//! dropped; out of line (the baseline level's body) a compare left behind
//! a store kept the loop scalar. Both copies run the same code, so the
//! choice changes nothing but speed, and the probes only borrow names the
//! body reads, evaluated once before the loop.
//!
//! The names, exactly: `name[item]` (or `global_id`'s rewrite of
//! `name[<the item's global id>]`) anywhere in the body outside items
//! and other macros' tokens, `name` a plain identifier bound nowhere in the
//! body, the item's name not bound again in it. Bodies that cannot be
//! written twice (`levels::can_be_copied`) keep one copy.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprClosure, Ident, Stmt};

use super::group_slice::bound_names;
use super::item_syntax::peel;
use crate::check::pat_ident;
use crate::parse::{Collective, Invocation};

/// `lowered` (the lowering of `inv`) in two copies chosen by whether the
/// windows its body indexes by item are `group`'s, if it indexes any.
pub(crate) fn versioned(inv: &Invocation, group: &Expr, lowered: TokenStream) -> TokenStream {
    if inv.kind != Collective::DistributeItems {
        return lowered;
    }
    versioned_loop(&inv.closure, &[], group, inv.name.span(), lowered)
}

/// `lowered`, a loop over `group`'s items running `items` (an item
/// closure), in two copies as above; `outer` are names bound around the
/// closure inside `lowered` (a fused loop's sub-group and `for` pattern),
/// out of scope where the copies are chosen.
pub(crate) fn versioned_loop(
    items: &ExprClosure,
    outer: &[Ident],
    group: &Expr,
    span: Span,
    lowered: TokenStream,
) -> TokenStream {
    if items.inputs.len() != 1 {
        return lowered;
    }
    let Some(item) = pat_ident(&items.inputs[0]) else {
        return lowered;
    };
    let mut names = item_indexed(&items.body, &item);
    names.retain(|n| !outer.contains(n));
    if names.is_empty() || !crate::levels::can_be_copied(items.body.to_token_stream()) {
        return lowered;
    }
    let same = same_name();
    let probes = names.iter().map(
        |name| quote_spanned!(span=> (&::scoped::__private::GroupProbe(&#name)).__window_tag()),
    );
    quote_spanned! {span=>
        {
            let #same = {
                #[allow(unused_imports)]
                use ::scoped::__private::{NotAWindow as _, WindowTag as _};
                ::scoped::__private::same_group(&#group, [#(#probes),*])
            };
            if #same { #lowered } else { #lowered }
        }
    }
}

/// The condition's name, out of the user's reach.
fn same_name() -> Ident {
    format_ident!("__scoped_same_group", span = Span::mixed_site())
}

/// The lowering inside `expr` if `expr` is two copies made by
/// [`versioned_loop`], else `expr`: what the shortcuts that take a
/// lowered loop apart (`fuse.rs`) look at.
pub(crate) fn first_copy(expr: &Expr) -> &Expr {
    let Expr::Block(block) = expr else {
        return expr;
    };
    let [Stmt::Local(local), Stmt::Expr(Expr::If(choice), None)] = block.block.stmts.as_slice()
    else {
        return expr;
    };
    let named_same = |pat: &syn::Pat| matches!(pat, syn::Pat::Ident(p) if p.ident == same_name());
    let condition_is_same = matches!(&*choice.cond, Expr::Path(p) if p.path.is_ident(&same_name()));
    match choice.then_branch.stmts.as_slice() {
        [Stmt::Expr(first, None)] if named_same(&local.pat) && condition_is_same => first,
        _ => expr,
    }
}

/// `body` with every pair of copies made by [`versioned_loop`] replaced by
/// its first copy: the body of the level whose copy is inlined into the
/// group loop in every build (v4), where the tags are one value and the second copy
/// would only be dead code the optimiser has to carry until it folds the
/// condition (beside four copies of an interchanged loop, n-body's
/// sub-group form ran 5.7× its peer at v3).
pub(crate) fn first_copies(body: &syn::Block) -> syn::Block {
    struct Strip;
    impl VisitMut for Strip {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            let first = first_copy(expr);
            if !std::ptr::eq(first, expr) {
                *expr = first.clone();
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    let mut body = body.clone();
    Strip.visit_block_mut(&mut body);
    body
}

/// The names `body` indexes with `item` (`name[item]`), each once, in
/// order; none if `item` is bound again in the body.
fn item_indexed(body: &Expr, item: &Ident) -> Vec<Ident> {
    let bound = bound_names(body);
    if bound.contains(item) {
        return Vec::new();
    }
    let mut finder = Finder {
        item,
        names: Vec::new(),
    };
    finder.visit_expr(body);
    finder.names.retain(|n| !bound.contains(n));
    finder.names
}

struct Finder<'a> {
    item: &'a Ident,
    names: Vec<Ident>,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr_index(&mut self, index: &'ast syn::ExprIndex) {
        let is_item = matches!(peel(&index.index), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.item))
            || super::global_id::by_item(&index.index, self.item);
        if let (true, Expr::Path(path)) = (is_item, peel(&index.expr)) {
            if let Some(name) = path.path.get_ident().filter(|_| path.qself.is_none()) {
                if !self.names.contains(name) {
                    self.names.push(name.clone());
                }
            }
        }
        syn::visit::visit_expr_index(self, index);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

/// The names `item_indexed` finds in a closure's body (for tests).
#[cfg(test)]
fn names_in(closure: &str) -> Vec<String> {
    let closure: syn::ExprClosure = syn::parse_str(closure).unwrap();
    let item = pat_ident(&closure.inputs[0]).unwrap();
    item_indexed(&closure.body, &item)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn names_indexed_by_the_item() {
        assert_eq!(
            names_in("|i| { let (c, p) = f(a[i], (b)[i], a[i]); out[i] = c; put[(i)] = p; }"),
            ["a", "b", "out", "put"]
        );
        for closure in [
            // Not by the item, not a plain name, bound in the body.
            "|i| { out[i.global_linear_id()] = a[0]; }",
            "|i| { s.out[i] = 1; x.0[i] = 2; <T>::C[i]; }",
            "|i| { let out = w; out[i] = 1; }",
            // The item bound again, inside an item or a macro.
            "|i| { let i = j; out[i] = 1; }",
            "|i| { fn f(i: X) { out[i] = 1; } println!(\"{}\", a[i]); }",
        ] {
            assert!(names_in(closure).is_empty(), "{closure}");
        }
    }

    fn lowered(closure: &str) -> String {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        versioned(&inv, &group, quote!(LOWERED)).to_string()
    }

    #[test]
    fn the_first_copy_is_found_again() {
        let (inv, group) = crate::lower::distribute_items_on_g("|i| out[i] = 1");
        let plain = quote!(::scoped::__private::distribute_items(&g, |i| out[i] = 1));
        let two: Expr = syn::parse2(versioned(&inv, &group, plain.clone())).unwrap();
        let first = first_copy(&two);
        assert_eq!(quote!(#first).to_string(), plain.to_string());
        // Anything else is itself.
        let other: Expr = syn::parse_quote!({
            let x = 1;
            if x {
                a
            } else {
                a
            }
        });
        assert_eq!(first_copy(&other), &other);
    }

    #[test]
    fn names_bound_around_the_closure_are_left_out() {
        let closure: ExprClosure = syn::parse_str("|i| { row[i] = out[i]; }").unwrap();
        let group: Expr = syn::parse_str("g").unwrap();
        let span = Span::call_site();
        let out = versioned_loop(&closure, &[format_ident!("row")], &group, span, quote!(L));
        assert!(out.to_string().contains("GroupProbe (& out)"), "{out}");
        assert!(!out.to_string().contains("GroupProbe (& row)"), "{out}");
        let out = versioned_loop(
            &closure,
            &[format_ident!("row"), format_ident!("out")],
            &group,
            span,
            quote!(L),
        );
        assert_eq!(out.to_string(), "L");
    }

    #[test]
    fn indexed_bodies_run_in_two_copies() {
        let out = lowered("|i| { out[i] = a[i] * 2.0; }");
        let expected = quote! {{
            let __scoped_same_group = {
                #[allow(unused_imports)]
                use ::scoped::__private::{NotAWindow as _, WindowTag as _};
                ::scoped::__private::same_group(&g, [
                    (&::scoped::__private::GroupProbe(&out)).__window_tag(),
                    (&::scoped::__private::GroupProbe(&a)).__window_tag()
                ])
            };
            if __scoped_same_group { LOWERED } else { LOWERED }
        }};
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn other_bodies_keep_one_copy() {
        for closure in [
            "|i| { out[i.global_linear_id()] = 1.0; }",
            // Written twice, an `impl` would be two.
            "|i| { impl T for U {} out[i] = 1.0; }",
            "|i| { my_macro!(); out[i] = 1.0; }",
        ] {
            assert_eq!(lowered(closure), "LOWERED", "{closure}");
        }
    }
}
