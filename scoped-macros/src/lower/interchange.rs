//! Lowering shortcut: a `distribute_items!` whose body is statements, a
//! `for` loop whose iterations are the same for every item, and more
//! statements runs the loop outside and the items inside it
//! (`__private::distribute_items_interchanged`):
//!
//! ```text
//! distribute_items!(group, |idx| {          |idx| per chunk of W items:
//!     let xi = x[idx];                        prefix of each item, its `let`s kept in `[_; W]`
//!     let mut a = 0.0;                        for j in 0..n {
//!     for j in 0..n {                             for each item of the chunk { a += f(xi, t[j]) }
//!         a += f(xi, t[j]);                   }
//!     }                                       suffix of each item
//!     out[idx] = a;
//! })
//! ```
//!
//! A float sum over a loop is not vectorised (no reordering without
//! fast-math); with the items innermost, the `W` items' sums are `W`
//! independent chains the optimiser puts in the lanes of one register.
//! Items of one `distribute_items!` are independent (rule 2), so they may
//! interleave; each item runs its own statements in its own order, so
//! every result, floats included, is the plain loop's.
//!
//! The shape, exactly (anything else keeps the plain loop):
//! * the closure is `|idx| { ... }` (no `move`, `async`, return type);
//! * the body is zero or more statements, then a `for PAT in ITER { ... }`
//!   statement (the first one that fits), then zero or more statements;
//! * `ITER` is a range (`a..b`, `a..=b`) or `x.iter()` or `&x`, optionally
//!   followed by `.step_by(s)`, `.rev()`, `.enumerate()`, `.copied()`,
//!   `.skip(n)`, `.take(n)` or `.zip(other such ITER)`; its ends and
//!   receivers are literals, paths, field accesses, indices, casts,
//!   arithmetic and `.len()`, naming neither the item nor a binding of the
//!   statements before the loop, and every name in them is only read
//!   anywhere in the body (as `guard.rs` judges reads), so that every
//!   item would see the same iterations;
//! * the statements before the loop bind names with `let` of identifiers,
//!   tuples and slices of them (no `ref`, no `let ... else`, no
//!   uninitialised `let`), declare no items, and never borrow one of
//!   their own bindings or the item (`&x`, `ref`, a closure or a method
//!   call on it other than the by-value numeric ones): the bindings move
//!   into the lane array when the statements end;
//! * nothing in the body returns, uses `?`, `.await`, `async`, `yield` or
//!   a label, the loop body has no `break` or `continue` of its own loop,
//!   and neither it nor `PAT` binds the name of the item or of a binding
//!   from before the loop; closures and macros in the loop body do not
//!   name those bindings.
//!
//! A loop whose body is exactly one `for` loop, its `ITER` as above and
//! naming neither the outer loop's pattern nor a binding from before the
//! loop, its body without `break` or `continue` of its own, runs outside
//! the lanes too (`for dy { for dx { for each item … } }`), unless the
//! lanes' reads are checked ahead. The plain loop runs where the loop's
//! iterations (times the inner loop's, for such a loop) are at most
//! `INTERCHANGE_MAX_PLAIN_TRIPS`, unless the group is that of a kernel
//! with a required size (`group_size`), whose range is a constant: there
//! every loop of this shape runs interchanged.
//!
//! Inside the loop a binding `x` from before the loop is `(*x)`, a
//! reference into its lane (`&mut` if the binding is `mut`); the lanes of
//! a binding the loop only reads are read back from memory before it
//! (`__private::held_lanes`, same values). The items that do not fill a
//! chunk run the plain body.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, ExprForLoop, Ident, Pat, ReturnType, Stmt, UnOp};

use super::group_slice::bound_names;
use super::item_syntax::{peel, query, rooted_in};
use super::lane_check::{lane_checks, Indexed, LaneChecks};
use super::lane_window::{planned, step, windowed_body};
use crate::check::pat_ident;
use crate::parse::{Collective, Invocation};

/// The item's name and the statements of a `distribute_items!` whose
/// closure is a plain `|item| { … }` (no `move`, no return type, no
/// labels or early exits in its body): the shape both this lowering and
/// the grid-stride one start from.
pub(super) fn plain_item_block(inv: &Invocation) -> Option<(Ident, &[Stmt])> {
    let closure = &inv.closure;
    if inv.kind != Collective::DistributeItems
        || closure.inputs.len() != 1
        || closure.capture.is_some()
        || closure.asyncness.is_some()
        || closure.constness.is_some()
        || closure.movability.is_some()
        || closure.lifetimes.is_some()
        || !matches!(closure.output, ReturnType::Default)
    {
        return None;
    }
    let item = pat_ident(&closure.inputs[0])?;
    let Expr::Block(block) = &*closure.body else {
        return None;
    };
    if block.label.is_some() || !block.attrs.is_empty() || !plain_control(&closure.body) {
        return None;
    }
    let stmts = &block.block.stmts;
    Some((item, stmts))
}

/// The interchanged lowering of `inv`, if it has the shape described above.
/// `inv.closure.body` is already lowered.
/// `indexed` are the names whose reads the loop checks ahead
/// (`lane_check.rs`).
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    indexed: &[Indexed],
) -> Option<TokenStream> {
    let (item, stmts) = plain_item_block(inv)?;
    let shape = stmts.iter().enumerate().find_map(|(at, stmt)| match stmt {
        Stmt::Expr(Expr::ForLoop(looped), _) => {
            Shape::new(&item, &stmts[..at], looped, &stmts[at + 1..])
        }
        _ => None,
    })?;
    shape.lower(inv, group, indexed)
}

/// A body split around its loop, and the bindings the loop and the
/// statements after it use from the statements before it.
struct Shape<'a> {
    item: &'a Ident,
    prefix: &'a [Stmt],
    looped: &'a ExprForLoop,
    suffix: &'a [Stmt],
    /// `let`s of item queries alone (`let (r, c) = (idx.local_id_dim(..),
    /// ..)`), run again where the loop or the suffix needs them: a lane
    /// then sees its ids as the chunk's first plus the lane, consecutive.
    queries: Vec<&'a Stmt>,
    /// The names `queries` bind.
    query_names: Vec<Ident>,
    /// Bindings from the prefix that the loop uses, and whether each is `mut`.
    in_loop: Vec<(Ident, bool)>,
    /// Bindings from the prefix that the suffix uses.
    in_suffix: Vec<(Ident, bool)>,
}

impl<'a> Shape<'a> {
    fn new(
        item: &'a Ident,
        prefix: &'a [Stmt],
        looped: &'a ExprForLoop,
        suffix: &'a [Stmt],
    ) -> Option<Self> {
        if looped.label.is_some() || !looped.attrs.is_empty() {
            return None;
        }
        let bindings = prefix_bindings(prefix)?;
        let names: Vec<Ident> = bindings.iter().map(|(name, _)| name.clone()).collect();
        if names.contains(item) {
            return None;
        }
        let mut own = names.clone();
        own.push(item.clone());
        if prefix.iter().any(|stmt| borrows(stmt, &own)) {
            return None;
        }
        // The iterations: the same for every item.
        let mut range_names = Vec::new();
        invariant_iter(&looped.expr, &mut range_names)?;
        if range_names.iter().any(|name| own.contains(name)) {
            return None;
        }
        let rest = range_names.is_empty()
            || prefix
                .iter()
                .chain(&looped.body.stmts)
                .chain(suffix)
                .all(|stmt| only_read(stmt, &range_names));
        if !rest {
            return None;
        }
        // The loop body sees every lane's bindings under their own names.
        if binds_any(looped, &own) {
            return None;
        }
        if !lane_body(&looped.body, &own) {
            return None;
        }
        let (queries, query_names) = query_lets(prefix, item, &bindings);
        let used = |tokens: TokenStream| -> Vec<(Ident, bool)> {
            let mut seen = HashSet::new();
            collect_idents(tokens, &mut seen);
            bindings
                .iter()
                .filter(|(name, _)| seen.contains(&name.to_string()))
                .filter(|(name, _)| !query_names.contains(name))
                .cloned()
                .collect()
        };
        let in_loop = used(looped.body.to_token_stream());
        let in_suffix = used(suffix.iter().map(ToTokens::to_token_stream).collect());
        let shape = Shape {
            item,
            prefix,
            queries,
            query_names,
            looped,
            suffix,
            in_loop,
            in_suffix,
        };
        // `Unzip` takes tuples of up to 12 bindings.
        (shape.stored().len() <= 12).then_some(shape)
    }

    fn lower(&self, inv: &Invocation, group: &Expr, indexed: &[Indexed]) -> Option<TokenStream> {
        let span = inv.name.span();
        let mixed = Span::mixed_site();
        let chunk = format_ident!("__scoped_chunk", span = mixed);
        let handle = format_ident!("__scoped_chunk_lanes", span = mixed);
        let narrow = quote!(::scoped::__private::INTERCHANGE_LANES);
        let narrow_arm = self.chunk_arm(inv, indexed, &narrow, None)?;
        let item = self.item;
        let plain = &inv.closure.body;
        let plain_call = super::closure::call(inv, group);
        let expr = &self.looped.expr;
        // Wide steps where the loop carries at most one value per item
        // (`INTERCHANGE_WIDE_LANES`); more carried values are chains
        // enough. Values only read are loaded as whole vectors
        // (`held_lanes`), however many.
        let carried = self.in_loop.iter().filter(|(_, mutable)| *mutable).count();
        let call = if carried <= 1 {
            let wide = quote!(::scoped::__private::INTERCHANGE_WIDE_LANES);
            let wide_arm = self.chunk_arm(inv, indexed, &wide, None)?;
            // Two wide steps together, unless the lanes' reads are checked
            // (the checks fold the lanes of one step).
            let pair = quote!({ 2 * ::scoped::__private::INTERCHANGE_WIDE_LANES });
            let pair_arm = self.chunk_arm(inv, indexed, &pair, Some(&wide));
            let pairs = pair_arm.is_some();
            let pair_arm = match pair_arm {
                Some(arm) => quote!(::scoped::__private::WideItemChunk::Pair(#handle) => #arm),
                None => {
                    quote!(::scoped::__private::WideItemChunk::Pair(_) => ::core::unreachable!(),)
                }
            };
            let function = format_ident!("distribute_items_interchanged_wide", span = span);
            quote_spanned! {span=>
                ::scoped::__private::#function::<{ #narrow }, { #wide }, #pairs, _, _>(
                    &#group,
                    #[inline(always)]
                    |#chunk| match #chunk {
                        #pair_arm
                        ::scoped::__private::WideItemChunk::Wide(#handle) => #wide_arm
                        ::scoped::__private::WideItemChunk::Chunk(#handle) => #narrow_arm
                        ::scoped::__private::WideItemChunk::Item(#item) => #plain,
                    },
                )
            }
        } else {
            let function = format_ident!("distribute_items_interchanged", span = span);
            quote_spanned! {span=>
                ::scoped::__private::#function::<{ #narrow }, _, _>(
                    &#group,
                    #[inline(always)]
                    |#chunk| match #chunk {
                        ::scoped::__private::ItemChunk::Chunk(#handle) => #narrow_arm
                        ::scoped::__private::ItemChunk::Item(#item) => #plain,
                    },
                )
            }
        };
        let trips = |expr: &Expr| {
            quote! {
                ::core::iter::Iterator::size_hint(&::core::iter::IntoIterator::into_iter(#expr)).0
            }
        };
        if inv.required_size {
            // The range a constant, every lane's ids are below constants:
            // tile reads need no check per lane, and even a short loop
            // runs faster with the lanes innermost (GPU-form matmul's 16
            // steps; interchanged with its range read at run time, the
            // same kernel ran 2.7-2.9x its peer).
            return Some(call);
        }
        let mut trips_outer = trips(expr);
        if let Some(inner) = self.inner_iter() {
            let trips_inner = trips(inner);
            trips_outer = quote!(#trips_outer.saturating_mul(#trips_inner));
        }
        Some(quote_spanned! {span=>
            // A short loop (its iterations and those of a loop that is its
            // whole body) is unrolled in the item and the item loop
            // vectorised as it is: the plain lowering.
            if #trips_outer <= ::scoped::__private::INTERCHANGE_MAX_PLAIN_TRIPS {
                #plain_call
            } else {
                #call
            }
        })
    }

    /// The iterator of a `for` loop that is the interchanged loop's whole
    /// body, if it is the same for every item and every iteration: it
    /// names neither the item, nor a binding from before the loop, nor the
    /// loop's pattern, and its names are only read.
    fn inner_iter(&self) -> Option<&'a Expr> {
        self.inner_loop().map(|inner| &*inner.expr)
    }

    /// The `for` loop that is the interchanged loop's whole body, if its
    /// iterations are the same for every item and every iteration
    /// ([`Self::inner_iter`]) and its body has no `break` or `continue`
    /// of its own: the lanes then run innermost in both loops.
    fn inner_loop(&self) -> Option<&'a ExprForLoop> {
        let [Stmt::Expr(Expr::ForLoop(inner), _)] = self.looped.body.stmts.as_slice() else {
            return None;
        };
        if inner.label.is_some() || !inner.attrs.is_empty() || !lane_body(&inner.body, &[]) {
            return None;
        }
        let mut names = Vec::new();
        invariant_iter(&inner.expr, &mut names)?;
        let mut local = Vec::new();
        crate::check::pat_names(&self.looped.pat, &mut local);
        local.extend(
            prefix_bindings(self.prefix)?
                .into_iter()
                .map(|(name, _)| name),
        );
        local.push(self.item.clone());
        let read = self
            .prefix
            .iter()
            .chain(&self.looped.body.stmts)
            .chain(self.suffix)
            .all(|stmt| only_read(stmt, &names));
        (read && !names.iter().any(|name| local.contains(name))).then_some(inner)
    }

    /// The code a chunk of `width` items runs. With `split`, the chunk is
    /// an `ItemLanePair` of two steps of `split` items each, whose lanes
    /// each iteration runs as two loops, one per step (`None` if the
    /// lanes' reads are checked).
    fn chunk_arm(
        &self,
        inv: &Invocation,
        indexed: &[Indexed],
        width: &TokenStream,
        split: Option<&TokenStream>,
    ) -> Option<TokenStream> {
        let mixed = Span::mixed_site();
        let values = format_ident!("__scoped_values", span = mixed);
        let lane = format_ident!("__scoped_lane", span = mixed);
        let handle = format_ident!("__scoped_chunk_lanes", span = mixed);
        let item = self.item;
        let prefix = self.prefix;
        let suffix = self.suffix;
        let stored = self.stored();
        // One array per binding, its lanes consecutive.
        let arrays: Vec<Ident> = stored
            .iter()
            .map(|(name, _)| format_ident!("__scoped_lanes_{}", name, span = mixed))
            .collect();
        let stored_names = stored.iter().map(|(name, _)| name);
        // What each lane keeps; nothing (the prefix's own `()`) if empty.
        let kept = (!stored.is_empty()).then(|| quote!((#(#stored_names,)*)));
        let in_loop = self.in_loop.iter().map(|(name, mutable)| {
            let array = &arrays[stored.iter().position(|(s, _)| s == name).unwrap()];
            let borrow = if *mutable { quote!(&mut) } else { quote!(&) };
            quote!(let #name = #borrow #array[#lane];)
        });
        // The item queries each part needs, run again for its lane.
        let requery = |tokens: TokenStream| {
            let mut seen = HashSet::new();
            collect_idents(tokens, &mut seen);
            let lets: Vec<&Stmt> = self
                .queries
                .iter()
                .filter(|stmt| {
                    let mut bound = HashSet::new();
                    collect_idents(stmt_pattern(stmt), &mut bound);
                    bound.iter().any(|name| seen.contains(name))
                })
                .copied()
                .collect();
            let needs_item = seen.contains(&item.to_string()) || !lets.is_empty();
            (needs_item, lets)
        };
        let (loop_needs_item, loop_queries) = requery(self.looped.body.to_token_stream());
        let loop_item = loop_needs_item.then(|| quote!(let #item = #handle.item(#lane);));
        let (suffix_needs_item, suffix_queries) =
            requery(suffix.iter().map(ToTokens::to_token_stream).collect());
        let suffix_fields: Vec<TokenStream> = stored
            .iter()
            .map(|(name, mutable)| {
                if !self.in_suffix.iter().any(|(u, _)| u == name) {
                    quote!(_)
                } else if *mutable {
                    quote!(mut #name)
                } else {
                    quote!(#name)
                }
            })
            .collect();
        // The lanes' runs: all of them, or each step of a pair on its
        // own (one loop each, the step's lanes consecutive), with the
        // item of each lane.
        let runs: Vec<(TokenStream, TokenStream, Option<TokenStream>)> = match split {
            None => vec![(
                quote!(0),
                quote!((#width)),
                suffix_needs_item.then(|| quote!(let #item = #handle.item(#lane);)),
            )],
            Some(half) => vec![
                (
                    quote!(0),
                    quote!((#half)),
                    suffix_needs_item.then(|| quote!(let #item = #handle.first().item(#lane);)),
                ),
                (
                    quote!((#half)),
                    quote!((#width)),
                    suffix_needs_item
                        .then(|| quote!(let #item = #handle.second().item(#lane - #half);)),
                ),
            ],
        };
        let suffix_loop = if stored.is_empty() {
            let loops = runs.iter().map(|(start, end, suffix_item)| {
                quote! {
                    for #lane in #start..#end {
                        #suffix_item
                        #(#[allow(unused_variables)] #suffix_queries)*
                        #(#suffix)*
                    }
                }
            });
            quote!(#(#loops)*)
        } else if split.is_none() {
            let suffix_item = runs[0].2.as_ref();
            quote! {
                let #values = ::scoped::__private::Rezip::__rezip((#(#arrays,)*));
                for (#lane, #values) in ::core::iter::Iterator::enumerate(
                    ::core::iter::IntoIterator::into_iter(#values),
                ) {
                    #suffix_item
                    #[allow(unused_mut)]
                    let (#(#suffix_fields,)*) = #values;
                    #(#[allow(unused_variables)] #suffix_queries)*
                    #(#suffix)*
                }
            }
        } else {
            // A pair's lanes, a loop per step: a lane's item is then its
            // step's, with no branch on the lane (which kept the stores
            // of a pair's results scalar).
            let values_iter = format_ident!("__scoped_values_iter", span = mixed);
            let loops = runs.iter().map(|(start, end, suffix_item)| {
                let suffix_fields = suffix_fields.clone();
                quote! {
                    for #lane in #start..#end {
                        let ::core::option::Option::Some(#values) =
                            ::core::iter::Iterator::next(&mut #values_iter)
                        else {
                            ::core::unreachable!()
                        };
                        #suffix_item
                        #[allow(unused_mut)]
                        let (#(#suffix_fields,)*) = #values;
                        #(#[allow(unused_variables)] #suffix_queries)*
                        #(#suffix)*
                    }
                }
            });
            quote! {
                let mut #values_iter = ::core::iter::IntoIterator::into_iter(
                    ::scoped::__private::Rezip::__rezip((#(#arrays,)*)),
                );
                #(#loops)*
            }
        };
        let mut body = self.looped.body.clone();
        let lane_names: Vec<Ident> = self.in_loop.iter().map(|(n, _)| n.clone()).collect();
        Deref { names: &lane_names }.visit_block_mut(&mut body);
        let in_loop: Vec<TokenStream> = in_loop.collect();
        // The lanes of bindings the loop only reads, read back from
        // memory before it (`__private::held_lanes`): each step loads them
        // as whole vectors.
        let held: Vec<TokenStream> = self
            .in_loop
            .iter()
            .filter(|(_, mutable)| !mutable)
            .map(|(name, _)| {
                let array = &arrays[stored.iter().position(|(s, _)| s == name).unwrap()];
                quote!(let #array = ::scoped::__private::held_lanes(#array);)
            })
            .collect();
        let lanes_over = |body: &Block| {
            let body = &body.stmts;
            let Some(half) = split else {
                return quote! {
                    #[allow(clippy::needless_range_loop)]
                    for #lane in 0..(#width) {
                        #loop_item
                        #(#[allow(unused_variables)] #loop_queries)*
                        #(#in_loop)*
                        #(#body)*
                    }
                };
            };
            let first = loop_needs_item.then(|| quote!(let #item = #handle.first().item(#lane);));
            let second =
                loop_needs_item.then(|| quote!(let #item = #handle.second().item(#lane - #half);));
            quote! {
                #[allow(clippy::needless_range_loop)]
                for #lane in 0..#half {
                    #first
                    #(#[allow(unused_variables)] #loop_queries)*
                    #(#in_loop)*
                    #(#body)*
                }
                #[allow(clippy::needless_range_loop)]
                for #lane in (#half)..(#width) {
                    #second
                    #(#[allow(unused_variables)] #loop_queries)*
                    #(#in_loop)*
                    #(#body)*
                }
            }
        };
        let ExprForLoop { pat, expr, .. } = self.looped;
        let bound = bound_names(&inv.closure.body);
        let checks = lane_checks(
            &self.looped.body,
            indexed,
            item,
            &self.query_names,
            pat,
            &bound,
        );
        // A loop that is the whole body, the same for every item, runs
        // outside the lanes too: each iteration of both loops runs every
        // lane once, the form a filter's taps take by hand. Not where the
        // lanes' reads are checked (the checks fold one loop's lanes).
        let nested = match (self.inner_loop(), body.stmts.as_slice(), &checks) {
            (Some(_), [Stmt::Expr(Expr::ForLoop(inner), _)], None) => Some(inner),
            _ => None,
        };
        let mut lane_loop = match nested {
            Some(inner) => {
                let ExprForLoop { pat, expr, .. } = inner;
                let lanes = lanes_over(&inner.body);
                quote!(for #pat in #expr { #lanes })
            }
            None => lanes_over(&body),
        };
        // The loop with its windows checked once, where it can be.
        let mut planned_loop = None;
        if let Some(LaneChecks {
            lets,
            checks,
            windows,
        }) = checks
        {
            split.is_none().then_some(())?;
            // Each iteration folds its lanes' index checks, then runs the
            // lanes in one of two identical copies (`lane_check.rs`).
            // One fold per read, each of `W` comparisons, and one branch
            // per fold (`&&`): the optimiser finds each lane's comparison
            // under the branch of its fold, not at the end of one long
            // chain of `&` (layer norm's normalising loop, 4 reads of 8
            // lanes, kept every check).
            let fits: Vec<Ident> = (0..checks.len())
                .map(|n| format_ident!("__scoped_fits_{}", n, span = mixed))
                .collect();
            let (check_needs_item, check_queries) =
                requery(lets.iter().chain(&checks).cloned().collect());
            let check_item = check_needs_item.then(|| quote!(let #item = #handle.item(#lane);));
            let check_lane = quote! {
                #check_item
                #(#[allow(unused_variables)] #check_queries)*
                #(#lets)*
            };
            lane_loop = quote! {
                #(let mut #fits = true;)*
                for #lane in 0..(#width) {
                    #check_lane
                    #(#fits &= #checks;)*
                }
                // The copy for a failed fold starts with an opaque call, so
                // that the optimiser cannot merge the two and forget the folds.
                if true #(&& #fits)* {
                    #lane_loop
                } else {
                    ::core::hint::black_box(());
                    #lane_loop
                }
            };
            if let Some(windows) = windows {
                let lanes = lanes_over(&windowed_body(&body, &windows));
                lane_loop = step(&windows, width, &check_lane, &lanes, lane_loop);
                planned_loop = planned(
                    &windows,
                    width,
                    &check_lane,
                    &lanes,
                    &lane_loop,
                    self.looped,
                );
            }
        }
        let looped = planned_loop.unwrap_or_else(|| {
            quote! {
                for #pat in #expr {
                    #lane_loop
                }
            }
        });
        // The statements before the loop, item by item; a pair's steps
        // each in a loop of their own, so that each vectorises.
        let prefix_lanes = match split {
            None => quote! {
                ::scoped::__private::lane_array::<_, { #width }>(
                    #[inline(always)]
                    |#lane| {
                        let #item = #handle.item(#lane);
                        #(#prefix)*
                        #kept
                    },
                )
            },
            Some(half) => quote! {
                ::scoped::__private::pair_lane_array::<_, { #width }, { #half }, _>(
                    &#handle,
                    #[inline(always)]
                    |#item| {
                        #(#prefix)*
                        #kept
                    },
                )
            },
        };
        Some(quote! {
            {
                #handle.assume_inside();
                // Before the loop, item by item, keeping what the rest uses.
                // Item queries run again where they are used; items
                // are made from their lane where used, never kept
                // in an array (which went through memory).
                #[allow(unused_mut, unused_variables)]
                let (#(mut #arrays,)*) = ::scoped::__private::Unzip::__unzip(#prefix_lanes);
                #(#held)*
                #looped
                #suffix_loop
            }
        })
    }

    /// What the lanes hold: the bindings the loop or the suffix uses, once.
    fn stored(&self) -> Vec<(Ident, bool)> {
        let mut stored = self.in_loop.clone();
        for binding in &self.in_suffix {
            if !stored.iter().any(|(name, _)| *name == binding.0) {
                stored.push(binding.clone());
            }
        }
        stored
    }
}

/// The names the `let`s of `prefix` bind, each once with its last
/// mutability; `None` if a statement is not one the lanes can hold.
pub(super) fn prefix_bindings(prefix: &[Stmt]) -> Option<Vec<(Ident, bool)>> {
    let mut bindings: Vec<(Ident, bool)> = Vec::new();
    for stmt in prefix {
        match stmt {
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                if init.diverge.is_some() {
                    return None;
                }
                let mut names = Vec::new();
                split_pattern(&local.pat, &mut names)?;
                for (name, mutable) in names {
                    bindings.retain(|(n, _)| *n != name);
                    bindings.push((name, mutable));
                }
            }
            Stmt::Expr(..) | Stmt::Macro(_) => {}
            Stmt::Item(_) => return None,
        }
    }
    Some(bindings)
}

/// The `let`s of `prefix` whose values are item queries alone, binding
/// names without `mut` that no other `let` binds, and those names.
fn query_lets<'a>(
    prefix: &'a [Stmt],
    item: &Ident,
    bindings: &[(Ident, bool)],
) -> (Vec<&'a Stmt>, Vec<Ident>) {
    fn queries(expr: &Expr, item: &Ident) -> bool {
        match peel(expr) {
            Expr::Tuple(t) => t.elems.iter().all(|e| queries(e, item)),
            e => query(e, item).is_some(),
        }
    }
    let mut count = std::collections::HashMap::new();
    for stmt in prefix {
        if let Stmt::Local(local) = stmt {
            let mut names = Vec::new();
            if split_pattern(&local.pat, &mut names).is_some() {
                for (name, _) in names {
                    *count.entry(name).or_insert(0) += 1;
                }
            }
        }
    }
    let mut lets = Vec::new();
    let mut names = Vec::new();
    for stmt in prefix {
        let Stmt::Local(local) = stmt else { continue };
        let Some(init) = &local.init else { continue };
        let mut bound = Vec::new();
        let plain = split_pattern(&local.pat, &mut bound).is_some()
            && bound
                .iter()
                .all(|(name, mutable)| !mutable && count[name] == 1)
            && bound.iter().all(|b| bindings.contains(b))
            && queries(&init.expr, item);
        if plain && init.diverge.is_none() {
            lets.push(stmt);
            names.extend(bound.into_iter().map(|(name, _)| name));
        }
    }
    (lets, names)
}

/// The pattern of a `let` statement, as tokens.
fn stmt_pattern(stmt: &Stmt) -> TokenStream {
    match stmt {
        Stmt::Local(local) => local.pat.to_token_stream(),
        _ => TokenStream::new(),
    }
}

/// The names of an identifier, tuple or slice pattern, with whether each is
/// `mut`.
pub(super) fn split_pattern(pat: &Pat, names: &mut Vec<(Ident, bool)>) -> Option<()> {
    match pat {
        Pat::Ident(p) => {
            let upper = p.ident.to_string().starts_with(char::is_uppercase);
            if p.by_ref.is_some() || p.subpat.is_some() || upper {
                return None;
            }
            names.push((p.ident.clone(), p.mutability.is_some()));
            Some(())
        }
        Pat::Tuple(p) => p.elems.iter().try_for_each(|e| split_pattern(e, names)),
        Pat::Slice(p) => p.elems.iter().try_for_each(|e| split_pattern(e, names)),
        Pat::Type(p) => split_pattern(&p.pat, names),
        Pat::Paren(p) => split_pattern(&p.pat, names),
        Pat::Wild(_) | Pat::Rest(_) => Some(()),
        _ => None,
    }
}

/// An iterator whose items are the same, and `Copy`, for every item:
/// collects the names it reads.
pub(crate) fn invariant_iter(expr: &Expr, names: &mut Vec<Ident>) -> Option<()> {
    match peel(expr) {
        Expr::Range(range) => {
            for end in range.start.iter().chain(&range.end) {
                bound(end, names)?;
            }
            Some(())
        }
        Expr::Reference(r) if r.mutability.is_none() => bound(&r.expr, names),
        Expr::MethodCall(call) if call.turbofish.is_none() => {
            let args: Vec<&Expr> = call.args.iter().collect();
            match (call.method.to_string().as_str(), args.as_slice()) {
                ("iter", []) => bound(&call.receiver, names),
                ("rev" | "enumerate" | "copied", []) => invariant_iter(&call.receiver, names),
                ("step_by" | "skip" | "take", [n]) => {
                    bound(n, names)?;
                    invariant_iter(&call.receiver, names)
                }
                ("zip", [other]) => {
                    invariant_iter(other, names)?;
                    invariant_iter(&call.receiver, names)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `x` of `(*::scoped::__private::Rule4ReadOnly(&x))`, the shared read
/// the walker makes of a method call's receiver declared outside
/// `distribute_items!` (`lower/read_only.rs`).
pub(super) fn read_only_inner(expr: &Expr) -> Option<&Expr> {
    let Expr::Paren(paren) = expr else {
        return None;
    };
    let Expr::Unary(unary) = &*paren.expr else {
        return None;
    };
    let (UnOp::Deref(_), Expr::Call(call)) = (&unary.op, &*unary.expr) else {
        return None;
    };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let wrapper = path.path.segments.last()?.ident == "Rule4ReadOnly";
    match (wrapper, call.args.len(), call.args.first()) {
        (true, 1, Some(Expr::Reference(r))) if r.mutability.is_none() => Some(&r.expr),
        _ => None,
    }
}

/// A value made of literals, paths, fields, indices, casts, arithmetic and
/// `.len()`: collects the names it reads.
pub(super) fn bound(expr: &Expr, names: &mut Vec<Ident>) -> Option<()> {
    if let Some(inner) = read_only_inner(expr) {
        return bound(inner, names);
    }
    match expr {
        Expr::Lit(_) => Some(()),
        Expr::Path(path) if path.qself.is_none() => {
            if let Some(name) = path.path.get_ident() {
                names.push(name.clone());
            }
            Some(())
        }
        Expr::Field(field) => bound(&field.base, names),
        Expr::Index(index) => {
            bound(&index.expr, names)?;
            bound(&index.index, names)
        }
        Expr::Paren(inner) => bound(&inner.expr, names),
        Expr::Group(inner) => bound(&inner.expr, names),
        Expr::Cast(cast) => bound(&cast.expr, names),
        Expr::Unary(unary) if !matches!(unary.op, UnOp::Not(_)) => bound(&unary.expr, names),
        Expr::Binary(binary) if is_arithmetic(&binary.op) => {
            bound(&binary.left, names)?;
            bound(&binary.right, names)
        }
        Expr::MethodCall(call) if call.method == "len" && call.args.is_empty() => {
            bound(&call.receiver, names)
        }
        _ => None,
    }
}

pub(super) fn is_arithmetic(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Add(_)
            | BinOp::Sub(_)
            | BinOp::Mul(_)
            | BinOp::Div(_)
            | BinOp::Rem(_)
            | BinOp::Shl(_)
            | BinOp::Shr(_)
            | BinOp::BitAnd(_)
            | BinOp::BitOr(_)
            | BinOp::BitXor(_)
    )
}

pub(super) fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) | BinOp::Eq(_) | BinOp::Ne(_)
    )
}

/// Whether `tokens` contain one of `names`, at any depth.
pub(super) fn mentions(tokens: TokenStream, names: &[Ident]) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => names.contains(&ident),
        TokenTree::Group(group) => mentions(group.stream(), names),
        _ => false,
    })
}

pub(super) fn collect_idents(tokens: TokenStream, seen: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                seen.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect_idents(group.stream(), seen),
            _ => {}
        }
    }
}

/// Whether nothing in `body` leaves it other than by finishing: no
/// `return`, `?`, `.await`, `async`, `yield`, label, or macro that may
/// hide one of them (or a `break`/`continue`).
pub(super) fn plain_control(body: &Expr) -> bool {
    struct Plain(bool);
    impl<'ast> Visit<'ast> for Plain {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Return(_)
                | Expr::Try(_)
                | Expr::Await(_)
                | Expr::Async(_)
                | Expr::Yield(_)
                | Expr::TryBlock(_) => self.0 = false,
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_label(&mut self, _: &'ast syn::Label) {
            self.0 = false;
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            // Labels of `break 'a` / `continue 'a`; lifetimes in types are fine.
            let _ = lifetime;
        }
        fn visit_expr_break(&mut self, e: &'ast syn::ExprBreak) {
            self.0 &= e.label.is_none();
            syn::visit::visit_expr_break(self, e);
        }
        fn visit_expr_continue(&mut self, e: &'ast syn::ExprContinue) {
            self.0 &= e.label.is_none();
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0 &= !hides_control(mac.tokens.clone());
        }
    }
    let mut plain = Plain(true);
    plain.visit_expr(body);
    plain.0
}

fn hides_control(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ["return", "break", "continue", "await", "yield", "async"]
            .contains(&&*ident.to_string()),
        TokenTree::Punct(punct) => punct.as_char() == '?',
        TokenTree::Group(group) => hides_control(group.stream()),
        TokenTree::Literal(_) => false,
    })
}

/// Whether the loop body can run once per lane inside the loop: no
/// `break`/`continue` of the loop itself, and no closure or macro naming
/// the lane bindings (`names`).
pub(super) fn lane_body(body: &Block, names: &[Ident]) -> bool {
    struct Lanes<'n> {
        names: &'n [Ident],
        /// Loops (or closures) entered below the loop body.
        depth: usize,
        ok: bool,
    }
    impl<'ast> Visit<'ast> for Lanes<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Break(_) | Expr::Continue(_) if self.depth == 0 => self.ok = false,
                Expr::Closure(closure) => {
                    self.ok &= !mentions(closure.to_token_stream(), self.names);
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.depth += 1;
                    syn::visit::visit_expr(self, expr);
                    self.depth -= 1;
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.ok &= !mentions(mac.tokens.clone(), self.names);
        }
    }
    let mut lanes = Lanes {
        names,
        depth: 0,
        ok: true,
    };
    lanes.visit_block(body);
    lanes.ok
}

/// Whether a pattern in the loop's pattern or body binds one of `names`.
fn binds_any(looped: &ExprForLoop, names: &[Ident]) -> bool {
    struct Binds<'n>(&'n [Ident], bool);
    impl<'ast> Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.1 |= self.0.contains(&p.ident);
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut binds = Binds(names, false);
    binds.visit_pat(&looped.pat);
    binds.visit_block(&looped.body);
    binds.1
}

/// Whether `stmt` (from before the loop) may borrow one of `names`, so
/// that a value kept in a lane could point at a binding that ends with
/// the statements before the loop.
pub(super) fn borrows(stmt: &Stmt, names: &[Ident]) -> bool {
    /// Methods that take a number by value and return a number.
    const BY_VALUE: [&str; 30] = [
        "abs",
        "ceil",
        "clamp",
        "cos",
        "exp",
        "floor",
        "ln",
        "log2",
        "max",
        "min",
        "mul_add",
        "powf",
        "powi",
        "pow",
        "recip",
        "round",
        "signum",
        "sin",
        "sqrt",
        "tan",
        "to_bits",
        "trunc",
        "wrapping_add",
        "wrapping_mul",
        "wrapping_sub",
        "saturating_sub",
        "saturating_add",
        "rem_euclid",
        "div_euclid",
        "exp2",
    ];
    struct Borrows<'n> {
        names: &'n [Ident],
        found: bool,
    }
    impl Borrows<'_> {
        fn rooted(&self, expr: &Expr) -> bool {
            rooted_in(expr, self.names, true)
        }
    }
    impl<'ast> Visit<'ast> for Borrows<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Reference(r) => self.found |= self.rooted(&r.expr),
                Expr::RawAddr(r) => self.found |= self.rooted(&r.expr),
                Expr::MethodCall(call) => {
                    let numeric = BY_VALUE.iter().any(|m| call.method == m);
                    // The item (last of `names`): its queries return values.
                    let on_item = matches!(peel(&call.receiver), Expr::Path(p)
                        if p.path.get_ident() == self.names.last());
                    self.found |= self.rooted(&call.receiver) && !numeric && !on_item;
                }
                Expr::Closure(closure) => {
                    self.found |= mentions(closure.to_token_stream(), self.names);
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.found |= p.by_ref.is_some();
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let Some(init) = &local.init {
                if let Expr::Macro(mac) = &*init.expr {
                    self.found |= mentions(mac.mac.tokens.clone(), self.names);
                }
            }
            syn::visit::visit_local(self, local);
        }
    }
    let mut borrows = Borrows {
        names,
        found: false,
    };
    borrows.visit_stmt(stmt);
    borrows.found
}

/// Whether every use of `names` in `stmt` only reads a value: nothing can
/// assign it, borrow it, move it, pass it on or call a method on it other
/// than `len()`. An element read by index (`t[j]`) counts as a read.
pub(crate) fn only_read(stmt: &Stmt, names: &[Ident]) -> bool {
    struct Uses<'n> {
        names: &'n [Ident],
        read: bool,
        ok: bool,
    }
    impl Uses<'_> {
        fn rooted(&self, expr: &Expr) -> bool {
            rooted_in(expr, self.names, false)
        }
        fn visit_as(&mut self, read: bool, expr: &Expr) {
            let saved = std::mem::replace(&mut self.read, read);
            self.visit_expr(expr);
            self.read = saved;
        }
        /// A value handed on (argument, tuple element, `let`): an element
        /// read by index is a copy; anything else may move or reborrow.
        fn visit_value(&mut self, expr: &Expr) {
            let read = matches!(peel(expr), Expr::Index(_));
            self.visit_as(read, expr);
        }
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            if !self.ok {
                return;
            }
            if self.rooted(expr) {
                self.ok &= self.read;
                return;
            }
            if let Some(inner) = read_only_inner(expr) {
                // Only `&self` methods (or `Copy` ones) go through it.
                self.visit_as(true, inner);
                return;
            }
            match expr {
                Expr::Binary(b) if is_arithmetic(&b.op) || is_comparison(&b.op) => {
                    self.visit_as(true, &b.left);
                    self.visit_as(true, &b.right);
                }
                // What an assignment stores is a value handed on.
                Expr::Assign(a) => {
                    self.visit_as(false, &a.left);
                    self.visit_value(&a.right);
                }
                Expr::Binary(b) if is_compound(&b.op) => {
                    self.visit_as(false, &b.left);
                    self.visit_value(&b.right);
                }
                Expr::Unary(u) if !matches!(u.op, UnOp::Deref(_)) => self.visit_as(true, &u.expr),
                Expr::Unary(u) => self.visit_as(self.read, &u.expr),
                Expr::Cast(c) => self.visit_as(true, &c.expr),
                Expr::Paren(p) => self.visit_as(self.read, &p.expr),
                Expr::Index(i) => {
                    self.visit_as(self.read, &i.expr);
                    self.visit_as(true, &i.index);
                }
                Expr::Range(r) => {
                    for end in r.start.iter().chain(&r.end) {
                        self.visit_as(true, end);
                    }
                }
                Expr::MethodCall(call) if call.method == "len" && call.args.is_empty() => {
                    self.visit_as(true, &call.receiver)
                }
                // Integer arithmetic spelled as a method: `self` by value.
                Expr::MethodCall(call) if is_wrapping_arithmetic(call) => {
                    self.visit_as(true, &call.receiver);
                    self.visit_as(true, &call.args[0]);
                }
                Expr::MethodCall(call) => {
                    self.visit_as(false, &call.receiver);
                    call.args.iter().for_each(|a| self.visit_value(a));
                }
                Expr::Call(call) => {
                    self.visit_as(false, &call.func);
                    call.args.iter().for_each(|a| self.visit_value(a));
                }
                Expr::Tuple(t) => t.elems.iter().for_each(|e| self.visit_value(e)),
                Expr::Array(a) => a.elems.iter().for_each(|e| self.visit_value(e)),
                _ => {
                    let saved = std::mem::replace(&mut self.read, false);
                    syn::visit::visit_expr(self, expr);
                    self.read = saved;
                }
            }
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let Some(init) = &local.init {
                self.visit_value(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_as(false, diverge);
                }
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.ok &= !mentions(mac.tokens.clone(), self.names);
        }
    }
    let mut uses = Uses {
        names,
        read: false,
        ok: true,
    };
    uses.visit_stmt(stmt);
    uses.ok
}

/// `a.wrapping_add(b)`, `wrapping_sub` or `wrapping_mul`: integer
/// arithmetic that takes its receiver by value.
pub(super) fn is_wrapping_arithmetic(call: &syn::ExprMethodCall) -> bool {
    call.args.len() == 1
        && call.turbofish.is_none()
        && ["wrapping_add", "wrapping_sub", "wrapping_mul"]
            .iter()
            .any(|m| call.method == m)
}

/// Rewrites the lane bindings `x` of the loop body to `(*x)`.
pub(super) struct Deref<'n> {
    pub(super) names: &'n [Ident],
}

impl VisitMut for Deref<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Path(path) = expr {
            if let Some(name) = path.path.get_ident().filter(|n| self.names.contains(n)) {
                let name = name.clone();
                *expr = syn::parse_quote_spanned!(name.span()=> (*#name));
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        // `S { x }` becomes `S { x: (*x) }`.
        if field.colon_token.is_none() {
            field.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, field);
    }
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
    fn the_gpu_gems_body_becomes_the_loop_over_lanes_inside_the_j_loop() {
        let closure = "|idx| {
            let i = idx.global_linear_id();
            let (xi, yi) = (x[i], y[i]);
            let (mut ax, mut ay) = (0.0f32, 0.0f32);
            for j in 0..TILE {
                let dx = tx[j] - xi;
                ax += dx * yi;
                ay += dx * xi;
            }
            out[i] = ax + ay;
        }";
        let expected = quote! {
            if ::core::iter::Iterator::size_hint(&::core::iter::IntoIterator::into_iter(0..TILE)).0
                <= ::scoped::__private::INTERCHANGE_MAX_PLAIN_TRIPS
            {
                ::scoped::__private::distribute_items(&g, #[inline(always)] |idx| {
                    let i = idx.global_linear_id();
                    let (xi, yi) = (x[i], y[i]);
                    let (mut ax, mut ay) = (0.0f32, 0.0f32);
                    for j in 0..TILE {
                        let dx = tx[j] - xi;
                        ax += dx * yi;
                        ay += dx * xi;
                    }
                    out[i] = ax + ay;
                })
            } else {
            ::scoped::__private::distribute_items_interchanged::<{ ::scoped::__private::INTERCHANGE_LANES }, _, _>(
                &g,
                #[inline(always)]
                |__scoped_chunk| match __scoped_chunk {
                    ::scoped::__private::ItemChunk::Chunk(__scoped_chunk_lanes) => {
                        __scoped_chunk_lanes.assume_inside();
                        #[allow(unused_mut, unused_variables)]
                        let (mut __scoped_lanes_xi, mut __scoped_lanes_yi, mut __scoped_lanes_ax, mut __scoped_lanes_ay,) =
                            ::scoped::__private::Unzip::__unzip(
                                ::scoped::__private::lane_array::<_, { ::scoped::__private::INTERCHANGE_LANES }>(
                                    #[inline(always)]
                                    |__scoped_lane| {
                                        let idx = __scoped_chunk_lanes.item(__scoped_lane);
                                        let i = idx.global_linear_id();
                                        let (xi, yi) = (x[i], y[i]);
                                        let (mut ax, mut ay) = (0.0f32, 0.0f32);
                                        (xi, yi, ax, ay,)
                                    },
                                ),
                            );
                        let __scoped_lanes_xi = ::scoped::__private::held_lanes(__scoped_lanes_xi);
                        let __scoped_lanes_yi = ::scoped::__private::held_lanes(__scoped_lanes_yi);
                        for j in 0..TILE {
                            #[allow(clippy::needless_range_loop)]
                            for __scoped_lane in 0..(::scoped::__private::INTERCHANGE_LANES) {
                                let xi = &__scoped_lanes_xi[__scoped_lane];
                                let yi = &__scoped_lanes_yi[__scoped_lane];
                                let ax = &mut __scoped_lanes_ax[__scoped_lane];
                                let ay = &mut __scoped_lanes_ay[__scoped_lane];
                                let dx = tx[j] - (*xi);
                                (*ax) += dx * (*yi);
                                (*ay) += dx * (*xi);
                            }
                        }
                        let __scoped_values = ::scoped::__private::Rezip::__rezip((
                            __scoped_lanes_xi, __scoped_lanes_yi, __scoped_lanes_ax, __scoped_lanes_ay,
                        ));
                        for (__scoped_lane, __scoped_values) in ::core::iter::Iterator::enumerate(
                            ::core::iter::IntoIterator::into_iter(__scoped_values),
                        ) {
                            let idx = __scoped_chunk_lanes.item(__scoped_lane);
                            #[allow(unused_mut)]
                            let (_, _, mut ax, mut ay,) = __scoped_values;
                            #[allow(unused_variables)]
                            let i = idx.global_linear_id();
                            out[i] = ax + ay;
                        }
                    }
                    ::scoped::__private::ItemChunk::Item(idx) => {
                        let i = idx.global_linear_id();
                        let (xi, yi) = (x[i], y[i]);
                        let (mut ax, mut ay) = (0.0f32, 0.0f32);
                        for j in 0..TILE {
                            let dx = tx[j] - xi;
                            ax += dx * yi;
                            ay += dx * xi;
                        }
                        out[i] = ax + ay;
                    },
                },
            )
            }
        };
        assert_eq!(lowered(closure).unwrap(), expected.to_string());
    }

    #[test]
    fn loops_the_same_for_every_item_are_interchanged() {
        for closure in [
            // Iterations over a tile, with adapters; no statements around.
            "|idx| { for t in tile.iter() { s[idx] += *t; } }",
            "|idx| { let mut a = 0; for (k, t) in tile.iter().enumerate() { a += k * t; } o[idx] = a; }",
            "|idx| { let v = x[idx]; for k in (0..n).step_by(2).rev() { o[idx] += v * k; } }",
            "|idx| { let mut a = [0.0; 3]; for j in j0..j0 + B { for (s, d) in a.iter_mut().zip(f(j)) { *s += d; } } o[idx] = a; }",
            "|idx| { let v = x[idx]; for k in 0..=self.n - 1 { o[idx] += v; } }",
            "|idx| { let v = x[idx]; for (a, b) in ta.iter().zip(tb.iter()) { o[idx] += v * a * b; } }",
            "|idx| { let v = x[idx]; for t in &tile[0] { o[idx] += v * t; } }",
            "|idx| { let v = x[idx]; for k in 0..t.len() { o[idx] += v * t[k]; } }",
            // The first loop depends on the item; the second one is taken.
            "|idx| { let l = idx.global_linear_id(); let mut a = 0; for k in 0..l { a += k; } for k in 0..n { a += k; } o[l] = a; }",
            // Well-known macros that do not name lane bindings; numeric methods before the loop.
            "|idx| { let v = x[idx].abs().sqrt(); assert!(v >= 0.0); for k in 0..n { debug_assert!(k < 9); o[idx] += v; } }",
            // The kernels of tests/test_interchange.rs.
            "|idx| { let (r, col) = (idx.global_id_dim(0), idx.global_id_dim(1)); let mut sum = 0.0f32; for k in 0..K { sum = a[r * K + k].mul_add(b[k * columns + col], sum); } c[idx] = sum; }",
            "|idx| { let i = idx.global_linear_id(); let xi = all[i]; let mut a = 0.0f32; for (xj, mj) in all.iter().zip(masses.iter()) { a += pull(xi, *xj, *mj); } out[idx] = a * 0.5; }",
            "|idx| { let mut text = idx.global_linear_id().to_string() + \":\"; let l = idx.innermost_local_linear_id(); for letter in letters.iter().take(steps) { text.push_str(letter); text.push(if l % 2 == 0 { 'e' } else { 'o' }); } out[idx] = text; }",
            // Receivers the walker reads through `Rule4ReadOnly` (rule 4).
            "|idx| { let v = x[idx]; for t in (*::scoped::__private::Rule4ReadOnly(&tile)).iter() { o[idx] += v * t; } }",
            "|idx| { let v = x[idx]; for k in 0..(*::scoped::__private::Rule4ReadOnly(&t)).len() { o[idx] += v * (*::scoped::__private::Rule4ReadOnly(&t)).len(); } }",
            // Shorthand struct fields.
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] = P { v, k }; } }",
        ] {
            let lowered = lowered(closure).unwrap_or_else(|| panic!("not interchanged: {closure}"));
            assert!(lowered.contains("distribute_items_interchanged"), "{lowered}");
        }
    }

    #[test]
    fn loops_carrying_at_most_one_value_pair_chunks_into_wide_steps() {
        let wide = "distribute_items_interchanged_wide";
        for (closure, paired) in [
            ("|idx| { let mut a = 0; for k in 0..n { a += k; } o[idx] = a; }", true),
            ("|idx| { let v = x[idx]; for k in 0..n { o[idx] += v * k; } }", true),
            ("|idx| { for t in tile.iter() { s[idx] += *t; } }", true),
            ("|idx| { let (mut a, mut b) = (0, 1); for k in 0..n { a += k; b *= k; } o[idx] = a + b; }", false),
            // Two values per item only read in the loop (held in memory).
            ("|idx| { let (u, v) = (x[idx], y[idx]); for k in 0..n { o[idx] += u * v * k; } }", true),
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not interchanged: {closure}"));
            assert_eq!(out.contains(wide), paired, "{out}");
            if paired {
                // Steps of 16 lanes, and of 8 for a chunk without a neighbour.
                assert!(out.contains("WideItemChunk :: Wide"), "{out}");
                assert!(out.contains("WideItemChunk :: Chunk"), "{out}");
                assert!(out.contains("INTERCHANGE_WIDE_LANES"), "{out}");
            }
        }
    }

    #[test]
    fn lanes_only_read_in_the_loop_are_held_in_memory() {
        let held = |name: &str| {
            format!("let __scoped_lanes_{name} = :: scoped :: __private :: held_lanes (__scoped_lanes_{name}) ;")
        };
        // `u` and `v` only read; `a` carried; `w` used after the loop alone.
        let out = lowered(
            "|idx| { let (u, v, w) = (x[idx], y[idx], z[idx]); let mut a = 0.0; \
             for k in 0..n { a += u * v * k; } o[idx] = a + w; }",
        )
        .expect("interchanged");
        assert!(
            out.contains(&held("u")) && out.contains(&held("v")),
            "{out}"
        );
        assert!(
            !out.contains(&held("a")) && !out.contains(&held("w")),
            "{out}"
        );
        // Nothing only read: nothing held.
        let out = lowered("|idx| { let mut a = 0; for k in 0..n { a += k; } o[idx] = a; }")
            .expect("interchanged");
        assert!(!out.contains("held_lanes"), "{out}");
    }

    #[test]
    fn on_a_group_of_a_required_size_short_loops_are_interchanged_too() {
        let closure = "|idx| { let mut s = acc[idx]; for k in 0..16 { s += t[k]; } acc[idx] = s; }";
        let plain = lowered(closure).expect("interchanged");
        assert!(plain.contains("INTERCHANGE_MAX_PLAIN_TRIPS"), "{plain}");
        let (mut inv, group) = crate::lower::distribute_items_on_g(closure);
        inv.required_size = true;
        let required = distribute_items(&inv, &group, &[])
            .expect("interchanged")
            .to_string();
        assert!(
            !required.contains("INTERCHANGE_MAX_PLAIN_TRIPS"),
            "{required}"
        );
        assert!(
            required.contains("distribute_items_interchanged_wide"),
            "{required}"
        );
    }

    #[test]
    fn other_bodies_keep_the_plain_loop() {
        for closure in [
            // No loop, or a loop whose iterations depend on the item.
            "|idx| { o[idx] = 1; }",
            "|idx| { for k in 0..idx.global_linear_id() { o[idx] += k; } }",
            "|idx| { let l = x[idx]; for k in 0..l { o[idx] += k; } }",
            "|idx| { while k < n { o[idx] += k; } }",
            // Iterations that are not known to be the same or `Copy`.
            "|idx| { for k in 0..f(n) { o[idx] += k; } }",
            "|idx| { for t in tiles.into_iter() { o[idx] += t; } }",
            "|idx| { for t in tile.iter_mut() { *t += 1; } }",
            // A name of the range is written, borrowed or moved in the body.
            "|idx| { for k in 0..m[0] { o[idx] += k; } m[0] = 1; }",
            "|idx| { m[0] = 1; for k in 0..m[0] { o[idx] += k; } }",
            "|idx| { for k in 0..n { o[idx] += k; g(&mut n); } }",
            "|idx| { for t in tile.iter() { o[idx] += t; } tile.clear(); }",
            // Leaving the loop or the body early; labels; async.
            "|idx| { for k in 0..n { if k > 2 { break; } o[idx] += k; } }",
            "|idx| { for k in 0..n { if k > 2 { continue; } o[idx] += k; } }",
            "|idx| { for k in 0..n { if k > 2 { return; } o[idx] += k; } }",
            "|idx| { let v = f()?; for k in 0..n { o[idx] += v; } }",
            "|idx| { 'a: for k in 0..n { o[idx] += k; } }",
            "|idx| { for k in 0..n { 'b: loop { break 'b; } } }",
            "|idx| { for k in 0..n { o[idx] += m!(break); } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += v; } async {}; }",
            // Bindings before the loop that a lane cannot hold.
            "|idx| { let a = [1, 2]; let r = &a; for k in 0..n { o[idx] += r[k]; } }",
            "|idx| { let a = vec![1, 2]; let s = a.as_slice(); for k in 0..n { o[idx] += s[k]; } }",
            "|idx| { let r = &idx; for k in 0..n { o[*r] += k; } }",
            "|idx| { let ref r = x[idx]; for k in 0..n { o[idx] += r; } }",
            "|idx| { let v; v = 1; for k in 0..n { o[idx] += v; } }",
            "|idx| { let P { a } = x[idx]; for k in 0..n { o[idx] += a; } }",
            "|idx| { let Some(v) = x[idx] else { panic!() }; for k in 0..n { o[idx] += v; } }",
            "|idx| { let a = 1; let c = || a; for k in 0..n { o[idx] += c(); } }",
            "|idx| { fn h() {} for k in 0..n { h(); } }",
            // Lane bindings shadowed or hidden in the loop body.
            "|idx| { let v = x[idx]; for v in 0..n { o[idx] += v; } }",
            "|idx| { let v = x[idx]; for k in 0..n { let v = k; o[idx] += v; } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += m!(v); } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += (|| v)(); } }",
            "|idx| { for idx in 0..n { o[idx] += 1; } }",
            // The closure's own form.
            "move |idx| { for k in 0..n { o[idx] += k; } }",
            "|idx| -> () { for k in 0..n { o[idx] += k; } }",
            "|(a, b)| { for k in 0..n { o[a] += k; } }",
            "|idx| for k in 0..n { o[idx] += k; }",
        ] {
            assert!(lowered(closure).is_none(), "interchanged: {closure}");
        }
    }
}

#[cfg(test)]
mod lane_check_tests {
    use quote::format_ident;

    use super::*;

    /// The lowering with the slices `x`, `g` and the chunk window `out` in
    /// scope.
    fn lowered(closure: &str) -> Option<String> {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let indexed = [
            Indexed::slice(&format_ident!("x")),
            Indexed::slice(&format_ident!("g")),
            Indexed::chunk_window(&format_ident!("out")),
        ];
        distribute_items(&inv, &group, &indexed).map(|t| t.to_string())
    }

    #[test]
    fn reads_in_the_loop_are_checked_ahead_for_every_lane() {
        let out = lowered(
            "|idx| {
                let lane = idx.innermost_local_id_dim(1);
                let mut sum = 0.0f32;
                for k in 0..chunks {
                    let c = k * S + lane;
                    sum += x[k * S + lane] * g[c];
                    out[row * n + c] = sum;
                }
                m[idx] = sum;
            }",
        )
        .expect("interchanged");
        assert!(out.contains("__scoped_fits_0"), "{out}");
        // `x`, `g` and `out`, each folded on its own.
        assert!(out.contains("__scoped_fits_2 &="), "{out}");
        assert!(!out.contains("__scoped_fits_3"), "{out}");
    }
}
