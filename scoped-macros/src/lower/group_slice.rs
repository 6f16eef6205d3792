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
use syn::{Expr, ExprClosure, Ident, Stmt};

use super::item_syntax::{literal, peel, query};
use crate::check::pat_ident;
use crate::parse::{Collective, Invocation};

/// The shortcut lowering of `inv`, if its body reads one of `slices` (the
/// shared-slice parameters in scope where the macro is) at the item's
/// global id.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeItems || inv.closure.inputs.len() != 1 || slices.is_empty()
    {
        return None;
    }
    let item = pat_ident(&inv.closure.inputs[0])?;
    let bound = bound_names(&inv.closure.body);
    if bound.contains(&item) {
        return None;
    }
    let mut rewrite = Rewrite {
        item,
        slices: slices
            .iter()
            .filter(|s| !bound.contains(s))
            .cloned()
            .collect(),
        bound,
        ids: Vec::new(),
        used: Vec::new(),
    };
    let mut closure: ExprClosure = inv.closure.clone();
    rewrite.body(&mut closure.body);
    if rewrite.used.is_empty() {
        return None;
    }
    let span = inv.name.span();
    let function = format_ident!(
        "{}",
        if inv.wait {
            "distribute_items_sliced_and_wait"
        } else {
            "distribute_items_sliced"
        },
        span = span
    );
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
fn bound_names(body: &Expr) -> Vec<Ident> {
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
    item: Ident,
    /// The slices that may be rewritten (not bound in the body).
    slices: Vec<Ident>,
    /// Every name bound in the body.
    bound: Vec<Ident>,
    /// Names of the item's global id (`let gid = idx.global_linear_id();`)
    /// bound so far.
    ids: Vec<Ident>,
    /// The slices rewritten, in order of their `GroupSlice`s.
    used: Vec<Ident>,
}

impl Rewrite {
    /// Rewrites the reads of `body`, with ids bound by its top-level
    /// statements taking effect after them.
    fn body(&mut self, body: &mut Expr) {
        let Expr::Block(block) = body else {
            return self.visit_expr_mut(body);
        };
        if block.label.is_some() {
            return self.visit_expr_mut(body);
        }
        for stmt in &mut block.block.stmts {
            self.visit_stmt_mut(stmt);
            if let Stmt::Local(local) = stmt {
                let Some(init) = &local.init else { continue };
                let syn::Pat::Ident(p) = &local.pat else {
                    continue;
                };
                let once = self.bound.iter().filter(|n| **n == p.ident).count() == 1;
                if p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none()
                    && init.diverge.is_none()
                    && once
                    && self.is_global_id(&init.expr)
                {
                    self.ids.push(p.ident.clone());
                }
            }
        }
    }

    /// Whether `index` is the item's global linear id (one-dimensional
    /// launches: its global id in dimension 0 is the same for them, and
    /// `GroupSlice` reads other launches as written).
    fn is_global_id(&self, index: &Expr) -> bool {
        if let Expr::Path(path) = peel(index) {
            return path
                .path
                .get_ident()
                .is_some_and(|name| self.ids.contains(name));
        }
        query(index, &self.item).is_some_and(|call| {
            let args: Vec<&Expr> = call.args.iter().collect();
            match (call.method.to_string().as_str(), args.as_slice()) {
                ("global_id_dim", [d]) => literal(d) == Some(0),
                ("global_linear_id", []) => true,
                _ => false,
            }
        })
    }
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Index(read) = expr {
            let slice = match peel(&read.expr) {
                Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
                _ => None,
            };
            if let Some(slice) = slice.filter(|s| self.slices.contains(s)) {
                if self.is_global_id(&read.index) {
                    let n = match self.used.iter().position(|u| *u == slice) {
                        Some(n) => n,
                        None => {
                            self.used.push(slice);
                            self.used.len() - 1
                        }
                    };
                    let var = slice_var(n);
                    let index = &read.index;
                    let span = read.span();
                    // An invisible group keeps the read one operand without
                    // the lint that parentheses would draw.
                    *expr = Expr::Group(syn::ExprGroup {
                        attrs: Vec::new(),
                        group_token: Default::default(),
                        expr: Box::new(syn::parse_quote_spanned!(span=> *#var.at(#index))),
                    });
                    return;
                }
            }
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
