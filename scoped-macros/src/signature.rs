//! Which parameter of a `#[kernel]` or `#[group_function]` is its group.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::{
    Error, FnArg, GenericParam, Generics, Item, ItemFn, Pat, PatType, Type, TypeParamBound,
    WherePredicate,
};

use crate::check::pat_ident;

/// Which attribute is being expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    Kernel,
    GroupFunction,
}

impl Flavor {
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Flavor::Kernel => "#[kernel]",
            Flavor::GroupFunction => "#[group_function]",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Flavor::Kernel => "`fn my_kernel(group: WorkGroup<1>, ...)`",
            Flavor::GroupFunction => "`fn load_tile<G: ScopedGroup<1>>(group: G, ...)`",
        }
    }
}

/// The function's group parameter: its name (`None` if it has none, or
/// is `_`), and an error if the signature is wrong. With an error, `name`
/// is the best guess at the group, so that the body can still be checked.
pub(crate) struct GroupParameter {
    pub(crate) name: Option<Ident>,
    pub(crate) error: Option<Error>,
}

pub(crate) fn group_parameter(flavor: Flavor, function: &ItemFn) -> GroupParameter {
    let typed: Vec<&PatType> = function
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(t) => Some(t),
            FnArg::Receiver(_) => None,
        })
        .collect();
    let is_group = |ty: &Type| match flavor {
        Flavor::Kernel => is_named(ty, &["WorkGroup"]),
        Flavor::GroupFunction => is_group_type(ty, &function.sig.generics),
    };
    // In a method, the group comes right after `self`.
    let first = function
        .sig
        .inputs
        .iter()
        .find(|arg| matches!(arg, FnArg::Typed(_)));
    let first_typed = typed.first().copied();
    if let Some(param) = first_typed {
        if is_group(&param.ty) {
            return named(flavor, param, None);
        }
        if let Type::Reference(r) = &*param.ty {
            if is_group(&r.elem) {
                let elem = &r.elem;
                let message = format!(
                    "{} takes its group by value (groups are `Copy`): write `{}: {}`",
                    flavor.attribute(),
                    pat_text(&param.pat),
                    type_text(elem)
                );
                return named(flavor, param, Some(Error::new_spanned(&param.ty, message)));
            }
        }
    }
    let what = match flavor {
        Flavor::Kernel => "its `WorkGroup<D>`",
        Flavor::GroupFunction => "its group",
    };
    // A group elsewhere in the list: the body is checked with it.
    if let Some(param) = typed.iter().skip(1).find(|p| is_group(&p.ty)) {
        let message = format!(
            "a {} function takes {what} first: move `{}` to the front",
            flavor.attribute(),
            pat_text(&param.pat),
        );
        return named(flavor, param, Some(Error::new_spanned(param, message)));
    }
    let mut message = format!(
        "a {} function takes {what} first, as in {}",
        flavor.attribute(),
        flavor.example()
    );
    if let (Flavor::GroupFunction, Some(param)) = (flavor, first_typed) {
        if let Some(generic) = generic_without_group_bound(&param.ty, &function.sig.generics) {
            message = format!(
                "a {} function takes its group first: add the bound `{generic}: ScopedGroup<D>`",
                flavor.attribute()
            );
        }
    }
    let error = match first {
        Some(arg) => Error::new_spanned(arg, message),
        None => {
            let sig = &function.sig;
            let (fn_token, ident) = (&sig.fn_token, &sig.ident);
            let mut tokens = quote!(#fn_token #ident);
            sig.paren_token
                .surround(&mut tokens, |t| sig.inputs.to_tokens(t));
            Error::new_spanned(tokens, message)
        }
    };
    GroupParameter {
        name: None,
        error: Some(error),
    }
}

/// The parameter `param` is the group; its pattern must be a name or `_`.
fn named(flavor: Flavor, param: &PatType, error: Option<Error>) -> GroupParameter {
    let name = pat_ident(&param.pat);
    let error = match (&name, &*param.pat, error) {
        (_, _, Some(error)) => Some(error),
        (None, Pat::Wild(_), None) => None,
        (None, pat, None) => Some(Error::new_spanned(
            pat,
            format!(
                "name the group parameter of a {} function plainly, as in {}",
                flavor.attribute(),
                flavor.example()
            ),
        )),
        (Some(_), _, None) => None,
    };
    GroupParameter { name, error }
}

/// A type as the user would write it: `WorkGroup<1>`, not `WorkGroup < 1 >`.
fn type_text(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
        .replace(" ::", "::")
        .replace(":: ", "::")
}

fn pat_text(pat: &Pat) -> String {
    pat_ident(pat).map_or_else(|| "group".to_string(), |i| i.to_string())
}

/// Whether `ty` is a path whose last segment is one of `names`.
fn is_named(ty: &Type, names: &[&str]) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|s| names.iter().any(|n| s.ident == n)),
        Type::Paren(p) => is_named(&p.elem, names),
        Type::Group(g) => is_named(&g.elem, names),
        _ => false,
    }
}

/// A group type: one of the runtime's, `impl ScopedGroup<D>`, or a type
/// parameter bounded by `ScopedGroup<D>`.
fn is_group_type(ty: &Type, generics: &Generics) -> bool {
    if is_named(ty, &["WorkGroup", "SubGroup", "ScalarGroup"]) {
        return true;
    }
    match ty {
        Type::ImplTrait(t) => has_group_bound(t.bounds.iter()),
        Type::Paren(p) => is_group_type(&p.elem, generics),
        _ => type_parameter(ty, generics).is_some_and(|name| bounded(&name, generics)),
    }
}

/// The type parameter `ty` names, if it is one of `generics`.
fn type_parameter(ty: &Type, generics: &Generics) -> Option<Ident> {
    let Type::Path(p) = ty else { return None };
    let name = p.path.get_ident()?;
    generics
        .type_params()
        .any(|param| param.ident == *name)
        .then(|| name.clone())
}

fn generic_without_group_bound(ty: &Type, generics: &Generics) -> Option<Ident> {
    type_parameter(ty, generics).filter(|name| !bounded(name, generics))
}

/// Whether the type parameter `name` has a `ScopedGroup` bound, in its
/// declaration or in the `where` clause.
fn bounded(name: &Ident, generics: &Generics) -> bool {
    let declared = generics.params.iter().any(|param| match param {
        GenericParam::Type(t) => t.ident == *name && has_group_bound(t.bounds.iter()),
        _ => false,
    });
    let in_where = generics.where_clause.iter().any(|clause| {
        clause.predicates.iter().any(|pred| match pred {
            WherePredicate::Type(t) => {
                type_parameter(&t.bounded_ty, generics).as_ref() == Some(name)
                    && has_group_bound(t.bounds.iter())
            }
            _ => false,
        })
    });
    declared || in_where
}

fn has_group_bound<'a>(mut bounds: impl Iterator<Item = &'a TypeParamBound>) -> bool {
    bounds.any(|bound| match bound {
        TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "ScopedGroup"),
        _ => false,
    })
}

/// The error for the attribute on an item that is not a function, pointing
/// at the item's keyword and name.
pub(crate) fn not_a_function(flavor: Flavor, item: &Item) -> Error {
    let (head, what) = item_head(item);
    let message = format!(
        "{} applies to functions only, as in {}; this is {what}",
        flavor.attribute(),
        flavor.example()
    );
    Error::new_spanned(head, message)
}

fn item_head(item: &Item) -> (TokenStream, &'static str) {
    macro_rules! head {
        ($i:expr, $keyword:ident, $what:literal) => {{
            let (keyword, name) = (&$i.$keyword, &$i.ident);
            (quote!(#keyword #name), $what)
        }};
    }
    match item {
        Item::Struct(i) => head!(i, struct_token, "a struct"),
        Item::Enum(i) => head!(i, enum_token, "an enum"),
        Item::Union(i) => head!(i, union_token, "a union"),
        Item::Const(i) => head!(i, const_token, "a constant"),
        Item::Static(i) => head!(i, static_token, "a static"),
        Item::Trait(i) => head!(i, trait_token, "a trait"),
        Item::Type(i) => head!(i, type_token, "a type alias"),
        Item::Mod(i) => head!(i, mod_token, "a module"),
        Item::Impl(i) => (i.impl_token.to_token_stream(), "an impl block"),
        Item::Use(i) => (i.use_token.to_token_stream(), "a `use` declaration"),
        _ => (item.to_token_stream(), "not a function"),
    }
}
