//! Checking: the spec's nesting rules and memory placement rule, on the
//! context the walker keeps while it goes through a kernel body.
//!
//! * [`scope`]: what is in scope (bindings and what memory they name, the
//!   group hierarchy, the enclosing `distribute_items!`);
//! * [`collectives`]: which function and method calls are collectives, by
//!   the names in [`collective_names`];
//! * [`divergence`] and [`exits`]: control flow that may differ between
//!   the physical items of a group (rule 3);
//! * [`rules`]: the rules themselves, as errors at the user's code.

mod collective_names;
mod collectives;
mod divergence;
mod exits;
mod rules;
mod scope;

pub(crate) use collectives::CollectiveCall;
pub(crate) use divergence::{Cause, Divergence};
pub(crate) use rules::{Form, Site};
pub(crate) use scope::{let_storage, pat_ident, pat_names, BindingKind, Context, Storage};

pub(crate) mod calls {
    //! Recognising collective calls.
    pub(crate) use super::collective_names::{FUNCTIONS, METHODS};
    pub(crate) use super::collectives::{call, method};
}

pub(crate) mod flow {
    //! Divergent conditions and exits (rule 3).
    pub(crate) use super::divergence::in_expr;
    pub(crate) use super::exits::{after_stmt, in_loop_body};
}

pub(crate) use rules::{assignment, call, collective, group_ident, is_outer_value, Write};
