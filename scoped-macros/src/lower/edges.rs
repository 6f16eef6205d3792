//! Lowering shortcut: a `distribute_items!` whose body ends in statements
//! for the items on one edge of the group, the halo loads of GPU tiles,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
//!     tile[r + 1][c + 1] = a[i * n + j];
//!     if r == 0 { tile[0][c + 1] = a[(i - 1) * n + j]; }
//!     if c == COLS - 1 { tile[r + 1][COLS + 1] = a[i * n + j + 1]; }
//! })
//! ```
//!
//! runs as one loop per part: the statements before the guards for every
//! item (lowered as a `distribute_items!` of their own, so the other
//! shortcuts apply), then each guarded statement for the items on its
//! edge alone (`__private::distribute_items_on_edge`), a row of the group
//! in chunks of `W` items written out one after the other. Run item by
//! item, the guards kept the whole loop scalar, a branch per item and
//! guard; the copy loop alone vectorises. A guarded statement whose reads
//! have the shape of [`chunk_check`](super::chunk_check) runs on its edge
//! in that shortcut's chunks, checked or windowed
//! (`__private::distribute_items_on_edge_chunk_checked`): a tile's halo
//! rows become vector copies, where each point was a load behind its own
//! bounds check.
//!
//! Each item runs its own statements in its own order; only the
//! interleaving of items changes (all items' first part before any
//! item's guarded statements), which no program may observe without a
//! race between items. Guarded statements keep their `if`, so the edge
//! loop only has to visit every item whose guard holds.
//!
//! The shape, exactly:
//! * the closure is `|idx| { ... }` (no `move`, return type, `async`), and
//!   nothing in it returns, uses `?`, labels, or a macro that may hide
//!   `return`, `break` or `continue`;
//! * its statements are `let`s of item queries alone (as in
//!   [`guard`](super::guard)), then expression statements (no more `let`s,
//!   items or macro statements), then at least one guarded statement;
//! * a guarded statement is an `if` without `else` whose condition is
//!   `lid == value` or `value == lid`, `lid` a local id of the distributed
//!   group in one dimension (`idx.innermost_local_id_dim(K)`,
//!   `idx.local_id_dim(&group, K)`, directly or through a `let`), `value`
//!   a bound as in [`guard`](super::guard): integer literals, names and
//!   paths, casts and arithmetic, naming neither the item nor the `let`s,
//!   only read in the body, and read once before the edge's loop, as a
//!   `usize` of primitive integers only (otherwise the loop visits every
//!   item and each tests its guard).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{BinOp, Expr, Ident, Stmt};

use super::guard::{bind_queries, bound_leaves, bound_read, only_read};
use super::interchange::plain_item_block;
use super::item_syntax::{local_id, peel, query, LocalId};
use crate::check::group_ident;
use crate::parse::Invocation;

/// The edge lowering of `inv`, if it has the shape above; `generics`,
/// `slices`, `windows` and `indexed` as for [`super::invocation`]. `inv.closure.body` is already
/// lowered.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    generics: &[Ident],
    slices: &[Ident],
    windows: &[super::ItemWindow],
    indexed: &[super::Indexed],
) -> Option<TokenStream> {
    let (item, stmts) = plain_item_block(inv)?;
    let group_name = group_ident(group);
    let mut queries: Vec<(Ident, &Expr)> = Vec::new();
    let mut lets = 0;
    while let Some(Stmt::Local(local)) = stmts.get(lets) {
        let init = local.init.as_ref()?;
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return None;
        }
        bind_queries(&local.pat, &init.expr, &item, &mut queries)?;
        lets += 1;
    }
    let rest = &stmts[lets..];
    let edge_of = |stmt| Edge::of(stmt, &item, group_name, &queries);
    let first_edge = rest
        .iter()
        .rposition(|stmt| edge_of(stmt).is_none())
        .map_or(0, |at| at + 1);
    let (plain, guarded) = rest.split_at(first_edge);
    if guarded.is_empty() || !plain.iter().all(|stmt| matches!(stmt, Stmt::Expr(..))) {
        return None;
    }
    let edges: Vec<Edge> = guarded.iter().filter_map(edge_of).collect();
    for edge in &edges {
        let names: Vec<Ident> = edge
            .leaves
            .iter()
            .filter_map(|leaf| leaf.path.get_ident().cloned())
            .collect();
        if names
            .iter()
            .any(|name| *name == item || queries.iter().any(|(q, _)| q == name))
            || !only_read(&inv.closure.body, &names)
        {
            return None;
        }
    }

    let let_stmts = &stmts[..lets];
    // One `distribute_items!` with `body`, lowered by the other shortcuts
    // or plainly.
    let part = |body: Vec<&Stmt>| {
        let mut closure = inv.closure.clone();
        closure.body = Box::new(syn::parse_quote!({ #(#let_stmts)* #(#body)* }));
        // Each part repeats the `let`s, which it may not use.
        closure
            .attrs
            .push(syn::parse_quote!(#[allow(unused_variables)]));
        inv.with_closure(closure, false)
    };
    let span = inv.name.span();
    let mut parts = Vec::new();
    if !plain.is_empty() {
        let first = part(plain.iter().collect());
        parts.push(super::invocation(
            &first, generics, slices, windows, indexed,
        ));
    }
    for (stmt, edge) in guarded.iter().zip(&edges) {
        let edge_part = part(vec![stmt]);
        let on_edge = (edge.dimension, edge.read());
        if let Some(checked) = super::chunk_check::on_edge(&edge_part, group, slices, on_edge) {
            parts.push(checked);
            continue;
        }
        let function = format_ident!("distribute_items_on_edge", span = span);
        let closure = super::closure::item_closure(&edge_part.closure);
        let value = edge.read();
        let dimension = edge.dimension;
        parts.push(quote_spanned! {span=>
            ::scoped::__private::#function::<{ ::scoped::__private::INTERCHANGE_LANES }, _, _>(
                &#group,
                #dimension,
                #value,
                #closure,
            )
        });
    }
    Some(quote_spanned! {span=> { #(#parts;)* } })
}

/// A guarded statement's edge: the dimension of its local id, the value
/// it is compared with, and that value's names and paths.
struct Edge<'a> {
    dimension: usize,
    value: &'a Expr,
    /// Whether the source compares `lid == value` (else `value == lid`).
    id_first: bool,
    leaves: Vec<&'a syn::ExprPath>,
}

impl<'a> Edge<'a> {
    /// The edge of `stmt`, if it is a guarded statement.
    fn of(
        stmt: &'a Stmt,
        item: &Ident,
        group: Option<&Ident>,
        queries: &[(Ident, &Expr)],
    ) -> Option<Self> {
        let Stmt::Expr(Expr::If(guarded), _) = stmt else {
            return None;
        };
        if guarded.else_branch.is_some() || !guarded.attrs.is_empty() {
            return None;
        }
        let Expr::Binary(binary) = peel(&guarded.cond) else {
            return None;
        };
        if !matches!(binary.op, BinOp::Eq(_)) {
            return None;
        }
        let dimension = |side: &Expr| {
            let side = match peel(side) {
                Expr::Path(path) => {
                    let name = path.path.get_ident()?;
                    queries.iter().rev().find(|(q, _)| q == name)?.1
                }
                expr => expr,
            };
            match local_id(query(side, item)?, group)? {
                LocalId::Dim(d) => Some(d),
                LocalId::Linear => None,
            }
        };
        let (dimension, value, id_first) = match dimension(&binary.left) {
            Some(d) => (d, &*binary.right, true),
            None => (dimension(&binary.right)?, &*binary.left, false),
        };
        let mut leaves = Vec::new();
        bound_leaves(value, &mut leaves)?;
        Some(Self {
            dimension,
            value,
            id_first,
            leaves,
        })
    }

    /// The value as `Option<usize>`, read once: `Some` when every leaf is
    /// a primitive integer and the value a `usize`. The comparison is
    /// written once more, in the source's order, in a closure that never
    /// runs, so that a literal takes the type the guard gives it.
    fn read(&self) -> TokenStream {
        let mixed = Span::mixed_site();
        let (value, leaves) = (self.value, &self.leaves);
        let taken = format_ident!("__scoped_edge_value", span = mixed);
        let lid = format_ident!("__scoped_edge_id", span = mixed);
        let compare = if self.id_first {
            quote!(#lid == *#taken)
        } else {
            quote!(*#taken == #lid)
        };
        let read = bound_read(quote!(#taken), leaves);
        quote! {
            {
                #[allow(unused_imports)]
                use ::scoped::__private::{
                    OtherBound as _, OtherLeaf as _, PlainLeaf as _, UsizeBound as _,
                };
                let #taken = &(#value);
                let _ = |#lid: usize| #compare;
                #read
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use super::*;

    /// What `distribute_items!(g, <closure>)` lowers to with the slice `a`
    /// in scope, if the shortcut applies.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let slices = [format_ident!("a")];
        distribute_items(&inv, &group, &[], &slices, &[], &[]).map(|t| t.to_string())
    }

    #[test]
    fn guarded_statements_at_the_end_run_on_their_edges() {
        for (closure, edges, checked) in [
            (
                "|i| { let (r, c) = (i.local_id_dim(&g, 0), i.local_id_dim(&g, 1)); \
                 t[r + 1][c + 1] = a[r * n + c]; \
                 if r == 0 { t[0][c + 1] = a[c]; } \
                 if c == COLS - 1 { t[r + 1][COLS + 1] = 0.0; } }",
                2,
                // The first part's read and the first edge's, chunk-checked.
                2,
            ),
            // The value first; only guarded statements.
            (
                "|i| { let r = i.innermost_local_id_dim(0); if 3 == r { o[r] = 1; } }",
                1,
                0,
            ),
            ("|i| { if i.local_id_dim(&g, 1) == k { o[0] = 1; } }", 1, 0),
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not lowered: {closure}"));
            assert_eq!(
                out.matches("distribute_items_on_edge").count(),
                edges,
                "{out}"
            );
            assert_eq!(out.matches("< < [_] > :: len").count(), checked, "{out}");
        }
        // An edge's reads at computed indices: checked a chunk at a time
        // on that edge; the edge without one runs as written.
        let out = lowered(
            "|i| { let (r, c) = (i.local_id_dim(&g, 0), i.local_id_dim(&g, 1)); \
             t[r + 1][c + 1] = 1.0; \
             if r == 0 { t[0][c + 1] = if r0 > 0 { a[(r0 - 1) * n + c] } else { 0.0 }; } \
             if c == 0 { t[r + 1][0] = 0.0; } }",
        )
        .unwrap();
        assert_eq!(
            out.matches("distribute_items_on_edge_chunk_checked")
                .count(),
            1,
            "{out}"
        );
        assert_eq!(
            out.matches("distribute_items_on_edge ::").count(),
            1,
            "{out}"
        );
        assert_eq!(out.matches("< < [_] > :: len").count(), 1, "{out}");
        // Staged though on a branch: along an edge the branch goes one way
        // for the whole chunk.
        assert_eq!(out.matches(". stage ()").count(), 1, "{out}");
    }

    #[test]
    fn other_bodies_stay_as_written() {
        for closure in [
            // No guarded statement at the end.
            "|i| { let r = i.local_id_dim(&g, 0); if r == 0 { o[0] = 1; } o[r] = 2; }",
            "|i| { let r = i.local_id_dim(&g, 0); o[r] = 2; }",
            // Other comparisons, an `else`, the linear id, another group.
            "|i| { let r = i.local_id_dim(&g, 0); if r != 0 { o[0] = 1; } }",
            "|i| { let r = i.local_id_dim(&g, 0); if r == 0 { o[0] = 1; } else { o[1] = 1; } }",
            "|i| { if i.local_linear_id(&g) == 0 { o[0] = 1; } }",
            "|i| { if i.local_id_dim(&h, 0) == 0 { o[0] = 1; } }",
            // A value naming the item or a `let`, written in the body, or
            // not a bound (a call).
            "|i| { let (r, c) = (i.local_id_dim(&g, 0), i.local_id_dim(&g, 1)); \
             if r == c { o[0] = 1; } }",
            "|i| { let r = i.local_id_dim(&g, 0); k += 1; if r == k { o[0] = 1; } }",
            "|i| { let r = i.local_id_dim(&g, 0); if r == f() { o[0] = 1; } }",
            // A `let` after the first statement; an early exit.
            "|i| { let r = i.local_id_dim(&g, 0); o[r] = 1; let x = 2; if r == 0 { o[0] = x; } }",
            "|i| { let r = i.local_id_dim(&g, 0); if r == 0 { return; } if r == 1 { o[0] = 1; } }",
        ] {
            assert_eq!(lowered(closure), None, "lowered: {closure}");
        }
    }
}
