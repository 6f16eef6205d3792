//! Checking: the spec's nesting rules, on the context the kernel walker
//! keeps (scoped parallelism v2, "Scoped parallelism nesting rules").

use proc_macro2::Span;
use syn::{Error, Expr, Ident, Pat};

use crate::parse::{Invocation, Kind};

/// What is in scope at a point of the kernel body.
#[derive(Clone, Default)]
pub(crate) struct Context {
    /// Group names in scope, outermost first; the last is the innermost.
    groups: Vec<Option<Ident>>,
    /// The enclosing `distribute_items!` or `single_item!`, if any.
    item_scope: Option<(Kind, Ident)>,
}

impl Context {
    /// The context at the top of a kernel whose group parameter is `group`.
    pub(crate) fn kernel(group: Option<Ident>) -> Self {
        Context {
            groups: vec![group],
            item_scope: None,
        }
    }

    /// The context inside the closure of `inv`.
    pub(crate) fn enter(&self, inv: &Invocation) -> Context {
        let mut inner = self.clone();
        match inv.kind {
            Kind::DistributeItems | Kind::SingleItem => {
                inner.item_scope = Some((inv.kind, inv.name.clone()));
            }
            Kind::DistributeGroups => {
                let param = inv.closure.inputs.first().and_then(pat_ident);
                inner.groups.push(param);
            }
            _ => {}
        }
        inner
    }

    fn innermost(&self) -> Option<&Ident> {
        self.groups.last().and_then(Option::as_ref)
    }
}

/// The identifier a closure parameter binds, if it is a plain name.
fn pat_ident(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) => Some(p.ident.clone()),
        Pat::Type(p) => pat_ident(&p.pat),
        _ => None,
    }
}

/// The group name an argument refers to: `g` or `&g`.
pub(crate) fn group_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Reference(r) if r.mutability.is_none() => group_ident(&r.expr),
        Expr::Paren(p) => group_ident(&p.expr),
        _ => None,
    }
}

/// Checks one collective invocation against rules 1 and 2.
pub(crate) fn invocation(ctx: &Context, inv: &Invocation) -> Vec<Error> {
    let mut errors = Vec::new();
    let what = format!("`{}!`", inv.name);
    if let Some(e) = inside_item_scope(ctx, &what, inv.name.span()) {
        errors.push(e);
    }
    if let Some(e) = group_argument(ctx, &what, &inv.group) {
        errors.push(e);
    }
    errors
}

/// Rule 2: no collective inside `distribute_items!` (or `single_item!`).
fn inside_item_scope(ctx: &Context, what: &str, span: Span) -> Option<Error> {
    let (kind, scope) = ctx.item_scope.as_ref()?;
    let message = if *kind == Kind::DistributeItems {
        format!(
            "nesting rule 2: {what} is a collective and cannot run inside `{scope}!`, whose body \
             runs once per logical item; call it outside `{scope}!`, in the group's scope"
        )
    } else {
        format!(
            "nesting rule 2: {what} is a collective and cannot run inside `{scope}!`, whose body \
             runs on one physical item only; call it outside `{scope}!`"
        )
    };
    Some(Error::new(span, message))
}

/// Rule 1: the group argument is the innermost group in scope.
fn group_argument(ctx: &Context, what: &str, group: &Expr) -> Option<Error> {
    let Some(name) = group_ident(group) else {
        let expected = match ctx.innermost() {
            Some(inner) => format!("the innermost group `{inner}`"),
            None => "the innermost group".to_string(),
        };
        return Some(Error::new_spanned(
            group,
            format!(
                "the first argument of {what} must be a group: {expected} (the kernel's group \
                 parameter, or the subgroup a `distribute_groups!` closure receives)"
            ),
        ));
    };
    match ctx.innermost() {
        Some(inner) if inner == name => None,
        Some(inner) if ctx.groups.iter().flatten().any(|g| g == name) => Some(Error::new_spanned(
            group,
            format!(
                "nesting rule 1: {what} must operate on the innermost group `{inner}`, not on \
                 the enclosing group `{name}`; not every item of `{name}` reaches this point"
            ),
        )),
        Some(inner) => Some(Error::new_spanned(
            group,
            format!("{what} must be called on the innermost group `{inner}`; `{name}` is not a group in scope"),
        )),
        None => Some(Error::new_spanned(
            group,
            format!(
                "nesting rule 1: {what} must operate on the innermost group, but the enclosing \
                 `distribute_groups!` closure does not name its subgroup; write `|subgroup| ...`"
            ),
        )),
    }
}
