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
//! where all its lanes agree: the chunk first finds whether they do (two
//! ways, below), then every lane runs the one branch, or,
//! where the lanes differ, the whole `if` as written. One branch over 16
//! lanes is a few vector loads; the `if` per lane is both branches and a
//! blend (GPU-form Jacobi in a build without flags: 1.56–1.64× its peer
//! at v3 and 1.63–1.68× at v4 before, 1.28–1.31× and 1.40–1.44× after,
//! Intel Xeon, one thread).
//!
//! Where every comparison that names an id compares a row-wise id
//! (`global_id_dim`, `local_id_dim`, the linear ids, the ranges: fixed
//! along a row or rising by one per lane), the first pass computes each
//! comparison's two sides at the chunk's first and last lanes only and
//! decides it from those (`__private::row_comparison`, three-valued
//! `row_all`/`row_any`/`row_not`; sides that are not both `usize` are
//! never decided). At the baseline level, whose SSE2 has no 64-bit
//! compare, the 16 lanes' conditions were about 150 scalar instructions a
//! row: GPU-form Jacobi 1.36–1.40× its peer → 0.82–0.89× (v3 0.89–0.94× →
//! 0.84–0.86×, v4 1.00–1.03× → 0.86–0.89×; default build, Xeon, one
//! thread). Otherwise the first pass evaluates every lane's condition
//! with `|` and `&` in place of `||` and `&&`, so that the 16 lanes are
//! vector compares: with `||` the optimiser kept the lanes apart and the
//! v4 copy got slower (1.83×).
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
        ends,
        then,
        otherwise,
        leaves,
    } = branch;
    let taken = Ident::new("__scoped_branch", Span::mixed_site());
    let width = quote!({ ::scoped::__private::ROW_STORE_LANES });
    // `result` for the chunk's item in lane `at`, after the body's `let`s.
    let in_lane = |at: TokenStream, result: TokenStream| {
        quote! {{
            let #item = #lanes.item(#at);
            #(#before)*
            #result
        }}
    };
    let lanes_of = |result: TokenStream| {
        let body = in_lane(quote!(#lane), result);
        quote! {
            ::scoped::__private::lane_array::<_, #width>(
                #[inline(always)]
                #[allow(unused_variables, unused_braces)]
                |#lane| #body,
            )
        }
    };
    let decided = match ends {
        Some(Ends { sides, decided }) => {
            let (first, last) = end_names();
            let sides = quote!((#(#sides,)*));
            let (at_first, at_last) = (
                in_lane(quote!(0), sides.clone()),
                in_lane(quote!(::scoped::__private::ROW_STORE_LANES - 1), sides),
            );
            quote! {{
                #[allow(unused_variables, unused_braces)]
                let (#first, #last) = (#at_first, #at_last);
                #decided
            }}
        }
        None => {
            let conditions = lanes_of(quote!((#eager) as u32));
            quote!(::scoped::__private::uniform_branch(#conditions))
        }
    };
    let (first, second) = (lanes_of(quote!(#then)), lanes_of(quote!(#otherwise)));
    quote! {
        #[allow(unused_imports)]
        use ::scoped::__private::{OtherLeaf as _, OtherSides as _, PlainLeaf as _, UsizeSides as _};
        let #taken = if !::core::cfg!(debug_assertions)
            #(&& (&::scoped::__private::BoundLeaf(&#leaves)).__plain())*
        {
            #decided
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
    /// The condition decided from the chunk's first and last lanes, where
    /// every id it compares is one that rises by one along a row or stays.
    ends: Option<Ends>,
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
    let mut bound = Vec::new();
    for (pat, init) in plain_lets(before)? {
        bind_queries(pat, init, item, &mut bound)?;
    }
    let queries: Vec<Ident> = bound.iter().map(|(name, _)| name.clone()).collect();
    let mut leaves = Vec::new();
    Terms {
        item,
        queries: &queries,
    }
    .condition(&branch.cond, &mut leaves)?;
    let ends = Ends::of(&branch.cond, item, &bound);
    let names: Vec<Ident> = leaves
        .iter()
        .filter_map(|leaf| leaf.path.get_ident().cloned())
        .collect();
    if !only_read(body, &names) {
        return None;
    }
    Some(UniformIf {
        eager: eager((*branch.cond).clone()),
        ends,
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

/// A condition decided per chunk from its first and last lanes
/// (`__private::row_comparison`): the sides of its comparisons, computed
/// at both lanes as one tuple, and the decision over them.
struct Ends {
    /// Per comparison on an id, its two sides as `usize`s if they are
    /// (`RowSides`); per other comparison, its value.
    sides: Vec<TokenStream>,
    /// The `Option<bool>` of the whole condition, from `__scoped_first`
    /// and `__scoped_last`, the tuples of `sides` at the two lanes.
    decided: TokenStream,
}

impl Ends {
    /// The ends of `condition`, of the shape of [`Terms::condition`] for
    /// `item` and the names `bound` to its queries, or `None` if a side
    /// holds an id that may not rise by one along a row (a sub-group's
    /// local id, an `Id`).
    fn of(condition: &Expr, item: &Ident, bound: &[(Ident, &Expr)]) -> Option<Ends> {
        let mut sides = Vec::new();
        let decided = decide(condition, item, bound, &mut sides)?;
        Some(Ends { sides, decided })
    }
}

/// The decision for `expr`, a part of a condition of [`Ends::of`], its
/// comparisons' sides appended to `sides`.
fn decide(
    expr: &Expr,
    item: &Ident,
    bound: &[(Ident, &Expr)],
    sides: &mut Vec<TokenStream>,
) -> Option<TokenStream> {
    let path = quote!(::scoped::__private);
    match peel(expr) {
        Expr::Lit(lit) => Some(quote!(::core::option::Option::Some(#lit))),
        Expr::Unary(unary) => {
            let inner = decide(&unary.expr, item, bound, sides)?;
            Some(quote!(#path::row_not(#inner)))
        }
        Expr::Binary(binary) if matches!(binary.op, BinOp::And(_) | BinOp::Or(_)) => {
            let left = decide(&binary.left, item, bound, sides)?;
            let right = decide(&binary.right, item, bound, sides)?;
            let combine = match binary.op {
                BinOp::And(_) => quote!(row_all),
                _ => quote!(row_any),
            };
            Some(quote!(#path::#combine(#left, #right)))
        }
        Expr::Binary(binary) => {
            let number = syn::Index::from(sides.len());
            let (left, right) = (&binary.left, &binary.right);
            let on_ids = [left, right]
                .iter()
                .map(|side| row_id(side, item, bound))
                .collect::<Option<Vec<bool>>>()?;
            let (first, last) = end_names();
            if on_ids.contains(&true) {
                let op = match binary.op {
                    BinOp::Eq(_) => quote!(Eq),
                    BinOp::Ne(_) => quote!(Ne),
                    BinOp::Lt(_) => quote!(Lt),
                    BinOp::Le(_) => quote!(Le),
                    BinOp::Gt(_) => quote!(Gt),
                    _ => quote!(Ge),
                };
                sides.push(quote!((&#path::RowSides::new(&(#left), &(#right))).__sides()));
                Some(quote! {
                    #path::row_comparison::<{ #path::ROW_STORE_LANES }>(
                        #path::RowComparison::#op,
                        #first.#number,
                        #last.#number,
                    )
                })
            } else {
                sides.push(quote!((#binary)));
                Some(quote!(::core::option::Option::Some(#first.#number)))
            }
        }
        _ => None,
    }
}

/// The tuples of [`Ends::sides`] at a chunk's first and last lanes.
fn end_names() -> (Ident, Ident) {
    let mixed = Span::mixed_site();
    (
        Ident::new("__scoped_first", mixed),
        Ident::new("__scoped_last", mixed),
    )
}

/// Whether `side`, a comparison's operand in a condition of the shape of
/// [`Terms::term`], is an id query of the item (directly or by a name
/// bound to one): `Some(true)` for one whose value is a `usize` that rises
/// by one per lane along a row or stays, `Some(false)` for a side with no
/// query, `None` for any other query.
fn row_id(side: &Expr, item: &Ident, bound: &[(Ident, &Expr)]) -> Option<bool> {
    const ROW_IDS: [&str; 8] = [
        "global_id_dim",
        "global_linear_id",
        "local_id_dim",
        "local_linear_id",
        "global_range_dim",
        "global_linear_range",
        "local_range_dim",
        "local_linear_range",
    ];
    let call = match peel(side) {
        Expr::Path(path) => match bound.iter().find(|(name, _)| path.path.is_ident(name)) {
            Some((_, init)) => query(init, item),
            None => return Some(false),
        },
        other => match query(other, item) {
            Some(call) => Some(call),
            None => return Some(false),
        },
    }?;
    ROW_IDS.iter().any(|id| call.method == id).then_some(true)
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

    /// A uniform `if`: its eager condition, its leaves, and the sides and
    /// decision from the ends of a row, if it has them.
    type Shape = (String, Vec<String>, Option<(String, String)>);

    /// The uniform `if` of `body`'s last statement, if it has the shape.
    fn shape(body: &str) -> Option<Shape> {
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
        let ends = found.ends.map(|ends| {
            let (sides, decided) = (ends.sides, ends.decided);
            (quote!(#(#sides),*).to_string(), decided.to_string())
        });
        let leaves = found
            .leaves
            .iter()
            .map(|l| quote!(#l).to_string())
            .collect();
        Some((quote!(#eager).to_string(), leaves, ends))
    }

    #[test]
    fn a_boundary_test_on_the_ids_is_taken_per_chunk() {
        let (eager, leaves, ends) = shape(
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
        let (sides, decided) = ends.expect("not decided from the row's ends");
        assert_eq!(sides.matches("RowSides :: new").count(), 4);
        assert!(sides.contains("(& (i) , & (0))") && sides.contains("(& (j) , & (n - 1))"));
        for op in ["row_any", "row_comparison", "Eq"] {
            assert!(decided.contains(op), "{op} missing from {decided}");
        }
        assert_eq!(decided.matches("row_any").count(), 3);
        // Queries in the condition itself, `!`, `&&`, paths and no `let`s.
        let (eager, leaves, ends) = shape(
            "{ out[idx] = if !(idx.global_id_dim(1) < W * 2) && true { 1.0 } else if c { 2.0 } else { 3.0 }; }",
        )
        .expect("not taken per chunk");
        assert_eq!(eager, "(! (idx . global_id_dim (1) < W * 2)) & (true)");
        assert_eq!(leaves, ["W"]);
        let (sides, decided) = ends.expect("not decided from the row's ends");
        assert!(sides.contains("(& (idx . global_id_dim (1)) , & (W * 2))"));
        assert!(decided.contains("row_not") && decided.contains("row_all"));
        // Comparisons without an id: their value at the first lane.
        let (_, _, ends) = shape("{ out[idx] = if n > 2 { 1.0 } else { 2.0 }; }").unwrap();
        assert_eq!(ends.unwrap().0, "(n > 2)");
    }

    #[test]
    fn ids_that_need_not_rise_along_a_row_are_decided_lane_by_lane() {
        // A sub-group's local id wraps inside a row of 16; `global_id()`
        // is an `Id`. Both keep every lane's condition.
        for body in [
            "{ let s = idx.innermost_local_id_dim(0); out[idx] = if s == 0 { 1.0 } else { 2.0 }; }",
            "{ out[idx] = if idx.innermost_local_linear_id() < 4 { 1.0 } else { 2.0 }; }",
            "{ let g = idx.global_id(); out[idx] = if g == z { 1.0 } else { 2.0 }; }",
        ] {
            let (_, _, ends) = shape(body).expect("not taken per chunk");
            assert!(ends.is_none(), "decided from the ends: {body}");
        }
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
            assert!(shape(body).is_none(), "taken per chunk: {body}");
        }
    }
}
