//! Lowering shortcut: a `distribute_items!` whose body does nothing for the
//! items at or above a bound,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     let lid = idx.innermost_local_id_dim(0);
//!     if lid < active { scratch[lid] += scratch[lid + active]; }
//! })
//! ```
//!
//! loops only over the items below the bound
//! (`__private::distribute_items_below`). This is the spec's tree
//! reduction and most GPU-style code that halves an active range: the full
//! loop would visit every item to test it, and the optimiser, which
//! vectorises that loop with masks, then keeps the values in memory; the
//! short loop is the one a hand-written tree has.
//!
//! The shape, exactly:
//! * the closure takes the item as a plain identifier;
//! * its body is zero or more `let`s of item queries
//!   (`let lid = idx.innermost_local_id_dim(0);`, or a tuple of them),
//!   then one `if` without `else`;
//! * the condition is `lid < bound` or `bound > lid`, alone or as the first
//!   operand of `&&`, where `lid` is `idx.innermost_local_id_dim(K)`,
//!   `idx.local_id_dim(&group, K)` (`K` a literal, `group` the distributed
//!   group), `idx.innermost_local_linear_id()` or
//!   `idx.local_linear_id(&group)`, directly or through one of the `let`s;
//! * `bound` is made of integer literals, names and paths (locals,
//!   parameters, constants), casts and arithmetic; it names neither the
//!   item nor the `let`s, and every name it uses appears in the body only
//!   where it is read as a value (an operand of arithmetic or a
//!   comparison, a cast, an index, a range end).
//!
//! The items skipped are exactly those whose `if` fails before its body
//! runs (the queries have no effects), and the bound is read once, before
//! the loop, where every item would read it: so the bound must not change
//! and its evaluation must have no effects. The body cannot write its
//! names; and at run time the shortcut is taken only when every name and
//! path in the bound is a primitive integer (`__private::BoundLeaf`),
//! whose arithmetic and casts run no code of the user's, and the bound a
//! `usize` (`__private::ItemBound`). Otherwise every item evaluates its
//! guard. Field reads, method calls and dereferences are not bounds: each
//! may run a user's `Deref` or method. The body keeps its `if`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit::Visit;
use syn::{BinOp, Expr, ExprPath, Ident, Lit, Pat, Stmt, UnOp};

use super::interchange::body::mentions;
use super::interchange::invariance::{is_arithmetic, is_comparison};
use super::item_syntax::{local_id, peel, query, rooted_in, LocalId};
use crate::check::{group_ident, pat_ident};
use crate::parse::{Collective, Invocation};

/// The shortcut lowering of `inv`, if it has the shape described above.
/// `inv.closure.body` is already lowered.
pub(crate) fn distribute_items(inv: &Invocation, group: &Expr) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeItems || inv.closure.inputs.len() != 1 {
        return None;
    }
    let item = pat_ident(&inv.closure.inputs[0])?;
    let group_name = group_ident(group);
    let (lets, condition) = guarded_body(&inv.closure.body)?;
    let mut queries: Vec<(Ident, &Expr)> = Vec::new();
    for (pat, init) in lets {
        bind_queries(pat, init, &item, &mut queries)?;
    }
    let (local_id, bound) = guard(condition, &item, group_name, &queries)?;
    let mut leaves = Vec::new();
    bound_leaves(bound, &mut leaves)?;
    let names: Vec<Ident> = leaves
        .iter()
        .filter_map(|leaf| leaf.path.get_ident().cloned())
        .collect();
    if names
        .iter()
        .any(|name| *name == item || queries.iter().any(|(q, _)| q == name))
    {
        return None;
    }
    if !only_read(&inv.closure.body, &names) {
        return None;
    }
    let dimension = match local_id {
        LocalId::Dim(d) => quote!(::core::option::Option::Some(#d)),
        LocalId::Linear => quote!(::core::option::Option::None),
    };
    let span = inv.name.span();
    let function = format_ident!("distribute_items_below", span = span);
    let limit = format_ident!("__scoped_bound", span = Span::mixed_site());
    let closure = super::closure::item_closure(&inv.closure);
    let read = bound_read(quote!(&(#bound)), &leaves);
    Some(quote_spanned! {span=>
        {
            let #limit = {
                #[allow(unused_imports)]
                use ::scoped::__private::{
                    OtherBound as _, OtherLeaf as _, PlainLeaf as _, UsizeBound as _,
                };
                #read
            };
            ::scoped::__private::#function(&#group, #dimension, #limit, #closure)
        }
    })
}

/// The `let`s (pattern and value) and the `if` condition of a body that is
/// only `let`s followed by an `if` without `else`.
fn guarded_body(body: &Expr) -> Option<(Vec<(&Pat, &Expr)>, &Expr)> {
    let (stmts, last) = match body {
        Expr::Block(block) if block.label.is_none() => match block.block.stmts.split_last()? {
            (Stmt::Expr(last, _), stmts) => (stmts, last),
            _ => return None,
        },
        expr => (&[][..], expr),
    };
    let Expr::If(branch) = last else { return None };
    if branch.else_branch.is_some() {
        return None;
    }
    Some((plain_lets(stmts)?, &branch.cond))
}

/// The pattern and value of each of `stmts`, if all are `let`s with a
/// value and no `else`.
pub(super) fn plain_lets(stmts: &[Stmt]) -> Option<Vec<(&Pat, &Expr)>> {
    let mut lets = Vec::new();
    for stmt in stmts {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        lets.push((&local.pat, &*init.expr));
    }
    Some(lets)
}

/// Records the names `pat` binds to item queries of `init`; `None` if
/// `init` is anything but queries of `item`.
pub(super) fn bind_queries<'a>(
    pat: &Pat,
    init: &'a Expr,
    item: &Ident,
    queries: &mut Vec<(Ident, &'a Expr)>,
) -> Option<()> {
    match (pat, peel(init)) {
        (Pat::Type(typed), _) => bind_queries(&typed.pat, init, item, queries),
        (Pat::Wild(_), value) => query(value, item).map(|_| ()),
        (Pat::Tuple(pats), Expr::Tuple(values)) if pats.elems.len() == values.elems.len() => {
            for (pat, value) in pats.elems.iter().zip(&values.elems) {
                bind_queries(pat, value, item, queries)?;
            }
            Some(())
        }
        (Pat::Ident(binding), value) if binding.subpat.is_none() && binding.by_ref.is_none() => {
            query(value, item)?;
            queries.push((binding.ident.clone(), value));
            Some(())
        }
        _ => None,
    }
}

/// The local id and the bound of a guard condition.
fn guard<'a>(
    condition: &'a Expr,
    item: &Ident,
    group: Option<&Ident>,
    queries: &[(Ident, &Expr)],
) -> Option<(LocalId, &'a Expr)> {
    let Expr::Binary(binary) = peel(condition) else {
        return None;
    };
    let (id, bound) = match binary.op {
        BinOp::And(_) => return guard(&binary.left, item, group, queries),
        BinOp::Lt(_) => (&*binary.left, &*binary.right),
        BinOp::Gt(_) => (&*binary.right, &*binary.left),
        _ => return None,
    };
    let id = match peel(id) {
        Expr::Path(path) => {
            let name = path.path.get_ident()?;
            queries.iter().rev().find(|(q, _)| q == name)?.1
        }
        expr => expr,
    };
    Some((local_id(query(id, item)?, group)?, bound))
}

/// The expression that reads a bound, `bound` a reference to it: the
/// bound as `Some(usize)` when it and every one of its `leaves` (the
/// names it reads) are plain primitive integers, otherwise `None` (the
/// loop then visits every item, each testing its own condition). Needs
/// the `OtherBound`, `OtherLeaf`, `PlainLeaf` and `UsizeBound` traits in
/// scope.
pub(super) fn bound_read(bound: TokenStream, leaves: &[&ExprPath]) -> TokenStream {
    let read = quote! { (&::scoped::__private::ItemBound(#bound)).__limit() };
    if leaves.is_empty() {
        return read;
    }
    quote! {
        if #((&::scoped::__private::BoundLeaf(&#leaves)).__plain())&&* {
            #read
        } else {
            ::core::option::Option::None
        }
    }
}

/// Collects the names and paths a bound reads; `None` if the bound is not
/// made of integer literals, names, paths, casts and arithmetic.
pub(super) fn bound_leaves<'a>(expr: &'a Expr, leaves: &mut Vec<&'a ExprPath>) -> Option<()> {
    match expr {
        Expr::Lit(lit) if matches!(lit.lit, Lit::Int(_)) => Some(()),
        Expr::Path(path) if path.qself.is_none() => {
            leaves.push(path);
            Some(())
        }
        Expr::Paren(inner) => bound_leaves(&inner.expr, leaves),
        Expr::Group(inner) => bound_leaves(&inner.expr, leaves),
        Expr::Cast(cast) => bound_leaves(&cast.expr, leaves),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => bound_leaves(&unary.expr, leaves),
        Expr::Binary(binary) if is_arithmetic(&binary.op) => {
            bound_leaves(&binary.left, leaves)?;
            bound_leaves(&binary.right, leaves)
        }
        _ => None,
    }
}

/// Whether every use of `names` in `body` only reads a value: nothing can
/// assign it, borrow it mutably, move it or call a method on it.
pub(super) fn only_read(body: &Expr, names: &[Ident]) -> bool {
    let mut uses = Uses {
        names,
        read: false,
        ok: true,
    };
    uses.visit_expr(body);
    uses.ok
}

struct Uses<'n> {
    names: &'n [Ident],
    /// Whether the expression being visited is in a place that reads it
    /// as a value.
    read: bool,
    ok: bool,
}

impl Uses<'_> {
    /// The name at the root of a path or field access, through parentheses.
    fn rooted_name(&self, expr: &Expr) -> bool {
        rooted_in(expr, self.names, false)
    }

    fn visit_as(&mut self, read: bool, expr: &Expr) {
        let saved = std::mem::replace(&mut self.read, read);
        self.visit_expr(expr);
        self.read = saved;
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if !self.ok {
            return;
        }
        if self.rooted_name(expr) {
            self.ok &= self.read;
            return;
        }
        match expr {
            Expr::Binary(binary) if is_arithmetic(&binary.op) || is_comparison(&binary.op) => {
                self.visit_as(true, &binary.left);
                self.visit_as(true, &binary.right);
            }
            Expr::Unary(unary) if !matches!(unary.op, UnOp::Deref(_)) => {
                self.visit_as(true, &unary.expr)
            }
            Expr::Cast(cast) => self.visit_as(true, &cast.expr),
            Expr::Paren(inner) => self.visit_as(self.read, &inner.expr),
            Expr::Index(index) => {
                self.visit_as(false, &index.expr);
                self.visit_as(true, &index.index);
            }
            Expr::Range(range) => {
                for end in range.start.iter().chain(&range.end) {
                    self.visit_as(true, end);
                }
            }
            _ => {
                let saved = std::mem::replace(&mut self.read, false);
                syn::visit::visit_expr(self, expr);
                self.read = saved;
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.ok &= !mentions(mac.tokens.clone(), self.names);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of `bound` in `body`, as `only_read` judges them.
    fn reads(body: &str, names: &[&str]) -> bool {
        let body: Expr = syn::parse_str(body).unwrap();
        let names: Vec<Ident> = names.iter().map(|n| format_ident!("{}", n)).collect();
        only_read(&body, &names)
    }

    #[test]
    fn reads_in_arithmetic_indices_and_ranges_are_reads() {
        assert!(reads("{ s[l] += s[l + active]; }", &["active"]));
        assert!(reads("{ if l < p.n { s[p.n - 1] = 0; } }", &["p"]));
        assert!(reads(
            "{ for k in 0..active { s[k] = (active as i32); } }",
            &["active"]
        ));
        assert!(reads("{ s[active] = -x; }", &["active"]));
    }

    #[test]
    fn writes_borrows_moves_calls_and_macros_are_not() {
        for body in [
            "{ active = 1; }",
            "{ active += 1; }",
            "{ p.n = 1; }",
            "{ f(&mut active); }",
            "{ f(p); }",
            "{ let q = p; }",
            "{ active.clone(); }",
            "{ m!(active); }",
            "{ let c = || active; }",
            "{ s[l] = Foo { active }; }",
        ] {
            assert!(!reads(body, &["active", "p"]), "{body}");
        }
    }

    /// The token text of the lowering of `distribute_items!(g, <closure>)`,
    /// or `None` if it keeps the full loop.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        distribute_items(&inv, &group).map(|t| t.to_string())
    }

    #[test]
    fn guards_that_shorten_the_loop() {
        let cases = [
            ("|i| { let l = i.innermost_local_id_dim(0); if l < a { s[l] += s[l + a]; } }", "Some (0usize)"),
            ("|i| if i.innermost_local_id_dim(1) < n / 2 { s[0] = 1; }", "Some (1usize)"),
            ("|i| { let (r, c) = (i.innermost_local_id_dim(0), i.innermost_local_id_dim(1)); if m > c && r > 0 { s[r] = 1; } }", "Some (1usize)"),
            ("|i| { let l = i.local_linear_id(&g); if l < 4 { s[l] = 1; } }", "None"),
            ("|i| { let l = i.local_id_dim(g, 0); if (l < N as usize - k) { s[l] = 1; } }", "Some (0usize)"),
        ];
        for (closure, dimension) in cases {
            let lowered = lowered(closure).unwrap_or_else(|| panic!("not shortened: {closure}"));
            assert!(lowered.contains("distribute_items_below"), "{lowered}");
            assert!(lowered.contains(dimension), "{closure}: {lowered}");
        }
    }

    #[test]
    fn guards_that_keep_the_full_loop() {
        for closure in [
            // Something runs before the guard, or after it, or in an else.
            "|i| { s[0] += 1; let l = i.innermost_local_id_dim(0); if l < a { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < a { s[l] = 1; } s[1] = 0; }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < a { s[l] = 1; } else { s[l] = 0; } }",
            // The bound may change, or depends on the item, or is a call.
            "|i| { let l = i.innermost_local_id_dim(0); if l < a { a += 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < l * 2 { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < s.len() { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < s[0] { s[l] = 1; } }",
            // A field read or a dereference may run a user's `Deref`.
            "|i| { let l = i.innermost_local_id_dim(0); if l < p.n { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l < *n { s[l] = 1; } }",
            // Not a local id of this group, or not a `<`.
            "|i| { let l = i.global_id_dim(0); if l < a { s[l] = 1; } }",
            "|i| { let l = i.local_id_dim(&outer, 0); if l < a { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if l <= a { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(0); if c && l < a { s[l] = 1; } }",
            "|i| { let l = i.innermost_local_id_dim(d); if l < a { s[l] = 1; } }",
            // A `let` that is not a query.
            "|i| { let l = f(i); if l < a { s[l] = 1; } }",
        ] {
            assert!(lowered(closure).is_none(), "shortened: {closure}");
        }
    }
}
