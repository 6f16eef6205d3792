//! Lowering shortcut: a `distribute_items!` whose body stages every item's
//! element of a per-item input in local memory,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     scratch[idx.innermost_local_id_dim(0)] = input[idx];
//! })
//! ```
//!
//! becomes one slice copy when the types allow it
//! (`__private::ItemCopy`), and otherwise the item loop the body gets
//! without this shortcut (an output stored from private memory,
//! `c[idx] = acc[idx]` in a 2-D group, is a row store: as a plain loop it
//! lost the row store's prefetch, GPU-form matmul 1.11–1.12× its peer
//! against 1.01–1.03×, Intel Xeon, AVX-512). As a loop, the
//! optimiser cannot tell the local array from the input: it vectorises the
//! copy behind a run-time overlap check and keeps the array in memory for
//! whatever follows (the spec's tree reduction: 1.2–1.45× a plain sum); as
//! a copy the array is split into registers, as in a hand-written kernel.
//!
//! The shape, exactly: the closure takes the item as a plain identifier,
//! and its body is one assignment (alone or as the first statement of a
//! block) `local[lid] = input[index]`, where
//! * `lid` is `idx.innermost_local_id_dim(0)`, `idx.local_id_dim(&group,
//!   0)`, `idx.innermost_local_linear_id()` or `idx.local_linear_id(&group)`
//!   (`group` the distributed group), or the item itself (private memory:
//!   `x[idx] = input[idx]`);
//! * `index` is the item itself, `idx.global_id_dim(0)` or
//!   `idx.global_linear_id()` (or a window's index of one of them, made
//!   by `global_id.rs`);
//! * `input` is a name, and `local` a place made of a name, fields and
//!   indices that are literals or names, neither naming the item.
//!
//! Statements after the copy in the block run as their own item loop
//! (lowered like any other) once the copy has run for every item, where
//! `copy_rest.rs` finds that this gives the item loop's results: the
//! spec's reduction stages its input in local and then private memory in
//! one body (Intel Xeon, 1 thread: 1.25–1.41× a plain sum with rayon as
//! one loop, 0.88–0.92× split).
//!
//! Evaluating `local` and `input` once rather than per item is the same:
//! the body writes only `local[lid]`, which cannot change which place
//! `local` names. The runtime then copies only for a one-dimensional work
//! group, an array or slice at least as long as the group and an input
//! window (`ItemsRefWindow`, `ItemsWindow`) over this group's items, where
//! the copy writes exactly what the loop would (private memory must be the
//! group's own); anything else runs that item loop.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::{Expr, Ident, Stmt};

use super::copy_rest::{self, StagingCopy};
use super::item_syntax::{global_id_query, local_id, peel, query, GlobalId, LocalId};
use crate::check::{group_ident, pat_ident};
use crate::parse::{Collective, Invocation};

/// The shortcut lowering of `inv`, if it has the shape described above;
/// `item_loop` gives the loop that runs where the copy does not.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    item_loop: impl FnOnce() -> TokenStream,
    lower_rest: impl FnOnce(&Invocation) -> TokenStream,
) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeItems || inv.closure.inputs.len() != 1 {
        return None;
    }
    let item = pat_ident(&inv.closure.inputs[0])?;
    let (first, rest) = statements(&inv.closure.body)?;
    let Expr::Assign(assign) = peel(first) else {
        return None;
    };
    let (Expr::Index(to), Expr::Index(from)) = (peel(&assign.left), peel(&assign.right)) else {
        return None;
    };
    let by_item = name(&to.index) == Some(&item);
    if !by_item {
        let lid = query(&to.index, &item)?;
        if !matches!(
            local_id(lid, group_ident(group))?,
            LocalId::Dim(0) | LocalId::Linear
        ) {
            return None;
        }
    }
    if !is_item_index(&from.index, &item) {
        return None;
    }
    let input = name(&from.expr)?;
    let local = &*to.expr;
    if *input == item || !is_place(local, &item) {
        return None;
    }
    let span = inv.name.span();
    let copied = format_ident!("__scoped_copied", span = Span::mixed_site());
    let choice = if rest.is_empty() {
        let item_loop = item_loop();
        quote_spanned! {span=> if !#copied { #item_loop } }
    } else {
        // The statements after the copy run as their own item loop once
        // the copy has run for every item, where that gives the same
        // results.
        let copy = StagingCopy {
            item: &item,
            group: group_ident(group),
            place: local,
            by_item,
            input,
        };
        let rest: Expr = syn::parse_quote!({ #(#rest)* });
        if !copy_rest::may_follow(&copy, &rest) {
            return None;
        }
        let mut closure = inv.closure.clone();
        closure.body = Box::new(rest);
        let after_copy = lower_rest(&inv.with_closure(closure, false));
        let item_loop = item_loop();
        quote_spanned! {span=> if #copied { #after_copy } else { #item_loop } }
    };
    Some(quote_spanned! {span=>
        {
            let #copied = {
                #[allow(unused_imports)]
                use ::scoped::__private::{CopyItems as _, ItemCopyPlace as _, NoItemCopy as _};
                (&::scoped::__private::ItemCopy::new((#local).__item_copy_place(), &#input))
                    .__copy_items(&#group)
            };
            #choice
        }
    })
}

/// The closure body's first expression statement and the statements after
/// it: the body itself, or the statements of a block.
fn statements(body: &Expr) -> Option<(&Expr, &[Stmt])> {
    match peel(body) {
        Expr::Block(block) if block.label.is_none() => match block.block.stmts.as_slice() {
            [Stmt::Expr(expr, semi), rest @ ..] if semi.is_some() || rest.is_empty() => {
                Some((expr, rest))
            }
            _ => None,
        },
        expr => Some((expr, &[])),
    }
}

/// Whether `index` reaches the item's own element of a per-item input:
/// the item, or its global id in a one-dimensional launch (as written, or
/// through the item: `global_id.rs`).
pub(super) fn is_item_index(index: &Expr, item: &Ident) -> bool {
    if super::global_id::by_item(index, item) {
        return true;
    }
    match peel(index) {
        Expr::Path(_) => name(index) == Some(item),
        expr => global_id_query(expr, item) == Some(GlobalId::Linear),
    }
}

/// Whether `expr` names a place without effects: a name other than the
/// item, its fields, and indices that are literals or such names.
fn is_place(expr: &Expr, item: &Ident) -> bool {
    let other_name = |expr| name(expr).is_some_and(|n| n != item);
    match peel(expr) {
        Expr::Path(_) => other_name(expr),
        Expr::Field(field) => is_place(&field.base, item),
        Expr::Index(index) => {
            is_place(&index.expr, item)
                && (matches!(peel(&index.index), Expr::Lit(_)) || other_name(&index.index))
        }
        _ => false,
    }
}

/// `expr` as a plain name (a one-segment path), through parentheses.
fn name(expr: &Expr) -> Option<&Ident> {
    match peel(expr) {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `distribute_items!(g, <closure>)` gets the copy lowering.
    fn copied(closure: &str) -> bool {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        distribute_items(&inv, &group, TokenStream::new, |_| TokenStream::new())
            .is_some_and(|t| t.to_string().contains("ItemCopy"))
    }

    #[test]
    fn copy_bodies_are_lowered_to_the_copy() {
        for closure in [
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; }",
            "|i| s[i.innermost_local_id_dim(0)] = x[i]",
            "|i| { s[i.local_id_dim(&g, 0)] = x[i.global_id_dim(0)] }",
            "|i| { t[r][i.local_linear_id(g)] = x[i.global_linear_id()]; }",
            "|i| { self.t.rows[1][i.innermost_local_linear_id()] = x[i]; }",
            "|i| { p[i] = x[i]; }",
            // Statements after the copy that reach the local memory and
            // the input only at the item's own element.
            "|i| { s[i.local_id_dim(&g, 0)] = x[i.global_id_dim(0)]; \
                 p[i] = s[i.local_id_dim(&g, 0)]; }",
            "|i| { p[i] = x[i]; y[i] = p[i] * 2; x[i] = 0; }",
            "|i| { t[1][i.innermost_local_id_dim(0)] = x[i]; \
                 y[i] = t[1][i.innermost_local_linear_id()] + x[i]; }",
        ] {
            assert!(copied(closure), "not lowered: {closure}");
        }
    }

    #[test]
    fn other_bodies_keep_the_item_loop() {
        for closure in [
            // More than the copy, or not an assignment.
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; s[0] = 1; }",
            "|i| { s[i.innermost_local_id_dim(0)] += x[i]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i] + 1; }",
            // Another dimension, another group, an offset.
            "|i| { s[i.innermost_local_id_dim(1)] = x[i]; }",
            "|i| { s[i.local_id_dim(&outer, 0)] = x[i]; }",
            "|i| { s[i.innermost_local_id_dim(0) + 1] = x[i]; }",
            // Not the item's own element.
            "|i| { s[i.innermost_local_id_dim(0)] = x[0]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i.global_id_dim(1)]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x.y[i]; }",
            // A place with effects or that names the item.
            "|i| { s[f()][i.innermost_local_id_dim(0)] = x[i]; }",
            "|i| { s[k + 1][i.innermost_local_id_dim(0)] = x[i]; }",
            "|i| { i[i.innermost_local_id_dim(0)] = x[i]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = i[i]; }",
            // After the copy: another item's element, another place of
            // the same array, the array or input as a whole, a name bound
            // again, the item in a macro, a statement before the copy.
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; \
                 y[i] = s[(i.innermost_local_id_dim(0) + 1) % 4]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; y[i] = x[0]; }",
            "|i| { t[1][i.innermost_local_id_dim(0)] = x[i]; \
                 t[0][i.innermost_local_id_dim(0)] = 1; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; f(&s); }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; y[i] = x.len(); }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; let s = [0; 4]; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; let i = 0; }",
            "|i| { s[i.innermost_local_id_dim(0)] = x[i]; m!(i); }",
            "|i| { let k = 0; s[i.innermost_local_id_dim(0)] = x[i]; }",
        ] {
            assert!(!copied(closure), "lowered: {closure}");
        }
    }
}
