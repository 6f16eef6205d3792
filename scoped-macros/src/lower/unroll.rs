//! Group-scope loops over a short array of literals that call a group
//! function, `for m in [8, 4, 2, 1] { permute_group_by_xor(sg, x, y, m);
//! … }` (the xor butterfly of GPU reductions), written out once per
//! element: `{ let m = 8; … } { let m = 4; … } …`. Each copy then passes
//! its literal to the group function, which for a shuffle selects one
//! constant vector shuffle; through the loop the mask stayed a run-time
//! value and every round dispatched on it (a jump table).
//!
//! The copies run the body with the same values in the same order, so
//! the result is the loop's. Taken only where that is plain to see: an
//! unlabelled `for` over at most [`MAX_ELEMENTS`] literals, bound to a
//! name or `_`, with no `break` or `continue` of its own in the body.
//! The body is the one the walker has checked and lowered, so errors are
//! reported once.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit::{self, Visit};
use syn::{Expr, ExprForLoop, Lit, Pat, UnOp};

use crate::check::calls::FUNCTIONS;

/// Longest array written out.
pub(crate) const MAX_ELEMENTS: usize = 8;

/// The loop written out once per element, or `None` where it is not one
/// of the loops described above.
pub(crate) fn literal_loop(looped: &ExprForLoop) -> Option<Expr> {
    if looped.label.is_some() || !matches!(&*looped.pat, Pat::Ident(_) | Pat::Wild(_)) {
        return None;
    }
    let Expr::Array(array) = &*looped.expr else {
        return None;
    };
    let elements: Vec<&Expr> = array.elems.iter().collect();
    if elements.is_empty() || elements.len() > MAX_ELEMENTS || !elements.iter().all(|e| literal(e))
    {
        return None;
    }
    if !calls_group_function(looped.body.to_token_stream()) || exits(&looped.body) {
        return None;
    }
    let (pat, body, attrs) = (&looped.pat, &looped.body, &looped.attrs);
    let copies = elements.iter().map(|element| {
        quote! {
            {
                let #pat = #element;
                #body
            }
        }
    });
    Some(syn::parse_quote! {
        #(#attrs)*
        {
            #(#copies)*
        }
    })
}

/// A literal, or a negated one.
fn literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(lit.lit, Lit::Int(_) | Lit::Float(_) | Lit::Bool(_)),
        Expr::Unary(unary) => matches!(unary.op, UnOp::Neg(_)) && literal(&unary.expr),
        Expr::Paren(paren) => literal(&paren.expr),
        _ => false,
    }
}

/// Whether `tokens` name one of the group functions (a call of one, in
/// any lowered form).
fn calls_group_function(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => FUNCTIONS.iter().any(|name| ident == name),
        TokenTree::Group(group) => calls_group_function(group.stream()),
        _ => false,
    })
}

/// Whether `body` has a `break` or `continue` that may leave the loop
/// around it: any not inside a loop or closure of its own (a labelled
/// one may name an outer loop: counted wherever it is).
fn exits(body: &syn::Block) -> bool {
    struct Exits {
        depth: usize,
        found: bool,
    }
    impl<'a> Visit<'a> for Exits {
        fn visit_expr_break(&mut self, e: &'a syn::ExprBreak) {
            self.found |= self.depth == 0 || e.label.is_some();
            visit::visit_expr_break(self, e);
        }
        fn visit_expr_continue(&mut self, e: &'a syn::ExprContinue) {
            self.found |= self.depth == 0 || e.label.is_some();
        }
        fn visit_expr_for_loop(&mut self, e: &'a ExprForLoop) {
            self.visit_expr(&e.expr);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, e: &'a syn::ExprWhile) {
            self.visit_expr(&e.cond);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, e: &'a syn::ExprLoop) {
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut exits = Exits {
        depth: 0,
        found: false,
    };
    exits.visit_block(body);
    exits.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unrolled(tokens: TokenStream) -> Option<String> {
        let looped: ExprForLoop = syn::parse2(tokens).unwrap();
        literal_loop(&looped).map(|e| e.to_token_stream().to_string())
    }

    #[test]
    fn a_butterfly_is_written_out_in_order() {
        let out = unrolled(quote! {
            for m in [8, 4, 2, 1] {
                permute_group_by_xor(sg, x, y, m);
                s += 1;
            }
        })
        .unwrap();
        let lets: Vec<usize> = ["let m = 8", "let m = 4", "let m = 2", "let m = 1"]
            .iter()
            .map(|l| out.find(l).unwrap_or_else(|| panic!("{l} in {out}")))
            .collect();
        assert!(lets.windows(2).all(|w| w[0] < w[1]), "{out}");
        assert_eq!(out.matches("permute_group_by_xor").count(), 4, "{out}");
        assert!(!out.contains("for"), "{out}");
    }

    #[test]
    fn other_loops_stay_loops() {
        for tokens in [
            // No group function in the body.
            quote!(for m in [8, 4] {
                s += m;
            }),
            // Not literals.
            quote!(for m in [a, b] {
                permute_group_by_xor(sg, x, y, m);
            }),
            // Not an array.
            quote!(for m in 0..4 {
                permute_group_by_xor(sg, x, y, m);
            }),
            // A pattern other than a name.
            quote!(for (a, b) in [(1, 2)] {
                permute_group_by_xor(sg, x, y, a);
            }),
            // A label, a break or continue of its own, or too long.
            quote!('l: for m in [1] {
                permute_group_by_xor(sg, x, y, m);
            }),
            quote!(for m in [1, 2] {
                permute_group_by_xor(sg, x, y, m);
                if c {
                    break;
                }
            }),
            quote!(for m in [1, 2] {
                permute_group_by_xor(sg, x, y, m);
                if c {
                    continue;
                }
            }),
            quote!(for m in [1, 2] {
                for k in 0..2 {
                    if c {
                        break 'outer;
                    }
                }
                permute_group_by_xor(sg, x, y, m);
            }),
            quote!(for m in [1, 2, 3, 4, 5, 6, 7, 8, 9] {
                permute_group_by_xor(sg, x, y, m);
            }),
        ] {
            assert_eq!(unrolled(tokens.clone()), None, "{tokens}");
        }
    }

    #[test]
    fn exits_of_inner_loops_and_closures_stay_theirs() {
        let out = unrolled(quote! {
            for m in [-1, 2] {
                for k in 0..2 { if c { break; } }
                while d { continue; }
                let f = || loop { break; };
                group_broadcast(sg, x, m);
            }
        });
        assert!(out.is_some());
    }
}
