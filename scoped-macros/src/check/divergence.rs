//! Nesting rule 3: where control flow may differ between the physical
//! items of a group. On the CPU one thread runs a group, but the rule is
//! the spec's: a condition on `leader()` or on a physical id or range,
//! directly or through a variable holding one, guards code that not every
//! physical item reaches.

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Expr, ExprCall, ExprClosure, ExprMethodCall, Macro};

use super::scope::Context;
use crate::parse::macro_arguments;

/// Why code may not be reached by every physical item of its group.
#[derive(Clone, Debug)]
pub(crate) struct Divergence {
    /// What to point at: the physical query in the condition, or the
    /// variable holding one.
    pub(crate) tokens: TokenStream,
    /// The query as the user wrote it, for messages: `sg.leader()`.
    pub(crate) query: String,
    /// The variable the condition reads, if the query reaches it that way.
    pub(crate) via: Option<Ident>,
    pub(crate) cause: Cause,
}

/// How the divergent query guards the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// An `if`/`match` condition (or guard) on the query.
    Condition,
    /// A loop whose condition, iterator or exits depend on the query.
    Loop,
    /// An earlier `return`, `break`, `continue` or `?` under a condition
    /// on the query.
    EarlyExit(&'static str),
    /// The body of a `single_item!` (its macro name), which one physical
    /// item runs.
    SingleItem(Ident),
}

impl Divergence {
    pub(crate) fn with_cause(mut self, cause: Cause) -> Self {
        self.cause = cause;
        self
    }

    /// The body of the `single_item!` named `name`.
    pub(crate) fn single_item(name: &Ident) -> Self {
        Divergence {
            tokens: name.to_token_stream(),
            query: String::new(),
            via: None,
            cause: Cause::SingleItem(name.clone()),
        }
    }

    /// "`sg.leader()`" or "`lead` (which holds `sg.leader()`)".
    pub(crate) fn describe(&self) -> String {
        match &self.via {
            Some(var) => format!("`{var}` (which holds `{}`)", self.query),
            None => format!("`{}`", self.query),
        }
    }
}

/// Whether a method or function of this name is a query about physical
/// items: `leader`, `physical_local_id*`, `physical_local_range*`,
/// `physical_local_linear_*`.
pub(crate) fn is_physical_query(name: &str) -> bool {
    name == "leader" || name.starts_with("physical_local_")
}

/// Divergent variables a scan declared itself, innermost last.
pub(crate) type Declared = [(Ident, Option<Divergence>)];

/// The first divergent query `expr` uses, if any: a physical query or a
/// variable that holds the result of one (looked up in `declared`, then in
/// `ctx`).
pub(crate) fn in_expr(expr: &Expr, ctx: &Context, declared: &Declared) -> Option<Divergence> {
    let mut finder = Finder {
        ctx,
        declared,
        found: None,
    };
    finder.visit_expr(expr);
    finder.found
}

struct Finder<'a> {
    ctx: &'a Context,
    declared: &'a Declared,
    found: Option<Divergence>,
}

impl Finder<'_> {
    fn found(&mut self, tokens: TokenStream, query: String) {
        if self.found.is_none() {
            self.found = Some(Divergence {
                tokens,
                query,
                via: None,
                cause: Cause::Condition,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        let name = call.method.to_string();
        if is_physical_query(&name) {
            let args = if call.args.is_empty() { "" } else { ".." };
            match &*call.receiver {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    let receiver = p.path.to_token_stream();
                    self.found(call.to_token_stream(), format!("{receiver}.{name}({args})"));
                }
                _ => {
                    let (method, parens) = (&call.method, &call.paren_token);
                    let mut tokens = method.to_token_stream();
                    parens.surround(&mut tokens, |t| call.args.to_tokens(t));
                    self.found(tokens, format!("{name}({args})"));
                }
            }
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        if let Expr::Path(path) = &*call.func {
            if let Some(last) = path.path.segments.last() {
                let name = last.ident.to_string();
                if is_physical_query(&name) {
                    self.found(call.to_token_stream(), format!("{name}(..)"));
                }
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        let Some(name) = path.path.get_ident() else {
            return;
        };
        let divergent = match self.declared.iter().rev().find(|(n, _)| n == name) {
            Some((_, d)) => d.clone(),
            None => self.ctx.lookup(name).and_then(|b| b.divergent.clone()),
        };
        if let (Some(d), None) = (divergent, &self.found) {
            self.found = Some(Divergence {
                tokens: name.to_token_stream(),
                via: Some(name.clone()),
                cause: Cause::Condition,
                ..d
            });
        }
    }

    fn visit_expr_closure(&mut self, closure: &'ast ExprClosure) {
        visit::visit_expr(self, &closure.body);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if let Some(args) = macro_arguments(mac) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}
