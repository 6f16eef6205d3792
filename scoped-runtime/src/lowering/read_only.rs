//! The shared read behind rule 4: inside `distribute_items!`, the macros
//! call methods of a variable declared outside it through
//! `*Rule4ReadOnly(&variable)` (the macros' `lower/read_only.rs`).

use std::ops::Deref;

/// A variable of the physical item read by its logical items: it
/// dereferences to the variable but has no `DerefMut`, so a `&mut self`
/// method or an `FnMut` call through it fails to compile (E0596, "cannot
/// borrow data in dereference of `Rule4ReadOnly<..>` as mutable"): rule
/// 4, the logical items may read the physical item's private memory
/// but not write it.
pub struct Rule4ReadOnly<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> Deref for Rule4ReadOnly<'_, T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        self.0
    }
}
