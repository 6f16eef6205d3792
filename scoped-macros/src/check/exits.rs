//! Early exits under divergent conditions (nesting rule 3): after
//! `if sg.leader() { return; }`, the rest of the function is reached by
//! the other physical items only; after such a `break` or `continue`, the
//! rest of the loop body and every later iteration.
//!
//! The scan is read-only and looks at the code before it is lowered. It
//! does not enter closures, async blocks, nested items or macros other than
//! ours (whose closures are closures too): an exit there leaves only them.

use syn::visit::{self, Visit};
use syn::{
    Block, Expr, ExprAsync, ExprBlock, ExprBreak, ExprClosure, ExprContinue, ExprForLoop, ExprIf,
    ExprLoop, ExprMatch, ExprReturn, ExprTry, ExprWhile, Item, Label, Lifetime, Local, Macro, Stmt,
};

use super::divergence::{self, Cause, Divergence};
use super::scope::{pat_names, Context};

/// The first exit in `stmt` that leaves `stmt` under a divergent
/// condition, as the divergence it causes for the code after `stmt`.
pub(crate) fn after_stmt(stmt: &Stmt, ctx: &Context) -> Option<Divergence> {
    let mut scan = Scan::new(ctx);
    scan.visit_stmt(stmt);
    scan.found
}

/// The first divergent exit in a loop's body that leaves the body (to the
/// next iteration, out of the loop or out of the function).
pub(crate) fn in_loop_body(body: &Block, ctx: &Context) -> Option<Divergence> {
    let mut scan = Scan::new(ctx);
    scan.visit_block(body);
    scan.found
}

struct Scan<'a> {
    ctx: &'a Context,
    /// The divergent conditions the scan is under, innermost last.
    under: Vec<Divergence>,
    /// Labels of the loops inside the scanned code that enclose the current
    /// point (`None` for an unlabeled loop).
    loops: Vec<Option<Lifetime>>,
    /// Labels of the labeled blocks inside the scanned code that enclose
    /// the current point.
    blocks: Vec<Lifetime>,
    /// Divergent variables declared inside the scanned code.
    declared: Vec<(proc_macro2::Ident, Option<Divergence>)>,
    found: Option<Divergence>,
}

impl<'a> Scan<'a> {
    fn new(ctx: &'a Context) -> Self {
        Scan {
            ctx,
            under: Vec::new(),
            loops: Vec::new(),
            blocks: Vec::new(),
            declared: Vec::new(),
            found: None,
        }
    }

    fn divergence(&self, expr: &Expr) -> Option<Divergence> {
        divergence::in_expr(expr, self.ctx, &self.declared)
    }

    /// Visits `f` under `d`, if there is one.
    fn under(&mut self, d: Option<Divergence>, f: impl FnOnce(&mut Self)) {
        let pushed = d.is_some();
        if let Some(d) = d {
            self.under.push(d);
        }
        f(self);
        if pushed {
            self.under.pop();
        }
    }

    fn exit(&mut self, what: &'static str) {
        if self.found.is_none() {
            if let Some(d) = self.under.last() {
                self.found = Some(d.clone().with_cause(Cause::EarlyExit(what)));
            }
        }
    }

    /// Whether a `break`/`continue` with this label leaves the scanned code.
    fn leaves(&self, label: Option<&Lifetime>) -> bool {
        match label {
            None => self.loops.is_empty(),
            Some(label) => {
                !self.loops.iter().flatten().any(|l| l == label)
                    && !self.blocks.iter().any(|l| l == label)
            }
        }
    }

    fn in_loop(&mut self, label: Option<&Label>, f: impl FnOnce(&mut Self)) {
        self.loops.push(label.map(|l| l.name.clone()));
        f(self);
        self.loops.pop();
    }
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_expr_return(&mut self, node: &'ast ExprReturn) {
        visit::visit_expr_return(self, node);
        self.exit("return");
    }

    fn visit_expr_try(&mut self, node: &'ast ExprTry) {
        visit::visit_expr_try(self, node);
        let d = self.divergence(&node.expr);
        self.under(d, |s| s.exit("?"));
    }

    fn visit_expr_break(&mut self, node: &'ast ExprBreak) {
        visit::visit_expr_break(self, node);
        if self.leaves(node.label.as_ref()) {
            self.exit("break");
        }
    }

    fn visit_expr_continue(&mut self, node: &'ast ExprContinue) {
        if self.leaves(node.label.as_ref()) {
            self.exit("continue");
        }
    }

    fn visit_expr_if(&mut self, node: &'ast ExprIf) {
        self.visit_expr(&node.cond);
        let d = self.divergence(&node.cond);
        self.under(d, |s| {
            s.visit_block(&node.then_branch);
            if let Some((_, other)) = &node.else_branch {
                s.visit_expr(other);
            }
        });
    }

    fn visit_expr_match(&mut self, node: &'ast ExprMatch) {
        self.visit_expr(&node.expr);
        let d = self.divergence(&node.expr).or_else(|| {
            node.arms
                .iter()
                .filter_map(|arm| arm.guard.as_ref())
                .find_map(|(_, guard)| self.divergence(guard))
        });
        self.under(d, |s| {
            for arm in &node.arms {
                s.visit_arm(arm);
            }
        });
    }

    fn visit_expr_while(&mut self, node: &'ast ExprWhile) {
        self.visit_expr(&node.cond);
        let d = self.divergence(&node.cond);
        self.in_loop(node.label.as_ref(), |s| {
            s.under(d, |s| s.visit_block(&node.body));
        });
    }

    fn visit_expr_for_loop(&mut self, node: &'ast ExprForLoop) {
        self.visit_expr(&node.expr);
        let d = self.divergence(&node.expr);
        self.in_loop(node.label.as_ref(), |s| {
            s.under(d, |s| s.visit_block(&node.body));
        });
    }

    fn visit_expr_loop(&mut self, node: &'ast ExprLoop) {
        self.in_loop(node.label.as_ref(), |s| s.visit_block(&node.body));
    }

    fn visit_expr_block(&mut self, node: &'ast ExprBlock) {
        // `'a: { .. break 'a; .. }`: a labeled break leaves only the block.
        match &node.label {
            Some(label) => {
                self.blocks.push(label.name.clone());
                self.visit_block(&node.block);
                self.blocks.pop();
            }
            None => self.visit_block(&node.block),
        }
    }

    fn visit_local(&mut self, node: &'ast Local) {
        let Some(init) = &node.init else {
            return;
        };
        self.visit_expr(&init.expr);
        let d = self.divergence(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            // `let Some(x) = divergent else { return };`
            self.under(d.clone(), |s| s.visit_expr(diverge));
        }
        let mut names = Vec::new();
        pat_names(&node.pat, &mut names);
        for name in names {
            self.declared.push((name, d.clone()));
        }
    }

    fn visit_expr_closure(&mut self, _: &'ast ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast ExprAsync) {}
    fn visit_item(&mut self, _: &'ast Item) {}
    fn visit_macro(&mut self, _: &'ast Macro) {}
}
