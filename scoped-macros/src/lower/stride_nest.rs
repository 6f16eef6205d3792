//! Lowering shortcut: a `distribute_items!` whose items each walk a tile
//! with a nest of group-stride loops, one per dimension, each starting at
//! the item's local id in its dimension (the halo-tile fill of GPU stencil
//! code), runs as rounds of plain item loops:
//!
//! ```text
//! distribute_items!(group, |idx| {            for o0 in (0..L0).step_by(T0):
//!     let (r, c) = (idx.local_id_dim(&group, 0),    for o1 in (0..L1).step_by(T1):
//!                   idx.local_id_dim(&group, 1));       distribute_items!(group, |idx| {
//!     let mut tr = r;                                       let (r, c) = (..);
//!     while tr < L0 {                                       let (tr, tc) = (r + o0, c + o1);
//!         let mut tc = c;                                   if tr < L0 && tc < L1 { BODY }
//!         while tc < L1 { BODY; tc += T1; }             });
//!         tr += T0;
//!     }
//! })
//! ```
//!
//! Round `(o0, o1)` runs, for every item, the iteration at `r + o0`,
//! `c + o1` if there is one, so each item runs its own iterations in its
//! own order, and a round's item loop walks the tile row by row. Each
//! round is lowered as any `distribute_items!` (its reads checked a chunk
//! at a time, for example); written item by item, the nest ran every item's
//! iterations one after the other, a few points per row.
//!
//! The shape, exactly (anything else keeps the plain loop):
//! * the closure is `|idx| { ... }` (no `move`, `async`, return type);
//! * the body is zero or more `let`s of item queries (`let r = idx.
//!   local_id_dim(&g, 0);`, `let (r, c) = (.., ..);`, not `mut`, each name
//!   bound once), then one nest and nothing after it;
//! * a nest is `let mut i = START; while i < L { INNER; i += T; }` or
//!   `for i in (START..L).step_by(T) { INNER }`, where `INNER` is either
//!   one more nest and nothing else, or the body;
//! * each `START` is the item's local id in one dimension of the group the
//!   items are distributed over (`idx.local_id_dim(&group, d)`,
//!   `idx.innermost_local_id_dim(d)`, directly or through one of the
//!   `let`s), a different dimension at every level;
//! * `L` and `T` are made of literals, names, fields, casts, arithmetic and
//!   `.len()`, naming neither the item nor any binding of the body, and
//!   every name in them is only read anywhere in the body;
//! * the body neither writes, borrows mutably nor binds again any loop
//!   index or `let` name, and has no `break` or `continue` of the nest.
//!
//! The runtime (`__private::group_stride_rounds`) takes the rounds only
//! where they are what the items would do: every stride positive, the
//! group at most a stride wide in that dimension (so distinct items never
//! reach the same point), no `L + T` overflowing; otherwise the plain loop
//! runs. `L` and `T` are read as the nest reads them: the stride of a
//! level and the limit inside it only when the limits around are positive.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{Block, Expr, ExprClosure, Ident, Stmt};

use super::closure;
use super::grid_stride::{binds_any, index_read_only, invariant, match_for, match_while};
use super::guard::bind_queries;
use super::interchange::body::{lane_body, mentions};
use super::interchange::invariance::only_read;
use super::interchange::plain_item_block;
use super::interchange::prefix::split_pattern;
use super::item_syntax::{local_id, peel, query, LocalId};
use crate::check::group_ident;
use crate::parse::Invocation;

/// The rounds lowering of `inv`, if it has the shape described above;
/// `lower` lowers one round's `distribute_items!`.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    lower: impl Fn(&Invocation) -> TokenStream,
) -> Option<TokenStream> {
    let (item, stmts) = plain_item_block(inv)?;
    let group_name = group_ident(group)?;
    // The nest is the last statement, or the last two (`let mut i; while`).
    let at = stmts
        .len()
        .checked_sub(2)
        .filter(|&at| whole_loop(&stmts[at..]));
    let at = at.or_else(|| {
        stmts
            .len()
            .checked_sub(1)
            .filter(|&at| whole_loop(&stmts[at..]))
    })?;
    let (prefix, nest) = stmts.split_at(at);
    let lets = query_lets(prefix, &item)?;
    let mut levels: Vec<Level> = Vec::new();
    let mut body: Vec<Stmt> = nest.to_vec();
    while whole_loop(&body) {
        let parts = match_while(&body).or_else(|| match_for(&body[0]))?;
        let start = resolve(parts.start, &lets);
        let Some(LocalId::Dim(dim)) =
            query(&start, &item).and_then(|q| local_id(q, Some(group_name)))
        else {
            break;
        };
        if levels.iter().any(|level| level.dim == dim) {
            return None;
        }
        levels.push(Level {
            index: parts.index.clone(),
            start: parts.start.clone(),
            dim,
            limit: parts.limit.clone(),
            stride: parts.stride.clone(),
        });
        body = parts.body;
    }
    if levels.is_empty() {
        return None;
    }
    let mut names: Vec<Ident> = lets.iter().map(|(name, _)| name.clone()).collect();
    names.extend(levels.iter().map(|level| level.index.clone()));
    if names.contains(&item) {
        return None;
    }
    let block = Block {
        brace_token: Default::default(),
        stmts: body,
    };
    let mut read = Vec::new();
    for level in &levels {
        for expr in [&level.limit, &level.stride] {
            outside(expr, &item, &mut read)?;
        }
        if !index_read_only(&block, &level.index) {
            return None;
        }
    }
    if read.iter().any(|name| names.contains(name))
        || !block.stmts.iter().all(|stmt| only_read(stmt, &read))
        || binds_any(&block, &names)
        || !lane_body(&block, &names)
    {
        return None;
    }
    Some(lower_rounds(inv, group, prefix, &levels, &block, lower))
}

/// One loop of the nest.
struct Level {
    index: Ident,
    /// As written (a name of the `let`s, or the query).
    start: Expr,
    dim: usize,
    limit: Expr,
    stride: Expr,
}

fn lower_rounds(
    inv: &Invocation,
    group: &Expr,
    prefix: &[Stmt],
    levels: &[Level],
    body: &Block,
    lower: impl Fn(&Invocation) -> TokenStream,
) -> TokenStream {
    let span = inv.name.span();
    let mixed = Span::mixed_site();
    let var = |what: &str, k: usize| format_ident!("__scoped_{}{}", what, k, span = mixed);
    let limits: Vec<Ident> = (0..levels.len()).map(|k| var("limit", k)).collect();
    let strides: Vec<Ident> = (0..levels.len()).map(|k| var("stride", k)).collect();
    let offsets: Vec<Ident> = (0..levels.len()).map(|k| var("offset", k)).collect();
    // The round: every item at its point `start + offset`, if it has one.
    let indices: Vec<&Ident> = levels.iter().map(|level| &level.index).collect();
    let starts: Vec<&Expr> = levels.iter().map(|level| &level.start).collect();
    let stmts = &body.stmts;
    // A round where every item has its point runs the body unguarded, so
    // that the optimiser sees a plain tile row.
    let round = |guard: bool| {
        let test = guard.then(|| quote!(if #(#indices < #limits)&&*));
        let round_body: Expr = syn::parse_quote! {{
            #(#prefix)*
            #(let #indices = #starts + #offsets;)*
            #test {
                #(#stmts)*
            }
        }};
        lower(&inv.with_closure(
            ExprClosure {
                body: Box::new(round_body),
                ..inv.closure.clone()
            },
            false,
        ))
    };
    let (full, partial) = (round(false), round(true));
    let dims: Vec<usize> = levels.iter().map(|level| level.dim).collect();
    let mut rounds = quote_spanned! {span=>
        if ::scoped::__private::group_stride_round_full(
            &#group,
            [#(#dims),*],
            [#(#offsets),*],
            [#(#limits),*],
        ) {
            #full
        } else {
            #partial
        }
    };
    for k in (0..levels.len()).rev() {
        let (offset, limit, stride) = (&offsets[k], &limits[k], &strides[k]);
        rounds = quote_spanned! {span=>
            let mut #offset = 0usize;
            while #offset < #limit {
                #rounds;
                #offset += #stride;
            }
        };
    }
    // Each limit and stride read only where the nest reads it.
    let mut reads = TokenStream::new();
    let mut entered = quote!(true);
    for (k, level) in levels.iter().enumerate() {
        let (limit, stride) = (&limits[k], &strides[k]);
        let (limit_value, stride_value) = (&level.limit, &level.stride);
        reads.extend(quote_spanned! {span=>
            let #limit: usize = if #entered { #limit_value } else { 0 };
            let #stride: usize = if #limit > 0 { #stride_value } else { 0 };
        });
        entered = quote!(#limit > 0);
    }
    let plain = closure::call(inv, group);
    quote_spanned! {span=>
        {
            #reads
            if ::scoped::__private::group_stride_rounds(
                &#group,
                [#(#dims),*],
                [#(#limits),*],
                [#(#strides),*],
            ) {
                #rounds
            } else {
                #plain;
            }
        }
    }
}

/// Whether `stmts` are one group-stride loop and nothing else.
fn whole_loop(stmts: &[Stmt]) -> bool {
    let parts = match_while(stmts).or_else(|| stmts.first().and_then(match_for));
    parts.is_some_and(|parts| parts.len == stmts.len())
}

/// The names and item queries of `prefix`, if it is only `let`s binding
/// names (or tuples of names) to item queries, none `mut`, each name once.
fn query_lets<'a>(prefix: &'a [Stmt], item: &Ident) -> Option<Vec<(Ident, &'a Expr)>> {
    let mut lets = Vec::new();
    for stmt in prefix {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref()?;
        let mut names = Vec::new();
        split_pattern(&local.pat, &mut names)?;
        if !local.attrs.is_empty() || init.diverge.is_some() || names.iter().any(|(_, m)| *m) {
            return None;
        }
        bind_queries(&local.pat, &init.expr, item, &mut lets)?;
    }
    let once = lets
        .iter()
        .all(|(name, _)| lets.iter().filter(|(n, _)| n == name).count() == 1);
    once.then_some(lets)
}

/// `start`, or the query a `let` bound it to.
fn resolve(start: &Expr, lets: &[(Ident, &Expr)]) -> Expr {
    if let Expr::Path(path) = peel(start) {
        if let Some((_, value)) = path
            .path
            .get_ident()
            .and_then(|name| lets.iter().find(|(n, _)| n == name))
        {
            return (*value).clone();
        }
    }
    start.clone()
}

/// Whether `expr` can be read once before the items: invariant, naming
/// neither the item nor an index (which `invariant` allows for slices).
fn outside(expr: &Expr, item: &Ident, read: &mut Vec<Ident>) -> Option<()> {
    invariant(expr, item, read)?;
    let tokens = expr.to_token_stream();
    (!mentions(tokens, std::slice::from_ref(item)) && !has_index(expr)).then_some(())
}

/// Whether `expr` indexes anything (a read that could panic where the
/// nest would not have read it).
fn has_index(expr: &Expr) -> bool {
    struct Finds(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finds {
        fn visit_expr_index(&mut self, _: &'ast syn::ExprIndex) {
            self.0 = true;
        }
    }
    let mut finds = Finds(false);
    syn::visit::Visit::visit_expr(&mut finds, expr);
    finds.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `distribute_items!(g, <closure>)` is lowered as rounds.
    fn rounds(closure: &str) -> bool {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        distribute_items(&inv, &group, |_| quote!(round)).is_some()
    }

    #[test]
    fn group_stride_nests_run_in_rounds() {
        for closure in [
            // The halo-tile fill: `while` loops, starts through a tuple `let`.
            "|idx| { let (r, c) = (idx.local_id_dim(&g, 0), idx.local_id_dim(&g, 1));
                let mut tr = r;
                while tr < H { let mut tc = c; while tc < H { t[tr][tc] = x[tr * n + tc]; tc += T; } tr += T; } }",
            // `for` loops over `step_by`, starts as queries, dimensions swapped.
            "|idx| { for j in (idx.local_id_dim(&g, 1)..w).step_by(16) {
                for i in (idx.innermost_local_id_dim(0)..h).step_by(s.rows) { t[i][j] = 1; } } }",
            // One level, a typed index; limits from `.len()` and casts.
            "|idx| { let c = idx.local_id_dim(&g, 1); let mut j: usize = c;
                while j < x.len() { t[j] = x[j] as f32; j += k as usize; } }",
            // A level with more than the next loop is the last (inner loop per item).
            "|idx| { let (r, c) = (idx.local_id_dim(&g, 0), idx.local_id_dim(&g, 1)); let mut i = r;
                while i < n { o[i][0] = 1; let mut j = c; while j < n { o[i][j] = 1; j += 16; } i += 16; } }",
            // A body with its own loops, `break`s inside them, and `let`s.
            "|idx| { let r = idx.local_id_dim(&g, 0); let mut i = r;
                while i < n { let mut a = 0; for k in 0..4 { if k > i { break; } a += k; } o[i] = a; i += 8; } }",
        ] {
            assert!(rounds(closure), "not lowered: {closure}");
        }
    }

    #[test]
    fn other_nests_keep_the_plain_loop() {
        for closure in [
            // Starts that are not a local id of `g` in one dimension.
            "|idx| { let mut i = idx.global_id_dim(0); while i < n { o[i] = 1; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&h, 0); while i < n { o[i] = 1; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0) + 1; while i < n { o[i] = 1; i += 16; } }",
            // The same dimension twice.
            "|idx| { let r = idx.local_id_dim(&g, 0); let mut i = r;
                while i < n { let mut j = r; while j < n { o[i][j] = 1; j += 16; } i += 16; } }",
            // Statements after the nest.
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { o[i] = 1; i += 16; } o[0] = 2; }",
            // Statements before it other than `let`s of item queries.
            "|idx| { let a = 2 * n; let mut i = idx.local_id_dim(&g, 0); while i < a { o[i] = 1; i += 16; } }",
            "|idx| { f(); let mut i = idx.local_id_dim(&g, 0); while i < n { o[i] = 1; i += 16; } }",
            "|idx| { let mut r = idx.local_id_dim(&g, 0); let mut i = r; while i < n { o[i] = 1; i += 16; } }",
            // Limits and strides that depend on the item, the body, or index.
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { o[i] = 1; i += idx.local_range_dim(&g, 0); } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < s[0] { o[i] = 1; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { n = 3; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { o[i] = 1; i += f(k); } }",
            // The index written or bound again; leaving the nest early.
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { i += 1; o[i] = 1; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { let i = 0; o[i] = 1; i += 16; } }",
            "|idx| { let mut i = idx.local_id_dim(&g, 0); while i < n { if o[i] > 0 { break; } i += 16; } }",
            "|idx| { for i in (idx.local_id_dim(&g, 0)..n).step_by(16) { if o[i] > 0 { continue; } o[i] = 1; } }",
            "|idx| { for i in (idx.local_id_dim(&g, 0)..n).step_by(16) { if o[i] > 0 { return; } } }",
            // The closure's own form.
            "move |idx| { for i in (idx.local_id_dim(&g, 0)..n).step_by(16) { o[i] = 1; } }",
        ] {
            assert!(!rounds(closure), "lowered: {closure}");
        }
    }

    #[test]
    fn a_round_is_the_body_at_each_items_point() {
        let (inv, group) = crate::lower::distribute_items_on_g(
            "|idx| { let c = idx.local_id_dim(&g, 1); let mut j = c; while j < n { o[j] = 1; j += 16; } }",
        );
        let round = std::cell::RefCell::new(String::new());
        distribute_items(&inv, &group, |r| {
            *round.borrow_mut() = r.closure.to_token_stream().to_string();
            quote!(round)
        })
        .unwrap();
        let expected = quote! {
            |idx| {
                let c = idx.local_id_dim(&g, 1);
                let j = c + __scoped_offset0;
                if j < __scoped_limit0 { o[j] = 1; }
            }
        };
        assert_eq!(*round.borrow(), expected.to_string());
    }
}
