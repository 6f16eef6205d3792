//! The body split around its loop ([`Shape`]): whether it has the shape
//! the interchange takes, and what the lanes hold across the loop.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Expr, ExprForLoop, Ident, Stmt};

use super::body::{binds_any, collect_idents, lane_body};
use super::invariance::{invariant_iter, only_read};
use super::prefix::{borrows, prefix_bindings, query_lets};

/// A body split around its loop, and the bindings the loop and the
/// statements after it use from the statements before it.
pub(super) struct Shape<'a> {
    pub(super) item: &'a Ident,
    pub(super) prefix: &'a [Stmt],
    pub(super) looped: &'a ExprForLoop,
    pub(super) suffix: &'a [Stmt],
    /// `let`s of item queries alone (`let (r, c) = (idx.local_id_dim(..),
    /// ..)`), run again where the loop or the suffix needs them: a lane
    /// then sees its ids as the chunk's first plus the lane, consecutive.
    pub(super) queries: Vec<&'a Stmt>,
    /// The names `queries` bind.
    pub(super) query_names: Vec<Ident>,
    /// Bindings from the prefix that the loop uses, and whether each is `mut`.
    pub(super) in_loop: Vec<(Ident, bool)>,
    /// Bindings from the prefix that the suffix uses.
    pub(super) in_suffix: Vec<(Ident, bool)>,
    /// The names the prefix binds, then the item: what each lane has its
    /// own value of.
    own: Vec<Ident>,
}

impl<'a> Shape<'a> {
    pub(super) fn new(
        item: &'a Ident,
        prefix: &'a [Stmt],
        looped: &'a ExprForLoop,
        suffix: &'a [Stmt],
    ) -> Option<Self> {
        if looped.label.is_some() || !looped.attrs.is_empty() {
            return None;
        }
        let bindings = prefix_bindings(prefix)?;
        let names: Vec<Ident> = bindings.iter().map(|(name, _)| name.clone()).collect();
        if names.contains(item) {
            return None;
        }
        let mut own = names.clone();
        own.push(item.clone());
        if prefix.iter().any(|stmt| borrows(stmt, &own)) {
            return None;
        }
        // The iterations: the same for every item.
        let mut range_names = Vec::new();
        invariant_iter(&looped.expr, &mut range_names)?;
        if range_names.iter().any(|name| own.contains(name)) {
            return None;
        }
        let rest = range_names.is_empty()
            || prefix
                .iter()
                .chain(&looped.body.stmts)
                .chain(suffix)
                .all(|stmt| only_read(stmt, &range_names));
        if !rest {
            return None;
        }
        // The loop body sees every lane's bindings under their own names.
        if binds_any(looped, &own) {
            return None;
        }
        if !lane_body(&looped.body, &own) {
            return None;
        }
        let (queries, query_names) = query_lets(prefix, item, &bindings);
        let used = |tokens: TokenStream| -> Vec<(Ident, bool)> {
            let mut seen = HashSet::new();
            collect_idents(tokens, &mut seen);
            bindings
                .iter()
                .filter(|(name, _)| seen.contains(&name.to_string()))
                .filter(|(name, _)| !query_names.contains(name))
                .cloned()
                .collect()
        };
        let in_loop = used(looped.body.to_token_stream());
        let in_suffix = used(suffix.iter().map(ToTokens::to_token_stream).collect());
        let shape = Shape {
            item,
            prefix,
            queries,
            query_names,
            looped,
            suffix,
            in_loop,
            in_suffix,
            own,
        };
        // `Unzip` takes tuples of up to 12 bindings.
        (shape.stored().len() <= 12).then_some(shape)
    }

    /// The iterator of a `for` loop that is the interchanged loop's whole
    /// body, if it is the same for every item and every iteration: it
    /// names neither the item, nor a binding from before the loop, nor the
    /// loop's pattern, and its names are only read.
    pub(super) fn inner_iter(&self) -> Option<&'a Expr> {
        self.inner_loop().map(|inner| &*inner.expr)
    }

    /// The `for` loop that is the interchanged loop's whole body, if its
    /// iterations are the same for every item and every iteration
    /// ([`Self::inner_iter`]) and its body has no `break` or `continue`
    /// of its own: the lanes then run innermost in both loops.
    pub(super) fn inner_loop(&self) -> Option<&'a ExprForLoop> {
        let [Stmt::Expr(Expr::ForLoop(inner), _)] = self.looped.body.stmts.as_slice() else {
            return None;
        };
        if inner.label.is_some() || !inner.attrs.is_empty() || !lane_body(&inner.body, &[]) {
            return None;
        }
        let mut names = Vec::new();
        invariant_iter(&inner.expr, &mut names)?;
        let mut local = Vec::new();
        crate::check::pat_names(&self.looped.pat, &mut local);
        local.extend(self.own.iter().cloned());
        let read = self
            .prefix
            .iter()
            .chain(&self.looped.body.stmts)
            .chain(self.suffix)
            .all(|stmt| only_read(stmt, &names));
        (read && !names.iter().any(|name| local.contains(name))).then_some(inner)
    }

    /// What the lanes hold: the bindings the loop or the suffix uses, once.
    pub(super) fn stored(&self) -> Vec<(Ident, bool)> {
        let mut stored = self.in_loop.clone();
        for binding in &self.in_suffix {
            if !stored.iter().any(|(name, _)| *name == binding.0) {
                stored.push(binding.clone());
            }
        }
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::super::lowered;

    #[test]
    fn loops_the_same_for_every_item_are_interchanged() {
        for closure in [
            // Iterations over a tile, with adapters; no statements around.
            "|idx| { for t in tile.iter() { s[idx] += *t; } }",
            "|idx| { let mut a = 0; for (k, t) in tile.iter().enumerate() { a += k * t; } o[idx] = a; }",
            "|idx| { let v = x[idx]; for k in (0..n).step_by(2).rev() { o[idx] += v * k; } }",
            "|idx| { let mut a = [0.0; 3]; for j in j0..j0 + B { for (s, d) in a.iter_mut().zip(f(j)) { *s += d; } } o[idx] = a; }",
            "|idx| { let v = x[idx]; for k in 0..=self.n - 1 { o[idx] += v; } }",
            "|idx| { let v = x[idx]; for (a, b) in ta.iter().zip(tb.iter()) { o[idx] += v * a * b; } }",
            "|idx| { let v = x[idx]; for t in &tile[0] { o[idx] += v * t; } }",
            "|idx| { let v = x[idx]; for k in 0..t.len() { o[idx] += v * t[k]; } }",
            // The first loop depends on the item; the second one is taken.
            "|idx| { let l = idx.global_linear_id(); let mut a = 0; for k in 0..l { a += k; } for k in 0..n { a += k; } o[l] = a; }",
            // Well-known macros that do not name lane bindings; numeric methods before the loop.
            "|idx| { let v = x[idx].abs().sqrt(); assert!(v >= 0.0); for k in 0..n { debug_assert!(k < 9); o[idx] += v; } }",
            // The kernels of tests/test_interchange.rs.
            "|idx| { let (r, col) = (idx.global_id_dim(0), idx.global_id_dim(1)); let mut sum = 0.0f32; for k in 0..K { sum = a[r * K + k].mul_add(b[k * columns + col], sum); } c[idx] = sum; }",
            "|idx| { let i = idx.global_linear_id(); let xi = all[i]; let mut a = 0.0f32; for (xj, mj) in all.iter().zip(masses.iter()) { a += pull(xi, *xj, *mj); } out[idx] = a * 0.5; }",
            "|idx| { let mut text = idx.global_linear_id().to_string() + \":\"; let l = idx.innermost_local_linear_id(); for letter in letters.iter().take(steps) { text.push_str(letter); text.push(if l % 2 == 0 { 'e' } else { 'o' }); } out[idx] = text; }",
            // Receivers the walker reads through `Rule4ReadOnly` (rule 4).
            "|idx| { let v = x[idx]; for t in (*::scoped::__private::Rule4ReadOnly(&tile)).iter() { o[idx] += v * t; } }",
            "|idx| { let v = x[idx]; for k in 0..(*::scoped::__private::Rule4ReadOnly(&t)).len() { o[idx] += v * (*::scoped::__private::Rule4ReadOnly(&t)).len(); } }",
            // Shorthand struct fields.
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] = P { v, k }; } }",
        ] {
            let lowered = lowered(closure).unwrap_or_else(|| panic!("not interchanged: {closure}"));
            assert!(lowered.contains("distribute_items_interchanged"), "{lowered}");
        }
    }

    #[test]
    fn other_bodies_keep_the_plain_loop() {
        for closure in [
            // No loop, or a loop whose iterations depend on the item.
            "|idx| { o[idx] = 1; }",
            "|idx| { for k in 0..idx.global_linear_id() { o[idx] += k; } }",
            "|idx| { let l = x[idx]; for k in 0..l { o[idx] += k; } }",
            "|idx| { while k < n { o[idx] += k; } }",
            // Iterations that are not known to be the same or `Copy`.
            "|idx| { for k in 0..f(n) { o[idx] += k; } }",
            "|idx| { for t in tiles.into_iter() { o[idx] += t; } }",
            "|idx| { for t in tile.iter_mut() { *t += 1; } }",
            // A name of the range is written, borrowed or moved in the body.
            "|idx| { for k in 0..m[0] { o[idx] += k; } m[0] = 1; }",
            "|idx| { m[0] = 1; for k in 0..m[0] { o[idx] += k; } }",
            "|idx| { for k in 0..n { o[idx] += k; g(&mut n); } }",
            "|idx| { for t in tile.iter() { o[idx] += t; } tile.clear(); }",
            // Leaving the loop or the body early; labels; async.
            "|idx| { for k in 0..n { if k > 2 { break; } o[idx] += k; } }",
            "|idx| { for k in 0..n { if k > 2 { continue; } o[idx] += k; } }",
            "|idx| { for k in 0..n { if k > 2 { return; } o[idx] += k; } }",
            "|idx| { let v = f()?; for k in 0..n { o[idx] += v; } }",
            "|idx| { 'a: for k in 0..n { o[idx] += k; } }",
            "|idx| { for k in 0..n { 'b: loop { break 'b; } } }",
            "|idx| { for k in 0..n { o[idx] += m!(break); } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += v; } async {}; }",
            // Bindings before the loop that a lane cannot hold.
            "|idx| { let a = [1, 2]; let r = &a; for k in 0..n { o[idx] += r[k]; } }",
            "|idx| { let a = vec![1, 2]; let s = a.as_slice(); for k in 0..n { o[idx] += s[k]; } }",
            "|idx| { let r = &idx; for k in 0..n { o[*r] += k; } }",
            "|idx| { let ref r = x[idx]; for k in 0..n { o[idx] += r; } }",
            "|idx| { let v; v = 1; for k in 0..n { o[idx] += v; } }",
            "|idx| { let P { a } = x[idx]; for k in 0..n { o[idx] += a; } }",
            "|idx| { let Some(v) = x[idx] else { panic!() }; for k in 0..n { o[idx] += v; } }",
            "|idx| { let a = 1; let c = || a; for k in 0..n { o[idx] += c(); } }",
            "|idx| { fn h() {} for k in 0..n { h(); } }",
            // Lane bindings shadowed or hidden in the loop body.
            "|idx| { let v = x[idx]; for v in 0..n { o[idx] += v; } }",
            "|idx| { let v = x[idx]; for k in 0..n { let v = k; o[idx] += v; } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += m!(v); } }",
            "|idx| { let v = x[idx]; for k in 0..n { o[idx] += (|| v)(); } }",
            "|idx| { for idx in 0..n { o[idx] += 1; } }",
            // The closure's own form.
            "move |idx| { for k in 0..n { o[idx] += k; } }",
            "|idx| -> () { for k in 0..n { o[idx] += k; } }",
            "|(a, b)| { for k in 0..n { o[a] += k; } }",
            "|idx| for k in 0..n { o[idx] += k; }",
        ] {
            assert!(lowered(closure).is_none(), "interchanged: {closure}");
        }
    }
}
