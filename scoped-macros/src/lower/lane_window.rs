//! Windows of an interchanged loop's step (`interchange/`): the reads
//! of the loop body that `lane_check.rs` checks ahead, where every lane's
//! index is the first lane's plus the lane, go through one array per read.
//!
//! Each step first computes the indices of those reads for its `W` lanes
//! (the checks' own wrapping arithmetic) and, where each read's indices
//! are consecutive (`__private::consecutive`) and its `W` elements lie in
//! its slice or `ChunkWindow` (`__private::lane_window`), runs the lanes
//! with every such read `x[index]` turned into lane `l` of its window
//! (after computing `index` as written, for its overflow checks): the same
//! element. Any other step runs the checked copies of `lane_check.rs`.
//! Checked one lane at a time, the stores of layer norm's normalising
//! loop kept its lanes scalar even where every check had been dropped.
//!
//! A read is windowed only where its window is provably the element the
//! body reads: every name in its index holds one value through the whole
//! step (an item query or the loop's pattern bound once and not `mut`, a
//! `let` of the loop body bound once and standing before the read, or a
//! name from outside the item body that the loop body only reads), no
//! macro in the loop body names it, the item or the target, and the loop
//! body never assigns a slice target, borrows it `&mut` or calls a method
//! on it. A `ChunkWindow` is windowed where the loop body
//! names it once, in that read (its window is a `&mut`). At most eight
//! windows a step.
//!
//! Where the loop's iterator is a range (with `rev`, `step_by`, `skip`,
//! `take`), its pattern a name or `_`, and every window's index affine in
//! that name with a factor that does not depend on the item (`k * S +
//! lane`, not `k * k` or `k * lane`), the windows are checked once for
//! the whole loop (`__private::WindowPlan`, [`planned`]): from the first
//! two iterations' starts and the number of iterations, each window must
//! fit at the first and the last. The iterations the plan covers take
//! their windows from it with no check; the rest (all of them, if the
//! plan failed) run the steps above.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident};

use super::interchange::body::collect_idents;
use super::interchange::invariance::{is_compound, only_read};
use super::item_syntax::{count_mentions, peel};
use super::lane_check::{LaneWindows, WindowCandidate};

/// Most windows one step takes (`__private::with_windows_8`).
const MAX_WINDOWS: usize = 8;

/// The windows a step of the loop body `body` may take, from the reads
/// `lane_check.rs` found fit (`candidates`); `indexed` are the names whose
/// reads it counted.
pub(super) fn windows(
    body: &Block,
    item: &Ident,
    indexed: &[Ident],
    candidates: Vec<WindowCandidate>,
) -> Option<LaneWindows> {
    let mut in_macros = std::collections::HashSet::new();
    MacroTokens(&mut in_macros).visit_block(body);
    let kept: Vec<WindowCandidate> = candidates
        .into_iter()
        .filter(|c| {
            let named = c.names.iter().chain([&c.target, item]);
            !named
                .into_iter()
                .any(|n| in_macros.contains(&n.to_string()))
                && body.stmts.iter().all(|stmt| only_read(stmt, &c.outer))
                && (c.written || !rebinds(body, &c.target))
        })
        .filter(|c| !c.written || count_mentions(body.to_token_stream(), &c.target) == 1)
        .collect();
    if kept.is_empty() || kept.len() > MAX_WINDOWS {
        return None;
    }
    Some(LaneWindows {
        indices: kept.iter().map(|c| c.index.clone()).collect(),
        targets: kept.iter().map(|c| (c.target.clone(), c.written)).collect(),
        reads: kept.iter().map(|c| c.read).collect(),
        indexed: indexed.to_vec(),
        affine: kept.iter().all(|c| c.affine),
    })
}

/// The step's code for `width` lanes, `lanes` (the lane loop over `body`,
/// its reads already windowed) run where every window is taken, `checked`
/// where one is not; `check_lane` are the statements that make a lane's
/// item, queries and `let`s, as the checks run them.
pub(super) fn step(
    windows: &LaneWindows,
    width: &TokenStream,
    check_lane: &TokenStream,
    lanes: &TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let mixed = Span::mixed_site();
    let first = Ident::new("__scoped_first", mixed);
    let taken = Ident::new("__scoped_windows", mixed);
    let width = quote!({ #width });
    let names = window_names(windows);
    let places = places(windows, &width, &first);
    let starts = starts(windows, &width, check_lane);
    let run = run_lanes(&names, lanes);
    quote! {
        let #taken = match #starts {
            ::core::option::Option::Some(#first) => match (#(#places,)*) {
                (#(::core::option::Option::Some(#names),)*) => {
                    ::core::option::Option::Some((#(#names,)*))
                }
                #[allow(unreachable_patterns)]
                _ => ::core::option::Option::None,
            },
            ::core::option::Option::None => ::core::option::Option::None,
        };
        if let ::core::option::Option::Some((#(#names,)*)) = #taken {
            #run
        } else {
            #checked
            // An opaque call at the end, so that the optimiser does not
            // merge the ends of the two copies, their loads then reading
            // through a pointer chosen between the window and the slice
            // (one per lane, not a vector load).
            ::core::hint::black_box(());
        }
    }
}

/// The loop `for pat in iter { per_step }` with its windows checked once
/// (`__private::WindowPlan`), where every window's index is affine in the
/// loop's value (`LaneWindows::affine`), `iter` is a range stepping by a
/// fixed distance and `pat` a name or `_`: the iterations the plan covers
/// run `lanes` (the lane loop over the windowed body) with the plan's
/// windows, any other its own checks (`per_step`, from [`step`]).
/// `check_lane` as for [`step`]. `None` for any other loop.
pub(super) fn planned(
    windows: &LaneWindows,
    width: &TokenStream,
    check_lane: &TokenStream,
    lanes: &TokenStream,
    per_step: &TokenStream,
    looped: &syn::ExprForLoop,
) -> Option<TokenStream> {
    let plain_pattern = match &*looped.pat {
        syn::Pat::Ident(p) => p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none(),
        syn::Pat::Wild(_) => true,
        _ => false,
    };
    if !windows.affine || !plain_pattern || !arithmetic_iter(&looped.expr) {
        return None;
    }
    let mixed = Span::mixed_site();
    let iter = Ident::new("__scoped_iter", mixed);
    let value = Ident::new("__scoped_value", mixed);
    let plan = Ident::new("__scoped_plan", mixed);
    let width = quote!({ #width });
    let names = window_names(windows);
    let sources = windows
        .targets
        .iter()
        .map(|(target, written)| source(target, *written));
    let starts = starts(windows, &width, check_lane);
    let run = run_lanes(&names, lanes);
    let (pat, expr) = (&looped.pat, &looped.expr);
    Some(quote! {
        let mut #iter = ::core::iter::IntoIterator::into_iter(#expr);
        {
            let mut #plan = ::scoped::__private::WindowPlan::<_, #width, _>::new(
                &#iter,
                (#(#sources,)*),
                #[inline(always)]
                |#value| {
                    #[allow(unused_variables)]
                    let #pat = #value;
                    #starts
                },
            );
            while let ::core::option::Option::Some((#pat, (#(#names,)*))) =
                #plan.next_step(&mut #iter)
            {
                #run
            }
        }
        for #pat in #iter {
            #per_step
        }
    })
}

/// Whether `expr` is a range, or one with `.rev()`, `.step_by(n)`,
/// `.skip(n)` or `.take(n)`: values stepping by one distance.
fn arithmetic_iter(expr: &Expr) -> bool {
    match peel(expr) {
        Expr::Range(range) => range.start.is_some() && range.end.is_some(),
        Expr::MethodCall(call) if call.turbofish.is_none() => {
            let method = call.method.to_string();
            let known = match call.args.len() {
                0 => method == "rev",
                1 => ["step_by", "skip", "take"].contains(&method.as_str()),
                _ => false,
            };
            known && arithmetic_iter(&call.receiver)
        }
        _ => false,
    }
}

/// A window's source: the slice, or the `ChunkWindow` borrowed `&mut`.
fn source(target: &Ident, written: bool) -> TokenStream {
    if written {
        quote!(&mut #target)
    } else {
        quote!(#target)
    }
}

/// Each window, taken at its start `first[n]`.
fn places(windows: &LaneWindows, width: &TokenStream, first: &Ident) -> Vec<TokenStream> {
    windows
        .targets
        .iter()
        .enumerate()
        .map(|(n, (target, written))| {
            let n = syn::Index::from(n);
            let source = source(target, *written);
            quote!(::scoped::__private::lane_window::<#width, _>(#source, #first[#n]))
        })
        .collect()
}

/// The names the windows are bound to, one per index.
fn window_names(windows: &LaneWindows) -> Vec<Ident> {
    (0..windows.indices.len()).map(window_name).collect()
}

/// The step's window starts, `Some` if every read's lanes are
/// consecutive: each lane's item made by `check_lane`, then its indices.
fn starts(windows: &LaneWindows, width: &TokenStream, check_lane: &TokenStream) -> TokenStream {
    let lane = Ident::new("__scoped_lane", Span::mixed_site());
    let indices = &windows.indices;
    quote! {
        ::scoped::__private::consecutive::<#width, _>(
            #[inline(always)]
            |#lane: usize| {
                #check_lane
                [#(#indices),*]
            },
        )
    }
}

/// `lanes` run with the windows bound to `names`.
fn run_lanes(names: &[Ident], lanes: &TokenStream) -> TokenStream {
    let call = match names.len() {
        1 => format_ident!("with_windows"),
        n => format_ident!("with_windows_{}", n),
    };
    quote! {
        ::scoped::__private::#call(#(#names,)* #[inline(always)] |#(#names),*| {
            #lanes
        })
    }
}

/// `body` with its windowed reads turned into reads of their windows.
pub(super) fn windowed_body(body: &Block, windows: &LaneWindows) -> Block {
    let mut body = body.clone();
    Windowed { windows, seen: 0 }.visit_block_mut(&mut body);
    body
}

fn window_name(n: usize) -> Ident {
    Ident::new(&format!("__scoped_window_{n}"), Span::mixed_site())
}

/// Whether `body` may make the shared slice `name` another one: assign
/// it, borrow it `&mut` or call a method on it (which only a `&mut`
/// receiver could use to). Its elements are read-only through it.
fn rebinds(body: &Block, name: &Ident) -> bool {
    struct Rebinds<'n>(&'n Ident, bool);
    impl Rebinds<'_> {
        fn is_name(&self, expr: &Expr) -> bool {
            matches!(peel(expr), Expr::Path(p) if p.path.is_ident(self.0))
        }
    }
    impl<'ast> Visit<'ast> for Rebinds<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            self.1 |= match expr {
                Expr::Assign(a) => self.is_name(&a.left),
                Expr::Binary(b) => is_compound(&b.op) && self.is_name(&b.left),
                Expr::Reference(r) => r.mutability.is_some() && self.is_name(&r.expr),
                Expr::MethodCall(m) => self.is_name(&m.receiver),
                _ => false,
            };
            syn::visit::visit_expr(self, expr);
        }
    }
    let mut rebinds = Rebinds(name, false);
    rebinds.visit_block(body);
    rebinds.1
}

/// Collects every identifier in the macros of a block.
struct MacroTokens<'s>(&'s mut std::collections::HashSet<String>);

impl<'ast> Visit<'ast> for MacroTokens<'_> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        collect_idents(mac.tokens.clone(), self.0);
    }
}

/// Rewrites the windowed reads, meeting the reads of indexed names in
/// the order `lane_check.rs` counted them.
struct Windowed<'w> {
    windows: &'w LaneWindows,
    seen: usize,
}

impl VisitMut for Windowed<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Index(read) = &*expr {
            let target = match peel(&read.expr) {
                Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
                _ => None,
            };
            if target.is_some_and(|t| self.windows.indexed.contains(t)) {
                let number = self.seen;
                self.seen += 1;
                if let Some(n) = self.windows.reads.iter().position(|r| *r == number) {
                    let (window, index) = (window_name(n), &read.index);
                    let lane = Ident::new("__scoped_lane", Span::mixed_site());
                    let borrow = if self.windows.targets[n].1 {
                        quote!(&mut)
                    } else {
                        quote!(&)
                    };
                    // The index as written, for its overflow checks.
                    *expr = syn::parse_quote_spanned! {read.span()=>
                        (*{
                            let _: usize = #index;
                            #borrow #window[#lane]
                        })
                    };
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::format_ident;

    use crate::lower::lane_check::Indexed;

    /// The interchanged lowering with the slices `x`, `g` and the chunk
    /// window `out` in scope, and how many windows each step takes.
    fn windows(closure: &str) -> usize {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let indexed = [
            Indexed::slice(&format_ident!("x")),
            Indexed::slice(&format_ident!("g")),
            Indexed::chunk_window(&format_ident!("out")),
        ];
        let out = crate::lower::interchange::distribute_items(&inv, &group, &indexed)
            .unwrap_or_else(|| panic!("not interchanged: {closure}"))
            .to_string();
        let count = (0..=8)
            .take_while(|n| out.contains(&format!("__scoped_window_{n}")))
            .count();
        // Every window is read in the lanes, by its lane.
        for n in 0..count {
            assert!(
                out.contains(&format!("__scoped_window_{n} [__scoped_lane]")),
                "{out}"
            );
        }
        count
    }

    #[test]
    fn consecutive_reads_and_a_window_write_go_through_windows() {
        // Layer norm's normalising loop: `x`, `g`, `g` again and `out`.
        let body = "|idx| {
            let lane = idx.innermost_local_id_dim(1);
            let (mu, rstd) = (m[idx], r[idx]);
            for k in 0..chunks {
                let c = k * S + lane;
                out[row * n + c] = ((x[c] - mu) * rstd).mul_add(g[c], g[c + n]);
            }
        }";
        assert_eq!(windows(body), 4);
        // A query in the index, the loop's pattern, names from outside.
        assert_eq!(
            windows("|idx| { let mut s = 0.0; for k in 0..n { s += x[k * w + idx.global_id_dim(0)]; } o[idx] = s; }"),
            1
        );
        // The kernels of tests/test_interchange.rs (`out` once, twice).
        let sums = "|idx| { let c = idx.local_linear_id(&group); let mut sum = 0.0f32; \
            for k in 0..rows { sum = x[k * cols + c * m].mul_add(0.5, sum); out[base + k * cols + c] = sum; } }";
        assert_eq!(windows(sums), 2);
        let twice = sums.replace("= sum;", "= 0.0; out[base + k * cols + c] += sum;");
        assert_eq!(windows(&twice), 1);
        // A read of the window as well as a write, in one place.
        assert_eq!(
            windows("|idx| { let l = idx.innermost_local_id_dim(1); for k in 0..n { out[k * S + l] += x[l]; } }"),
            2
        );
    }

    #[test]
    fn reads_that_may_name_another_element_stay_checked() {
        for (closure, expected) in [
            // Not depending on the lane: one element for all lanes.
            ("|idx| { let mut s = 0.0; for k in 0..n { s += x[k]; } o[idx] = s; }", 0),
            // `out` named twice: two `&mut` windows cannot be taken.
            ("|idx| { let l = idx.innermost_local_id_dim(1); for k in 0..n { out[k * S + l] = 1.0; out[k * S + l] += x[l]; } }", 1),
            ("|idx| { let l = idx.innermost_local_id_dim(1); for k in 0..n { out[k * S + l] = out.len() as f32; } }", 0),
            // A read before the `let` of its index reads an outer `c`.
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n { s += x[c]; let c = k + l; s += g[c]; } o[idx] = s; }", 1),
            // The pattern `mut`: the body may change it.
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for mut k in 0..n { s += x[k + l]; k += 1; } o[idx] = s; }", 0),
            // A name from outside written, or named by a macro.
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n { s += x[k * w + l]; w = 3; } o[idx] = s; }", 0),
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n { m!(w); s += x[k * w + l]; } o[idx] = s; }", 0),
            // The slice made another one in the loop body.
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n { s += x[k + l]; x = &g[1..]; } o[idx] = s; }", 0),
            // The pattern's name bound again in a block of the loop body.
            ("|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n { { let k = 0; s += x[k + l]; } } o[idx] = s; }", 0),
        ] {
            assert_eq!(windows(closure), expected, "{closure}");
        }
    }

    /// Whether the lowering checks the windows once for the whole loop.
    fn planned(closure: &str) -> bool {
        let (inv, group) = crate::lower::distribute_items_on_g(closure);
        let indexed = [Indexed::slice(&format_ident!("x"))];
        let out = crate::lower::interchange::distribute_items(&inv, &group, &indexed)
            .unwrap_or_else(|| panic!("not interchanged: {closure}"))
            .to_string();
        out.contains("WindowPlan")
    }

    #[test]
    fn windows_stepping_by_a_fixed_distance_are_checked_once_per_loop() {
        let body = |iter: &str, index: &str| {
            format!(
                "|idx| {{ let l = idx.innermost_local_id_dim(1); let mut s = 0.0; \
                 for k in {iter} {{ s += x[{index}]; }} o[idx] = s; }}"
            )
        };
        for iter in [
            "0..n",
            "a..=b",
            "(0..n).rev()",
            "(1..n).step_by(3).skip(1).take(t)",
        ] {
            for index in [
                "k * S + l",
                "(k - 1) * w * 2 + l + o",
                "l",
                "S * (k + 2) + l",
            ] {
                assert!(planned(&body(iter, index)), "{iter}: {index}");
            }
        }
        // Not a range stepping by one distance, or an index not affine
        // in `k` with a factor the same for every lane.
        for (iter, index) in [
            ("tile.iter()", "k * S + l"),
            ("(0..n).zip(0..m)", "l"),
            ("0..", "k + l"),
            ("0..n", "k * k + l"),
            ("0..n", "k * (l + 1)"),
            ("0..n", "k * l + l"),
        ] {
            assert!(!planned(&body(iter, index)), "{iter}: {index}");
        }
        // A pattern that is not a plain name.
        let closure = "|idx| { let l = idx.innermost_local_id_dim(1); let mut s = 0.0; \
            for (k) in 0..n { s += x[k * S + l]; } o[idx] = s; }";
        assert!(!planned(closure));
    }

    #[test]
    fn more_than_eight_windows_run_checked() {
        let reads: Vec<String> = (0..9).map(|j| format!("x[k * S + l + {j}]")).collect();
        let closure = format!(
            "|idx| {{ let l = idx.innermost_local_id_dim(1); let mut s = 0.0; for k in 0..n {{ s += {}; }} o[idx] = s; }}",
            reads.join(" + ")
        );
        assert_eq!(windows(&closure), 0);
        let closure = closure.replace(" + x[k * S + l + 8]", "");
        assert_eq!(windows(&closure), 8);
    }
}
