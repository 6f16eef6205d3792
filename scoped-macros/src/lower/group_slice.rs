//! Lowering shortcut: a `distribute_items!` whose body reads shared-slice
//! kernel parameters at the item's global id, the natural translation of a
//! SYCL accessor,
//!
//! ```text
//! fn k(group: WorkGroup<1>, input: &[f32], ...) {
//!     distribute_items!(group, |idx| {
//!         let gid = idx.global_linear_id();
//!         let x = input[gid];                // or input[idx.global_linear_id()]
//!         ...
//!     })
//! }
//! ```
//!
//! Each such read becomes `*__scoped_slice_N.at(index)`, a read through a
//! `__private::GroupSlice` made once before the loop from the slice and
//! the group, and the loop becomes `distribute_items_sliced`, which runs a
//! copy of the loop where every slice covers the group's items. There the
//! optimiser proves each read in bounds and vectorises the loop; indexed
//! as written, a bounds check per item kept it scalar. `at` returns
//! exactly `&input[index]` and panics as indexing does, for any index.
//!
//! The shape, exactly: the closure takes the item as a plain identifier;
//! a read is `name[index]` where `name` is a parameter of the function
//! declared `name: &[T]` (not `mut`, not shadowed where the macro is, nor
//! bound anywhere in the body) and `index` is `item.global_linear_id()`,
//! `item.global_id_dim(0)`, or a name bound once in the body, by a
//! statement `let gid = <one of those>;` at the body's top level, and read
//! after it. The item's name must not be bound again in the body. Reads
//! inside other macros' arguments stay as written.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprClosure, Ident};

use super::item_syntax::{peel, visit_with_ids, GlobalId, GlobalIds};
use crate::parse::Invocation;

/// The shortcut lowering of `inv`, if its body reads one of `slices` (the
/// shared-slice parameters in scope where the macro is) at the item's
/// global id.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
) -> Option<TokenStream> {
    if slices.is_empty() {
        return None;
    }
    let ids = GlobalIds::in_item_loop(inv)?;
    let mut rewrite = Rewrite {
        slices: slices.iter().filter(|s| !ids.binds(s)).cloned().collect(),
        ids,
        used: Vec::new(),
    };
    let mut closure: ExprClosure = inv.closure.clone();
    visit_with_ids(&mut rewrite, &mut closure.body, |r| &mut r.ids);
    if rewrite.used.is_empty() {
        return None;
    }
    let span = inv.name.span();
    let function = format_ident!("distribute_items_sliced", span = span);
    let makes = rewrite.used.iter().enumerate().map(|(n, slice)| {
        let var = slice_var(n);
        quote_spanned!(span=> let #var = ::scoped::__private::GroupSlice::new(#slice, &#group);)
    });
    let covered = (0..rewrite.used.len()).map(|n| {
        let var = slice_var(n);
        quote_spanned!(span=> #var.covers(&#group))
    });
    let closure = super::closure::item_closure(&closure);
    Some(quote_spanned! {span=>
        {
            #(#makes)*
            ::scoped::__private::#function(&#group, true #(& #covered)*, #closure)
        }
    })
}

/// The name of the `n`th slice's `GroupSlice`, out of the user's reach.
fn slice_var(n: usize) -> Ident {
    format_ident!("__scoped_slice_{}", n, span = Span::mixed_site())
}

/// Every name a pattern in `body` binds (`let`, closure parameters, match
/// arms, `for`, `if let`), at any depth.
pub(super) fn bound_names(body: &Expr) -> Vec<Ident> {
    struct Names(Vec<Ident>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut names = Names(Vec::new());
    names.visit_expr(body);
    names.0
}

struct Rewrite {
    /// The slices that may be rewritten (not bound in the body).
    slices: Vec<Ident>,
    /// The item's global ids.
    ids: GlobalIds,
    /// The slices rewritten, in order of their `GroupSlice`s.
    used: Vec<Ident>,
}

impl Rewrite {
    /// `*__scoped_slice_N.at(index)` for a read `expr` of a slice at the
    /// item's global id.
    fn read(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::Index(read) = expr else {
            return None;
        };
        let slice = match peel(&read.expr) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
            _ => None,
        }
        .filter(|s| self.slices.contains(s))?;
        // One-dimensional launches: there the global id in dimension 0 is
        // the linear one, and `GroupSlice` reads other launches as written.
        if self.ids.of(&read.index) != Some(GlobalId::Linear) {
            return None;
        }
        let n = match self.used.iter().position(|u| *u == slice) {
            Some(n) => n,
            None => {
                self.used.push(slice);
                self.used.len() - 1
            }
        };
        let var = slice_var(n);
        let index = &read.index;
        Some(syn::parse_quote_spanned!(read.span()=> *#var.at(#index)))
    }

    /// The read as the operand of a postfix operator (`.method()`,
    /// `.field`, `[i]`, `?`, a call): in parentheses, which bind it there.
    fn operand(&mut self, expr: &mut Expr) {
        if let Some(read) = self.read(expr) {
            *expr = syn::parse_quote!((#read));
        }
    }
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // A prefix `*` binds tighter than every operator but the postfix
        // ones, whose operands get parentheses.
        if let Some(read) = self.read(expr) {
            *expr = read;
            return;
        }
        match expr {
            Expr::MethodCall(e) => self.operand(&mut e.receiver),
            Expr::Field(e) => self.operand(&mut e.base),
            Expr::Index(e) => self.operand(&mut e.expr),
            Expr::Try(e) => self.operand(&mut e.expr),
            Expr::Call(e) => self.operand(&mut e.func),
            Expr::Await(e) => self.operand(&mut e.base),
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `ty` is a shared slice, `&[T]` or `&'a [T]`: the parameter
/// types whose reads the shortcut rewrites.
pub(crate) fn is_shared_slice(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none() && matches!(*r.elem, syn::Type::Slice(_)),
        syn::Type::Paren(p) => is_shared_slice(&p.elem),
        _ => false,
    }
}

/// The parameter a shortcut may rewrite reads of: a plain, immutable name
/// of a shared-slice type.
pub(crate) fn slice_param(param: &syn::PatType) -> Option<Ident> {
    match &*param.pat {
        syn::Pat::Ident(p)
            if p.by_ref.is_none()
                && p.mutability.is_none()
                && p.subpat.is_none()
                && is_shared_slice(&param.ty) =>
        {
            Some(p.ident.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `distribute_items!(g, <closure>)` lowers to with the slices
    /// `a` and `b` in scope, if the shortcut applies.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let slices = [format_ident!("a"), format_ident!("b")];
        distribute_items(&inv, &group, &slices).map(|t| t.to_string())
    }

    #[test]
    fn reads_at_the_global_id_go_through_group_slices() {
        for (closure, reads) in [
            ("|i| { o[i] = a[i.global_linear_id()]; }", 1),
            (
                "|i| o[i] = a[i.global_id_dim(0)] + b[i.global_linear_id()]",
                2,
            ),
            (
                "|i| { let gid = i.global_linear_id(); o[i] = a[gid].sqrt() * a[gid]; }",
                2,
            ),
            (
                "|i| { let gid = i.global_id_dim(0); if gid < n { f(&a[gid]); } }",
                1,
            ),
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not lowered: {closure}"));
            assert_eq!(out.matches(". at (").count(), reads, "{out}");
            assert!(out.contains("distribute_items_sliced"), "{out}");
        }
        // A postfix operator keeps the read as its operand.
        let out = lowered("|i| { o[i] = a[i.global_linear_id()].sqrt(); }").unwrap();
        assert!(
            out.contains("(* __scoped_slice_0 . at (i . global_linear_id ())) . sqrt ()"),
            "{out}"
        );
    }

    #[test]
    fn other_reads_stay_as_written() {
        for closure in [
            // Not a slice in scope, not the global id, another dimension.
            "|i| { o[i] = c[i.global_linear_id()]; }",
            "|i| { o[i] = a[i.global_linear_id() + 1]; }",
            "|i| { o[i] = a[i.global_id_dim(1)]; }",
            "|i| { o[i] = a[i.innermost_local_linear_id()]; }",
            // The slice or the item bound again in the body.
            "|i| { let a = [0.0; 4]; o[i] = a[i.global_linear_id()]; }",
            "|i| { let i = j; o[i] = a[i.global_linear_id()]; }",
            // An id that is mutable, bound twice, or read before its `let`.
            "|i| { let mut gid = i.global_linear_id(); gid += 1; o[i] = a[gid]; }",
            "|i| { let gid = i.global_linear_id(); let gid = gid + 1; o[i] = a[gid]; }",
            "|i| { o[i] = a[gid]; let gid = i.global_linear_id(); }",
            // Inside another macro's tokens.
            "|i| { println!(\"{}\", a[i.global_linear_id()]); }",
        ] {
            assert_eq!(lowered(closure), None, "lowered: {closure}");
        }
    }

    #[test]
    fn only_plain_shared_slice_parameters_qualify() {
        let param = |s: &str| slice_param(&syn::parse_str::<syn::PatType>(s).unwrap());
        assert!(param("a: &[f32]").is_some());
        assert!(param("a: &'x [T]").is_some());
        for other in [
            "a: &mut [f32]",
            "mut a: &[f32]",
            "a: &Vec<f32>",
            "a: [f32; 4]",
            "(a, b): (&[f32], &[f32])",
        ] {
            assert!(param(other).is_none(), "{other}");
        }
    }
}
