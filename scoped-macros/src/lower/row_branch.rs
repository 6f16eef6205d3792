//! Refinement of the row-store shortcut (`row_store.rs`): a stored value
//! that is an `if` on the item's ids,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
//!     let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
//!     new[idx] = if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
//!         tile[r + 1][c + 1]
//!     } else {
//!         stencil(tile[r][c + 1], tile[r + 2][c + 1], tile[r + 1][c], tile[r + 1][c + 2])
//!     };
//! })
//! ```
//!
//! (the boundary test of a GPU stencil), takes the branch once per chunk
//! where all its lanes agree: each lane's condition is evaluated first
//! (`__private::uniform_branch`), then every lane runs the one branch, or,
//! where the lanes differ, the whole `if` as written. One branch over 16
//! lanes is a few vector loads; the `if` per lane is both branches and a
//! blend (GPU-form Jacobi in a build without flags: 1.56–1.64× its peer
//! at v3 and 1.63–1.68× at v4 before, 1.28–1.31× and 1.40–1.44× after,
//! Intel Xeon, one thread).
//!
//! The first pass evaluates the conditions with `|` and `&` in place of
//! `||` and `&&`, so that the 16 lanes are vector compares: with `||` the
//! optimiser kept the lanes apart and the v4 copy got slower (1.83×).
//!
//! The shape, exactly (beyond `row_store.rs`'s): the statements before the
//! store are `let`s of item queries (`guard.rs`'s `bind_queries`); the
//! value is `if condition { … } else …`; the condition is made of `||`,
//! `&&`, `!`, `true`/`false` and comparisons of terms, a term being an
//! integer literal, an item query, a name bound by those `let`s, or
//! arithmetic (`+`, `-`, `*`) of integer literals and other names and
//! paths (the leaves), which the body only reads. So the first pass runs
//! no code of the user's but id queries: at run time it is taken only
//! when every leaf is a primitive integer (`__private::BoundLeaf`), and
//! each branch still runs exactly for the items whose condition selects
//! it. The first pass is left out in builds with debug assertions, whose
//! overflow checks would make `n - 1` with `n == 0` panic where `||`
//! skipped it; a profile with overflow checks but without debug
//! assertions (`overflow-checks = true` in `release`) has that difference.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, ExprPath, Ident, Lit, Stmt, UnOp};

use super::guard::{bind_queries, only_read, plain_lets};
use super::interchange::invariance::is_comparison;
use super::item_syntax::{peel, query};

/// The names the row-store lowering gives its pieces.
pub(super) struct RowNames<'a> {
    /// The chunk's lanes (`ItemLanes`).
    pub lanes: &'a Ident,
    /// A lane index.
    pub lane: &'a Ident,
    /// The chunk's `Row` of the output.
    pub row: &'a Ident,
    /// The closure that runs the body up to its value for one item.
    pub value_fn: &'a Ident,
}

/// The store of one chunk's row: each lane's value stored together, with
/// the branch taken once where `value` is an `if` of the shape above.
/// `body` is the closure's whole body and `item` its parameter.
pub(super) fn chunk_store(
    before: &[Stmt],
    value: &Expr,
    body: &Expr,
    item: &Ident,
    names: &RowNames<'_>,
) -> TokenStream {
    let RowNames {
        lanes,
        lane,
        row,
        value_fn,
    } = names;
    let as_written = quote! {
        #row.store(::scoped::__private::lane_array(
            #[inline(always)]
            |#lane| #value_fn(#lanes.item(#lane)),
        ))
    };
    let Some(branch) = uniform_if(before, value, body, item) else {
        return quote!(#as_written;);
    };
    let UniformIf {
        eager,
        then,
        otherwise,
        leaves,
    } = branch;
    let taken = Ident::new("__scoped_branch", Span::mixed_site());
    let width = quote!({ ::scoped::__private::ROW_STORE_LANES });
    let lanes_of = |result: TokenStream| {
        quote! {
            ::scoped::__private::lane_array::<_, #width>(
                #[inline(always)]
                #[allow(unused_variables, unused_braces)]
                |#lane| {
                    let #item = #lanes.item(#lane);
                    #(#before)*
                    #result
                },
            )
        }
    };
    let conditions = lanes_of(quote!((#eager) as u32));
    let (first, second) = (lanes_of(quote!(#then)), lanes_of(quote!(#otherwise)));
    quote! {
        #[allow(unused_imports)]
        use ::scoped::__private::{OtherLeaf as _, PlainLeaf as _};
        let #taken = if !::core::cfg!(debug_assertions)
            #(&& (&::scoped::__private::BoundLeaf(&#leaves)).__plain())*
        {
            ::scoped::__private::uniform_branch(#conditions)
        } else {
            ::core::option::Option::None
        };
        match #taken {
            ::core::option::Option::Some(true) => #row.store(#first),
            ::core::option::Option::Some(false) => #row.store(#second),
            ::core::option::Option::None => #as_written,
        }
    }
}

/// An `if` whose branch may be taken once per chunk.
struct UniformIf<'a> {
    /// The condition with `|` and `&` for `||` and `&&`.
    eager: Expr,
    then: &'a syn::Block,
    otherwise: &'a Expr,
    leaves: Vec<&'a ExprPath>,
}

/// `value` as an `if` of the shape in the module doc, if it is one.
fn uniform_if<'a>(
    before: &[Stmt],
    value: &'a Expr,
    body: &Expr,
    item: &Ident,
) -> Option<UniformIf<'a>> {
    let Expr::If(branch) = peel(value) else {
        return None;
    };
    let (_, otherwise) = branch.else_branch.as_ref()?;
    if !branch.attrs.is_empty() {
        return None;
    }
    let mut queries = Vec::new();
    for (pat, init) in plain_lets(before)? {
        bind_queries(pat, init, item, &mut queries)?;
    }
    let queries: Vec<Ident> = queries.into_iter().map(|(name, _)| name).collect();
    let mut leaves = Vec::new();
    Terms {
        item,
        queries: &queries,
    }
    .condition(&branch.cond, &mut leaves)?;
    let names: Vec<Ident> = leaves
        .iter()
        .filter_map(|leaf| leaf.path.get_ident().cloned())
        .collect();
    if !only_read(body, &names) {
        return None;
    }
    Some(UniformIf {
        eager: eager((*branch.cond).clone()),
        then: &branch.then_branch,
        otherwise,
        leaves,
    })
}

/// The grammar of a condition, for an item and the names its `let`s bind
/// to queries.
struct Terms<'a> {
    item: &'a Ident,
    queries: &'a [Ident],
}

impl Terms<'_> {
    /// A condition: logic over comparisons of terms.
    fn condition<'e>(&self, expr: &'e Expr, leaves: &mut Vec<&'e ExprPath>) -> Option<()> {
        match peel(expr) {
            Expr::Lit(lit) if matches!(lit.lit, Lit::Bool(_)) => Some(()),
            Expr::Unary(unary) if matches!(unary.op, UnOp::Not(_)) => {
                self.condition(&unary.expr, leaves)
            }
            Expr::Binary(binary) if matches!(binary.op, BinOp::And(_) | BinOp::Or(_)) => {
                self.condition(&binary.left, leaves)?;
                self.condition(&binary.right, leaves)
            }
            Expr::Binary(binary) if is_comparison(&binary.op) => {
                self.term(&binary.left, leaves)?;
                self.term(&binary.right, leaves)
            }
            _ => None,
        }
    }

    /// An operand of a comparison.
    fn term<'e>(&self, expr: &'e Expr, leaves: &mut Vec<&'e ExprPath>) -> Option<()> {
        match peel(expr) {
            Expr::Path(path)
                if path
                    .path
                    .get_ident()
                    .is_some_and(|n| self.queries.contains(n)) =>
            {
                Some(())
            }
            e if query(e, self.item).is_some() => Some(()),
            e => self.leaf_arithmetic(e, leaves),
        }
    }

    /// Integer literals and leaves, in `+`, `-` and `*`: the same for
    /// every item.
    fn leaf_arithmetic<'e>(&self, expr: &'e Expr, leaves: &mut Vec<&'e ExprPath>) -> Option<()> {
        match peel(expr) {
            Expr::Lit(lit) if matches!(lit.lit, Lit::Int(_)) => Some(()),
            Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                let name = path.path.get_ident();
                if name.is_some_and(|n| n == self.item || self.queries.contains(n)) {
                    return None;
                }
                leaves.push(path);
                Some(())
            }
            Expr::Binary(binary)
                if matches!(binary.op, BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_)) =>
            {
                self.leaf_arithmetic(&binary.left, leaves)?;
                self.leaf_arithmetic(&binary.right, leaves)
            }
            _ => None,
        }
    }
}

/// `condition` with `|` and `&` for `||` and `&&`, each operand in
/// parentheses (`|` binds tighter than a comparison).
fn eager(mut condition: Expr) -> Expr {
    struct Eager;
    impl VisitMut for Eager {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let Expr::Binary(binary) = expr else {
                return;
            };
            let op = match binary.op {
                BinOp::Or(token) => BinOp::BitOr(syn::Token![|](token.spans[0])),
                BinOp::And(token) => BinOp::BitAnd(syn::Token![&](token.spans[0])),
                _ => return,
            };
            let (left, right) = (&binary.left, &binary.right);
            *expr = syn::parse_quote!((#left) #op (#right));
        }
    }
    Eager.visit_expr_mut(&mut condition);
    condition
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The uniform `if` of `body`'s last statement, if it has the shape.
    fn shape(body: &str) -> Option<(String, Vec<String>)> {
        let body: Expr = syn::parse_str(body).unwrap();
        let Expr::Block(block) = &body else {
            panic!("not a block")
        };
        let (last, before) = block.block.stmts.split_last().unwrap();
        let Stmt::Expr(Expr::Assign(store), _) = last else {
            panic!("no store")
        };
        let item = Ident::new("idx", Span::call_site());
        let found = uniform_if(before, &store.right, &body, &item)?;
        let eager = found.eager;
        let leaves = found
            .leaves
            .iter()
            .map(|l| quote!(#l).to_string())
            .collect();
        Some((quote!(#eager).to_string(), leaves))
    }

    #[test]
    fn a_boundary_test_on_the_ids_is_taken_per_chunk() {
        let (eager, leaves) = shape(
            "{
                let (r, c) = (idx.local_id_dim(&g, 0), idx.local_id_dim(&g, 1));
                let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
                new[idx] = if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                    t[r + 1][c + 1]
                } else {
                    t[r][c] + t[r + 2][c]
                };
            }",
        )
        .expect("not taken per chunk");
        assert_eq!(
            eager,
            "(((i == 0) | (j == 0)) | (i == n - 1)) | (j == n - 1)",
        );
        assert_eq!(leaves, ["n", "n"]);
        // Queries in the condition itself, `!`, `&&`, paths and no `let`s.
        let (eager, leaves) = shape(
            "{ out[idx] = if !(idx.global_id_dim(1) < W * 2) && true { 1.0 } else if c { 2.0 } else { 3.0 }; }",
        )
        .expect("not taken per chunk");
        assert_eq!(eager, "(! (idx . global_id_dim (1) < W * 2)) & (true)");
        assert_eq!(leaves, ["W"]);
    }

    #[test]
    fn other_values_keep_the_if_per_item() {
        for body in [
            // Not an `if` with an `else`.
            "{ out[idx] = t[0]; }",
            "{ out[idx] = if c { t[0] } else if d { t[1] }; }",
            // A `let` that is not an item query.
            "{ let x = t[0]; out[idx] = if x > 0.0 { 1.0 } else { 2.0 }; }",
            "{ let i = idx.global_id_dim(0) + 1; out[idx] = if i == 0 { 1.0 } else { 2.0 }; }",
            // Condition terms that may run code or panic: calls, method
            // calls, indexing, fields, division, remainder.
            "{ out[idx] = if f(idx) { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if v.len() > 0 { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if t[0] > 0 { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if s.n > 0 { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if n / 2 > 0 { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if n % 2 > 0 { 1.0 } else { 2.0 }; }",
            // Arithmetic on a name that differs between items: may
            // overflow where `||` would have skipped it.
            "{ let j = idx.global_id_dim(1); out[idx] = if j == 0 || j - 1 < n { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if idx.global_id_dim(1) + 1 < n { 1.0 } else { 2.0 }; }",
            // The item itself, or a leaf the body writes.
            "{ out[idx] = if idx == n { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if n > 0 { n = 1; 1.0 } else { 2.0 }; }",
        ] {
            assert_eq!(shape(body), None, "taken per chunk: {body}");
        }
    }
}
