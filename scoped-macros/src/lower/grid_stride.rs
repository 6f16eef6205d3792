//! Lowering shortcut: a `distribute_items!` whose items each run a
//! grid-stride loop runs it in rounds, iteration `t` of every item before
//! iteration `t + 1` (`__private::distribute_items_grid_stride`):
//!
//! ```text
//! distribute_items!(group, |idx| {          rounds t = 0, 1, … while any item is below n:
//!     let mut i = idx.global_linear_id();       for each item (a plain item loop):
//!     while i < n {                                 i = its id + t · stride; if i < n { body }
//!         out[i] = f(x[i]);
//!         i += idx.global_linear_range();
//!     }
//! })
//! ```
//!
//! Each item walks its own indices with a stride the same for every item,
//! so the items' index streams interleave: a round of a 1-D group reads
//! one contiguous run (the plain loop reads one element per item, a stride
//! apart), and the item loop of a round vectorises like any item loop.
//! Items of one `distribute_items!` are independent (rule 2); each item runs
//! its own statements and iterations in its own order, so every result,
//! float sums included, is the plain loop's.
//!
//! The shape, exactly (anything else keeps the plain loop):
//! * the closure is `|idx| { ... }` (no `move`, `async`, return type);
//! * the body is zero or more statements, then either
//!   `let mut i = START; while i < N { ...; i += STRIDE; }` (the increment
//!   the loop body's last statement) or
//!   `for i in (START..N).step_by(STRIDE) { ... }`, then zero or more
//!   statements;
//! * `START` is the item's global linear id, or its linear id in one of its
//!   groups (`global_linear_id()`, `local_linear_id(&g)`,
//!   `innermost_local_linear_id()`), directly or through a `let` of it
//!   before the loop;
//! * `N` and `STRIDE` are made of literals, names, fields, indices, casts,
//!   arithmetic, `.len()` and the item's range queries
//!   (`global_linear_range()`, `local_range_dim(&g, 0)`, …, directly or
//!   through a `let`), naming no other binding of the statements before
//!   the loop, and every name in them is only read anywhere in the body;
//! * `i` is only read in the loop body (no assignment, `&mut`, method call
//!   or macro naming it, no pattern rebinding it) and, for `while`, not
//!   named after the loop;
//! * the statements before the loop and the loop body obey the rules of
//!   the interchange shortcut (`interchange/`): `let`s of plain
//!   patterns that borrow none of their bindings, no `return`, `?`,
//!   labels, `async`, no `break` or `continue` of the loop, no closure or
//!   macro in the loop body naming a binding from before the loop.
//!
//! The runtime checks what it can only see when the group runs: the rounds
//! are taken when the starts of the group's items span less than `STRIDE`
//! (no two items reach the same index) and `N + STRIDE` fits in `usize`;
//! otherwise every item runs its plain body. The first shared-slice
//! parameter the loop body reads at `i` itself has each round's run asked
//! of the caches two rounds ahead: a group's runs lie a stride apart, and
//! hardware prefetchers stop at page boundaries.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Pat, Stmt, UnOp};

use super::interchange::body::{collect_idents, lane_body, mentions, Deref};
use super::interchange::invariance::{is_arithmetic, is_compound, only_read, read_only_inner};
use super::interchange::plain_item_block;
use super::interchange::prefix::{borrows, prefix_bindings};
use super::item_syntax::{is_name, peel, query, rooted_in};
use crate::parse::Invocation;

/// The grid-stride lowering of `inv`, if it has the shape described above.
/// `inv.closure.body` is already lowered.
/// `slices` are the shared-slice parameters in scope: the first one the
/// loop body reads at the loop's index has its rounds prefetched.
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
) -> Option<TokenStream> {
    let (item, stmts) = plain_item_block(inv)?;
    let shape = (0..stmts.len()).find_map(|at| Shape::new(&item, stmts, at))?;
    let bound = super::group_slice::bound_names(&inv.closure.body);
    let read = read_at_index(&shape.body, &shape.index, slices, &bound);
    Some(shape.lower(inv, group, read))
}

/// The first of `slices` (not bound in the body) that `body` reads at
/// `index` itself.
fn read_at_index(body: &[Stmt], index: &Ident, slices: &[Ident], bound: &[Ident]) -> Option<Ident> {
    struct Reads<'a> {
        index: &'a Ident,
        slices: &'a [Ident],
        bound: &'a [Ident],
        found: Option<Ident>,
    }
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expr_index(&mut self, read: &'ast syn::ExprIndex) {
            if let (Expr::Path(slice), None) = (peel(&read.expr), &self.found) {
                let slice = slice.path.get_ident();
                let known = slice.filter(|s| self.slices.contains(s) && !self.bound.contains(s));
                if let Some(slice) = known.filter(|_| is_name(&read.index, self.index)) {
                    self.found = Some(slice.clone());
                }
            }
            syn::visit::visit_expr_index(self, read);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut reads = Reads {
        index,
        slices,
        bound,
        found: None,
    };
    body.iter().for_each(|stmt| reads.visit_stmt(stmt));
    reads.found
}

/// A body split around its grid-stride loop.
struct Shape<'a> {
    item: &'a Ident,
    prefix: &'a [Stmt],
    /// The loop's index.
    index: Ident,
    start: Expr,
    limit: Expr,
    stride: Expr,
    /// The loop body, without a `while` loop's increment.
    body: Vec<Stmt>,
    suffix: &'a [Stmt],
    /// Bindings of the prefix that the loop body or the suffix uses, and
    /// whether each is `mut`.
    stored: Vec<(Ident, bool)>,
}

/// The parts of a grid-stride loop: its index, start, limit, stride, body
/// and whether it is a `while` loop, with the number of statements it takes.
pub(super) struct Parts<'a> {
    pub(super) index: Ident,
    pub(super) start: &'a Expr,
    pub(super) limit: &'a Expr,
    pub(super) stride: &'a Expr,
    pub(super) body: Vec<Stmt>,
    is_while: bool,
    pub(super) len: usize,
}

impl<'a> Shape<'a> {
    fn new(item: &'a Ident, stmts: &'a [Stmt], at: usize) -> Option<Self> {
        let parts = match_while(&stmts[at..]).or_else(|| match_for(&stmts[at]))?;
        let prefix = &stmts[..at];
        let suffix = &stmts[at + parts.len..];
        let index = parts.index.clone();
        let bindings = prefix_bindings(prefix)?;
        let names: Vec<Ident> = bindings.iter().map(|(name, _)| name.clone()).collect();
        if names.contains(item) || names.contains(&index) || index == *item {
            return None;
        }
        let mut own = names.clone();
        own.push(item.clone());
        if prefix.iter().any(|stmt| borrows(stmt, &own)) {
            return None;
        }
        // Start, limit and stride, with `let`s of item queries put back.
        let queries = query_lets(prefix, item);
        let start = substitute(parts.start, &queries);
        if !is_linear_id(&start, item) {
            return None;
        }
        let mut read = Vec::new();
        let limit = substitute(parts.limit, &queries);
        let stride = substitute(parts.stride, &queries);
        invariant(&limit, item, &mut read)?;
        invariant(&stride, item, &mut read)?;
        if read.iter().any(|name| own.contains(name) || *name == index) {
            return None;
        }
        let body_block = Block {
            brace_token: Default::default(),
            stmts: parts.body.clone(),
        };
        let everywhere = || prefix.iter().chain(&parts.body).chain(suffix);
        if !read.is_empty() && !everywhere().all(|stmt| only_read(stmt, &read)) {
            return None;
        }
        // The index: only read in the loop, gone after a `while` loop.
        let mut with_index = own.clone();
        with_index.push(index.clone());
        if !index_read_only(&body_block, &index)
            || binds_any(&body_block, &with_index)
            || !lane_body(&body_block, &with_index)
        {
            return None;
        }
        let after: TokenStream = suffix.iter().map(ToTokens::to_token_stream).collect();
        if parts.is_while && mentions(after.clone(), std::slice::from_ref(&index)) {
            return None;
        }
        let mut seen = std::collections::HashSet::new();
        collect_idents(body_block.to_token_stream(), &mut seen);
        collect_idents(after, &mut seen);
        let stored: Vec<(Ident, bool)> = bindings
            .into_iter()
            .filter(|(name, _)| seen.contains(&name.to_string()))
            .collect();
        Some(Shape {
            item,
            prefix,
            index,
            start,
            limit,
            stride,
            body: parts.body,
            suffix,
            stored,
        })
    }

    fn lower(&self, inv: &Invocation, group: &Expr, read: Option<Ident>) -> TokenStream {
        let span = inv.name.span();
        let mixed = Span::mixed_site();
        let step = format_ident!("__scoped_step", span = mixed);
        let values = format_ident!("__scoped_values", span = mixed);
        let Shape {
            item,
            prefix,
            index,
            start,
            limit,
            stride,
            suffix,
            ..
        } = self;
        let names: Vec<&Ident> = self.stored.iter().map(|(name, _)| name).collect();
        // The loop body reaches each value through a reference, `(*x)`.
        let used_in_body = |name: &Ident| {
            let tokens: TokenStream = self.body.iter().map(ToTokens::to_token_stream).collect();
            mentions(tokens, std::slice::from_ref(name))
        };
        let in_body: Vec<Ident> = names
            .iter()
            .filter(|name| used_in_body(name))
            .map(|name| (*name).clone())
            .collect();
        let step_fields = names.iter().map(|name| {
            if in_body.contains(name) {
                quote!(#name)
            } else {
                quote!(_)
            }
        });
        let mut body = Block {
            brace_token: Default::default(),
            stmts: self.body.clone(),
        };
        Deref { names: &in_body }.visit_block_mut(&mut body);
        let body = &body.stmts;
        let end_fields = self.stored.iter().map(|(name, mutable)| {
            if *mutable {
                quote!(mut #name)
            } else {
                quote!(#name)
            }
        });
        let param = |expr: &Expr| {
            if mentions(expr.to_token_stream(), std::slice::from_ref(item)) {
                quote!(#item)
            } else {
                quote!(_)
            }
        };
        let (limit_item, stride_item) = (param(limit), param(stride));
        let address = match read {
            Some(slice) => {
                quote!(|__scoped_i: usize| ::scoped::__private::element_address(#slice, __scoped_i))
            }
            None => quote!(|_: usize| ::core::ptr::null::<u8>()),
        };
        let function = format_ident!("distribute_items_grid_stride", span = span);
        let plain = &inv.closure.body;
        quote_spanned! {span=>
            ::scoped::__private::#function(
                &#group,
                #[inline(always)]
                |#item| -> usize { #start },
                #[inline(always)]
                |#limit_item| -> usize { #limit },
                #[inline(always)]
                |#stride_item| -> usize { #stride },
                #[inline(always)]
                #address,
                #[inline(always)]
                |#step| match #step {
                    ::scoped::__private::GridStep::Item(#item) => #plain,
                    // The statements' `mut`s are for the loop, not here.
                    #[allow(unused_variables, unused_mut)]
                    ::scoped::__private::GridStep::Start(#item, #values) => {
                        #(#prefix)*
                        #values.push((#(#names,)*));
                    }
                    #[allow(unused_variables)]
                    ::scoped::__private::GridStep::Step(#item, #values, #index) => {
                        let (#(#step_fields,)*) = #values;
                        #(#body)*
                    }
                    #[allow(unused_variables)]
                    ::scoped::__private::GridStep::End(#item, #values) => {
                        #[allow(unused_mut)]
                        let (#(#end_fields,)*) = #values;
                        #(#suffix)*
                    }
                },
            )
        }
    }
}

/// `let mut i = START; while i < N { ...; i += STRIDE; }` at the start of
/// `stmts`.
pub(super) fn match_while(stmts: &[Stmt]) -> Option<Parts<'_>> {
    let [Stmt::Local(local), Stmt::Expr(Expr::While(looped), _), ..] = stmts else {
        return None;
    };
    let init = local.init.as_ref()?;
    let index = match &local.pat {
        Pat::Ident(p) if p.mutability.is_some() && p.by_ref.is_none() && p.subpat.is_none() => {
            p.ident.clone()
        }
        Pat::Type(t) => match &*t.pat {
            Pat::Ident(p) if p.mutability.is_some() && p.by_ref.is_none() && p.subpat.is_none() => {
                p.ident.clone()
            }
            _ => return None,
        },
        _ => return None,
    };
    if init.diverge.is_some()
        || !local.attrs.is_empty()
        || looped.label.is_some()
        || !looped.attrs.is_empty()
    {
        return None;
    }
    let Expr::Binary(cond) = peel(&looped.cond) else {
        return None;
    };
    let limit = match cond.op {
        BinOp::Lt(_) if is_name(&cond.left, &index) => &*cond.right,
        BinOp::Gt(_) if is_name(&cond.right, &index) => &*cond.left,
        _ => return None,
    };
    let (last, body) = looped.body.stmts.split_last()?;
    let Stmt::Expr(Expr::Binary(step), Some(_)) = last else {
        return None;
    };
    if !matches!(step.op, BinOp::AddAssign(_)) || !is_name(&step.left, &index) {
        return None;
    }
    Some(Parts {
        index,
        start: &init.expr,
        limit,
        stride: &step.right,
        body: body.to_vec(),
        is_while: true,
        len: 2,
    })
}

/// `for i in (START..N).step_by(STRIDE) { ... }`.
pub(super) fn match_for(stmt: &Stmt) -> Option<Parts<'_>> {
    let Stmt::Expr(Expr::ForLoop(looped), _) = stmt else {
        return None;
    };
    if looped.label.is_some() || !looped.attrs.is_empty() {
        return None;
    }
    let Pat::Ident(p) = &*looped.pat else {
        return None;
    };
    if p.mutability.is_some() || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let Expr::MethodCall(call) = peel(&looped.expr) else {
        return None;
    };
    if call.method != "step_by" || call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let Expr::Range(range) = peel(&call.receiver) else {
        return None;
    };
    let (Some(start), Some(limit), syn::RangeLimits::HalfOpen(_)) =
        (&range.start, &range.end, &range.limits)
    else {
        return None;
    };
    Some(Parts {
        index: p.ident.clone(),
        start,
        limit,
        stride: &call.args[0],
        body: looped.body.stmts.clone(),
        is_while: false,
        len: 1,
    })
}

/// The `let NAME = VALUE;` of `prefix` whose name is bound once there, not
/// `mut`, and whose value is a linear id of the item or made as `N` and
/// `STRIDE` are (with the values of such `let`s before it put in): name
/// and value.
fn query_lets(prefix: &[Stmt], item: &Ident) -> Vec<(Ident, Expr)> {
    let mut bound = std::collections::HashMap::<String, usize>::new();
    let mut lets = Vec::new();
    for stmt in prefix {
        let Stmt::Local(local) = stmt else { continue };
        let mut seen = std::collections::HashSet::new();
        collect_idents(local.pat.to_token_stream(), &mut seen);
        for name in seen {
            *bound.entry(name).or_default() += 1;
        }
        let (Pat::Ident(p), Some(init)) = (&local.pat, &local.init) else {
            continue;
        };
        let plain = p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none();
        let value = substitute(&init.expr, &lets);
        let known =
            is_linear_id(&value, item) || invariant(&value, item, &mut Vec::new()).is_some();
        if plain && init.diverge.is_none() && known {
            lets.push((p.ident.clone(), value));
        }
    }
    lets.retain(|(name, _)| bound[&name.to_string()] == 1);
    lets
}

/// `expr` with every name of `queries` replaced by its query.
fn substitute(expr: &Expr, queries: &[(Ident, Expr)]) -> Expr {
    struct Put<'q>(&'q [(Ident, Expr)]);
    impl VisitMut for Put<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::Path(path) = expr {
                if let Some((_, query)) = path
                    .path
                    .get_ident()
                    .and_then(|name| self.0.iter().find(|(q, _)| q == name))
                {
                    *expr = syn::parse_quote!((#query));
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    let mut expr = expr.clone();
    Put(queries).visit_expr_mut(&mut expr);
    expr
}

/// Whether `expr` is a linear id of `item`: distinct for distinct items.
fn is_linear_id(expr: &Expr, item: &Ident) -> bool {
    query(expr, item).is_some_and(|call| {
        [
            "global_linear_id",
            "local_linear_id",
            "innermost_local_linear_id",
        ]
        .iter()
        .any(|m| call.method == m)
    })
}

/// A value the same for every item: literals, names, fields, indices,
/// casts, arithmetic, `.len()` and range queries of `item`. Collects the
/// names it reads.
pub(super) fn invariant(expr: &Expr, item: &Ident, names: &mut Vec<Ident>) -> Option<()> {
    const RANGES: [&str; 9] = [
        "global_range_dim",
        "global_linear_range",
        "local_range_dim",
        "local_linear_range",
        "innermost_local_range_dim",
        "innermost_local_linear_range",
        "global_range",
        "local_range",
        "innermost_local_range",
    ];
    if let Some(inner) = read_only_inner(expr) {
        return invariant(inner, item, names);
    }
    if let Some(call) = query(expr, item) {
        let scalar = RANGES[..6].iter().any(|m| call.method == m);
        return scalar.then_some(());
    }
    match expr {
        Expr::Lit(_) => Some(()),
        Expr::Path(path) if path.qself.is_none() => {
            if let Some(name) = path.path.get_ident() {
                if name == item {
                    return None;
                }
                names.push(name.clone());
            }
            Some(())
        }
        Expr::Field(field) => invariant(&field.base, item, names),
        Expr::Index(index) => {
            invariant(&index.expr, item, names)?;
            invariant(&index.index, item, names)
        }
        Expr::Paren(inner) => invariant(&inner.expr, item, names),
        Expr::Group(inner) => invariant(&inner.expr, item, names),
        Expr::Cast(cast) => invariant(&cast.expr, item, names),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_) | UnOp::Neg(_)) => {
            invariant(&unary.expr, item, names)
        }
        Expr::Binary(binary) if is_arithmetic(&binary.op) => {
            invariant(&binary.left, item, names)?;
            invariant(&binary.right, item, names)
        }
        Expr::MethodCall(call) if call.method == "len" && call.args.is_empty() => {
            invariant(&call.receiver, item, names)
        }
        _ => None,
    }
}

/// Whether nothing in `body` can write `index`: no assignment to it, no
/// `&mut` of it, no method call on it, no macro naming it.
pub(super) fn index_read_only(body: &Block, index: &Ident) -> bool {
    struct Writes<'n> {
        index: &'n [Ident],
        ok: bool,
    }
    impl<'ast> Visit<'ast> for Writes<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let rooted = |e: &Expr| rooted_in(e, self.index, true);
            match expr {
                Expr::Assign(a) => self.ok &= !rooted(&a.left),
                Expr::Binary(b) if is_compound(&b.op) => self.ok &= !rooted(&b.left),
                Expr::Reference(r) if r.mutability.is_some() => self.ok &= !rooted(&r.expr),
                Expr::RawAddr(r) => self.ok &= !rooted(&r.expr),
                Expr::MethodCall(call) => self.ok &= !rooted(&call.receiver),
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.ok &= !mentions(mac.tokens.clone(), self.index);
        }
    }
    let mut writes = Writes {
        index: std::slice::from_ref(index),
        ok: true,
    };
    writes.visit_block(body);
    writes.ok
}

/// Whether a pattern in `body` binds one of `names`.
pub(super) fn binds_any(body: &Block, names: &[Ident]) -> bool {
    struct Binds<'n>(&'n [Ident], bool);
    impl<'ast> Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.1 |= self.0.contains(&p.ident);
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut binds = Binds(names, false);
    binds.visit_block(body);
    binds.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token text of the lowering of `distribute_items!(g, <closure>)`,
    /// or `None` if it keeps the plain loop.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        distribute_items(&inv, &group, &[]).map(|t| t.to_string())
    }

    #[test]
    fn the_grid_stride_histogram_becomes_rounds() {
        let closure = "|idx| {
            let gid = idx.global_linear_id();
            let mut s = 0.0f32;
            let mut i = gid;
            while i < x.len() {
                s += x[i];
                i += idx.global_linear_range();
            }
            out[gid] = s;
        }";
        let plain = quote! {{
            let gid = idx.global_linear_id();
            let mut s = 0.0f32;
            let mut i = gid;
            while i < x.len() {
                s += x[i];
                i += idx.global_linear_range();
            }
            out[gid] = s;
        }};
        let expected = quote! {
            ::scoped::__private::distribute_items_grid_stride(
                &g,
                #[inline(always)]
                |idx| -> usize { (idx.global_linear_id()) },
                #[inline(always)]
                |_| -> usize { x.len() },
                #[inline(always)]
                |idx| -> usize { idx.global_linear_range() },
                #[inline(always)]
                |_: usize| ::core::ptr::null::<u8>(),
                #[inline(always)]
                |__scoped_step| match __scoped_step {
                    ::scoped::__private::GridStep::Item(idx) => #plain,
                    #[allow(unused_variables, unused_mut)]
                    ::scoped::__private::GridStep::Start(idx, __scoped_values) => {
                        let gid = idx.global_linear_id();
                        let mut s = 0.0f32;
                        __scoped_values.push((gid, s,));
                    }
                    #[allow(unused_variables)]
                    ::scoped::__private::GridStep::Step(idx, __scoped_values, i) => {
                        let (_, s,) = __scoped_values;
                        (*s) += x[i];
                    }
                    #[allow(unused_variables)]
                    ::scoped::__private::GridStep::End(idx, __scoped_values) => {
                        #[allow(unused_mut)]
                        let (gid, mut s,) = __scoped_values;
                        out[gid] = s;
                    }
                },
            )
        };
        assert_eq!(lowered(closure).unwrap(), expected.to_string());
    }

    #[test]
    fn grid_stride_loops_run_in_rounds() {
        for closure in [
            // Both forms, the stride as a query, a name or a `let`.
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += stride; } }",
            "|idx| { for i in (idx.global_linear_id()..n).step_by(idx.global_linear_range()) { o[i] = 1; } }",
            "|idx| { let s = idx.global_linear_range(); let g = idx.global_linear_id(); for i in (g..n).step_by(s) { o[i] = 1; } }",
            "|idx| { let mut i: usize = idx.global_linear_id(); while n > i { o[i] += i; i += 4 * self.k; } }",
            // Group-stride loops over local memory.
            "|idx| { let mut i = idx.local_linear_id(&group); while i < TILE { t[i] = x[i]; i += idx.local_range_dim(&group, 0); } }",
            "|idx| { for i in (idx.innermost_local_linear_id()..x.len()).step_by(idx.innermost_local_linear_range()) { t[i] = x[i]; } }",
            // 2-D ranges; statements around; nested loops with their own `break`.
            "|idx| { let mut a = 0; let mut i = idx.global_linear_id(); while i < n { for k in 0..4 { if k == i { break; } a += k; } i += idx.global_range_dim(0) * idx.global_range_dim(1); } o[idx] = a; }",
            // Receivers the walker reads through `Rule4ReadOnly`; calls taking `i` by value.
            "|idx| { let mut i = idx.global_linear_id(); while i < (*::scoped::__private::Rule4ReadOnly(&input)).len() { f(bin(input[i])); i += s; } }",
        ] {
            let lowered = lowered(closure).unwrap_or_else(|| panic!("not lowered: {closure}"));
            assert!(lowered.contains("distribute_items_grid_stride"), "{lowered}");
        }
    }

    #[test]
    fn a_slice_read_at_the_index_is_prefetched() {
        let lowered = |closure: &str, slices: &[Ident]| {
            let (inv, group) = crate::lower::distribute_items_on_g(closure);
            distribute_items(&inv, &group, slices).unwrap().to_string()
        };
        let (x, y) = (format_ident!("x"), format_ident!("y"));
        let loop_over = "|idx| { let mut i = idx.global_linear_id();                          while i < n { o[i] = y[i + 1] + x[i]; i += s; } }";
        // `x` is read at `i` itself; `y` only near it.
        let out = lowered(loop_over, &[x.clone(), y.clone()]);
        assert!(out.contains("element_address (x , __scoped_i)"), "{out}");
        let out = lowered(loop_over, std::slice::from_ref(&y));
        assert!(out.contains(":: core :: ptr :: null"), "{out}");
        // A slice bound again in the body is not the parameter.
        let shadowed = "|idx| { let x = [0; 4]; let mut i = idx.global_linear_id();                         while i < n { o[i] = x[i]; i += s; } }";
        let out = lowered(shadowed, &[x]);
        assert!(out.contains(":: core :: ptr :: null"), "{out}");
    }

    #[test]
    fn other_loops_keep_the_plain_loop() {
        for closure in [
            // Not a linear id, or a start the macro cannot see.
            "|idx| { let mut i = idx.global_id_dim(0); while i < n { o[i] = 1; i += s; } }",
            "|idx| { let mut i = 2 * idx.global_linear_id(); while i < n { o[i] = 1; i += s; } }",
            "|idx| { let mut i = f(idx); while i < n { o[i] = 1; i += s; } }",
            "|idx| { let g = idx.global_linear_id(); let g = g + 1; let mut i = g; while i < n { o[i] = 1; i += s; } }",
            // A stride or limit that depends on the item, or is written.
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += idx.global_linear_id(); } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += x[idx]; } }",
            "|idx| { let s = x[idx]; let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += f(s); } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { n -= 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += s; } s = 0; }",
            // The index written, borrowed or shadowed in the loop, or used after it.
            "|idx| { let mut i = idx.global_linear_id(); while i < n { i += 1; o[i] = 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { g(&mut i); i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { let i = 0; o[i] = 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[m!(i)] = 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i += s; } o[idx] = i; }",
            // The increment not last, or not `+=`; other conditions.
            "|idx| { let mut i = idx.global_linear_id(); while i < n { i += s; o[i] = 1; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n { o[i] = 1; i = i + s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i <= n { o[i] = 1; i += s; } }",
            "|idx| { let mut i = idx.global_linear_id(); while i < n && o[i] == 0 { o[i] = 1; i += s; } }",
            "|idx| { for i in (idx.global_linear_id()..=n).step_by(s) { o[i] = 1; } }",
            "|idx| { for i in (idx.global_linear_id()..n).step_by(s).rev() { o[i] = 1; } }",
            // Leaving the loop or the body early; labels.
            "|idx| { let mut i = idx.global_linear_id(); while i < n { if o[i] > 0 { break; } i += s; } }",
            "|idx| { for i in (idx.global_linear_id()..n).step_by(s) { if o[i] > 0 { continue; } o[i] = 1; } }",
            "|idx| { for i in (idx.global_linear_id()..n).step_by(s) { if o[i] > 0 { return; } o[i] = 1; } }",
            "|idx| { 'a: for i in (idx.global_linear_id()..n).step_by(s) { o[i] = 1; } }",
            "|idx| { let v = f()?; for i in (idx.global_linear_id()..n).step_by(s) { o[i] = v; } }",
            // Bindings before the loop that the values cannot hold.
            "|idx| { let a = [1]; let r = &a; for i in (idx.global_linear_id()..n).step_by(s) { o[i] = r[0]; } }",
            "|idx| { let v = 1; for i in (idx.global_linear_id()..n).step_by(s) { o[i] = (|| v)(); } }",
            // The closure's own form.
            "move |idx| { for i in (idx.global_linear_id()..n).step_by(s) { o[i] = 1; } }",
            "|idx| for i in (idx.global_linear_id()..n).step_by(s) { o[i] = 1; }",
        ] {
            assert!(lowered(closure).is_none(), "lowered: {closure}");
        }
    }
}
