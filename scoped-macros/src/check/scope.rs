//! What is in scope at a point of a kernel body: the bindings (with what
//! kind of memory each names), the group hierarchy, the enclosing
//! `distribute_items!` and whether control flow may differ between the
//! physical items of the group.

use proc_macro2::Ident;
use syn::{Expr, Pat, Type};

use super::divergence::Divergence;

/// Where a variable declared in the body keeps what is written through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// The variable holds its value: writing to it or to one of its fields
    /// or elements writes the variable's own memory.
    Value,
    /// The variable may be a reference (or a view) to memory elsewhere:
    /// only assigning the variable itself writes its own memory.
    Reference,
    /// A closure declared `mut`: it holds its captured state, and calling
    /// it (`FnMut`) writes that state.
    MutClosure,
}

/// What a name in scope refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BindingKind {
    /// A group: the kernel's or group function's group parameter (level 0)
    /// or the subgroup a `distribute_groups!` closure receives (level n).
    Group { level: usize },
    /// A parameter of the function: global memory or a value the caller
    /// passed in.
    Param,
    /// Memory a `memory_environment!` provides (local or private memory).
    Memory,
    /// A variable declared in the body, inside `items` enclosing
    /// `distribute_items!` calls (0: the private memory of the physical
    /// item, spec "Memory placement rules").
    Local { items: usize, storage: Storage },
}

/// One name in scope.
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    pub(crate) name: Ident,
    pub(crate) kind: BindingKind,
    /// Set if the value depends on the physical item (`leader()`,
    /// physical ids): conditions on it diverge.
    pub(crate) divergent: Option<Divergence>,
    /// Set for a local known by its syntax to be a shared slice
    /// (`let x = &a[r..][..n];` of a shared-slice parameter `a`).
    pub(crate) slice: bool,
}

/// The part of a [`Context`] that [`Context::restore`] brings back.
pub(crate) struct Saved {
    scopes: usize,
    groups: usize,
    items: usize,
    divergence: Option<Divergence>,
}

/// What is in scope at a point of the body.
#[derive(Default)]
pub(crate) struct Context {
    /// Bindings, innermost scope last; within a scope, later shadows earlier.
    scopes: Vec<Vec<Binding>>,
    /// The group of each nesting level, outermost first (`None`: unnamed).
    groups: Vec<Option<Ident>>,
    /// The enclosing `distribute_items!` invocations (their macro names).
    items: Vec<Ident>,
    /// Set when control flow here may differ between physical items.
    pub(crate) divergence: Option<Divergence>,
    /// Set when the function's signature is wrong: nothing is lowered, so
    /// that the signature's error is the only one the user sees for it.
    pub(crate) poisoned: bool,
    /// The function's type and const parameters, which items inside its
    /// body cannot name.
    pub(crate) generics: Vec<Ident>,
}

impl Context {
    /// The context at the top of a kernel or group function whose group
    /// parameter is `group`.
    pub(crate) fn function(group: Option<Ident>) -> Self {
        let mut ctx = Context {
            scopes: vec![Vec::new()],
            groups: vec![group.clone()],
            ..Context::default()
        };
        if let Some(name) = group {
            ctx.bind(name, BindingKind::Group { level: 0 }, None);
        }
        ctx
    }

    pub(crate) fn save(&self) -> Saved {
        Saved {
            scopes: self.scopes.len(),
            groups: self.groups.len(),
            items: self.items.len(),
            divergence: self.divergence.clone(),
        }
    }

    pub(crate) fn restore(&mut self, saved: Saved) {
        self.scopes.truncate(saved.scopes);
        self.groups.truncate(saved.groups);
        self.items.truncate(saved.items);
        self.divergence = saved.divergence;
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(crate) fn bind(&mut self, name: Ident, kind: BindingKind, divergent: Option<Divergence>) {
        if self.scopes.is_empty() {
            self.push_scope();
        }
        let scope = self.scopes.last_mut().expect("a scope was just pushed");
        scope.push(Binding {
            name,
            kind,
            divergent,
            slice: false,
        });
    }

    /// Marks the innermost binding of `name` as a shared slice.
    pub(crate) fn mark_slice(&mut self, name: &Ident) {
        if let Some(binding) = self
            .scopes
            .iter_mut()
            .rev()
            .flat_map(|scope| scope.iter_mut().rev())
            .find(|binding| binding.name == *name)
        {
            binding.slice = true;
        }
    }

    /// The locals in scope here marked as shared slices, each the binding
    /// its name refers to.
    pub(crate) fn slice_locals(&self) -> Vec<Ident> {
        let mut names: Vec<Ident> = Vec::new();
        for binding in self.scopes.iter().flatten() {
            if binding.slice && !names.contains(&binding.name) {
                names.push(binding.name.clone());
            }
        }
        names.retain(|name| self.lookup(name).is_some_and(|b| b.slice));
        names
    }

    /// Binds every name `pat` introduces.
    pub(crate) fn bind_pat(
        &mut self,
        pat: &Pat,
        kind: &BindingKind,
        divergent: Option<&Divergence>,
    ) {
        let mut names = Vec::new();
        pat_names(pat, &mut names);
        for name in names {
            self.bind(name, kind.clone(), divergent.cloned());
        }
    }

    /// A variable declared in the body at this point, with `storage`.
    pub(crate) fn local(&self, storage: Storage) -> BindingKind {
        BindingKind::Local {
            items: self.items.len(),
            storage,
        }
    }

    /// The binding `name` refers to here, if it is declared in the function.
    pub(crate) fn lookup(&self, name: &Ident) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|binding| binding.name == *name)
    }

    /// Nesting level of the innermost group (0: the function's group).
    pub(crate) fn level(&self) -> usize {
        self.groups.len().saturating_sub(1)
    }

    /// The name of the group of `level`, if it has one.
    pub(crate) fn group_name(&self, level: usize) -> Option<&Ident> {
        self.groups.get(level).and_then(Option::as_ref)
    }

    /// The name of the innermost group, if it has one.
    pub(crate) fn innermost(&self) -> Option<&Ident> {
        self.group_name(self.level())
    }

    /// Enters the closure of a `distribute_groups!` whose subgroup is `param`.
    pub(crate) fn enter_subgroup(&mut self, param: Option<&Pat>) {
        let name = param.and_then(pat_ident);
        self.groups.push(name.clone());
        let level = self.level();
        if let Some(pat) = param {
            self.bind_pat(pat, &BindingKind::Group { level }, None);
        }
    }

    /// Enters the closure of the `distribute_items!` named `name`.
    pub(crate) fn enter_items(&mut self, name: &Ident) {
        self.items.push(name.clone());
    }

    /// The innermost enclosing `distribute_items!`, if any.
    pub(crate) fn item_scope(&self) -> Option<&Ident> {
        self.items.last()
    }

    /// Number of enclosing `distribute_items!` calls.
    pub(crate) fn items_level(&self) -> usize {
        self.items.len()
    }
}

/// The identifier a pattern binds if it is a plain name (`x`, `mut x`, `x: T`).
pub(crate) fn pat_ident(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.clone()),
        Pat::Type(p) => pat_ident(&p.pat),
        Pat::Paren(p) => pat_ident(&p.pat),
        _ => None,
    }
}

/// Every name `pat` binds. A lone identifier that starts with an upper-case
/// letter is taken for a constant or unit variant (Rust's naming
/// convention), not a binding.
pub(crate) fn pat_names(pat: &Pat, names: &mut Vec<Ident>) {
    match pat {
        Pat::Ident(p) => {
            let starts_upper = p.ident.to_string().starts_with(char::is_uppercase);
            let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
            if !(plain && starts_upper) {
                names.push(p.ident.clone());
            }
            if let Some((_, sub)) = &p.subpat {
                pat_names(sub, names);
            }
        }
        Pat::Or(p) => {
            // Every alternative binds the same names.
            if let Some(first) = p.cases.first() {
                pat_names(first, names);
            }
        }
        Pat::Paren(p) => pat_names(&p.pat, names),
        Pat::Reference(p) => pat_names(&p.pat, names),
        Pat::Slice(p) => p.elems.iter().for_each(|e| pat_names(e, names)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| pat_names(&f.pat, names)),
        Pat::Tuple(p) => p.elems.iter().for_each(|e| pat_names(e, names)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| pat_names(e, names)),
        Pat::Type(p) => pat_names(&p.pat, names),
        _ => {}
    }
}

/// How a `let` with this type annotation and initializer stores what is
/// written through it: a reference (`&mut x`, `x.as_mut_slice()`, a
/// `&mut T` annotation) or an alias of a parameter or of memory-environment
/// memory points elsewhere; a closure bound with `mut` is an `FnMut`;
/// anything else is a value of its own.
pub(crate) fn let_storage(
    ctx: &Context,
    pat: &Pat,
    ty: Option<&Type>,
    init: Option<&Expr>,
) -> Storage {
    let declared_mut = matches!(pat, Pat::Ident(p) if p.mutability.is_some());
    if declared_mut && matches!(init.map(strip_parens), Some(Expr::Closure(_))) {
        return Storage::MutClosure;
    }
    if matches!(ty, Some(Type::Reference(_) | Type::Ptr(_))) {
        return Storage::Reference;
    }
    let Some(init) = init else {
        return Storage::Value;
    };
    match strip_parens(init) {
        Expr::Reference(_) | Expr::RawAddr(_) => Storage::Reference,
        // Rust names the methods that hand out `&mut` with a `mut` word:
        // `as_mut`, `as_mut_slice`, `get_mut`, `split_at_mut`, `rows_mut`.
        Expr::MethodCall(call) if call.method.to_string().split('_').any(|w| w == "mut") => {
            Storage::Reference
        }
        Expr::Path(path) => match path.path.get_ident().and_then(|name| ctx.lookup(name)) {
            Some(Binding {
                kind: BindingKind::Local { storage, .. },
                ..
            }) => *storage,
            Some(_) => Storage::Reference,
            None => Storage::Value,
        },
        _ => Storage::Value,
    }
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}
