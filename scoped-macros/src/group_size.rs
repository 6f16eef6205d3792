//! `#[kernel(group_size = ...)]`: parse the attribute's argument, check it
//! against the kernel's signature, and lower it to the check that starts
//! the kernel (`__private::require_group_size`, which turns a launch of
//! another group size into a `LaunchError` before any body runs).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Error, Expr, GenericArgument, Ident, ItemFn, PathArguments, ReturnType, Token, Type};

use crate::lower::item_syntax::{literal, peel};

/// The required group range: one extent per dimension.
pub(crate) struct GroupSize {
    extents: Vec<Extent>,
    /// Whether it was written as an array (`[128]`) rather than a number.
    array: bool,
    span: Span,
}

/// One extent of the required range.
enum Extent {
    /// An integer literal, checked here.
    Literal(usize),
    /// Any other expression: a constant (`const` item, const generic
    /// parameter, arithmetic on them), evaluated and checked when the
    /// kernel compiles.
    Constant(Box<Expr>),
}

impl Parse for GroupSize {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if key != "group_size" {
            return Err(Error::new(
                key.span(),
                format!("unknown argument `{key}`: #[kernel] takes `group_size = 128` (or `[16, 16]`, `[a, b, c]`)"),
            ));
        }
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("#[kernel] takes one argument, `group_size = ...`"));
        }
        let (elements, array): (Vec<&Expr>, bool) = match &value {
            Expr::Array(a) => (a.elems.iter().collect(), true),
            other => (vec![other], false),
        };
        if elements.is_empty() || elements.len() > 3 {
            return Err(Error::new_spanned(
                &value,
                "group_size has 1, 2 or 3 extents, one per dimension of the work group",
            ));
        }
        let mut extents = Vec::new();
        for element in elements {
            match literal(element) {
                Some(0) => {
                    return Err(Error::new_spanned(
                        element,
                        "group_size extent 0: a group has at least one item in every dimension",
                    ))
                }
                Some(n) => extents.push(Extent::Literal(n)),
                None => extents.push(Extent::Constant(Box::new(peel(element).clone()))),
            }
        }
        Ok(GroupSize {
            extents,
            array,
            span: value.span(),
        })
    }
}

/// The attribute's argument: `None` for `#[kernel]`.
pub(crate) fn parse(attr: TokenStream) -> syn::Result<Option<GroupSize>> {
    if attr.is_empty() {
        return Ok(None);
    }
    syn::parse2(attr).map(Some)
}

/// Errors of `size` against the kernel: its dimensions against the group
/// parameter's `WorkGroup<D>`, and a return type other than `()` (the
/// check returns from the kernel early).
pub(crate) fn check(size: &GroupSize, function: &ItemFn, group: Option<&Ident>) -> Vec<Error> {
    let mut errors = Vec::new();
    if let Some(d) = work_group_dimensions(function) {
        if d != size.extents.len() {
            let written = match size.extents.len() {
                1 if !size.array => "1 extent".to_string(),
                n => format!("{n} extents"),
            };
            let fix = match d {
                1 => "one extent, `group_size = 128`",
                2 => "two, `group_size = [16, 16]`",
                _ => "three, `group_size = [a, b, c]`",
            };
            errors.push(Error::new(
                size.span,
                format!("group_size has {written}, but the group is `WorkGroup<{d}>`: give {fix}"),
            ));
        }
    }
    if let ReturnType::Type(_, ty) = &function.sig.output {
        if !matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()) {
            errors.push(Error::new_spanned(
                ty,
                "a kernel with group_size returns `()`: it returns early when the launch's group size differs",
            ));
        }
    }
    if group.is_none() {
        errors.push(Error::new(
            size.span,
            "group_size needs the group parameter to have a name (`group: WorkGroup<D>`)",
        ));
    }
    errors
}

/// The kernel's first statement: the check, which binds the group again
/// with its range as a constant, and the early return that leaves the
/// launch to report a mismatch.
pub(crate) fn prologue(size: &GroupSize, group: &Ident) -> syn::Stmt {
    let extents = size.extents.iter().map(Extent::lower);
    let span = size.span;
    syn::parse_quote_spanned! {span=>
        #[allow(unused_variables)]
        let #group = match ::scoped::__private::require_group_size(#group, [#(#extents),*]) {
            ::core::option::Option::Some(group) => group,
            ::core::option::Option::None => return,
        };
    }
}

/// The check of the extents given as constants, once at the top of the
/// kernel (outside the body's copies per level, so that an error is
/// reported once): each must be at least 1, an error when the kernel
/// compiles, at the constant. `None` if all are literals.
pub(crate) fn constant_checks(size: &GroupSize) -> Option<syn::Stmt> {
    let checks: Vec<TokenStream> = size
        .extents
        .iter()
        .filter_map(|extent| match extent {
            Extent::Literal(_) => None,
            Extent::Constant(expr) => {
                let extent = typed(expr);
                Some(quote_spanned! {expr.span()=>
                    #extent
                    ::scoped::__private::group_size_extent(extent);
                })
            }
        })
        .collect();
    if checks.is_empty() {
        return None;
    }
    Some(syn::parse_quote! {
        const { #({ #checks })* }
    })
}

impl Extent {
    /// The extent as the check takes it: a constant expression in a
    /// `const` block (an error at the expression if it is not a constant
    /// `usize`).
    fn lower(&self) -> TokenStream {
        match self {
            Extent::Literal(n) => quote!(#n),
            Extent::Constant(expr) => {
                let extent = typed(expr);
                quote_spanned! {expr.span()=> const { #extent extent } }
            }
        }
    }
}

/// `let extent: usize = EXPR;` at the expression: both uses give a type
/// error the same words at the same place, which rustc reports once.
fn typed(expr: &Expr) -> TokenStream {
    quote_spanned! {expr.span()=> let extent: usize = #expr; }
}

/// `D` of the kernel's `WorkGroup<D>` or `WorkGroup<D, S>` parameter, if
/// it is a literal.
fn work_group_dimensions(function: &ItemFn) -> Option<usize> {
    let syn::FnArg::Typed(param) = function
        .sig
        .inputs
        .iter()
        .find(|a| matches!(a, syn::FnArg::Typed(_)))?
    else {
        return None;
    };
    let Type::Path(path) = &*param.ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Const(expr) => literal(expr),
        _ => None,
    }
}
