//! Reads of the physical item's private memory inside `distribute_items!`
//! (rule 4): a method call on a variable declared outside it, or a call
//! of it, goes through `*::scoped::__private::Rule4ReadOnly(&variable)`, a
//! dereference without `DerefMut`. Methods taking `&self` or a `Copy`
//! `self`, and `Fn` closures, work as before; a `&mut self` method or an
//! `FnMut` call fails to compile (E0596, naming `Rule4ReadOnly`), which
//! only the types can tell.

use syn::spanned::Spanned;
use syn::Expr;

/// `expr` read through a shared reference, pointing at `expr`.
pub(crate) fn read_only(expr: &Expr) -> Expr {
    let span = expr.span();
    syn::parse_quote_spanned! {span=> (*::scoped::__private::Rule4ReadOnly(&#expr)) }
}
