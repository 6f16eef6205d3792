//! The next step of a kernel's `for` loop, for reads fetched one step
//! ahead: GPU code loads a tile per step (`for step in 0..n / TILE { let
//! k0 = step * TILE; /* tile[r][c] = b[(k0 + r) * n + j] */ }`), and the
//! rows of the next step's tile lie a page apart each, which the hardware
//! prefetchers do not reach.
//!
//! The walker records, for the innermost loop around a collective, the
//! loop variable's next value and the plain `let`s of the loop's body
//! before the collective; [`NextStep::replay`] writes them out again, in
//! wrapping `usize` arithmetic, with the loop variable one step further.
//! A replay cannot panic and has no effects: it only computes the
//! addresses of prefetches, which are hints, so a value it gets wrong
//! (a name changed by an assignment the walk does not follow) costs a
//! useless fetch and nothing else.
//!
//! The shape, exactly: `for v in a..b`, `a..=b`, `(a..b).step_by(s)` or
//! `(a..=b).step_by(s)`, `v` a plain name (not `mut`), `s` of the shape
//! below; the `let`s replayed are the top-level statements of the loop's
//! body `let x = e;` or `let x: T = e;`, `x` a plain name, `e` made of
//! `+`, `-`, `*` (or `wrapping_add`, `wrapping_sub`, `wrapping_mul`),
//! parentheses, integer literals and names. Names from outside the loop
//! are read as they are. Every name the reads' indices use is a `usize`,
//! so every value replayed for them is one too.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Expr, ExprForLoop, Ident, Pat, Stmt};

use super::item_syntax::{peel, wrapping_usize, IndexLeaves};
use crate::check::{pat_ident, pat_names};

/// The bindings that give a `for` loop's next step, in order: the loop
/// variable's next value first, then the body's plain `let`s met so far.
#[derive(Clone, Debug)]
pub(crate) struct NextStep {
    bindings: Vec<Binding>,
}

#[derive(Clone, Debug)]
struct Binding {
    name: Ident,
    value: Expr,
    /// Whether this is the loop variable's next value.
    steps: bool,
}

impl NextStep {
    /// The next step of `e`, if its head has the shape above.
    pub(crate) fn of_for(e: &ExprForLoop) -> Option<NextStep> {
        let variable = plain_name(&e.pat)?;
        let (range, stride) = match peel(&e.expr) {
            Expr::MethodCall(call)
                if call.method == "step_by" && call.args.len() == 1 && call.turbofish.is_none() =>
            {
                (peel(&call.receiver), call.args[0].clone())
            }
            other => (other, syn::parse_quote!(1)),
        };
        let Expr::Range(range) = range else {
            return None;
        };
        range.start.as_ref()?;
        wrapping(&stride)?;
        let next = syn::parse_quote!(#variable + #stride);
        Some(NextStep {
            bindings: vec![Binding {
                name: variable,
                value: next,
                steps: true,
            }],
        })
    }

    /// Records `stmt`, a top-level statement of the loop's body that the
    /// walk has passed: a plain `let` of the shape above is replayed; any
    /// other `let` hides the names it binds from the replay.
    pub(crate) fn passed(&mut self, stmt: &Stmt) {
        let Stmt::Local(local) = stmt else { return };
        let init = local
            .init
            .as_ref()
            .filter(|init| init.diverge.is_none() && local.attrs.is_empty());
        match (plain_name(&local.pat), init) {
            (Some(name), Some(init)) if wrapping(&init.expr).is_some() => {
                self.bindings.push(Binding {
                    name,
                    value: (*init.expr).clone(),
                    steps: false,
                });
            }
            _ => {
                let mut hidden = Vec::new();
                pat_names(&local.pat, &mut hidden);
                self.bindings.retain(|b| !hidden.contains(&b.name));
            }
        }
    }

    /// The bindings the names `used` depend on, with the loop variable
    /// one step further, as `let`s in wrapping arithmetic; `None` if none
    /// of `used` depends on the loop variable.
    pub(crate) fn replay(&self, used: &[Ident]) -> Option<TokenStream> {
        // Backwards: a binding is needed where a later needed one (or a
        // read) names it before any other binding of its name.
        let mut needed: Vec<Ident> = used.to_vec();
        let mut lets = Vec::new();
        for binding in self.bindings.iter().rev() {
            if needed.contains(&binding.name) {
                let (value, names) =
                    wrapping(&binding.value).expect("recorded bindings have the shape");
                needed.retain(|n| n != &binding.name);
                needed.extend(names);
                lets.push((binding, value));
            }
        }
        if !lets.iter().any(|(b, _)| b.steps) {
            return None;
        }
        let lets = lets.iter().rev().map(|(b, value)| {
            let name = &b.name;
            quote!(#[allow(unused_variables)] let #name: usize = #value;)
        });
        Some(quote!(#(#lets)*))
    }
}

/// `expr` in wrapping `usize` arithmetic, with the names it reads, if it
/// has the shape above.
fn wrapping(expr: &Expr) -> Option<(TokenStream, Vec<Ident>)> {
    /// Names, read as they are.
    struct Names(Vec<Ident>);
    impl IndexLeaves for Names {
        fn leaf(&mut self, leaf: &Expr) -> Option<(TokenStream, bool)> {
            let Expr::Path(path) = leaf else { return None };
            let plain = path.qself.is_none() && path.attrs.is_empty();
            let name = path.path.get_ident().filter(|_| plain)?;
            self.0.push(name.clone());
            let mixed = Span::mixed_site();
            Some((
                quote_spanned!(mixed=> ::scoped::__private::index_term(#name)),
                false,
            ))
        }
    }
    let mut names = Names(Vec::new());
    let (tokens, _) = wrapping_usize(expr, &mut names)?;
    Some((tokens, names.0))
}

/// The name `pat` binds, if it is a name alone (with a type or not),
/// not `mut` or `ref`.
fn plain_name(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() => pat_ident(pat),
        Pat::Type(t) => plain_name(&t.pat),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replayed(head: Expr, body: &[Stmt], used: &[&str]) -> Option<String> {
        let Expr::ForLoop(mut e) = head else {
            panic!("not a for loop")
        };
        e.body.stmts = body.to_vec();
        let mut step = NextStep::of_for(&e)?;
        body.iter().for_each(|s| step.passed(s));
        let used: Vec<Ident> = used
            .iter()
            .map(|n| Ident::new(n, Span::call_site()))
            .collect();
        step.replay(&used).map(|t| t.to_string())
    }

    #[test]
    fn a_tile_step_replays_the_loop_variable_and_its_lets() {
        let out = replayed(
            syn::parse_quote!(for step in 0..n / TILE {}),
            &[
                syn::parse_quote!(let k0 = step * TILE;),
                syn::parse_quote!(let unused = step + 2;),
            ],
            &["n", "k0"],
        )
        .unwrap();
        assert!(out.starts_with("# [allow (unused_variables)] let step : usize = :: core :: primitive :: usize :: wrapping_add (:: scoped :: __private :: index_term (step) , (1 as usize)) ;"), "{out}");
        assert!(out.contains("let k0 : usize = :: core :: primitive :: usize :: wrapping_mul (:: scoped :: __private :: index_term (step) , :: scoped :: __private :: index_term (TILE)) ;"), "{out}");
        assert!(!out.contains("let unused"), "{out}");
    }

    #[test]
    fn a_stride_is_the_step() {
        let out = replayed(
            syn::parse_quote!(for k0 in (0..n).step_by(TILE) {}),
            &[],
            &["k0"],
        )
        .unwrap();
        assert!(out.contains("wrapping_add (:: scoped :: __private :: index_term (k0) , :: scoped :: __private :: index_term (TILE))"), "{out}");
    }

    #[test]
    fn reads_that_do_not_follow_the_loop_replay_nothing() {
        let head: Expr = syn::parse_quote!(for step in 0..m {});
        assert_eq!(replayed(head.clone(), &[], &["n"]), None);
        // A `let` the replay cannot compute hides its name.
        let hidden: Stmt = syn::parse_quote!(let k0 = offsets[step];);
        assert_eq!(replayed(head.clone(), &[hidden], &["k0"]), None);
        let shadowed = [
            syn::parse_quote!(let k0 = step * 16;),
            syn::parse_quote!(let k0 = f(k0);),
        ];
        assert_eq!(replayed(head, &shadowed, &["k0"]), None);
    }

    #[test]
    fn other_heads_have_no_next_step() {
        for head in [
            quote!(for mut step in 0..m {}),
            quote!(for (a, b) in 0..m {}),
            quote!(for step in rows.iter() {}),
            quote!(for step in ..m {}),
            quote!(for step in (0..m).step_by(f(s)) {}),
        ] {
            let Expr::ForLoop(e) = syn::parse2(head.clone()).unwrap() else {
                panic!()
            };
            assert!(NextStep::of_for(&e).is_none(), "{head}");
        }
    }
}
