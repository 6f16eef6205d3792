//! Which function and method calls are collectives, so that nesting rules
//! 1–3 apply to them as to the macros: a call whose callee's last path
//! segment (`group_barrier(g)`, `scoped::group_barrier(g)`) is one of
//! [`FUNCTIONS`], with the group as its first argument (`g`, `&g` or
//! `*g`), or a method of [`METHODS`] on its receiver (`g.wait_for(..)`,
//! also called through a type path, `WorkGroup::wait_for(&g, ..)`).
//!
//! Functions of the user's own (a `#[group_function]`) are not known here:
//! their bodies are checked where they are defined, and a collective they
//! reach inside `distribute_items!` panics at run time in debug builds.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Expr, ExprCall, ExprMethodCall};

use super::collective_names::{FUNCTIONS, METHODS};

/// A call of a collective function or method.
pub(crate) struct CollectiveCall<'a> {
    /// The function or method name, for messages.
    pub(crate) name: String,
    /// What to point at for rule 2 and 3 messages: the callee.
    pub(crate) callee: TokenStream,
    /// The group the collective operates on, if the call has one.
    pub(crate) group: Option<&'a Expr>,
    /// Whether the group is the receiver of a method call.
    pub(crate) method: bool,
}

/// Whether a free function of this name is a group collective.
pub(crate) fn is_collective_function(name: &str) -> bool {
    FUNCTIONS.contains(&name)
}

/// Whether a method of this name, called on a group, is a collective.
pub(crate) fn is_collective_method(name: &str) -> bool {
    METHODS.contains(&name)
}

/// The collective `call` is, if it is one.
pub(crate) fn call(call: &ExprCall) -> Option<CollectiveCall<'_>> {
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let last = path.path.segments.last()?;
    let name = last.ident.to_string();
    let through_type = path.path.segments.len() > 1 && is_collective_method(&name);
    if !is_collective_function(&name) && !through_type {
        return None;
    }
    Some(CollectiveCall {
        name,
        callee: call.func.to_token_stream(),
        group: call.args.first(),
        method: false,
    })
}

/// The collective `call` is, if it is one.
pub(crate) fn method(call: &ExprMethodCall) -> Option<CollectiveCall<'_>> {
    let name = call.method.to_string();
    if !is_collective_method(&name) {
        return None;
    }
    Some(CollectiveCall {
        name,
        callee: call.method.to_token_stream(),
        group: Some(&call.receiver),
        method: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_list_are_collectives() {
        for name in [
            "group_barrier",
            "group_barrier_with_scope",
            "group_broadcast",
            "group_broadcast_linear",
            "reduce_over_group",
            "exclusive_scan_over_group_with_init",
            "any_of_group",
            "none_of_group_by",
            "joint_reduce",
            "work_group_reduce",
            "sub_group_scan_inclusive",
            "shift_group_left",
            "permute_group_by_xor",
            "select_from_group",
            "work_group_barrier_with_scope",
            "work_group_named_barrier",
        ] {
            assert!(is_collective_function(name), "{name}");
        }
    }

    #[test]
    fn other_names_are_not_collectives() {
        for name in [
            "barrier",
            "leader",
            "reduce",
            "group_id",
            "my_group_broadcast",
            "joint",
            "wait_for",
            "my_reduce_over_group",
            "joint_venture",
            "sub_group_size",
        ] {
            assert!(!is_collective_function(name), "{name}");
        }
        assert!(is_collective_method("wait_for"));
        assert!(is_collective_method("wait_with_scope"));
        assert!(is_collective_method("async_work_group_copy_src_stride"));
        assert!(!is_collective_method("group_barrier"));
    }
}
