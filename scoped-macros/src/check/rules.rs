//! The rules, as errors at the user's code: nesting rules 1–3 for every
//! collective (scoped parallelism v2, "Scoped parallelism nesting rules")
//! and the memory placement rule (rule 4: "Memory placement rules").

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;
use syn::{Error, Expr};

use super::divergence::{Cause, Divergence};
use super::scope::{BindingKind, Context, Storage};

/// What kind of collective a [`Site`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// One of our macros; `memory` is `Some(private)` for the memory
    /// environments, telling whether one of the requests is private memory.
    Macro { memory: Option<bool> },
    /// A collective function; `more` if it takes more than the group.
    Function { more: bool },
    /// A collective method on the group.
    Method,
}

/// A collective at some point of the body.
pub(crate) struct Site<'a> {
    /// The collective's name as written, without `!`.
    pub(crate) name: String,
    /// What rules 2 and 3 point at: the macro's or function's name.
    pub(crate) callee: TokenStream,
    /// The group argument, if there is one.
    pub(crate) group: Option<&'a Expr>,
    pub(crate) form: Form,
}

impl Site<'_> {
    /// How messages name the collective: `` `distribute_items!` ``.
    fn what(&self) -> String {
        match self.form {
            Form::Macro { .. } => format!("`{}!`", self.name),
            Form::Function { .. } | Form::Method => format!("`{}`", self.name),
        }
    }

    /// The call rewritten to operate on `group`.
    fn call_on(&self, group: &Ident) -> String {
        match self.form {
            Form::Macro { .. } => format!("`{}!({group}, ...)`", self.name),
            Form::Function { more: true } => format!("`{}({group}, ...)`", self.name),
            Form::Function { more: false } => format!("`{}({group})`", self.name),
            Form::Method => format!("`{group}.{}(...)`", self.name),
        }
    }

    fn is_memory_environment(&self) -> Option<bool> {
        match self.form {
            Form::Macro { memory } => memory,
            _ => None,
        }
    }
}

/// The errors of one collective, and whether its group argument is a group
/// in scope (if not, a macro is not lowered, so that rustc does not add
/// type errors to ours).
pub(crate) struct Verdict {
    pub(crate) errors: Vec<Error>,
    pub(crate) group_usable: bool,
}

/// Checks the collective `site` against nesting rules 1, 2 and 3.
pub(crate) fn collective(ctx: &Context, site: &Site<'_>) -> Verdict {
    let mut errors = Vec::new();
    let inside_items = ctx.item_scope().is_some();
    if let Some(scope) = ctx.item_scope() {
        errors.push(rule2(site, scope));
    }
    let group_usable = match group_argument(ctx, site) {
        Argument::Innermost => true,
        Argument::Outer(name) => {
            if !inside_items {
                errors.push(rule1(ctx, site, &name));
            }
            true
        }
        Argument::NotAGroup(error) => {
            errors.extend(error);
            false
        }
    };
    if let (false, Some(divergence)) = (inside_items, &ctx.divergence) {
        errors.push(rule3(site, divergence));
    }
    Verdict {
        errors,
        group_usable,
    }
}

/// The group an argument names: `g`, `&g`, `*g` or `(g)`.
pub(crate) fn group_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Reference(r) if r.mutability.is_none() => group_ident(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => group_ident(&u.expr),
        Expr::Paren(p) => group_ident(&p.expr),
        Expr::Group(g) => group_ident(&g.expr),
        _ => None,
    }
}

enum Argument {
    Innermost,
    /// An enclosing group (rule 1).
    Outer(Ident),
    /// Not a group; the error, for macros.
    NotAGroup(Option<Error>),
}

fn group_argument(ctx: &Context, site: &Site<'_>) -> Argument {
    let name = site.group.and_then(group_ident);
    let binding = name.and_then(|n| ctx.lookup(n));
    match (name, binding.map(|b| &b.kind)) {
        (Some(_), Some(BindingKind::Group { level })) if *level >= ctx.level() => {
            Argument::Innermost
        }
        (Some(name), Some(BindingKind::Group { .. })) => Argument::Outer(name.clone()),
        _ if !matches!(site.form, Form::Macro { .. }) => {
            // rustc checks the argument's type; the rules only concern groups.
            Argument::NotAGroup(None)
        }
        _ if ctx.poisoned && ctx.innermost().is_none() => Argument::NotAGroup(None),
        (name, binding) => {
            Argument::NotAGroup(Some(not_a_group(ctx, site, name, binding.is_some())))
        }
    }
}

/// The first argument of a macro is not a group in scope.
fn not_a_group(ctx: &Context, site: &Site<'_>, name: Option<&Ident>, bound: bool) -> Error {
    let what = site.what();
    let fix = match ctx.innermost() {
        Some(inner) => format!("write {}", site.call_on(inner)),
        None if ctx.level() > 0 => "name the subgroup (`|subgroup| ...`) and pass it".to_string(),
        None => "this function has no group parameter".to_string(),
    };
    let message = match name {
        Some(name) if bound => format!("`{name}` is not a group: {fix}"),
        Some(name) => format!("`{name}` is not a group in scope: {fix}"),
        None => format!("{what} takes a group named by a variable: {fix}"),
    };
    match site.group {
        Some(group) => Error::new_spanned(group, message),
        None => Error::new_spanned(&site.callee, message),
    }
}

fn rule1(ctx: &Context, site: &Site<'_>, outer: &Ident) -> Error {
    let message = match ctx.innermost() {
        Some(inner) => format!(
            "rule 1: use the innermost group `{inner}`, not `{outer}`: write {}",
            site.call_on(inner)
        ),
        None => format!(
            "rule 1: use the innermost group, not `{outer}`: name the subgroup (`|subgroup| ...`) \
             and pass it"
        ),
    };
    let group = site.group.expect("an enclosing group was named");
    Error::new_spanned(group, message)
}

fn rule2(site: &Site<'_>, scope: &Ident) -> Error {
    let what = site.what();
    let message = match site.is_memory_environment() {
        Some(true) => {
            format!("rule 2: private memory requested in `{scope}!`: open {what} around it")
        }
        Some(false) => {
            format!("rule 2: local memory requested in `{scope}!`: open {what} around it")
        }
        None if site.name.starts_with("group_barrier") && scope == "distribute_items" => {
            format!("rule 2: {what} inside `{scope}!`: call it after, or use `{scope}_and_wait!`")
        }
        None => format!("rule 2: collective {what} inside `{scope}!`: call it outside"),
    };
    Error::new_spanned(&site.callee, message)
}

fn rule3(site: &Site<'_>, d: &Divergence) -> Error {
    let what = site.what();
    let query = d.describe();
    let message = match &d.cause {
        Cause::Condition => format!(
            "rule 3: {what} under a condition on {query}: call it where every item reaches it"
        ),
        Cause::Loop => format!(
            "rule 3: {what} in a loop that depends on {query}: loop over values every item shares"
        ),
        Cause::EarlyExit(exit) => {
            format!("rule 3: {what} after a `{exit}` on {query}: let every item reach it")
        }
        Cause::SingleItem(scope) => {
            let message = format!("rule 3: collective {what} inside `{scope}!`: call it outside");
            return Error::new_spanned(&site.callee, message);
        }
    };
    Error::new_spanned(&d.tokens, message)
}

/// How a place is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// `=` or a compound assignment (`+=`, ...).
    Assign,
    /// `&mut place` (or `&raw mut place`).
    Borrow,
}

/// Rule 4 (memory placement): `place` is written inside
/// `distribute_items!`. A variable declared outside it (or a parameter)
/// is private memory of the physical item: assigning it is an error, and
/// so is writing a part of it or borrowing it mutably when it holds its
/// value itself. Through a reference (a parameter, `let r = &mut x`,
/// `let s = v.as_mut_slice()`), elements and fields are other memory:
/// global memory, local memory, or a variable's that the user chose to
/// share.
pub(crate) fn assignment(ctx: &Context, place: &Expr, write: Write) -> Option<Error> {
    let scope = ctx.item_scope()?;
    let (root, projected) = place_root(place)?;
    let binding = ctx.lookup(root)?;
    let (items, storage) = match binding.kind {
        BindingKind::Local { items, storage } => (items, storage),
        BindingKind::Param => (0, Storage::Reference),
        _ => return None,
    };
    let flagged = match storage {
        Storage::Value | Storage::MutClosure => true,
        Storage::Reference => !projected && write == Write::Assign,
    };
    if items >= ctx.items_level() || !flagged {
        return None;
    }
    let message = match binding.kind {
        BindingKind::Param => {
            format!(
                "rule 4: parameter `{root}` is written in `{scope}!`: declare a variable inside"
            )
        }
        _ => format!(
            "rule 4: `{root}` from outside `{scope}!` is written in it: declare it inside, or use \
             local memory"
        ),
    };
    Some(Error::new_spanned(place.to_token_stream(), message))
}

/// Rule 4 for a call inside `distribute_items!` of a closure declared
/// `mut` outside it: an `FnMut`, whose call writes its captured state.
pub(crate) fn call(ctx: &Context, callee: &Expr) -> Option<Error> {
    let scope = ctx.item_scope()?;
    let (root, false) = place_root(callee)? else {
        return None;
    };
    match ctx.lookup(root)?.kind {
        BindingKind::Local {
            items,
            storage: Storage::MutClosure,
        } if items < ctx.items_level() => {
            let message = format!(
                "rule 4: `{root}` is an `FnMut` from outside `{scope}!`: call it outside, or \
                 declare it inside"
            );
            Some(Error::new_spanned(callee, message))
        }
        _ => None,
    }
}

/// Whether `expr` is (a part of) a variable declared outside the enclosing
/// `distribute_items!` that holds its value itself: the physical item's
/// private memory, which the logical items may only read (rule 4). A
/// method call on it, or a call of it, is lowered to go through a shared
/// reference (`lower::read_only`), so that rustc rejects the `&mut self`
/// methods and `FnMut` calls the syntax cannot tell from reads.
pub(crate) fn is_outer_value(ctx: &Context, expr: &Expr) -> bool {
    ctx.item_scope().is_some()
        && place_root(expr)
            .and_then(|(root, _)| ctx.lookup(root))
            .is_some_and(|binding| match binding.kind {
                BindingKind::Local { items, storage } => {
                    items < ctx.items_level() && storage != Storage::Reference
                }
                _ => false,
            })
}

/// The variable a place expression writes and whether it writes part of
/// it (a field or element); `None` for writes through a dereference or a
/// method's result, which reach other memory.
fn place_root(place: &Expr) -> Option<(&Ident, bool)> {
    match place {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|name| (name, false)),
        Expr::Field(f) => place_root(&f.base).map(|(name, _)| (name, true)),
        Expr::Index(i) => place_root(&i.expr).map(|(name, _)| (name, true)),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Group(g) => place_root(&g.expr),
        _ => None,
    }
}
