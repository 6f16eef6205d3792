//! Lowering step: in a `distribute_items!` body, a per-item window indexed
//! by the item's global id, SYCL's `acc[item.get_global_id()]`,
//!
//! ```text
//! fn k(group: WorkGroup<1>, mut data: ItemsWindow<'_, i32>) {
//!     distribute_items!(group, |idx| {
//!         scratch[idx.local_id_dim(&group, 0)] = data[idx.global_id_dim(0)];
//!     })
//! }
//! ```
//!
//! indexes it with `::scoped::__private::GlobalIdOf::new(idx, <index>)`,
//! which reaches the element by the item (as `data[idx]` does) where the
//! index is the item's own global id and the item is the window's group's,
//! and by the index as written otherwise: the same element, the same
//! panics. Indexed by a global id, the window checks it against its range,
//! which the optimiser cannot prove from the item loop, and the check's
//! panic kept the loop scalar (the spec's reduction at half its speed); by
//! the item the check is a tag compare that folds away. The rewritten body
//! then goes through every shortcut: `item_copy` takes the rewritten
//! index as the item's own element.
//!
//! The shape, exactly: the closure takes the item as a plain identifier,
//! not bound again in the body; an index `name[index]` (read or written)
//! outside items and other macros' tokens, where `name` is a parameter of
//! the function declared `ItemsWindow<..>` or `ItemsRefWindow<..>` (`mut`
//! or not, or behind `&`, `&mut`), bound nowhere in the body nor shadowed
//! where the macro is, and `index` is the item's global id
//! ([`GlobalIds`]): `idx.global_id()` for any dimensions;
//! `idx.global_linear_id()` or `idx.global_id_dim(0)` where the window's
//! type states one dimension (`ItemsWindow<'_, T>`, `ItemsWindow<'_, T,
//! 1>`); or a name a top-level `let` binds once to one of them.

use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprIndex, GenericArgument, Ident, Pat, PathArguments, Type};

use super::item_syntax::{literal, peel, visit_with_ids, GlobalId, GlobalIds};
use crate::parse::Invocation;

/// A per-item window parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ItemWindow {
    pub(crate) name: Ident,
    /// Whether its type states one dimension, where it takes `usize` ids.
    one_dimensional: bool,
}

/// The parameter `param`, if it is a per-item window.
pub(crate) fn window_param(param: &syn::PatType) -> Option<ItemWindow> {
    let Pat::Ident(p) = &*param.pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let mut ty = &*param.ty;
    while let Type::Reference(syn::TypeReference { elem, .. })
    | Type::Paren(syn::TypeParen { elem, .. }) = ty
    {
        ty = elem;
    }
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || !(last.ident == "ItemsWindow" || last.ident == "ItemsRefWindow") {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let generic: Vec<&GenericArgument> = args
        .args
        .iter()
        .filter(|a| !matches!(a, GenericArgument::Lifetime(_)))
        .collect();
    let one_dimensional = match generic.as_slice() {
        [_] => true,
        [_, GenericArgument::Const(dims)] => literal(dims) == Some(1),
        _ => false,
    };
    Some(ItemWindow {
        name: p.ident.clone(),
        one_dimensional,
    })
}

/// `inv` with its windows indexed by the item's global id rewritten, if
/// it has any.
pub(crate) fn rewrite(inv: &Invocation, windows: &[ItemWindow]) -> Option<Invocation> {
    if windows.is_empty() {
        return None;
    }
    let ids = GlobalIds::in_item_loop(inv)?;
    let mut rewrite = Rewrite {
        windows: windows
            .iter()
            .filter(|w| !ids.binds(&w.name))
            .cloned()
            .collect(),
        ids,
        rewritten: 0,
    };
    let mut closure = inv.closure.clone();
    visit_with_ids(&mut rewrite, &mut closure.body, |r| &mut r.ids);
    (rewrite.rewritten > 0).then(|| inv.with_closure(closure, inv.wait))
}

/// Whether `index` is what [`rewrite`] made of an index of `item`'s: the
/// window is then indexed by the item.
pub(crate) fn by_item(index: &Expr, item: &Ident) -> bool {
    let Expr::Call(call) = peel(index) else {
        return false;
    };
    let Expr::Path(path) = &*call.func else {
        return false;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    names == ["scoped", "__private", "GlobalIdOf", "new"]
        && call
            .args
            .first()
            .is_some_and(|a| matches!(a, Expr::Path(p) if p.path.is_ident(item)))
}

struct Rewrite {
    /// The windows that may be rewritten (not bound in the body).
    windows: Vec<ItemWindow>,
    ids: GlobalIds,
    rewritten: usize,
}

impl VisitMut for Rewrite {
    fn visit_expr_index_mut(&mut self, index: &mut ExprIndex) {
        visit_mut::visit_expr_index_mut(self, index);
        let name = match peel(&index.expr) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
            _ => None,
        };
        let Some(window) = name.and_then(|n| self.windows.iter().find(|w| w.name == *n)) else {
            return;
        };
        let fits = match self.ids.of(&index.index) {
            Some(GlobalId::Linear) => window.one_dimensional,
            Some(GlobalId::Full) => true,
            None => false,
        };
        if fits {
            let (item, id) = (self.ids.item(), &index.index);
            *index.index = syn::parse2(quote_spanned!(id.span()=>
                ::scoped::__private::GlobalIdOf::new(#item, #id)
            ))
            .expect("a call expression");
            self.rewritten += 1;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use quote::{format_ident, ToTokens};

    use super::*;

    /// The body of `distribute_items!(g, <closure>)` rewritten with the
    /// one-dimensional window `w` and the window `v` of any dimensions.
    fn rewritten(closure: &str) -> Option<String> {
        let (inv, _) = crate::lower::distribute_items_on_g(closure);
        let windows = [
            ItemWindow {
                name: format_ident!("w"),
                one_dimensional: true,
            },
            ItemWindow {
                name: format_ident!("v"),
                one_dimensional: false,
            },
        ];
        rewrite(&inv, &windows).map(|inv| inv.closure.body.to_token_stream().to_string())
    }

    #[test]
    fn windows_at_the_global_id_are_indexed_through_the_item() {
        for (closure, count) in [
            ("|i| { s[l] = w[i.global_id_dim(0)]; }", 1),
            ("|i| { w[i.global_linear_id()] += 1; }", 1),
            ("|i| { let g = i.global_linear_id(); w[g] = w[g] * 2; }", 2),
            (
                "|i| { v[i.global_id()] = 1.0; let id = i.global_id(); x = v[id]; }",
                2,
            ),
            ("|i| { w[i.global_id()] = (w)[(i.global_linear_id())]; }", 2),
        ] {
            let out = rewritten(closure).unwrap_or_else(|| panic!("not rewritten: {closure}"));
            assert_eq!(
                out.matches("GlobalIdOf :: new (i ,").count(),
                count,
                "{out}"
            );
        }
    }

    #[test]
    fn other_indices_and_names_stay_as_written() {
        for closure in [
            // Not a window; not the global id; another dimension.
            "|i| { o[i.global_linear_id()] = 1; }",
            "|i| { w[i.global_linear_id() + 1] = 1; }",
            "|i| { w[i.global_id_dim(1)] = 1; }",
            "|i| { w[i] = w[i.local_linear_id(&g)]; }",
            // A `usize` id of a window of other or unknown dimensions.
            "|i| { v[i.global_linear_id()] = 1; }",
            // The window or the item bound again; a mutable or late id.
            "|i| { let w = [0; 4]; w[i.global_linear_id()] = 1; }",
            "|i| { let i = j; w[i.global_linear_id()] = 1; }",
            "|i| { let mut g = i.global_linear_id(); g += 1; w[g] = 1; }",
            "|i| { w[g] = 1; let g = i.global_linear_id(); }",
            // Inside another macro's tokens, or an item.
            "|i| { println!(\"{}\", w[i.global_linear_id()]); }",
            "|i| { fn f(i: X) { w[i.global_id()] = 1; } }",
        ] {
            assert_eq!(rewritten(closure), None, "rewritten: {closure}");
        }
    }

    #[test]
    fn by_item_recognises_the_rewritten_index() {
        let out = rewritten("|i| { w[i.global_linear_id()] = 1; }").unwrap();
        let body: Expr = syn::parse_str(&out).unwrap();
        let Expr::Block(block) = body else { panic!() };
        let syn::Stmt::Expr(Expr::Assign(assign), _) = &block.block.stmts[0] else {
            panic!("{out}")
        };
        let Expr::Index(index) = &*assign.left else {
            panic!("{out}")
        };
        assert!(by_item(&index.index, &format_ident!("i")));
        assert!(!by_item(&index.index, &format_ident!("j")));
    }

    #[test]
    fn window_parameters_and_their_dimensions() {
        let param = |s: &str| window_param(&syn::parse_str::<syn::PatType>(s).unwrap());
        let one = |s: &str| param(s).is_some_and(|w| w.one_dimensional);
        assert!(one("mut data: ItemsWindow<'_, i32>"));
        assert!(one("data: scoped::ItemsRefWindow<'a, f32, 1>"));
        assert!(one("out: &mut ItemsWindow<'_, T>"));
        assert!(param("v: ItemsWindow<'_, f32, 2>").is_some_and(|w| !w.one_dimensional));
        assert!(param("v: ItemsWindow<'_, f32, D>").is_some_and(|w| !w.one_dimensional));
        for other in [
            "c: ChunkWindow<'_, f32>",
            "s: &[f32]",
            "(a, b): (ItemsWindow<'_, f32>, ItemsRefWindow<'_, f32>)",
            "ref w: ItemsWindow<'_, f32>",
        ] {
            assert_eq!(param(other), None, "{other}");
        }
    }
}
