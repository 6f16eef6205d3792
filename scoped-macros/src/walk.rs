//! The walk through a kernel's (or group function's) body: keeps the
//! [`Context`] up to date through Rust's scopes and control flow, checks
//! every collective and every assignment, and replaces our macros by their
//! lowering, at any depth (blocks, `if`, `match`, loops, closures, and the
//! arguments of other macros when they are comma-separated expressions).

use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{
    BinOp, Block, Expr, ExprClosure, ExprForLoop, ExprIf, ExprLoop, ExprMatch, ExprWhile, Local,
    Macro, Pat, PointerMutability, Stmt,
};

use crate::check::{
    self, calls, flow, BindingKind, Cause, Context, Divergence, Form, Site, Storage, Write,
};
use crate::lower;
use crate::lower::next_step::NextStep;
use crate::parse::Collective;
use crate::parse::{self, Place};

/// Walks a body; collects every error instead of stopping at the first.
pub(crate) struct Walker {
    pub(crate) ctx: Context,
    pub(crate) errors: Vec<syn::Error>,
    /// How many of our macros and rule-4 reads were lowered so far.
    replaced: usize,
    /// The function's shared-slice parameters (`lower::group_slice`).
    pub(crate) slice_params: Vec<syn::Ident>,
    /// The function's `ChunkWindow` parameters (`lower::lane_check`).
    pub(crate) window_params: Vec<syn::Ident>,
    /// The function's per-item window parameters (`lower::global_id`).
    pub(crate) item_window_params: Vec<lower::ItemWindow>,
    /// Whether the function is a kernel with a required group size: its
    /// group parameter's range is a constant (`lower::interchange`).
    pub(crate) required_size: bool,
    /// Loops (`for`, `while`, `loop`) around the expression being walked,
    /// innermost last, with the next step of each `for` loop of the shape
    /// `lower::next_step` follows.
    loops: Vec<Option<NextStep>>,
    /// Whether the next block walked is the body of the innermost loop,
    /// whose plain `let`s its next step records.
    loop_body: bool,
}

impl Walker {
    pub(crate) fn new(ctx: Context) -> Self {
        Walker {
            ctx,
            errors: Vec::new(),
            replaced: 0,
            slice_params: Vec::new(),
            window_params: Vec::new(),
            item_window_params: Vec::new(),
            required_size: false,
            loops: Vec::new(),
            loop_body: false,
        }
    }

    /// Runs `f` in a new scope; the context is restored afterwards.
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.ctx.save();
        self.ctx.push_scope();
        f(self);
        self.ctx.restore(saved);
    }

    /// Runs `f` where control flow diverges because of `d` (if the
    /// context did not diverge already).
    fn diverging(&mut self, d: Option<Divergence>, f: impl FnOnce(&mut Self)) {
        let saved = self.ctx.divergence.clone();
        if self.ctx.divergence.is_none() {
            self.ctx.divergence = d;
        }
        f(self);
        self.ctx.divergence = saved;
    }

    fn divergence_of(&self, expr: &Expr) -> Option<Divergence> {
        flow::in_expr(expr, &self.ctx, &[])
    }

    /// Checks, walks and lowers `mac` if it is one of our collectives.
    fn our_macro(&mut self, mac: &Macro) -> Option<Expr> {
        let name = mac.path.segments.last()?.ident.clone();
        let (kind, wait) = Collective::from_name(&name.to_string())?;
        self.replaced += 1;
        let mut inv = match parse::invocation(kind, wait, name, mac.tokens.clone()) {
            Ok(inv) => inv,
            Err(e) => {
                self.errors.push(e);
                return Some(lower::placeholder());
            }
        };
        let mut lowerable = inv.errors.is_empty() && !self.ctx.poisoned;
        self.errors.append(&mut inv.errors);
        let memory = match kind {
            Collective::MemoryEnvironment
            | Collective::LocalMemoryEnvironment
            | Collective::PrivateMemoryEnvironment => {
                Some(inv.requests.iter().any(|r| r.place == Place::Private))
            }
            _ => None,
        };
        let site = Site {
            name: inv.name.to_string(),
            callee: inv.name.to_token_stream(),
            group: Some(&inv.group),
            form: Form::Macro { memory },
        };
        let verdict = check::collective(&self.ctx, &site);
        let clean = verdict.errors.is_empty();
        self.errors.extend(verdict.errors);
        lowerable &= verdict.group_usable;
        if lowerable && clean {
            // Walked as what it becomes: a sub-group loop around an
            // environment on the sub-group.
            if let Some(mut sunk) = lower::subgroup_memory::sink(&inv) {
                self.visit_expr_mut(&mut sunk);
                return Some(sunk);
            }
        }

        for request in &mut inv.requests {
            for arg in request.len.iter_mut().chain(&mut request.init) {
                self.visit_expr_mut(arg);
            }
        }
        self.scoped(|w| {
            let params = &inv.closure.inputs;
            match kind {
                Collective::DistributeItems => {
                    w.ctx.enter_items(&inv.name);
                    let item = w.ctx.local(Storage::Value);
                    params.iter().for_each(|p| w.ctx.bind_pat(p, &item, None));
                }
                Collective::DistributeGroups => w.ctx.enter_subgroup(params.first()),
                Collective::SingleItem => {
                    if w.ctx.divergence.is_none() {
                        w.ctx.divergence = Some(Divergence::single_item(&inv.name));
                    }
                }
                Collective::MemoryEnvironment
                | Collective::LocalMemoryEnvironment
                | Collective::PrivateMemoryEnvironment => {
                    params
                        .iter()
                        .for_each(|p| w.ctx.bind_pat(p, &BindingKind::Memory, None));
                }
            }
            w.visit_expr_mut(&mut inv.closure.body);
        });
        if inv.kind == Collective::DistributeItems {
            lower::exclusive_atomic::rewrite(&mut inv.closure.body);
        }
        if !lowerable {
            return Some(lower::placeholder());
        }
        inv.in_loop = !self.loops.is_empty();
        inv.next_step = self.loops.last().cloned().flatten();
        // The kernel's own group, not a binding that shadows its name.
        inv.required_size = self.required_size
            && crate::check::group_ident(&inv.group)
                .and_then(|name| self.ctx.lookup(name))
                .is_some_and(|b| b.kind == BindingKind::Group { level: 0 });
        // Parameters that a binding in scope here shadows are not the slices
        // or windows.
        let unshadowed = |name: &syn::Ident| {
            self.ctx
                .lookup(name)
                .is_some_and(|b| b.kind == BindingKind::Param)
        };
        let slices: Vec<syn::Ident> = self
            .slice_params
            .iter()
            .filter(|s| unshadowed(s))
            .cloned()
            .collect();
        let item_windows: Vec<lower::ItemWindow> = self
            .item_window_params
            .iter()
            .filter(|w| unshadowed(&w.name))
            .cloned()
            .collect();
        let mut indexed: Vec<lower::Indexed> = slices
            .iter()
            .chain(&self.ctx.slice_locals())
            .map(lower::Indexed::slice)
            .collect();
        indexed.extend(
            self.window_params
                .iter()
                .filter(|w| unshadowed(w))
                .map(lower::Indexed::chunk_window),
        );
        Some(
            syn::parse2(lower::invocation(
                &inv,
                &self.ctx.generics,
                &slices,
                &item_windows,
                &indexed,
            ))
            .unwrap_or_else(|e| {
                let tokens = e.to_compile_error();
                syn::parse_quote!({ #tokens })
            }),
        )
    }

    /// Checks and lowers what is inside a macro that is not ours, if its
    /// arguments are comma-separated expressions.
    fn other_macro(&mut self, mac: &mut Macro) {
        let Some(mut args) = parse::macro_arguments(mac) else {
            return;
        };
        let before = self.replaced;
        for arg in args.iter_mut() {
            match arg {
                // `name = value`: a named argument of a formatting macro.
                Expr::Assign(named) => self.visit_expr_mut(&mut named.right),
                other => self.visit_expr_mut(other),
            }
        }
        if self.replaced != before {
            mac.tokens = args.into_token_stream();
        }
    }

    fn collective_call(&mut self, call: check::CollectiveCall<'_>, more: bool) {
        let form = if call.method {
            Form::Method
        } else {
            Form::Function { more }
        };
        let site = Site {
            name: call.name,
            callee: call.callee,
            group: call.group,
            form,
        };
        let verdict = check::collective(&self.ctx, &site);
        self.errors.extend(verdict.errors);
    }

    /// Lowers `expr` to a shared read if it is the physical item's private
    /// memory inside `distribute_items!` (rule 4).
    fn read_only(&mut self, expr: &mut Expr) {
        if check::is_outer_value(&self.ctx, expr) {
            *expr = lower::read_only(expr);
            self.replaced += 1;
        }
    }

    fn assignment(&mut self, place: &Expr, write: Write) {
        self.errors
            .extend(check::assignment(&self.ctx, place, write));
    }

    /// Binds the names `if let` / `while let` conditions introduce.
    fn bind_condition(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(binding) => {
                let divergent = self.divergence_of(&binding.expr);
                let kind = self.ctx.local(Storage::Reference);
                self.ctx.bind_pat(&binding.pat, &kind, divergent.as_ref());
            }
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                self.bind_condition(&b.left);
                self.bind_condition(&b.right);
            }
            Expr::Paren(p) => self.bind_condition(&p.expr),
            _ => {}
        }
    }

    fn walk_if(&mut self, e: &mut ExprIf) {
        self.visit_expr_mut(&mut e.cond);
        let d = self.divergence_of(&e.cond);
        self.diverging(d, |w| {
            w.scoped(|w| {
                w.bind_condition(&e.cond);
                w.visit_block_mut(&mut e.then_branch);
            });
            if let Some((_, other)) = &mut e.else_branch {
                w.visit_expr_mut(other);
            }
        });
    }

    fn walk_match(&mut self, e: &mut ExprMatch) {
        self.visit_expr_mut(&mut e.expr);
        let scrutinee = self.divergence_of(&e.expr);
        let guards = e
            .arms
            .iter()
            .filter_map(|arm| arm.guard.as_ref())
            .find_map(|(_, guard)| self.divergence_of(guard));
        let d = scrutinee.clone().or(guards);
        self.diverging(d, |w| {
            for arm in &mut e.arms {
                w.scoped(|w| {
                    let kind = w.ctx.local(Storage::Reference);
                    w.ctx.bind_pat(&arm.pat, &kind, scrutinee.as_ref());
                    if let Some((_, guard)) = &mut arm.guard {
                        w.visit_expr_mut(guard);
                    }
                    w.visit_expr_mut(&mut arm.body);
                });
            }
        });
    }

    fn loop_divergence(&self, head: Option<&Expr>, body: &Block) -> Option<Divergence> {
        head.and_then(|h| self.divergence_of(h))
            .or_else(|| flow::in_loop_body(body, &self.ctx))
            .map(|d| d.with_cause(Cause::Loop))
    }

    fn walk_while(&mut self, e: &mut ExprWhile) {
        let d = self.loop_divergence(Some(&e.cond), &e.body);
        self.visit_expr_mut(&mut e.cond);
        self.diverging(d, |w| {
            w.scoped(|w| {
                w.bind_condition(&e.cond);
                w.in_loop(None, |w| w.visit_block_mut(&mut e.body));
            });
        });
    }

    fn walk_for(&mut self, e: &mut ExprForLoop) {
        let d = self.loop_divergence(Some(&e.expr), &e.body);
        self.visit_expr_mut(&mut e.expr);
        self.diverging(d, |w| {
            w.scoped(|w| {
                let kind = w.ctx.local(Storage::Reference);
                w.ctx.bind_pat(&e.pat, &kind, None);
                let next_step = NextStep::of_for(e);
                w.in_loop(next_step, |w| w.visit_block_mut(&mut e.body));
            });
        });
    }

    fn walk_loop(&mut self, e: &mut ExprLoop) {
        let d = self.loop_divergence(None, &e.body);
        self.diverging(d, |w| w.in_loop(None, |w| w.visit_block_mut(&mut e.body)));
    }

    /// Runs `f` on a loop's body, a loop with `next_step` if it is a
    /// `for` loop of that shape.
    fn in_loop(&mut self, next_step: Option<NextStep>, f: impl FnOnce(&mut Self)) {
        self.loops.push(next_step);
        self.loop_body = true;
        f(self);
        self.loop_body = false;
        self.loops.pop();
    }

    fn walk_closure(&mut self, e: &mut ExprClosure) {
        self.scoped(|w| {
            let kind = w.ctx.local(Storage::Reference);
            e.inputs.iter().for_each(|p| w.ctx.bind_pat(p, &kind, None));
            w.visit_expr_mut(&mut e.body);
        });
    }

    fn walk_local(&mut self, local: &mut Local) {
        if let Some(init) = &mut local.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                // `let Some(x) = divergent else { ... }`: only some items
                // run the `else` block.
                let d = self.divergence_of(&init.expr);
                self.diverging(d, |w| w.visit_expr_mut(diverge));
            }
        }
        let init = local.init.as_ref().map(|init| &*init.expr);
        let (pat, ty) = match &local.pat {
            Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        let divergent = init.and_then(|e| self.divergence_of(e));
        let alias = init
            .and_then(check::group_ident)
            .and_then(|name| self.ctx.lookup(name))
            .filter(|_| matches!(pat, Pat::Ident(_)));
        let kind = match alias.map(|b| &b.kind) {
            // `let sg2 = sg;`: another name for the group.
            Some(BindingKind::Group { level }) => BindingKind::Group { level: *level },
            _ => self.ctx.local(check::let_storage(&self.ctx, pat, ty, init)),
        };
        self.ctx.bind_pat(pat, &kind, divergent.as_ref());
        if let (Pat::Ident(p), Some(init)) = (pat, init) {
            if p.by_ref.is_none() && p.subpat.is_none() && ty.is_none() && self.sub_slice(init) {
                self.ctx.mark_slice(&p.ident);
            }
        }
    }

    /// Whether `expr` is a shared slice taken from a known one by ranges:
    /// `&a[r..]`, `&a[r..][..n]`, `&x[..]` with `a` a shared-slice
    /// parameter and `x` such a local, as written here.
    fn sub_slice(&self, expr: &Expr) -> bool {
        let Expr::Reference(reference) = expr else {
            return false;
        };
        if reference.mutability.is_some() {
            return false;
        }
        let mut inner = &*reference.expr;
        let mut ranges = 0;
        while let Expr::Index(index) = inner {
            if !matches!(&*index.index, Expr::Range(_)) {
                return false;
            }
            ranges += 1;
            inner = &index.expr;
        }
        let Expr::Path(path) = inner else {
            return false;
        };
        let Some(name) = path.path.get_ident().filter(|_| path.qself.is_none()) else {
            return false;
        };
        ranges > 0 && self.known_slice(name)
    }

    /// Whether `name` here is a shared-slice parameter or a local marked
    /// as a slice.
    fn known_slice(&self, name: &syn::Ident) -> bool {
        match self.ctx.lookup(name) {
            Some(b) if b.kind == BindingKind::Param => self.slice_params.contains(name),
            Some(b) => b.slice,
            None => false,
        }
    }
}

impl VisitMut for Walker {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let loop_body = std::mem::take(&mut self.loop_body);
        self.scoped(|w| {
            for stmt in &mut block.stmts {
                let exit = match w.ctx.divergence {
                    None => flow::after_stmt(stmt, &w.ctx),
                    Some(_) => None,
                };
                let written = (loop_body && matches!(stmt, Stmt::Local(_))).then(|| stmt.clone());
                w.visit_stmt_mut(stmt);
                if let (Some(written), Some(Some(step))) = (written, w.loops.last_mut()) {
                    step.passed(&written);
                }
                if w.ctx.divergence.is_none() {
                    w.ctx.divergence = exit;
                }
            }
        });
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Macro(m) => {
                if let Some(lowered) = self.our_macro(&m.mac) {
                    *stmt = match (m.semi_token, &m.mac.delimiter) {
                        // `distribute_items! { .. }` needs no `;` as a
                        // statement; its lowering in a block does not either.
                        (None, syn::MacroDelimiter::Brace(_)) => {
                            Stmt::Expr(syn::parse_quote!({ #lowered }), None)
                        }
                        (semi, _) => Stmt::Expr(lowered, semi),
                    };
                } else {
                    self.other_macro(&mut m.mac);
                }
            }
            Stmt::Local(local) => self.walk_local(local),
            // Nested items are not part of the kernel's hierarchy.
            Stmt::Item(_) => {}
            Stmt::Expr(..) => visit_mut::visit_stmt_mut(self, stmt),
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Macro(m) => {
                if let Some(lowered) = self.our_macro(&m.mac) {
                    *expr = lowered;
                } else {
                    self.other_macro(&mut m.mac);
                }
            }
            Expr::Call(call) => {
                if let Some(collective) = calls::call(call) {
                    let more = call.args.len() > 1;
                    self.collective_call(collective, more);
                }
                visit_mut::visit_expr_call_mut(self, call);
                if let Some(error) = check::call(&self.ctx, &call.func) {
                    self.errors.push(error);
                } else {
                    self.read_only(&mut call.func);
                }
            }
            Expr::MethodCall(call) => {
                if let Some(collective) = calls::method(call) {
                    self.collective_call(collective, true);
                }
                visit_mut::visit_expr_method_call_mut(self, call);
                self.read_only(&mut call.receiver);
            }
            Expr::Assign(assign) => {
                self.assignment(&assign.left, Write::Assign);
                visit_mut::visit_expr_assign_mut(self, assign);
            }
            Expr::Binary(binary) => {
                if is_compound_assignment(&binary.op) {
                    self.assignment(&binary.left, Write::Assign);
                }
                visit_mut::visit_expr_binary_mut(self, binary);
            }
            Expr::Reference(reference) => {
                if reference.mutability.is_some() {
                    self.assignment(&reference.expr, Write::Borrow);
                }
                visit_mut::visit_expr_reference_mut(self, reference);
            }
            Expr::RawAddr(raw) => {
                if matches!(raw.mutability, PointerMutability::Mut(_)) {
                    self.assignment(&raw.expr, Write::Borrow);
                }
                visit_mut::visit_expr_raw_addr_mut(self, raw);
            }
            Expr::If(e) => self.walk_if(e),
            Expr::Match(e) => self.walk_match(e),
            Expr::While(e) => self.walk_while(e),
            Expr::ForLoop(e) => {
                self.walk_for(e);
                if let Some(unrolled) = lower::unroll::literal_loop(e) {
                    *expr = unrolled;
                }
            }
            Expr::Loop(e) => self.walk_loop(e),
            Expr::Closure(e) => self.walk_closure(e),
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _item: &mut syn::Item) {
        // Nested items (fns, impls) are not part of the kernel's hierarchy.
    }
}

fn is_compound_assignment(op: &BinOp) -> bool {
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

#[cfg(test)]
mod tests {
    use proc_macro2::{TokenStream, TokenTree};
    use quote::quote;

    use crate::kernel::expand;
    use crate::signature::Flavor;

    /// The messages of the errors `#[kernel]` reports for `kernel`.
    fn errors(kernel: TokenStream) -> Vec<String> {
        let mut messages = Vec::new();
        let mut trees = expand(Flavor::Kernel, TokenStream::new(), kernel).into_iter();
        while let Some(tree) = trees.next() {
            if matches!(&tree, TokenTree::Ident(i) if i == "compile_error") {
                let Some(TokenTree::Punct(_)) = trees.next() else {
                    continue;
                };
                if let Some(TokenTree::Group(args)) = trees.next() {
                    messages.push(args.stream().to_string());
                }
            }
        }
        messages
    }

    /// Asserts that `kernel` reports one error per prefix, in order.
    fn assert_errors(kernel: TokenStream, prefixes: &[&str]) {
        let found = errors(kernel);
        assert_eq!(found.len(), prefixes.len(), "{found:#?}");
        for (message, prefix) in found.iter().zip(prefixes) {
            assert!(message.starts_with(&format!("\"{prefix}")), "{message}");
        }
    }

    #[test]
    fn let_else_on_the_leader_diverges_what_follows() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    let true = group.leader() else { return };
                    group_barrier(group);
                }
            },
            &["rule 3: `group_barrier`"],
        );
    }

    #[test]
    fn try_on_a_physical_query_diverges_what_follows() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) -> Option<()> {
                    group.leader().then_some(())?;
                    single_item!(group, || {});
                    Some(())
                }
            },
            &["rule 3: `single_item!`"],
        );
    }

    #[test]
    fn a_labeled_block_reconverges_after_its_end() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    'done: {
                        if group.leader() {
                            break 'done;
                        }
                        group_barrier(group);
                    }
                    group_barrier(group);
                }
            },
            &["rule 3: `group_barrier`"],
        );
    }

    #[test]
    fn a_return_inside_distribute_groups_leaves_only_its_closure() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    distribute_groups!(group, |sub| {
                        if sub.leader() {
                            return;
                        }
                        single_item!(sub, || {});
                    });
                    group_barrier(group);
                }
            },
            &["rule 3: `single_item!` after a `return` on `sub.leader()`"],
        );
    }

    #[test]
    fn uniform_exits_and_guards_are_fine() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>, n: usize) {
                    if n == 0 {
                        return;
                    }
                    for step in 0..n {
                        if step == 3 {
                            break;
                        }
                        group_barrier(group);
                    }
                    match n {
                        1 if n > 0 => group_barrier(group),
                        _ => distribute_items!(group, |_idx| {}),
                    }
                }
            },
            &[],
        );
    }

    #[test]
    fn a_divergent_guard_or_iterator_diverges() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>, n: usize) {
                    match n {
                        0 if group.leader() => {}
                        _ => group_barrier(group),
                    }
                    for _ in 0..group.physical_local_linear_range() {
                        group_barrier(group);
                    }
                }
            },
            &[
                "rule 3: `group_barrier` under a condition",
                "rule 3: `group_barrier` in a loop",
            ],
        );
    }

    #[test]
    fn names_resolve_through_shadowing() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    // The subgroup shadows the work group's name: innermost.
                    distribute_groups!(group, |group| {
                        distribute_items!(group, |_idx| {});
                    });
                    let group = 3;
                    single_item!(group, || {});
                }
            },
            &["`group` is not a group"],
        );
    }

    #[test]
    fn placement_follows_declarations_inside_and_outside() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    let mut v = 0;
                    let mut x = 0;
                    distribute_items!(group, |idx| {
                        let bump = |mut v: i32| {
                            v += 1;
                            v
                        };
                        let mut w = bump(v);
                        w += 1;
                        println!("{x}", x = w);
                        if let Some(mut y) = Some(w) {
                            y += 1;
                            x = y;
                        }
                    });
                }
            },
            &["rule 4: `x` from outside"],
        );
    }

    #[test]
    fn nested_items_are_not_part_of_the_kernel() {
        assert_errors(
            quote! {
                fn k(group: WorkGroup<1>) {
                    fn unrelated(mut total: i32) -> i32 {
                        total += 1;
                        total
                    }
                    distribute_items!(group, |_idx| {
                        let _ = unrelated(1);
                    });
                }
            },
            &[],
        );
    }
}
