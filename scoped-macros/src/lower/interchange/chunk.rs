//! The code a chunk of lanes runs: the statements before the loop lane
//! by lane into one array per binding, the loop with the lanes inside it
//! (their reads checked ahead where they can be), then the statements
//! after it lane by lane.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ExprForLoop, Ident, Stmt};

use super::body::{collect_idents, Deref};
use super::prefix::stmt_pattern;
use super::shape::Shape;
use crate::lower::group_slice::bound_names;
use crate::lower::lane_check::{lane_checks, Indexed, LaneChecks};
use crate::lower::lane_window::{planned, step, windowed_body};
use crate::parse::Invocation;

impl Shape<'_> {
    /// The code a chunk of `width` items runs. With `split`, the chunk is
    /// an `ItemLanePair` of two steps of `split` items each, whose lanes
    /// each iteration runs as two loops, one per step (`None` if the
    /// lanes' reads are checked).
    pub(super) fn chunk_arm(
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
        // The lanes held in memory (`__private::held_lanes`): those of
        // bindings the loop only reads before it, so that each step loads
        // them as whole vectors; those of bindings it changes after it, so
        // that the statements after it (the butterfly's xor rounds) do not
        // shape the loop's vectors.
        let held_where = |changed: bool| -> Vec<TokenStream> {
            self.in_loop
                .iter()
                .filter(|(_, mutable)| *mutable == changed)
                .map(|(name, _)| {
                    let array = &arrays[stored.iter().position(|(s, _)| s == name).unwrap()];
                    quote!(let #array = ::scoped::__private::held_lanes(#array);)
                })
                .collect()
        };
        let (held, settled) = (held_where(false), held_where(true));
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
                #(#settled)*
                #suffix_loop
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::lowered;

    #[test]
    fn lanes_only_read_and_lanes_carried_out_of_the_loop_are_held_in_memory() {
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
        assert!(!out.contains(&held("w")), "{out}");
        // `a`, carried, is held after each loop (one per kind of chunk),
        // before the statements after it, and never before a loop.
        let parts: Vec<&str> = out.split(&held("a")).collect();
        assert!(parts.len() > 1 && parts[0].contains("for k in"), "{out}");
        for part in &parts[1..] {
            let suffix = part.find("__rezip").expect("the statements after");
            assert!(
                part.find("for k in").is_none_or(|next| suffix < next),
                "{out}"
            );
        }
        // No binding the loop reads or changes: nothing held.
        let out = lowered("|idx| { let w = z[idx]; for k in 0..n { t[k] = k; } o[idx] = w; }")
            .expect("interchanged");
        assert!(!out.contains("held_lanes"), "{out}");
    }
}

#[cfg(test)]
mod lane_check_tests {
    use quote::format_ident;

    use super::super::distribute_items;
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
