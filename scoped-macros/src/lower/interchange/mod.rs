//! Lowering shortcut: a `distribute_items!` whose body is statements, a
//! `for` loop whose iterations are the same for every item, and more
//! statements runs the loop outside and the items inside it
//! (`__private::distribute_items_interchanged`):
//!
//! ```text
//! distribute_items!(group, |idx| {          |idx| per chunk of W items:
//!     let xi = x[idx];                        prefix of each item, its `let`s kept in `[_; W]`
//!     let mut a = 0.0;                        for j in 0..n {
//!     for j in 0..n {                             for each item of the chunk { a += f(xi, t[j]) }
//!         a += f(xi, t[j]);                   }
//!     }                                       suffix of each item
//!     out[idx] = a;
//! })
//! ```
//!
//! A float sum over a loop is not vectorised (no reordering without
//! fast-math); with the items innermost, the `W` items' sums are `W`
//! independent chains the optimiser puts in the lanes of one register.
//! Items of one `distribute_items!` are independent (rule 2), so they may
//! interleave; each item runs its own statements in its own order, so
//! every result, floats included, is the plain loop's.
//!
//! The shape, exactly (anything else keeps the plain loop):
//! * the closure is `|idx| { ... }` (no `move`, `async`, return type);
//! * the body is zero or more statements, then a `for PAT in ITER { ... }`
//!   statement (the first one that fits), then zero or more statements;
//! * `ITER` is a range (`a..b`, `a..=b`) or `x.iter()` or `&x`, optionally
//!   followed by `.step_by(s)`, `.rev()`, `.enumerate()`, `.copied()`,
//!   `.skip(n)`, `.take(n)` or `.zip(other such ITER)`; its ends and
//!   receivers are literals, paths, field accesses, indices, casts,
//!   arithmetic and `.len()`, naming neither the item nor a binding of the
//!   statements before the loop, and every name in them is only read
//!   anywhere in the body (as `guard.rs` judges reads), so that every
//!   item would see the same iterations;
//! * the statements before the loop bind names with `let` of identifiers,
//!   tuples and slices of them (no `ref`, no `let ... else`, no
//!   uninitialised `let`), declare no items, and never borrow one of
//!   their own bindings or the item (`&x`, `ref`, a closure or a method
//!   call on it other than the by-value numeric ones): the bindings move
//!   into the lane array when the statements end;
//! * nothing in the body returns, uses `?`, `.await`, `async`, `yield` or
//!   a label, the loop body has no `break` or `continue` of its own loop,
//!   and neither it nor `PAT` binds the name of the item or of a binding
//!   from before the loop; closures and macros in the loop body do not
//!   name those bindings.
//!
//! A loop whose body is exactly one `for` loop, its `ITER` as above and
//! naming neither the outer loop's pattern nor a binding from before the
//! loop, its body without `break` or `continue` of its own, runs outside
//! the lanes too (`for dy { for dx { for each item … } }`), unless the
//! lanes' reads are checked ahead. The plain loop runs where the loop's
//! iterations (times the inner loop's, for such a loop) are at most
//! `INTERCHANGE_MAX_PLAIN_TRIPS`, unless the group is that of a kernel
//! with a required size (`group_size`), whose range is a constant: there
//! every loop of this shape runs interchanged.
//!
//! Inside the loop a binding `x` from before the loop is `(*x)`, a
//! reference into its lane (`&mut` if the binding is `mut`); the lanes of
//! a binding the loop only reads are read back from memory before it,
//! and those of a binding it changes after it (`__private::held_lanes`,
//! same values). The items that do not fill a chunk run the plain body.
//!
//! The files: [`shape`] (the split around the loop and whether it fits),
//! [`prefix`] (what the statements before the loop bind),
//! [`invariance`] (iterations the same for every item, names only read),
//! [`body`] (early exits, names a body hides or rebinds),
//! [`dispatch`] (the runtime loop and the plain loop's threshold) and
//! [`chunk`] (the code a chunk of lanes runs).

pub(super) mod body;
mod chunk;
mod dispatch;
pub(super) mod invariance;
pub(super) mod prefix;
mod shape;

use proc_macro2::TokenStream;
use syn::{Expr, Ident, ReturnType, Stmt};

use self::body::plain_control;
use self::shape::Shape;
use super::lane_check::Indexed;
use crate::check::pat_ident;
use crate::parse::{Collective, Invocation};

/// The item's name of a `distribute_items!` whose closure is a plain
/// `|item| …` (no `move`, no return type, no early exits or labels in its
/// body): the closure every shortcut on item loops starts from.
pub(super) fn plain_item_closure(inv: &Invocation) -> Option<Ident> {
    let closure = &inv.closure;
    if inv.kind != Collective::DistributeItems
        || closure.inputs.len() != 1
        || closure.capture.is_some()
        || closure.asyncness.is_some()
        || closure.constness.is_some()
        || closure.movability.is_some()
        || closure.lifetimes.is_some()
        || !matches!(closure.output, ReturnType::Default)
        || !plain_control(&closure.body)
    {
        return None;
    }
    pat_ident(&closure.inputs[0])
}

/// The item's name and the statements of a plain item closure
/// ([`plain_item_closure`]) whose body is a block: the shape both this
/// lowering and the grid-stride one start from.
pub(super) fn plain_item_block(inv: &Invocation) -> Option<(Ident, &[Stmt])> {
    let item = plain_item_closure(inv)?;
    let Expr::Block(block) = &*inv.closure.body else {
        return None;
    };
    if block.label.is_some() || !block.attrs.is_empty() {
        return None;
    }
    Some((item, &block.block.stmts))
}

/// The interchanged lowering of `inv`, if it has the shape described above.
/// `inv.closure.body` is already lowered.
/// `indexed` are the names whose reads the loop checks ahead
/// (`lane_check.rs`).
pub(crate) fn distribute_items(
    inv: &Invocation,
    group: &Expr,
    indexed: &[Indexed],
) -> Option<TokenStream> {
    let (item, stmts) = plain_item_block(inv)?;
    let shape = stmts.iter().enumerate().find_map(|(at, stmt)| match stmt {
        Stmt::Expr(Expr::ForLoop(looped), _) => {
            Shape::new(&item, &stmts[..at], looped, &stmts[at + 1..])
        }
        _ => None,
    })?;
    shape.lower(inv, group, indexed)
}

/// The token text of the lowering of `distribute_items!(g, <closure>)`,
/// or `None` if it keeps the plain loop.
#[cfg(test)]
fn lowered(closure: &str) -> Option<String> {
    let (inv, group) = crate::lower::distribute_items_on_g(closure);
    distribute_items(&inv, &group, &[]).map(|t| t.to_string())
}
