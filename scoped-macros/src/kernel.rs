//! `#[kernel]`: walks a kernel's body, checks and lowers every collective
//! macro in it, at any depth.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Error, Expr, FnArg, ItemFn, Macro, Pat, Stmt, Type};

use crate::check::{self, Context};
use crate::{lower, parse};

/// Expands `#[kernel]` on `item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(e) = syn::parse2::<parse::NoArgs>(attr) {
        return e.to_compile_error();
    }
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = Error::new_spanned(
                &item,
                "#[kernel] goes on a function whose first parameter is the work group, as in \
                 `fn my_kernel(group: WorkGroup<1>, ...)`",
            );
            return e.to_compile_error();
        }
    };
    let mut walker = Walker {
        context: Context::default(),
        errors: Vec::new(),
    };
    match work_group_parameter(&function) {
        Ok(group) => walker.context = Context::kernel(Some(group)),
        Err(e) => walker.errors.push(e),
    }
    walker.visit_block_mut(&mut function.block);
    let errors = walker.errors.into_iter().map(|e| e.to_compile_error());
    quote! { #function #(#errors)* }
}

/// The name of the kernel's first parameter, which must be a `WorkGroup`.
fn work_group_parameter(function: &ItemFn) -> syn::Result<syn::Ident> {
    let message = "the first parameter of a #[kernel] function must be its work group, as in \
                   `group: WorkGroup<1>`";
    let Some(first) = function.sig.inputs.first() else {
        return Err(Error::new_spanned(&function.sig, message));
    };
    let FnArg::Typed(typed) = first else {
        return Err(Error::new_spanned(first, message));
    };
    let Pat::Ident(name) = &*typed.pat else {
        return Err(Error::new_spanned(&typed.pat, message));
    };
    if !is_work_group(&typed.ty) {
        return Err(Error::new_spanned(&typed.ty, message));
    }
    Ok(name.ident.clone())
}

fn is_work_group(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "WorkGroup"),
        Type::Reference(r) => is_work_group(&r.elem),
        Type::Paren(p) => is_work_group(&p.elem),
        _ => false,
    }
}

/// Visits the body, replacing collective macros by their lowering.
struct Walker {
    context: Context,
    errors: Vec<Error>,
}

impl Walker {
    /// The lowering of `mac` if it is one of our collectives.
    fn collective(&mut self, mac: &Macro) -> Option<Expr> {
        let name = mac.path.segments.last()?.ident.clone();
        let (kind, wait) = parse::Kind::from_name(&name.to_string())?;
        let mut inv = match parse::invocation(kind, wait, name, mac.tokens.clone()) {
            Ok(inv) => inv,
            Err(e) => {
                self.errors.push(e);
                return Some(syn::parse_quote!(()));
            }
        };
        self.errors.extend(check::invocation(&self.context, &inv));
        for request in &mut inv.requests {
            if let Some(init) = &mut request.init {
                self.visit_expr_mut(init);
            }
        }
        let inner = self.context.enter(&inv);
        let outer = std::mem::replace(&mut self.context, inner);
        self.visit_expr_mut(&mut inv.closure.body);
        self.context = outer;
        Some(syn::parse2(lower::invocation(&inv)).unwrap_or_else(|e| {
            let tokens = e.to_compile_error();
            syn::parse_quote!({ #tokens })
        }))
    }
}

impl VisitMut for Walker {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr {
            if let Some(lowered) = self.collective(&m.mac) {
                *expr = lowered;
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Macro(m) = stmt {
            if let Some(lowered) = self.collective(&m.mac) {
                let semi = m.semi_token;
                *stmt = Stmt::Expr(lowered, semi);
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        // Nested items (fns, impls) are not part of the kernel's hierarchy.
        let _ = item.to_token_stream();
    }
}
