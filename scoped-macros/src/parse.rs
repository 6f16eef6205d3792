//! Parsing: the arguments of `distribute_items!` and friends into a typed
//! [`Invocation`] that keeps the user's spans.

use crate::lower::next_step::NextStep;
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, Expr, ExprClosure, GenericArgument, Ident, PathArguments, Result, Token, Type};

/// Which collective a macro invocation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collective {
    DistributeItems,
    DistributeGroups,
    SingleItem,
    MemoryEnvironment,
    LocalMemoryEnvironment,
    PrivateMemoryEnvironment,
}

impl Collective {
    /// The kind and whether it waits, for a macro name; `None` if the name
    /// is not one of ours.
    pub(crate) fn from_name(name: &str) -> Option<(Collective, bool)> {
        Some(match name {
            "distribute_items" => (Collective::DistributeItems, false),
            "distribute_items_and_wait" => (Collective::DistributeItems, true),
            "distribute_groups" => (Collective::DistributeGroups, false),
            "distribute_groups_and_wait" => (Collective::DistributeGroups, true),
            "single_item" => (Collective::SingleItem, false),
            "single_item_and_wait" => (Collective::SingleItem, true),
            "memory_environment" => (Collective::MemoryEnvironment, false),
            "local_memory_environment" => (Collective::LocalMemoryEnvironment, false),
            "private_memory_environment" => (Collective::PrivateMemoryEnvironment, false),
            _ => return None,
        })
    }

    /// Number of parameters the closure must take.
    fn closure_params(self) -> Option<usize> {
        match self {
            Collective::DistributeItems | Collective::DistributeGroups => Some(1),
            Collective::SingleItem => Some(0),
            Collective::LocalMemoryEnvironment | Collective::PrivateMemoryEnvironment => Some(1),
            Collective::MemoryEnvironment => None,
        }
    }

    /// What the closure's parameters are, for messages.
    fn closure_shape(self) -> &'static str {
        match self {
            Collective::DistributeItems => "`|idx| { ... }` taking the logical item (`SItem`)",
            Collective::DistributeGroups => "`|subgroup| { ... }` taking the subdivided group",
            Collective::SingleItem => "`|| { ... }` taking no parameters",
            Collective::LocalMemoryEnvironment => "`|memory| { ... }` taking the local memory",
            Collective::PrivateMemoryEnvironment => "`|memory| { ... }` taking the private memory",
            Collective::MemoryEnvironment => "one parameter per memory request",
        }
    }
}

/// Where a memory request puts its allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Local,
    /// `require_local_mem_slice::<T>(len, init?)`: `len` elements.
    LocalSlice,
    Private,
}

/// `require_local_mem::<T>(init?)`, `require_local_mem_slice::<T>(len, init?)`
/// or `require_private_mem::<T>(init?)`.
pub(crate) struct Request {
    pub(crate) place: Place,
    pub(crate) ty: Type,
    /// The element count of a `LocalSlice`.
    pub(crate) len: Option<Expr>,
    pub(crate) init: Option<Expr>,
    /// Span of the request's name, for messages.
    pub(crate) span: Span,
}

/// One invocation of a collective macro.
pub(crate) struct Invocation {
    pub(crate) kind: Collective,
    pub(crate) wait: bool,
    /// The macro's name as written, for messages and spans.
    pub(crate) name: Ident,
    /// The group argument as written.
    pub(crate) group: Expr,
    pub(crate) requests: Vec<Request>,
    pub(crate) closure: ExprClosure,
    /// Errors that leave the invocation usable for checking its body
    /// (a closure with the wrong number of parameters): the invocation is
    /// then replaced by a placeholder instead of being lowered.
    pub(crate) errors: Vec<Error>,
    /// Whether the group argument is the group of a kernel with a required
    /// size (`#[kernel(group_size = ...)]`), whose range is then a
    /// constant; set by the walker.
    pub(crate) required_size: bool,
    /// Whether the collective sits in a loop of the kernel's body (`for`,
    /// `while`, `loop`), so that it runs more than once per group; set by
    /// the walker.
    pub(crate) in_loop: bool,
    /// The next step of the innermost loop around the collective, where
    /// it is a `for` loop of the shape [`NextStep`] follows; set by the
    /// walker.
    pub(crate) next_step: Option<NextStep>,
}

impl Invocation {
    /// The same collective on the same group running `closure`: what a
    /// lowering step that rewrites or splits a body lowers in its place
    /// (no requests, no errors: the body was checked as written).
    pub(crate) fn with_closure(&self, closure: ExprClosure, wait: bool) -> Invocation {
        Invocation {
            kind: self.kind,
            wait,
            name: self.name.clone(),
            group: self.group.clone(),
            requests: Vec::new(),
            closure,
            errors: Vec::new(),
            required_size: self.required_size,
            in_loop: self.in_loop,
            next_step: self.next_step.clone(),
        }
    }
}

/// Parses the tokens inside `name!( ... )`.
pub(crate) fn invocation(
    kind: Collective,
    wait: bool,
    name: Ident,
    tokens: TokenStream,
) -> Result<Invocation> {
    let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens)?;
    let mut args: Vec<Expr> = args.into_iter().collect();
    let usage = usage(&name, kind);
    if args.len() < 2 {
        return Err(Error::new(
            name.span(),
            format!("`{name}!` takes a group and a closure: {usage}"),
        ));
    }
    let closure = match args.pop() {
        Some(Expr::Closure(closure)) => closure,
        Some(other) => {
            return Err(Error::new_spanned(
                other,
                format!("the last argument of `{name}!` must be a closure: {usage}"),
            ))
        }
        None => unreachable!("at least two arguments"),
    };
    let group = args.remove(0);
    let mut requests = Vec::new();
    match kind {
        Collective::MemoryEnvironment => {
            for arg in args {
                requests.push(request(arg)?);
            }
        }
        Collective::LocalMemoryEnvironment | Collective::PrivateMemoryEnvironment => {
            if args.len() != 1 {
                return Err(Error::new(
                    name.span(),
                    format!("`{name}!` takes a group, a type and a closure: {usage}"),
                ));
            }
            let ty =
                syn::parse2::<Type>(quote::ToTokens::to_token_stream(&args[0])).map_err(|_| {
                    Error::new_spanned(
                        &args[0],
                        format!("expected the memory's type here: {usage}"),
                    )
                })?;
            let place = if kind == Collective::LocalMemoryEnvironment {
                Place::Local
            } else {
                Place::Private
            };
            requests.push(Request {
                place,
                ty,
                len: None,
                init: None,
                span: args[0].span(),
            });
        }
        _ => {
            if let Some(extra) = args.first() {
                return Err(Error::new_spanned(
                    extra,
                    format!("`{name}!` takes a group and a closure only: {usage}"),
                ));
            }
        }
    }
    let mut errors = Vec::new();
    let expected = kind.closure_params().unwrap_or(requests.len());
    if closure.inputs.len() != expected {
        let what = if kind == Collective::MemoryEnvironment {
            format!(
                "the closure of `{name}!` takes {} parameter(s) for {} memory request(s): take one \
                 per request",
                closure.inputs.len(),
                requests.len()
            )
        } else {
            format!(
                "the closure of `{name}!` takes {} parameter(s); it must be {}",
                closure.inputs.len(),
                kind.closure_shape()
            )
        };
        let (or1, params, or2) = (&closure.or1_token, &closure.inputs, &closure.or2_token);
        errors.push(Error::new_spanned(quote::quote!(#or1 #params #or2), what));
    }
    Ok(Invocation {
        kind,
        wait,
        name,
        group,
        requests,
        closure,
        errors,
        required_size: false,
        in_loop: false,
        next_step: None,
    })
}

fn usage(name: &Ident, kind: Collective) -> String {
    match kind {
        Collective::DistributeItems => format!("`{name}!(group, |idx| {{ ... }})`"),
        Collective::DistributeGroups => format!("`{name}!(group, |subgroup| {{ ... }})`"),
        Collective::SingleItem => format!("`{name}!(group, || {{ ... }})`"),
        Collective::MemoryEnvironment => {
            format!("`{name}!(group, require_local_mem::<T>(), |local| {{ ... }})`")
        }
        Collective::LocalMemoryEnvironment | Collective::PrivateMemoryEnvironment => {
            format!("`{name}!(group, T, |memory| {{ ... }})`")
        }
    }
}

/// Parses one request: `require_local_mem::<T>()`, `require_local_mem::<T>(x)`,
/// `require_local_mem_slice::<T>(len)`, `require_local_mem_slice::<T>(len, x)`,
/// `require_private_mem::<T>()` or `require_private_mem::<T>(x)`.
fn request(arg: Expr) -> Result<Request> {
    let wrong = |arg: &Expr| {
        Error::new_spanned(
            arg,
            "expected `require_local_mem::<T>()` or `require_private_mem::<T>()` (initial value \
             optional)",
        )
    };
    let Expr::Call(call) = &arg else {
        return Err(wrong(&arg));
    };
    let Expr::Path(path) = &*call.func else {
        return Err(wrong(&arg));
    };
    let Some(last) = path.path.segments.last() else {
        return Err(wrong(&arg));
    };
    let place = match last.ident.to_string().as_str() {
        "require_local_mem" => Place::Local,
        "require_local_mem_slice" => Place::LocalSlice,
        "require_private_mem" => Place::Private,
        _ => return Err(wrong(&arg)),
    };
    let ty = match &last.arguments {
        PathArguments::AngleBracketed(generic) if generic.args.len() == 1 => match &generic.args[0]
        {
            GenericArgument::Type(ty) => ty.clone(),
            other => {
                return Err(Error::new_spanned(
                    other,
                    "expected the type of the memory, as in `::<[i32; 128]>`",
                ))
            }
        },
        _ => {
            return Err(Error::new_spanned(
                &last.ident,
                format!(
                    "`{}` needs the memory's type: `{}::<T>(...)`",
                    last.ident, last.ident
                ),
            ))
        }
    };
    let mut args = call.args.iter().cloned();
    let len = if place == Place::LocalSlice {
        let len = args.next().ok_or_else(|| {
            Error::new_spanned(
                &last.ident,
                "`require_local_mem_slice` needs the element count: \
                 `require_local_mem_slice::<T>(len)`",
            )
        })?;
        Some(len)
    } else {
        None
    };
    if args.len() > 1 {
        return Err(Error::new_spanned(
            &call.args,
            format!("`{}` takes at most one initial value", last.ident),
        ));
    }
    let init = args.next();
    Ok(Request {
        place,
        ty,
        len,
        init,
        span: last.ident.span(),
    })
}

/// The arguments of a macro that is not ours, if they are comma-separated
/// expressions (`assert!(..)`, `println!(..)`, `vec![..]`): `#[kernel]`
/// checks and lowers what is inside them too.
pub(crate) fn macro_arguments(mac: &syn::Macro) -> Option<Punctuated<Expr, Token![,]>> {
    Punctuated::<Expr, Token![,]>::parse_terminated
        .parse2(mac.tokens.clone())
        .ok()
}
