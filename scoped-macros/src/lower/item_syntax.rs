//! The syntax of item queries that the lowering shortcuts (`guard.rs`,
//! `item_copy.rs`) recognise in `distribute_items!` bodies: calls of `SItem`'s
//! id queries on the item, the local ids among them, integer literals.

use syn::visit_mut::VisitMut;
use syn::{Expr, ExprMethodCall, Ident, Lit, Stmt};

use super::group_slice::bound_names;
use super::interchange::invariance::{is_wrapping_arithmetic, read_only_inner};
use crate::check::{group_ident, pat_ident};
use crate::parse::{Collective, Invocation};

/// Which local id an item query names: one dimension, or the linear id.
#[derive(Clone, Copy)]
pub(crate) enum LocalId {
    Dim(usize),
    Linear,
}

/// `expr` as a call of one of `SItem`'s id and range queries on `item`,
/// whose arguments are literals or (references to) names.
pub(crate) fn query<'a>(expr: &'a Expr, item: &Ident) -> Option<&'a ExprMethodCall> {
    const QUERIES: [&str; 18] = [
        "global_id",
        "global_id_dim",
        "global_linear_id",
        "global_range",
        "global_range_dim",
        "global_linear_range",
        "innermost_local_id",
        "innermost_local_id_dim",
        "innermost_local_linear_id",
        "innermost_local_range",
        "innermost_local_range_dim",
        "innermost_local_linear_range",
        "local_id",
        "local_id_dim",
        "local_linear_id",
        "local_range",
        "local_range_dim",
        "local_linear_range",
    ];
    let Expr::MethodCall(call) = peel(expr) else {
        return None;
    };
    let simple = |arg: &Expr| matches!(peel(arg), Expr::Lit(_)) || group_ident(arg).is_some();
    let on_item = matches!(peel(&call.receiver), Expr::Path(p) if p.path.is_ident(item));
    let known = QUERIES.iter().any(|q| call.method == q);
    (on_item && known && call.turbofish.is_none() && call.args.iter().all(simple)).then_some(call)
}

/// Which local id a query is, if it is one of the innermost group's.
pub(crate) fn local_id(call: &ExprMethodCall, group: Option<&Ident>) -> Option<LocalId> {
    let args: Vec<&Expr> = call.args.iter().collect();
    let of_group = |arg: &Expr| group.is_some() && group_ident(arg) == group;
    match (call.method.to_string().as_str(), args.as_slice()) {
        ("innermost_local_id_dim", [d]) => Some(LocalId::Dim(literal(d)?)),
        ("local_id_dim", [g, d]) if of_group(g) => Some(LocalId::Dim(literal(d)?)),
        ("innermost_local_linear_id", []) => Some(LocalId::Linear),
        ("local_linear_id", [g]) if of_group(g) => Some(LocalId::Linear),
        _ => None,
    }
}

/// The value of an integer literal without a suffix other than `usize`.
pub(crate) fn literal(expr: &Expr) -> Option<usize> {
    match peel(expr) {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) if matches!(int.suffix(), "" | "usize") => int.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Parentheses and invisible groups around `expr` removed.
pub(crate) fn peel(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => peel(&inner.expr),
        Expr::Group(inner) => peel(&inner.expr),
        other => other,
    }
}

/// Whether `expr` is one of `names`, or a field of one, through
/// parentheses; with `places`, also an element of one (`x[i]`) or what
/// one points to (`*x`).
pub(crate) fn rooted_in(expr: &Expr, names: &[Ident], places: bool) -> bool {
    match expr {
        Expr::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|name| names.contains(name)),
        Expr::Field(field) => rooted_in(&field.base, names, places),
        Expr::Paren(inner) => rooted_in(&inner.expr, names, places),
        Expr::Group(inner) => rooted_in(&inner.expr, names, places),
        Expr::Index(index) if places => rooted_in(&index.expr, names, places),
        Expr::Unary(unary) if places && matches!(unary.op, syn::UnOp::Deref(_)) => {
            rooted_in(&unary.expr, names, places)
        }
        _ => false,
    }
}

/// The parts of an index that [`wrapping_usize`] does not take apart.
pub(crate) trait IndexLeaves {
    /// `leaf` as a `usize` expression, with whether it depends on the
    /// item; `None` if the index cannot have it.
    fn leaf(&mut self, leaf: &Expr) -> Option<(proc_macro2::TokenStream, bool)>;
}

/// `expr` in wrapping `usize` arithmetic, so that computing it cannot
/// panic: `+`, `-`, `*` (and `wrapping_add`, `wrapping_sub`,
/// `wrapping_mul`), parentheses, integer literals and values read through
/// `Rule4ReadOnly`, every other part from `leaves`; with whether any
/// leaf depends on the item. `None` if a part is of no such shape.
pub(crate) fn wrapping_usize(
    expr: &Expr,
    leaves: &mut impl IndexLeaves,
) -> Option<(proc_macro2::TokenStream, bool)> {
    let mixed = proc_macro2::Span::mixed_site();
    // A receiver the walker reads through `Rule4ReadOnly`.
    if let Some(inner) = read_only_inner(expr) {
        return wrapping_usize(inner, leaves);
    }
    match expr {
        Expr::Paren(p) => wrapping_usize(&p.expr, leaves),
        Expr::Group(g) => wrapping_usize(&g.expr, leaves),
        Expr::Lit(lit) if matches!(lit.lit, Lit::Int(_)) && lit.attrs.is_empty() => {
            Some((quote::quote!((#lit as usize)), false))
        }
        Expr::Binary(b) if b.attrs.is_empty() => {
            let op = wrapping_method(&b.op)?;
            let (left, l) = wrapping_usize(&b.left, leaves)?;
            let (right, r) = wrapping_usize(&b.right, leaves)?;
            Some((
                quote::quote_spanned!(mixed=> ::core::primitive::usize::#op(#left, #right)),
                l || r,
            ))
        }
        Expr::MethodCall(call) if is_wrapping_arithmetic(call) => {
            let method = &call.method;
            let (left, l) = wrapping_usize(&call.receiver, leaves)?;
            let (right, r) = wrapping_usize(&call.args[0], leaves)?;
            Some((
                quote::quote_spanned!(mixed=> ::core::primitive::usize::#method(#left, #right)),
                l || r,
            ))
        }
        leaf => leaves.leaf(leaf),
    }
}

/// The wrapping `usize` method of `+`, `-` or `*` (index arithmetic that
/// is checked only after it is computed), `None` for any other operator.
pub(crate) fn wrapping_method(op: &syn::BinOp) -> Option<proc_macro2::TokenStream> {
    Some(match op {
        syn::BinOp::Add(_) => quote::quote!(wrapping_add),
        syn::BinOp::Sub(_) => quote::quote!(wrapping_sub),
        syn::BinOp::Mul(_) => quote::quote!(wrapping_mul),
        _ => return None,
    })
}

/// Which of the item's global ids an index is: the linear one (`usize`;
/// `global_id_dim(0)` is the same in one dimension) or the whole `Id`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum GlobalId {
    Linear,
    Full,
}

/// Which global id of `item` the query `expr` is, if it is one.
pub(crate) fn global_id_query(expr: &Expr, item: &Ident) -> Option<GlobalId> {
    let call = query(expr, item)?;
    let args: Vec<&Expr> = call.args.iter().collect();
    match (call.method.to_string().as_str(), args.as_slice()) {
        ("global_id_dim", [d]) if literal(d) == Some(0) => Some(GlobalId::Linear),
        ("global_linear_id", []) => Some(GlobalId::Linear),
        ("global_id", []) => Some(GlobalId::Full),
        _ => None,
    }
}

/// The item's global ids in a `distribute_items!` body: the queries
/// `item.global_linear_id()`, `item.global_id_dim(0)`, `item.global_id()`,
/// and the names a top-level `let` binds once (not `mut`) to one of them,
/// from that statement on (`let gid = idx.global_linear_id();`).
pub(crate) struct GlobalIds {
    item: Ident,
    /// Every name bound in the body.
    bound: Vec<Ident>,
    names: Vec<(Ident, GlobalId)>,
}

impl GlobalIds {
    /// The ids of the item of `inv`, if it is a `distribute_items!` whose
    /// closure takes the item as a plain identifier not bound again in
    /// its body.
    pub(crate) fn in_item_loop(inv: &Invocation) -> Option<Self> {
        if inv.kind != Collective::DistributeItems || inv.closure.inputs.len() != 1 {
            return None;
        }
        let item = pat_ident(&inv.closure.inputs[0])?;
        let bound = bound_names(&inv.closure.body);
        (!bound.contains(&item)).then(|| Self {
            item,
            bound,
            names: Vec::new(),
        })
    }

    /// Whether the body binds `name` anywhere.
    pub(crate) fn binds(&self, name: &Ident) -> bool {
        self.bound.contains(name)
    }

    /// The item.
    pub(crate) fn item(&self) -> &Ident {
        &self.item
    }

    /// Which global id `index` is, if it is one.
    pub(crate) fn of(&self, index: &Expr) -> Option<GlobalId> {
        if let Expr::Path(path) = peel(index) {
            let name = path.path.get_ident()?;
            return self
                .names
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, id)| *id);
        }
        global_id_query(index, &self.item)
    }

    /// Notes the id `stmt` binds, if it is `let name = <global id>;`.
    fn note(&mut self, stmt: &Stmt) {
        let Stmt::Local(local) = stmt else { return };
        let (Some(init), syn::Pat::Ident(p)) = (&local.init, &local.pat) else {
            return;
        };
        let once = self.bound.iter().filter(|n| **n == p.ident).count() == 1;
        if p.by_ref.is_none()
            && p.mutability.is_none()
            && p.subpat.is_none()
            && init.diverge.is_none()
            && once
        {
            if let Some(id) = self.of(&init.expr) {
                self.names.push((p.ident.clone(), id));
            }
        }
    }
}

/// Visits `body` with `visitor` a top-level statement at a time, noting
/// after each the global id it binds in `ids(visitor)`: a rewrite that
/// asks `ids` then sees each name only where it is bound.
pub(crate) fn visit_with_ids<V: VisitMut>(
    visitor: &mut V,
    body: &mut Expr,
    ids: fn(&mut V) -> &mut GlobalIds,
) {
    let Expr::Block(block) = body else {
        return visitor.visit_expr_mut(body);
    };
    if block.label.is_some() {
        return visitor.visit_expr_mut(body);
    }
    for stmt in &mut block.block.stmts {
        visitor.visit_stmt_mut(stmt);
        ids(visitor).note(stmt);
    }
}

/// How often `name` stands in `tokens`, at any depth (inside macros'
/// tokens too, where the syntax tree does not reach).
pub(crate) fn count_mentions(tokens: proc_macro2::TokenStream, name: &Ident) -> usize {
    tokens
        .into_iter()
        .map(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => usize::from(ident == *name),
            proc_macro2::TokenTree::Group(group) => count_mentions(group.stream(), name),
            _ => 0,
        })
        .sum()
}

/// Whether `expr` is the plain name `name` (through parentheses).
pub(crate) fn is_name(expr: &Expr, name: &Ident) -> bool {
    matches!(peel(expr), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}
