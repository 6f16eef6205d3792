//! Lowering shortcut: a `distribute_items!` whose body ends by storing
//! its item's value into an output indexed by the item,
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     let (r, c) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
//!     b[idx] = tile[c][r];
//! })
//! ```
//!
//! on the work group of a kernel with a required size (`group_size`, whose
//! rows are constant), runs in chunks of `ROW_STORE_LANES` items along the
//! fastest dimension
//! (`__private::distribute_items_row_stored`; rows shorter than that, and
//! one-dimensional groups, run item by item). Where `b` hands out the
//! chunk's elements as a row (`__private::Row`: an `ItemsWindow` of 4- or
//! 8-byte numbers over the chunk's group), each item of the chunk runs
//! the body up to its value, in lane order, and the values are stored
//! together as vectors (`Row::store`); elsewhere, and for the items after
//! a row's last full chunk, each item runs its value and then its store,
//! as written. Stored item by item, values read from scattered places
//! (a tile's column) stayed scalar stores (see the runtime's
//! `lowering/row_store.rs`).
//!
//! Outside the kernel's loops each chunk first prefetches its row in the
//! next work group along the fastest dimension (`__scoped_prefetch_row`):
//! a tile's output rows are short streams whose stores otherwise wait for
//! each line (GPU-form Jacobi, default build at v3: 1.06–1.12× its peer
//! → 0.87–0.90×). Inside a loop (a group that stores a row per step) the
//! next group's row would wait a whole group, so none is fetched.
//!
//! Sub-groups keep the plain lowering, which `fuse.rs` makes one loop
//! over the work group's items (taken as rows, the triad's sub-group form
//! ran 1.5× its flat form).
//!
//! Only the order of the stores to `b` moves, later than some lanes'
//! other statements; nothing else in the body names `b`, and a window is
//! a unique borrow, so the body cannot see them (only a panic part-way
//! through a chunk could: its earlier lanes' values are then not stored).
//!
//! The shape, exactly: a closure `|item| …` (a plain name, no `move`, no
//! return type) whose body is `out[item] = value`, alone or as the last
//! statement of a block, and has no `return`, `?`, labels or macro that
//! may hide one; `out` a plain name, bound nowhere in the body and named
//! nowhere else in it (macros' tokens included), and `item` not bound
//! again. The statements before it and `value` run in a closure of their
//! own, written once.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Expr, Ident, Stmt};

use super::group_slice::bound_names;
use super::interchange::body::mentions;
use super::interchange::plain_item_closure;
use super::item_syntax::peel;
use super::row_branch::{chunk_store, RowNames};
use crate::parse::Invocation;

/// The row-stored lowering of `inv`, if it has the shape described above.
pub(crate) fn distribute_items(inv: &Invocation, group: &Expr) -> Option<TokenStream> {
    let closure = &inv.closure;
    if !inv.required_size || !closure.attrs.is_empty() {
        return None;
    }
    let item = plain_item_closure(inv)?;
    let (before, store) = split_last_store(&closure.body)?;
    let Expr::Assign(assign) = store else {
        return None;
    };
    let (Expr::Index(place), value) = (peel(&assign.left), &*assign.right) else {
        return None;
    };
    let out = plain_name(&place.expr)?;
    if plain_name(&place.index) != Some(&item)
        || !assign.attrs.is_empty()
        || !place.attrs.is_empty()
    {
        return None;
    }
    let bound = bound_names(&closure.body);
    let others = quote!(#(#before)* #value);
    if bound.contains(&item)
        || bound.contains(out)
        || out == &item
        || mentions(others, std::slice::from_ref(out))
    {
        return None;
    }
    let span = inv.name.span();
    let mixed = Span::mixed_site();
    let name = |n: &str| Ident::new(n, mixed);
    let (value_fn, chunk, lanes, lane, row, at, stored) = (
        name("__scoped_value"),
        name("__scoped_chunk"),
        name("__scoped_lanes"),
        name("__scoped_lane"),
        name("__scoped_row"),
        name("__scoped_item"),
        name("__scoped_stored"),
    );
    let names = RowNames {
        lanes: &lanes,
        lane: &lane,
        row: &row,
        value_fn: &value_fn,
    };
    let chunk_store = chunk_store(before, value, &closure.body, &item, &names);
    let width = quote!({ ::scoped::__private::ROW_STORE_LANES });
    let out_tokens = out.to_token_stream();
    // Inside a loop of the kernel the next group's row would be fetched a
    // whole group of steps before its store (as `chunk_check.rs`'s reads).
    let prefetch = (!inv.in_loop).then(|| quote!(#out_tokens.__scoped_prefetch_row(&#lanes);));
    Some(quote_spanned! {span=>
        {
            let mut #value_fn = ::scoped::__private::item_value(
                &#group,
                #[inline(always)]
                #[allow(unused_variables)]
                |#item| {
                    #(#before)*
                    #value
                },
            );
            ::scoped::__private::distribute_items_row_stored::<#width, _, _>(
                &#group,
                #[inline(always)]
                |#chunk| match #chunk {
                    ::scoped::__private::ItemChunk::Chunk(#lanes) => {
                        #[allow(unused_imports)]
                        use ::scoped::__private::NotARow as _;
                        #prefetch
                        match #out_tokens.__scoped_row(&#lanes) {
                            ::core::option::Option::Some(#row) => {
                                #chunk_store
                            }
                            ::core::option::Option::None => {
                                for #lane in 0..::scoped::__private::ROW_STORE_LANES {
                                    let #at = #lanes.item(#lane);
                                    let #stored = #value_fn(#at);
                                    #out_tokens[#at] = #stored;
                                }
                            }
                        }
                    }
                    ::scoped::__private::ItemChunk::Item(#at) => {
                        let #stored = #value_fn(#at);
                        #out_tokens[#at] = #stored;
                    }
                },
            )
        }
    })
}

/// The statements of `body` before its last, and that last one's
/// expression: the body itself if it is not a block.
fn split_last_store(body: &Expr) -> Option<(&[Stmt], &Expr)> {
    let Expr::Block(block) = body else {
        return Some((&[], body));
    };
    if block.label.is_some() || !block.attrs.is_empty() {
        return None;
    }
    let (last, before) = block.block.stmts.split_last()?;
    match last {
        Stmt::Expr(expr, _) => Some((before, expr)),
        _ => None,
    }
}

/// The name `expr` is, if it is a plain identifier.
fn plain_name(expr: &Expr) -> Option<&Ident> {
    match peel(expr) {
        Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => path.path.get_ident(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of the lowering of `distribute_items!(g, <closure>)`, if
    /// the shortcut applies.
    fn lowered(closure: &str) -> Option<String> {
        let (mut inv, group) = crate::lower::distribute_items_on_g(closure);
        inv.required_size = true;
        distribute_items(&inv, &group).map(|t| t.to_string())
    }

    #[test]
    fn only_the_work_group_of_a_kernel_with_a_required_size_stores_rows() {
        let (inv, group) = crate::lower::distribute_items_on_g("|i| b[i] = t[3]");
        assert!(distribute_items(&inv, &group).is_none());
    }

    #[test]
    fn a_last_store_to_an_output_by_item_runs_a_row_at_a_time() {
        for closure in [
            "|i| b[i] = t[3]",
            "|i| { b[i] = t[3] }",
            "|i| { let (r, c) = (i.local_id_dim(&g, 0), i.local_id_dim(&g, 1)); b[i] = t[c][r]; }",
            "|i| { let x = f(i); t[0] = x; (b)[(i)] = x * 2.0; }",
            "|i| { let v = vec![1]; b[i] = v[0]; }",
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not lowered: {closure}"));
            assert!(out.contains("distribute_items_row_stored"), "{out}");
            assert!(out.contains("__scoped_row (& __scoped_lanes)"), "{out}");
            // The value closure holds the body once; the store to `b` is
            // written for the two item-by-item paths.
            assert_eq!(
                out.matches("b [__scoped_item] = __scoped_stored").count(),
                2,
                "{out}"
            );
            assert_eq!(out.matches("[i]").count(), 0, "{out}");
        }
    }

    #[test]
    fn the_next_groups_row_is_fetched_ahead_outside_kernel_loops_only() {
        let out = lowered("|i| b[i] = t[3]").unwrap();
        assert_eq!(
            out.matches("b . __scoped_prefetch_row (& __scoped_lanes)")
                .count(),
            1,
            "{out}"
        );
        let (mut inv, group) = crate::lower::distribute_items_on_g("|i| b[i] = t[3]");
        (inv.required_size, inv.in_loop) = (true, true);
        let out = distribute_items(&inv, &group).unwrap().to_string();
        assert!(out.contains("distribute_items_row_stored"), "{out}");
        assert!(!out.contains("prefetch"), "{out}");
    }

    #[test]
    fn other_bodies_keep_their_lowering() {
        for closure in [
            // Not a store by item, or not last, or not to a plain name.
            "|i| { b[i.global_id_dim(0)] = 1.0; }",
            "|i| { b[i] = 1.0; t[0] = 2.0; }",
            "|i| { b[i] += 1.0; }",
            "|i| { s.b[i] = 1.0; }",
            "|i| { f(i); }",
            // The output named elsewhere in the body, macros included.
            "|i| { b[i] = b[i] * 2.0; }",
            "|i| { let x = b.len(); b[i] = x as f32; }",
            "|i| { println!(\"{}\", b.len()); b[i] = 1.0; }",
            // Bound again, or the item bound again.
            "|i| { let b = 3; b[i] = 1.0; }",
            "|i| { let i = 3; b[i] = 1.0; }",
            // Early exits, `move`, a return type, attributes.
            "|i| { if f(i) { return; } b[i] = 1.0; }",
            "move |i| b[i] = 1.0",
            "|i| -> () { b[i] = 1.0 }",
            "#[inline] |i| b[i] = 1.0",
            // An empty body, a trailing `let`.
            "|i| {}",
            "|i| { let x = b[i]; }",
        ] {
            assert_eq!(lowered(closure), None, "lowered: {closure}");
        }
    }
}
