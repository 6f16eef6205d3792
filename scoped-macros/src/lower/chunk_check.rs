//! Lowering shortcut: a `distribute_items!` whose body reads shared-slice
//! kernel parameters at indices computed from the item's ids, the tile
//! loads of GPU code,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
//!     tile[r][c] = a[(row0 + r) * n + col0 + c];
//! })
//! ```
//!
//! runs the body as written, in chunks of `W` items
//! (`__private::distribute_items_chunk_checked`), each chunk after a check
//! made of the same comparisons as the reads' bounds checks, `index <
//! a.len()` for every read and item, folded without a branch. Where it
//! holds, the optimiser knows each bounds check in the chunk to pass and
//! vectorises it; the check only steers the optimiser, the body runs the
//! same whatever it finds. Indexed item by item, a check per read kept the
//! loop scalar.
//!
//! Before that check, a chunk may run windowed: the lowering passes the
//! body a second argument, `None` in the checked run and `Some((lane,
//! windows))` in a chunk where every read's index is the first lane's plus
//! the lane (wrapping) and its `W` elements lie in the slice
//! (`__private::consecutive`, `__private::window`); there each read
//! `a[index]` is `windows.k[lane]`, the same element (copied before the
//! lanes run where it is `Copy`, `__private::StageByValue`, and it is the
//! body's only checked read, not on a branch, a loop's body or the right
//! of `&&`, `||`, except in an edge statement, see
//! [`edges`](super::edges)), after computing
//! `index` as written for its overflow checks. A tile row's loads are then
//! `W` consecutive copies, which the optimiser vectorises with no check.
//!
//! The shape, exactly: the closure takes the item as a plain identifier,
//! not bound again in the body; a checked read is `name[index]` outside
//! closures and macros, `name` a parameter of the function declared
//! `name: &[T]` (not `mut`, not bound in the body), `index` made of `+`,
//! `-`, `*`, parentheses, integer literals, item queries (`idx.
//! local_id_dim(&group, 1)`) and names, at least one of them the item's,
//! each name either bound once in the body by a top-level `let` of item
//! queries alone (`let (r, c) = (..);`, not `mut`), or bound once by a
//! `let` in scope at the read (not `mut`) to a value of the index's own
//! shape, which the check computes in its place, or bound outside it
//! and only read in the body; `a.wrapping_add(b)`, `wrapping_sub`,
//! `wrapping_mul` count as `+`, `-`, `*`. The check computes each index with
//! wrapping arithmetic, so that it cannot panic: in release builds that
//! is the body's own arithmetic, which the optimiser then shares.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Pat, Stmt};

use super::group_slice::bound_names;
use super::interchange::invariance::only_read;
use super::item_syntax::{peel, query, wrapping_usize, IndexLeaves};
use crate::check::pat_ident;
use crate::parse::{Collective, Invocation};

/// The chunk-checked lowering of `inv`, if its body has a checked read of
/// one of `slices` (the shared-slice parameters in scope).
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
) -> Option<TokenStream> {
    lowered(inv, group, slices, None)
}

/// The chunk-checked lowering of `inv`, a statement on an edge of the
/// group (`lower/edges.rs`): run over the items whose local id in
/// `dimension` is `value` (an `Option<usize>`, see `Edge::read`).
pub(crate) fn on_edge(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
    (dimension, value): (usize, TokenStream),
) -> Option<TokenStream> {
    lowered(inv, group, slices, Some((dimension, value)))
}

fn lowered(
    inv: &Invocation,
    group: &Expr,
    slices: &[Ident],
    edge: Option<(usize, TokenStream)>,
) -> Option<TokenStream> {
    if inv.kind != Collective::DistributeItems || inv.closure.inputs.len() != 1 || slices.is_empty()
    {
        return None;
    }
    let item = pat_ident(&inv.closure.inputs[0])?;
    let body = &*inv.closure.body;
    let bound = bound_names(body);
    if bound.contains(&item) {
        return None;
    }
    let stmts: Vec<Stmt> = match body {
        Expr::Block(block) if block.label.is_none() => block.block.stmts.clone(),
        other => vec![Stmt::Expr(other.clone(), None)],
    };
    let (lets, queries) = query_lets(&stmts, &item, &bound);
    let mut reads = Reads {
        item: &item,
        slices: slices.iter().filter(|s| !bound.contains(s)).collect(),
        bound: &bound,
        queries: &queries,
        checks: Vec::new(),
        indices: Vec::new(),
        read_slices: Vec::new(),
        names: Vec::new(),
        lets: Vec::new(),
        checked: Vec::new(),
        unconditional: Vec::new(),
        branches: 0,
    };
    reads.visit_expr(body);
    if reads.checks.is_empty() || !stmts.iter().all(|stmt| only_read(stmt, &reads.names)) {
        return None;
    }
    let span = inv.name.span();
    let on_edge = edge.is_some();
    let (function, edge) = match edge {
        Some((dimension, value)) => ("on_edge_chunk_checked", quote!(#dimension, #value,)),
        None => ("chunk_checked", quote!()),
    };
    let function = format_ident!("distribute_items_{}", function, span = span);
    let checks = &reads.checks;
    let (indices, read_slices) = (&reads.indices, &reads.read_slices);
    let mixed = Span::mixed_site();
    let (lanes, lane, fast) = (
        Ident::new("__scoped_lanes", mixed),
        Ident::new("__scoped_lane", mixed),
        Ident::new("__scoped_fast", mixed),
    );
    let mut closure = inv.closure.clone();
    let mut windowed = Windowed {
        reads: &reads,
        count: 0,
        met: 0,
        fast: &fast,
    };
    windowed.visit_expr_mut(&mut closure.body);
    closure.inputs.push(Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: None,
        ident: fast.clone(),
        subpat: None,
    }));
    let closure = super::closure::item_closure(&closure);
    let lanes_const = quote!({ ::scoped::__private::CHUNK_CHECK_LANES });
    // A window read on a branch stays in place: staged, its loads ran
    // before the branch and every lane chose between its element and the
    // other arm's value (conv5x5's halo fill with `if i < n && j < n`:
    // 1.45× its peer, 1.0× in place). Not on an edge, whose chunk lies
    // along one row, where a halo's branch (`if i > 0`) goes one way for
    // the whole chunk: left in place there, GPU-form Jacobi's tile copy
    // in the loop before went back to scalar loads and stores.
    // Only a body's one checked read: the arrays of two or more went
    // back and forth on the stack before the lanes ran (GPU-form
    // matmul's `a` and `b` tiles, 1.15× → 1.25× its peer with AVX2).
    let alone = read_slices.len() == 1;
    let staged = read_slices
        .iter()
        .zip(&reads.unconditional)
        .enumerate()
        .map(|(number, (slice, &unconditional))| {
            let number = syn::Index::from(number);
            let window =
                quote!(::scoped::__private::window::<#lanes_const, _>(#slice, #lane[#number])?);
            if alone && (unconditional || on_edge) {
                quote!((&#window).stage())
            } else {
                quote!(#window.0)
            }
        });
    // Reads fetched one work group ahead where the collective runs once
    // per group, one step ahead in a loop whose next step the indices
    // follow (a tile per step of `k`: the next group's windows would wait
    // a whole group's run and leave the caches first), else not at all.
    let (ahead, replay) = match (inv.in_loop, &inv.next_step) {
        (false, _) => (quote!(NextGroup), Some(quote!())),
        (true, Some(step)) => (quote!(NextStep), step.replay(&reads.names)),
        (true, None) => (quote!(NextStep), None),
    };
    let prefetch = match replay {
        None => quote!(|_| {}),
        Some(replay) => {
            let numbers = (0..read_slices.len()).map(syn::Index::from);
            quote! {
                #[inline(always)]
                |#lanes| {
                    #replay
                    let #item = #lanes.item(0);
                    #(#[allow(unused_variables)] #lets)*
                    let #lane = [#(#indices),*];
                    #(::scoped::__private::prefetch_window::<#lanes_const, _>(#read_slices, #lane[#numbers]);)*
                }
            }
        }
    };
    let ahead = quote!(::scoped::__private::Ahead::#ahead);
    Some(quote_spanned! {span=>
        ::scoped::__private::#function::<#lanes_const, _, _, _>(
            &#group,
            #edge
            #[inline(always)]
            |#item| {
                #(#[allow(unused_variables)] #lets)*
                true #(& (#checks))*
            },
            #[inline(always)]
            |#lanes| {
                let #lane = ::scoped::__private::consecutive::<#lanes_const, _>(
                    #[inline(always)]
                    |#lane: usize| {
                        let #item = #lanes.item(#lane);
                        #(#[allow(unused_variables)] #lets)*
                        [#(#indices),*]
                    },
                )?;
                #[allow(unused_imports)]
                use ::scoped::__private::{StageByRef as _, StageByValue as _};
                ::core::option::Option::Some((
                    #(#staged,)*
                ))
            },
            (#ahead, #prefetch),
            #closure,
        )
    })
}

/// Rewrites the checked reads of a body (found in the same order as
/// [`Reads`] finds them) to read, in a chunk's windowed run, lane
/// `__scoped_lane` of their window instead of indexing the slice.
struct Windowed<'a, 'r> {
    reads: &'a Reads<'r>,
    /// Checked reads rewritten so far.
    count: usize,
    /// Index expressions met so far.
    met: usize,
    fast: &'a Ident,
}

impl VisitMut for Windowed<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Index(read) = &*expr {
            let checked = self.reads.checked[self.met];
            self.met += 1;
            if checked {
                let slice = &self.reads.read_slices[self.count];
                let number = syn::Index::from(self.count);
                self.count += 1;
                let index = &read.index;
                let (fast, mixed) = (self.fast, Span::mixed_site());
                let (lane, windows) = (
                    Ident::new("__scoped_lane", mixed),
                    Ident::new("__scoped_windows", mixed),
                );
                // Indexed as written outside windowed runs; in them the
                // index is still computed, for its overflow checks.
                *expr = syn::parse_quote_spanned! {read.span()=>
                    (*match #fast {
                        ::core::option::Option::Some((#lane, ref #windows)) => {
                            let _: usize = #index;
                            &#windows.#number[#lane]
                        }
                        ::core::option::Option::None => &#slice[#index],
                    })
                };
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The top-level `let`s of `stmts` that bind names to item queries alone
/// (a name, or a tuple of names, for a query or a tuple of queries), each
/// name bound once in the body and not `mut`; and those names.
fn query_lets<'a>(stmts: &'a [Stmt], item: &Ident, bound: &[Ident]) -> (Vec<&'a Stmt>, Vec<Ident>) {
    fn names(pat: &Pat, init: &Expr, item: &Ident, out: &mut Vec<Ident>) -> bool {
        match (pat, peel(init)) {
            (Pat::Tuple(p), Expr::Tuple(t)) if p.elems.len() == t.elems.len() => p
                .elems
                .iter()
                .zip(&t.elems)
                .all(|(pat, init)| names(pat, init, item, out)),
            (Pat::Ident(p), init) => {
                let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
                out.push(p.ident.clone());
                plain && query(init, item).is_some()
            }
            _ => false,
        }
    }
    let mut lets = Vec::new();
    let mut all = Vec::new();
    for stmt in stmts {
        let Stmt::Local(local) = stmt else { continue };
        let Some(init) = &local.init else { continue };
        let mut bound_here = Vec::new();
        if init.diverge.is_none()
            && local.attrs.is_empty()
            && names(&local.pat, &init.expr, item, &mut bound_here)
            && bound_here
                .iter()
                .all(|n| bound.iter().filter(|b| *b == n).count() == 1)
        {
            lets.push(stmt);
            all.extend(bound_here);
        }
    }
    (lets, all)
}

/// Finds the checked reads of a body.
struct Reads<'a> {
    item: &'a Ident,
    slices: Vec<&'a Ident>,
    /// Every name bound in the body.
    bound: &'a [Ident],
    /// Names bound to item queries by the body's top-level `let`s.
    queries: &'a [Ident],
    /// `index < slice.len()` for each read, the index in wrapping
    /// arithmetic.
    checks: Vec<TokenStream>,
    /// Each read's index in wrapping arithmetic, and its slice.
    indices: Vec<TokenStream>,
    read_slices: Vec<Ident>,
    /// Names from outside the body that the indices read.
    names: Vec<Ident>,
    /// The `let`s in scope that bind names to values of the indices'
    /// shape (`let (i, j) = (row0.wrapping_add(r), c + 1);`), inlined
    /// where an index names them.
    lets: Vec<(Ident, Expr)>,
    /// For every index expression of the body, in the order both visitors
    /// meet them, whether it is a checked read.
    checked: Vec<bool>,
    /// For every checked read, whether the body makes it whatever its
    /// branches do (not in an `if` or `match` arm, a loop's body or the
    /// right of `&&` or `||`): only those windows are staged by value.
    unconditional: Vec<bool>,
    /// How many branches, arms and loop bodies the visitor is inside.
    branches: usize,
}

impl Reads<'_> {
    /// `index` in wrapping arithmetic, with whether it depends on the
    /// item; `None` if it is not of the shape above. Records the names from
    /// outside the body it reads in `outside`.
    fn index(&self, index: &Expr, outside: &mut Vec<Ident>) -> Option<(TokenStream, bool)> {
        wrapping_usize(
            index,
            &mut ReadLeaves {
                reads: self,
                outside,
            },
        )
    }
}

/// The names and item queries of a read's index.
struct ReadLeaves<'r, 'a> {
    reads: &'r Reads<'a>,
    /// The names from outside the body the index reads.
    outside: &'r mut Vec<Ident>,
}

impl IndexLeaves for ReadLeaves<'_, '_> {
    fn leaf(&mut self, leaf: &Expr) -> Option<(TokenStream, bool)> {
        let mixed = Span::mixed_site();
        let reads = self.reads;
        match leaf {
            Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                let name = path.path.get_ident()?;
                let of_item = reads.queries.contains(name);
                if let Some((_, value)) = reads.lets.iter().find(|(n, _)| n == name) {
                    if !of_item {
                        return wrapping_usize(value, self);
                    }
                }
                if !of_item {
                    if reads.bound.contains(name) || name == reads.item {
                        return None;
                    }
                    self.outside.push(name.clone());
                }
                Some((
                    quote_spanned!(mixed=> ::scoped::__private::index_term(#name)),
                    of_item,
                ))
            }
            e => {
                query(e, reads.item)?;
                Some((
                    quote_spanned!(mixed=> ::scoped::__private::index_term(#e)),
                    true,
                ))
            }
        }
    }
}

impl Reads<'_> {
    /// `read`'s slice, its index in wrapping arithmetic and the names from
    /// outside the body the index reads, if `read` is a checked read.
    fn checked(&self, read: &syn::ExprIndex) -> Option<(Ident, TokenStream, Vec<Ident>)> {
        let slice = match peel(&read.expr) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
            _ => None,
        };
        let slice = slice.filter(|s| self.slices.contains(s))?;
        let mut outside = Vec::new();
        match self.index(&read.index, &mut outside)? {
            (index, true) => Some((slice.clone(), index, outside)),
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_expr_index(&mut self, read: &'ast syn::ExprIndex) {
        if let Some((slice, index, outside)) = self.checked(read) {
            self.checked.push(true);
            self.unconditional.push(self.branches == 0);
            self.checks.push(quote!(#index < <[_]>::len(#slice)));
            self.indices.push(index);
            self.read_slices.push(slice);
            self.names.extend(outside);
            // Its parts are names, literals and item queries: no read in
            // them, which keeps the reads' order that of `Windowed`.
            return;
        }
        self.checked.push(false);
        syn::visit::visit_expr_index(self, read);
    }

    // The same order as `syn::visit`'s (which `Windowed` follows), with
    // the parts that may not run counted as branches.
    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.visit_expr(&e.cond);
        self.branches += 1;
        self.visit_block(&e.then_branch);
        if let Some((_, other)) = &e.else_branch {
            self.visit_expr(other);
        }
        self.branches -= 1;
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.visit_expr(&e.expr);
        self.branches += 1;
        for arm in &e.arms {
            self.visit_arm(arm);
        }
        self.branches -= 1;
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        self.visit_expr(&e.left);
        let lazy = matches!(e.op, syn::BinOp::And(_) | syn::BinOp::Or(_));
        self.branches += usize::from(lazy);
        self.visit_expr(&e.right);
        self.branches -= usize::from(lazy);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.visit_expr(&e.cond);
        self.branches += 1;
        self.visit_block(&e.body);
        self.branches -= 1;
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.visit_pat(&e.pat);
        self.visit_expr(&e.expr);
        self.branches += 1;
        self.visit_block(&e.body);
        self.branches -= 1;
    }

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.branches += 1;
        self.visit_block(&e.body);
        self.branches -= 1;
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        let in_scope = self.lets.len();
        syn::visit::visit_block(self, block);
        self.lets.truncate(in_scope);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let Some(init) = &local.init else { return };
        self.visit_expr(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
            return;
        }
        let pairs: Vec<(&Pat, &Expr)> = match (&local.pat, peel(&init.expr)) {
            (Pat::Tuple(pats), Expr::Tuple(values)) if pats.elems.len() == values.elems.len() => {
                pats.elems.iter().zip(&values.elems).collect()
            }
            (pat, value) => vec![(pat, value)],
        };
        for (pat, value) in pairs {
            let Pat::Ident(p) = pat else { continue };
            let once = self.bound.iter().filter(|b| **b == p.ident).count() == 1;
            let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
            if once
                && plain
                && local.attrs.is_empty()
                && self.index(value, &mut Vec::new()).is_some()
            {
                self.lets.push((p.ident.clone(), value.clone()));
            }
        }
    }

    // Reads inside closures may run any number of times, with names the
    // closure binds; items are not statements of the body.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use super::*;

    /// What `distribute_items!(g, <closure>)` lowers to with the slices
    /// `a` and `b` in scope, if the shortcut applies.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let slices = [format_ident!("a"), format_ident!("b")];
        distribute_items(&inv, &group, &slices).map(|t| t.to_string())
    }

    #[test]
    fn reads_at_computed_indices_are_checked_a_chunk_at_a_time() {
        for (closure, checks) in [
            (
                "|i| { let (r, c) = (i.local_id_dim(&g, 0), i.local_id_dim(&g, 1)); \
                 t[r][c] = a[(row0 + r) * n + col0 + c]; }",
                1,
            ),
            (
                "|i| { let j = i.global_id_dim(1); o[i] = a[k * n + j] + b[2 * j - 1]; }",
                2,
            ),
            ("|i| o[i] = a[i.global_id_dim(0) * 3 + 1]", 1),
            // A read on a branch is checked all the same.
            (
                "|i| { let j = i.global_id_dim(0); if j > 0 { o[i] = a[j - 1]; } }",
                1,
            ),
            // Names bound on the way to a read by `let`s of index terms, and
            // wrapping arithmetic, on receivers read through `Rule4ReadOnly`.
            (
                "|i| { let j = i.global_id_dim(0); let t = j + k; if t > 0 {                  let (p, q) = ((*::scoped::__private::Rule4ReadOnly(&r0)).wrapping_add(t), 2 * j);                  o[i] = a[p * n] + b[q.wrapping_sub(1)]; } }",
                2,
            ),
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not lowered: {closure}"));
            assert!(out.contains("distribute_items_chunk_checked"), "{out}");
            assert_eq!(out.matches("< < [_] > :: len").count(), checks, "{out}");
            // One window per read, each read rewritten to use it.
            assert_eq!(out.matches(":: window ::").count(), checks, "{out}");
            // A lone read staged for the lanes (by value where `Copy`),
            // but on a branch, where it stays in place, as do two or more.
            let staged = usize::from(checks == 1 && !closure.contains(" > 0 {"));
            assert_eq!(out.matches(". stage ()").count(), staged, "{out}");
            assert_eq!(out.matches("__scoped_windows .").count(), checks, "{out}");
            assert!(
                !out.contains(" + ") || out.contains("wrapping_add"),
                "{out}"
            );
            // Each read's window fetched one group ahead.
            assert_eq!(out.matches("prefetch_window").count(), checks, "{out}");
        }
    }

    #[test]
    fn reads_in_a_loop_of_the_kernel_are_not_fetched_a_group_ahead() {
        let closure = "|i| { let j = i.global_id_dim(1); o[i] = a[k * n + j] + b[j]; }";
        let (mut inv, group) = crate::lower::distribute_items_on_g(closure);
        let slices = [format_ident!("a"), format_ident!("b")];
        let once = distribute_items(&inv, &group, &slices).unwrap().to_string();
        assert_eq!(once.matches("prefetch_window").count(), 2, "{once}");
        inv.in_loop = true;
        let looped = distribute_items(&inv, &group, &slices).unwrap().to_string();
        assert!(!looped.contains("prefetch_window"), "{looped}");
        // The chunks and their windows are the same.
        assert_eq!(looped.matches(":: window ::").count(), 2, "{looped}");
        assert!(looped.contains("Ahead :: NextStep"), "{looped}");
        assert!(once.contains("Ahead :: NextGroup"), "{once}");
    }

    #[test]
    fn reads_that_follow_a_loop_step_are_fetched_a_step_ahead() {
        let closure = "|i| { let j = i.global_id_dim(1); o[i] = a[k * n + j] + b[j]; }";
        let (mut inv, group) = crate::lower::distribute_items_on_g(closure);
        let slices = [format_ident!("a"), format_ident!("b")];
        inv.in_loop = true;
        let Expr::ForLoop(head) = syn::parse_quote!(for step in 0..m {}) else {
            unreachable!()
        };
        let mut step = crate::lower::next_step::NextStep::of_for(&head).unwrap();
        step.passed(&syn::parse_quote!(let k = step * 16;));
        inv.next_step = Some(step);
        let out = distribute_items(&inv, &group, &slices).unwrap().to_string();
        assert!(out.contains("Ahead :: NextStep"), "{out}");
        // Both reads fetched, after the step's `let`s replayed one further.
        assert_eq!(out.matches("prefetch_window").count(), 2, "{out}");
        let replayed = out.find("let step : usize").expect("the step replayed");
        assert!(out[replayed..].find("let k : usize") < out[replayed..].find("prefetch_window"));
        // A loop the indices do not follow fetches nothing.
        let Expr::ForLoop(other) = syn::parse_quote!(for t in 0..m {}) else {
            unreachable!()
        };
        inv.next_step = crate::lower::next_step::NextStep::of_for(&other);
        let out = distribute_items(&inv, &group, &slices).unwrap().to_string();
        assert!(!out.contains("prefetch_window"), "{out}");
    }

    #[test]
    fn other_reads_stay_as_written() {
        for closure in [
            // No item id in the index, not a slice in scope.
            "|i| { o[i] = a[k * n + 1]; }",
            "|i| { o[i] = c[i.global_id_dim(1) + 1]; }",
            // Names bound in the body other than by queries, or mutable.
            "|i| { let x = f(i); o[i] = a[x + i.global_id_dim(0)]; }",
            "|i| { let mut j = i.global_id_dim(0); j += 1; o[i] = a[j]; }",
            // Operators other than `+`, `-`, `*`; calls; the item itself.
            "|i| { o[i] = a[i.global_id_dim(0) / 2]; }",
            "|i| { o[i] = a[f(i.global_id_dim(0))]; }",
            // A name the body writes, a read inside a closure.
            "|i| { o[i] = a[n + i.global_id_dim(0)]; n = 3; }",
            "|i| { let at = |j: usize| a[j + i.global_id_dim(0)]; o[i] = at(1); }",
            // A `let` out of scope where the read names the same name (an
            // outer binding), a `let mut`, a method other than wrapping.
            "|i| { let j = i.global_id_dim(0); { let p = j + 1; } o[i] = a[p + j]; }",
            "|i| { let j = i.global_id_dim(0); let mut p = j + 1; o[i] = a[p]; }",
            "|i| { let j = i.global_id_dim(0); let p = j.saturating_add(1); o[i] = a[p]; }",
            // The slice or the item bound again.
            "|i| { let a = [0; 4]; o[i] = a[i.global_id_dim(0) + 1]; }",
        ] {
            assert_eq!(lowered(closure), None, "lowered: {closure}");
        }
    }
}
