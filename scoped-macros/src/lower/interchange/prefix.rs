//! The statements before the loop: the names their `let`s bind, which of
//! them are item queries, and whether they borrow what the lanes hold.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Ident, Pat, Stmt};

use super::body::mentions;
use crate::lower::item_syntax::{peel, query, rooted_in};

/// The names the `let`s of `prefix` bind, each once with its last
/// mutability; `None` if a statement is not one the lanes can hold.
pub(in crate::lower) fn prefix_bindings(prefix: &[Stmt]) -> Option<Vec<(Ident, bool)>> {
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
pub(super) fn query_lets<'a>(
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
pub(super) fn stmt_pattern(stmt: &Stmt) -> TokenStream {
    match stmt {
        Stmt::Local(local) => local.pat.to_token_stream(),
        _ => TokenStream::new(),
    }
}

/// The names of an identifier, tuple or slice pattern, with whether each is
/// `mut`.
pub(in crate::lower) fn split_pattern(pat: &Pat, names: &mut Vec<(Ident, bool)>) -> Option<()> {
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

/// Whether `stmt` (from before the loop) may borrow one of `names`, so
/// that a value kept in a lane could point at a binding that ends with
/// the statements before the loop.
pub(in crate::lower) fn borrows(stmt: &Stmt, names: &[Ident]) -> bool {
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
