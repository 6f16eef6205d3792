//! Whether the statements after a staging copy (`item_copy.rs`) may run
//! after the copy has run for every item, rather than item by item after
//! each item's own copy:
//!
//! ```text
//! distribute_items!(group, |idx| {
//!     scratch[idx.local_id_dim(&group, 0)] = data[idx.global_id_dim(0)];
//!     private_mem[idx] = scratch[idx.local_id_dim(&group, 0)];
//! })
//! ```
//!
//! The copy writes only the item's own element of the local memory and
//! reads only the item's own element of the input. So the rest of an
//! item's body sees the same values either way if it reaches the local
//! memory only at the item's own element (the same place, indexed by the
//! item's local id, or for private memory by the item) and the input only
//! at the item's own element; reading another item's element is what
//! would change. The check is on the syntax: every mention of the local
//! memory's root name and of the input must be such an access, and the
//! rest must not bind the item, the root or the input again (nor hide the
//! item in a macro's tokens, where a binding cannot be seen).

use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Expr, ExprIndex, Ident};

use super::group_slice::bound_names;
use super::item_syntax::{count_mentions, is_name, local_id, peel, query, LocalId};

/// The staging copy's destination and source, as the rest must reach them.
pub(crate) struct StagingCopy<'a> {
    /// The item.
    pub(crate) item: &'a Ident,
    /// The distributed group's name, if it is a plain name.
    pub(crate) group: Option<&'a Ident>,
    /// The local memory's place (`scratch`, `tile[0]`), indexed by the
    /// item's local id, or by the item for private memory.
    pub(crate) place: &'a Expr,
    /// Whether `place` is indexed by the item itself (private memory).
    pub(crate) by_item: bool,
    /// The input's name.
    pub(crate) input: &'a Ident,
}

/// Whether `body`, the statements after the copy as a block, may run for
/// every item after the copy ran for every item, with the same results
/// as item by item.
pub(crate) fn may_follow(copy: &StagingCopy<'_>, body: &Expr) -> bool {
    let Some(root) = root(copy.place) else {
        return false;
    };
    let bound = bound_names(body);
    if [copy.item, &root, copy.input]
        .iter()
        .any(|n| bound.contains(n))
    {
        return false;
    }
    let place_tokens = copy.place.to_token_stream().to_string();
    let roots_per_place = count_mentions(copy.place.to_token_stream(), &root);
    let mut own = OwnAccesses {
        copy,
        place_tokens,
        places: 0,
        inputs: 0,
        hidden: false,
    };
    own.visit_expr(body);
    let tokens = body.to_token_stream();
    !own.hidden
        && count_mentions(tokens.clone(), &root) == own.places * roots_per_place
        && count_mentions(tokens, copy.input) == own.inputs
}

/// The name a place starts from: `scratch` in `scratch`, `tile[0]`,
/// `self.tile`.
fn root(place: &Expr) -> Option<Ident> {
    match peel(place) {
        Expr::Path(path) => path.path.get_ident().cloned(),
        Expr::Field(field) => root(&field.base),
        Expr::Index(index) => root(&index.expr),
        _ => None,
    }
}

/// Counts the accesses of the rest that reach the item's own elements.
struct OwnAccesses<'c, 'a> {
    copy: &'c StagingCopy<'a>,
    /// The place's tokens, as text, to compare accesses with.
    place_tokens: String,
    /// Accesses `place[own local id]` (or `place[item]`).
    places: usize,
    /// Accesses `input[own index]`.
    inputs: usize,
    /// Whether a macro's tokens name the item.
    hidden: bool,
}

impl OwnAccesses<'_, '_> {
    /// Whether `index` is the item's own index into the local memory.
    fn own_local(&self, index: &Expr) -> bool {
        if self.copy.by_item {
            return is_name(index, self.copy.item);
        }
        query(index, self.copy.item)
            .and_then(|call| local_id(call, self.copy.group))
            .is_some_and(|id| matches!(id, LocalId::Dim(0) | LocalId::Linear))
    }
}

impl<'ast> Visit<'ast> for OwnAccesses<'_, '_> {
    fn visit_expr_index(&mut self, access: &'ast ExprIndex) {
        if self.own_local(&access.index)
            && access.expr.to_token_stream().to_string() == self.place_tokens
        {
            self.places += 1;
        } else if is_name(&access.expr, self.copy.input)
            && super::item_copy::is_item_index(&access.index, self.copy.item)
        {
            self.inputs += 1;
        }
        visit::visit_expr_index(self, access);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if count_mentions(mac.tokens.clone(), self.copy.item) > 0 {
            self.hidden = true;
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
