//! Loop invariance: iterators whose items are the same for every item,
//! and names whose every use only reads them.

use syn::visit::Visit;
use syn::{BinOp, Expr, Ident, Stmt, UnOp};

use super::body::mentions;
use crate::lower::item_syntax::{peel, rooted_in};

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
pub(in crate::lower) fn read_only_inner(expr: &Expr) -> Option<&Expr> {
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
fn bound(expr: &Expr, names: &mut Vec<Ident>) -> Option<()> {
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

pub(in crate::lower) fn is_arithmetic(op: &BinOp) -> bool {
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

pub(in crate::lower) fn is_compound(op: &BinOp) -> bool {
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

pub(in crate::lower) fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) | BinOp::Eq(_) | BinOp::Ne(_)
    )
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
pub(in crate::lower) fn is_wrapping_arithmetic(call: &syn::ExprMethodCall) -> bool {
    call.args.len() == 1
        && call.turbofish.is_none()
        && ["wrapping_add", "wrapping_sub", "wrapping_mul"]
            .iter()
            .any(|m| call.method == m)
}
