//! Lowering shortcut: `distribute_groups!` whose closure does nothing but
//! one `distribute_items!` on the subgroup becomes a single loop over the
//! parent group's items (`__private::distribute_groups_items`).
//!
//! The nested form runs the subgroups one after the other and the items of
//! each in order, which is exactly the parent's items in increasing linear
//! id; nothing runs between two subgroups. One loop over all items keeps
//! that order, hands the body the same subgroup and item values, and is a
//! loop the optimiser vectorises across subgroup lanes, where a loop of
//! `S` iterations per subgroup would stay scalar.
//!
//! A `move` item closure is created once per sub-group, with fresh copies
//! of what it captures: it keeps the nested form.
//!
//! A body that works with its lanes (it names the subgroup or asks for an
//! `innermost_*` id, e.g. to keep one accumulator per lane) keeps a loop
//! per subgroup, where the lanes are what the optimiser can pack into SIMD
//! registers: `__private::distribute_groups_lanes`, the nested order, with
//! the rule checks made once for the whole loop.
//!
//! The same holds for a closure that is one `for` loop around such a lone
//! `distribute_items!` (`for j in 0..n { distribute_items!(sg, |idx| …) }`,
//! GPU code's loop over a tile in sub-group scope), when the loop's
//! iterations are the same for every subgroup (as `interchange/` judges
//! them: ranges and slice iterators of values only read): it becomes
//! `__private::distribute_groups_looped`, where a work group runs the loop
//! once per block of 16 items whatever the sub-group size, the block's
//! values kept in registers across it. Every item meets every `j` in
//! increasing order; items of different subgroups interleave, which only
//! a race between items can tell.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::{Expr, ExprClosure, Stmt};

use super::interchange::invariance::{invariant_iter, only_read};
use crate::check::{group_ident, pat_ident};
use crate::parse::{Collective, Invocation};

/// The fused lowering of `inv`, if it has the shape described above.
/// `inv.closure.body` is already lowered.
pub(crate) fn distribute_groups(inv: &Invocation, group: &Expr) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeGroups || inv.closure.capture.is_some() {
        return None;
    }
    let subgroup = inv.closure.inputs.first()?;
    let inner = lone_distribute_items(&inv.closure.body)?;
    let (call_group, items) = inner;
    let subgroup_name = pat_ident(subgroup)?;
    if group_ident(call_group)? != &subgroup_name || items.inputs.len() != 1 {
        return None;
    }
    // A `move` item closure takes its own copy of what it captures once
    // per sub-group; one fused closure would share one copy across the
    // sub-groups (and move captures the nested form cannot).
    if items.capture.is_some() {
        return None;
    }
    let runtime = if is_lane_aware(&items.body, &subgroup_name) {
        quote::format_ident!("distribute_groups_lanes", span = inv.name.span())
    } else {
        quote::format_ident!("distribute_groups_items", span = inv.name.span())
    };
    let item = &items.inputs[0];
    let body = &items.body;
    let span = inv.name.span();
    let fused = quote_spanned! {span=>
        ::scoped::__private::#runtime(&#group, #[inline(always)] |#subgroup, #item| {
            // The nested form used the subgroup's name; so does this one.
            let _ = &#subgroup_name;
            #body
        })
    };
    Some(fused)
}

/// The looped lowering of `inv`, if its closure is one `for` loop around a
/// lone, fusable `distribute_items!` on the subgroup (see the module
/// docs). `inv.closure.body` is already lowered.
pub(crate) fn distribute_groups_looped(inv: &Invocation, group: &Expr) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeGroups || inv.closure.capture.is_some() {
        return None;
    }
    let subgroup = inv.closure.inputs.first()?;
    let subgroup_name = pat_ident(subgroup)?;
    let Expr::Block(block) = &*inv.closure.body else {
        return None;
    };
    let looped = match block.block.stmts.as_slice() {
        [Stmt::Expr(Expr::ForLoop(looped), _)] => looped,
        _ => return None,
    };
    if block.label.is_some() || looped.label.is_some() || !looped.attrs.is_empty() {
        return None;
    }
    let [inner] = looped.body.stmts.as_slice() else {
        return None;
    };
    let inner = match inner {
        Stmt::Expr(expr, _) => expr,
        _ => return None,
    };
    let (call_group, items) = lone_distribute_items(inner)?;
    if group_ident(call_group)? != &subgroup_name
        || items.inputs.len() != 1
        || items.capture.is_some()
        || is_lane_aware(&items.body, &subgroup_name)
    {
        return None;
    }
    // The iterations: the same for every subgroup, made once per block.
    let mut names = Vec::new();
    invariant_iter(&looped.expr, &mut names)?;
    if names.contains(&subgroup_name) || !only_read(inner_stmt(looped), &names) {
        return None;
    }
    let (iter, pat, item, body) = (&looped.expr, &looped.pat, &items.inputs[0], &items.body);
    let span = inv.name.span();
    let fused = quote_spanned! {span=>
        ::scoped::__private::distribute_groups_looped(
            &#group,
            #[inline(always)]
            || #iter,
            #[inline(always)]
            |#subgroup, #pat, #item| {
                let _ = &#subgroup_name;
                #body
            },
        )
    };
    Some(fused)
}

/// The one statement of a `for` loop's body (checked by the caller).
fn inner_stmt(looped: &syn::ExprForLoop) -> &Stmt {
    &looped.body.stmts[0]
}

/// Whether `body` names `subgroup` or calls an `innermost_*` query.
fn is_lane_aware(body: &Expr, subgroup: &syn::Ident) -> bool {
    fn scan(tokens: proc_macro2::TokenStream, subgroup: &syn::Ident) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) => {
                ident == *subgroup || ident.to_string().starts_with("innermost_")
            }
            proc_macro2::TokenTree::Group(group) => scan(group.stream(), subgroup),
            _ => false,
        })
    }
    scan(quote::ToTokens::to_token_stream(body), subgroup)
}

/// `(group, closure)` of a body that is only
/// `::scoped::__private::distribute_items(&group, closure)`.
fn lone_distribute_items(body: &Expr) -> Option<(&Expr, &ExprClosure)> {
    let call = match body {
        Expr::Block(block) if block.label.is_none() => match block.block.stmts.as_slice() {
            [Stmt::Expr(expr, _)] => expr,
            _ => return None,
        },
        expr => expr,
    };
    let Expr::Call(call) = call else { return None };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    if segments != ["scoped", "__private", "distribute_items"] || call.args.len() != 2 {
        return None;
    }
    let Expr::Closure(closure) = &call.args[1] else {
        return None;
    };
    Some((&call.args[0], closure))
}
