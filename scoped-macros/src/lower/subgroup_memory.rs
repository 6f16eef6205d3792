//! Private memory that only one `distribute_groups!` uses, made per
//! sub-group: `memory_environment!(g, require_private_mem::<T>(), |m| {
//! distribute_groups!(g, |sg| { … }) })` becomes `distribute_groups!(g,
//! |sg| { memory_environment!(sg, require_private_mem::<T>(), |m| { … })
//! })`.
//!
//! Made on the work group, the memory is one array for all sub-groups,
//! which the sub-group loop reaches at a run-time offset: the optimiser
//! keeps it in memory, and a sub-group algorithm between two item loops
//! (the xor butterfly's `permute_group_by_xor`, then `m[idx] +=
//! partner[idx]`) costs a store and a reload per value and step. Made on
//! the sub-group, it is an array of the sub-group's items at constant
//! offsets, which the optimiser keeps in registers (layer norm's
//! butterfly form then runs as fast as its `reduce_over_group` form).
//!
//! Every value a sub-group sees is the same: each sub-group reads and
//! writes only its own items' values, which start as the request's
//! initial value, and nothing reads the memory after the sub-group loop.
//! Taken only where that is plain to see: every request is private
//! memory; the environment's body is the `distribute_groups!` on the same
//! group and nothing else; and inside it each memory is only indexed
//! (`m[idx]`) or passed to a group function (`permute_group_by_xor(sg, m,
//! partner, 8)`), never shadowed, passed elsewhere or named in a macro
//! whose arguments are not expressions. An initial value is computed once,
//! before the sub-group loop, as the environment does.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned, ToTokens};
use syn::visit::{self, Visit};
use syn::{Expr, ExprClosure, Ident, Pat, Stmt};

use super::interchange::body::mentions;
use crate::check::calls;
use crate::parse::{self, Collective, Invocation, Place};

/// The environment `inv` rewritten as a `distribute_groups!` around an
/// environment on the sub-group, or `None` where it is not one of the
/// environments described above. The result is still to be walked.
pub(crate) fn sink(inv: &Invocation) -> Option<Expr> {
    let env_kind = matches!(
        inv.kind,
        Collective::MemoryEnvironment | Collective::PrivateMemoryEnvironment
    );
    if !env_kind || inv.requests.iter().any(|r| r.place != Place::Private) {
        return None;
    }
    let closure = &inv.closure;
    if closure.capture.is_some() || !matches!(closure.output, syn::ReturnType::Default) {
        return None;
    }
    let names = closure
        .inputs
        .iter()
        .map(|p| param_name(p).cloned())
        .collect::<Option<Vec<Ident>>>()?;
    let groups = lone_distribute_groups(&closure.body)?;
    let groups_inv = parse::invocation(
        Collective::DistributeGroups,
        groups.wait,
        groups.name.clone(),
        groups.tokens,
    )
    .ok()?;
    let same_group = super::strip_reference(&groups_inv.group)
        .to_token_stream()
        .to_string()
        == super::strip_reference(&inv.group)
            .to_token_stream()
            .to_string();
    // A sub-group named as a memory would hide it inside the loop.
    let sub_group = match groups_inv.closure.inputs.first() {
        Some(Pat::Ident(sg))
            if groups_inv.closure.inputs.len() == 1 && !names.contains(&sg.ident) =>
        {
            &sg.ident
        }
        _ => return None,
    };
    let body = &groups_inv.closure.body;
    if !same_group || !only_indexed_or_passed(body, &names) {
        return None;
    }
    Some(rewritten(inv, &groups_inv, &groups.path, sub_group))
}

/// The name a memory is bound to: `m` or `m: Type`.
fn param_name(param: &Pat) -> Option<&Ident> {
    match param {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(&p.ident),
        Pat::Type(typed) => param_name(&typed.pat),
        _ => None,
    }
}

/// A `distribute_groups!` (or its `_and_wait` form) as written.
struct GroupsMacro {
    path: syn::Path,
    name: Ident,
    wait: bool,
    tokens: TokenStream,
}

/// The `distribute_groups!` that is `body`'s only statement, if it is.
fn lone_distribute_groups(body: &Expr) -> Option<GroupsMacro> {
    let mac = match body {
        Expr::Macro(m) => &m.mac,
        Expr::Block(block) if block.label.is_none() && block.block.stmts.len() == 1 => {
            match &block.block.stmts[0] {
                Stmt::Macro(m) => &m.mac,
                Stmt::Expr(Expr::Macro(m), _) => &m.mac,
                _ => return None,
            }
        }
        _ => return None,
    };
    let name = mac.path.segments.last()?.ident.clone();
    match Collective::from_name(&name.to_string())? {
        (Collective::DistributeGroups, wait) => Some(GroupsMacro {
            path: mac.path.clone(),
            name,
            wait,
            tokens: mac.tokens.clone(),
        }),
        _ => None,
    }
}

/// Whether every use of `names` in `body` is an index (`m[idx]`) or an
/// argument of a group function.
fn only_indexed_or_passed(body: &Expr, names: &[Ident]) -> bool {
    let mut uses = Uses { names, ok: true };
    uses.visit_expr(body);
    uses.ok
}

struct Uses<'n> {
    names: &'n [Ident],
    ok: bool,
}

impl Uses<'_> {
    /// Whether `expr` is one of the memories: `m`, `&m`, `&mut m`, `*m`,
    /// `&*m`, `&mut *m`.
    fn memory(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(path) => path
                .path
                .get_ident()
                .is_some_and(|ident| self.names.contains(ident)),
            Expr::Reference(r) => self.memory(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.memory(&u.expr),
            Expr::Paren(p) => self.memory(&p.expr),
            _ => false,
        }
    }

    /// Any macro: its arguments walked where they are expressions, else
    /// refused if it names a memory.
    fn mac(&mut self, mac: &syn::Macro) {
        match parse::macro_arguments(mac) {
            Some(args) => args.iter().for_each(|arg| self.visit_expr(arg)),
            None => self.ok &= !mentions(mac.tokens.clone(), self.names),
        }
    }
}

impl<'a> Visit<'a> for Uses<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Index(index) if self.memory(&index.expr) => self.visit_expr(&index.index),
            // A group function: a collective by name, group first.
            Expr::Call(call) if calls::call(call).is_some() => {
                for arg in &call.args {
                    if !self.memory(arg) {
                        self.visit_expr(arg);
                    }
                }
            }
            Expr::Path(_) if self.memory(expr) => self.ok = false,
            Expr::Macro(m) => self.mac(&m.mac),
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'a syn::StmtMacro) {
        self.mac(&stmt.mac);
    }

    fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
        // A binding of the same name: its uses are not the memory's.
        self.ok &= !self.names.contains(&pat.ident);
        visit::visit_pat_ident(self, pat);
    }

    fn visit_item(&mut self, _item: &'a syn::Item) {
        // Nested items cannot name the closure's bindings.
    }
}

/// `{ let <init>…; distribute_groups!(g, |sg| { env!(sg, …, |m…| body) }) }`.
fn rewritten(inv: &Invocation, groups: &Invocation, path: &syn::Path, sg: &Ident) -> Expr {
    let mut inits = Vec::new();
    let mut requests = Vec::new();
    for (index, request) in inv.requests.iter().enumerate() {
        let (ty, span) = (&request.ty, request.span);
        match inv.kind {
            Collective::PrivateMemoryEnvironment => requests.push(quote_spanned!(span=> #ty)),
            _ => requests.push(match &request.init {
                None => quote_spanned!(span=> require_private_mem::<#ty>()),
                Some(init) => {
                    let value = format_ident!(
                        "__scoped_private_init_{}",
                        index,
                        span = Span::mixed_site().located_at(span)
                    );
                    inits.push(quote_spanned!(span=> let #value = #init;));
                    quote_spanned!(span=> require_private_mem::<#ty>(#value))
                }
            }),
        }
    }
    let env = &inv.name;
    let ExprClosure {
        inputs: params,
        or1_token,
        or2_token,
        ..
    } = &inv.closure;
    let group_closure = &groups.closure;
    let (capture, attrs, body) = (
        &group_closure.capture,
        &group_closure.attrs,
        &group_closure.body,
    );
    let group = &groups.group;
    syn::parse_quote! {
        {
            #(#inits)*
            #path!(#group, #(#attrs)* #capture |#sg| {
                #env!(#sg, #(#requests,)* #or1_token #params #or2_token #body)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use crate::parse::{invocation, Collective};

    fn sunk(args: &str) -> Option<String> {
        let inv = invocation(
            Collective::MemoryEnvironment,
            false,
            quote::format_ident!("memory_environment"),
            args.parse().unwrap(),
        )
        .unwrap();
        super::sink(&inv).map(|e| e.to_token_stream().to_string())
    }

    const BUTTERFLY: &str = "group, require_private_mem::<f32>(), require_private_mem::<f32>(),
        |mean, partner| {
            distribute_groups!(group, |sg| {
                distribute_items!(sg, |idx| mean[idx] = x[idx.global_linear_id()]);
                for m in [8, 4, 2, 1] {
                    permute_group_by_xor(sg, mean, partner, m);
                    distribute_items!(sg, |idx| mean[idx] += partner[idx]);
                }
                println!(\"{}\", mean[SItem::default()]);
            })
        }";

    #[test]
    fn a_butterfly_on_sub_groups_gets_memory_per_sub_group() {
        let out = sunk(BUTTERFLY).expect("sunk");
        let expected = "distribute_groups ! (group , | sg | { memory_environment ! (sg , \
                        require_private_mem :: < f32 > () , require_private_mem :: < f32 > () , \
                        | mean , partner |";
        assert!(out.contains(expected), "{out}");
    }

    #[test]
    fn initial_values_are_computed_once_before_the_sub_group_loop() {
        let out = sunk(
            "group, require_private_mem::<i32>(next()), |m| {
                distribute_groups!(group, |sg| distribute_items!(sg, |idx| m[idx] += 1))
            }",
        )
        .expect("sunk");
        let init = out.find("= next ()").expect(&out);
        let groups = out.find("distribute_groups").expect(&out);
        assert!(init < groups, "{out}");
        assert!(out.contains("require_private_mem :: < i32 > (__scoped_private_init_0)"));
    }

    #[test]
    fn other_environments_stay() {
        for args in [
            // Local memory is shared by the sub-groups.
            "group, require_local_mem::<[f32; 4]>(), |t| { distribute_groups!(group, |sg| { \
             t[0] = 1.0; }) }",
            // Something besides the sub-group loop.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |sg| { \
             distribute_items!(sg, |idx| m[idx] = 1.0); }); single_item!(group, || {}); }",
            // Another group's sub-groups.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(other, |sg| { \
             distribute_items!(sg, |idx| m[idx] = 1.0); }) }",
            // The memory read whole.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |sg| { \
             let s = m.as_slice(); }) }",
            // The memory passed to a function of the user's.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |sg| { \
             mine(sg, m); }) }",
            // Shadowed, or hidden by the sub-group's name.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |sg| { \
             let m = 1; distribute_items!(sg, |idx| x[idx] = m); }) }",
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |m| { \
             let s = reduce_over_group(m, x, plus()); }) }",
            // Named in a macro whose arguments are not expressions.
            "group, require_private_mem::<f32>(), |m| { distribute_groups!(group, |sg| { \
             mine!(m => 1); }) }",
            // A closure that moves, or returns a type.
            "group, require_private_mem::<f32>(), move |m| { distribute_groups!(group, |sg| {}) }",
            "group, require_private_mem::<f32>(), |m| -> () { distribute_groups!(group, |sg| {}) }",
        ] {
            assert_eq!(sunk(args), None, "{args}");
        }
    }
}
