//! What a body does with control and names: whether it leaves early,
//! whether a loop body can run once per lane (no `break` of its own, no
//! lane binding rebound or hidden in a closure or macro), and the
//! rewriting of lane bindings to references into their lanes.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ExprForLoop, Ident};

/// Whether `tokens` contain one of `names`, at any depth.
pub(in crate::lower) fn mentions(tokens: TokenStream, names: &[Ident]) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => names.contains(&ident),
        TokenTree::Group(group) => mentions(group.stream(), names),
        _ => false,
    })
}

pub(in crate::lower) fn collect_idents(tokens: TokenStream, seen: &mut HashSet<String>) {
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
pub(in crate::lower) fn plain_control(body: &Expr) -> bool {
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
pub(in crate::lower) fn lane_body(body: &Block, names: &[Ident]) -> bool {
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
pub(super) fn binds_any(looped: &ExprForLoop, names: &[Ident]) -> bool {
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

/// Rewrites the lane bindings `x` of the loop body to `(*x)`.
pub(in crate::lower) struct Deref<'n> {
    pub(in crate::lower) names: &'n [Ident],
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
