//! The index checks of an interchanged loop (`interchange/`), made
//! ahead of each iteration for all `W` lanes at once.
//!
//! Inside an interchanged loop every lane reads `x[k * S + lane]`, and
//! each read checks its index: a branch per lane, which kept the lanes
//! scalar (layer norm's row sums: 16 `vaddss` and 16 compares per step).
//! Each iteration now first folds the same comparisons over its lanes
//! without a branch, then runs the lanes in one of two identical copies;
//! in the first the optimiser knows every comparison to hold, drops the
//! checks and vectorises. The fold only steers the optimiser: the lanes
//! run the same code, in the same order, whatever it finds, so a fold that
//! reads a stale value or misses a read changes nothing but speed. It is
//! written so that it cannot panic (wrapping arithmetic) and compiles
//! wherever the loop does.
//!
//! The reads checked, exactly: `name[index]` anywhere in the loop body
//! outside closures and items, `name` a shared slice (a `&[T]` parameter
//! or a local bound as `let x = &a[r..]...` of one, see `walk.rs`) or a
//! `ChunkWindow` parameter, not bound again in the item body; `index`
//! made of `+`, `-`, `*`, parentheses, integer literals, casts `as usize`
//! of names, item queries and names: names bound by the prefix's query
//! `let`s, by the loop's pattern, by a top-level `let NAME = index;` of the
//! loop body (bound once in the item body, not `mut`), or outside the item
//! body. A slice's index must be an integer expression by its syntax (an
//! operator, a literal, a cast, a query), as a lone name may be a range.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::visit::Visit;
use syn::{BinOp, Block, Expr, Ident, Lit, Pat, Stmt, Type};

use super::item_syntax::{peel, query};

/// How a name's index reads are bounded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    /// A shared slice: `index < len`.
    Slice,
    /// A `ChunkWindow`: `index - start < len`.
    ChunkWindow,
}

/// A name in scope whose index reads an interchanged loop may check
/// ahead.
#[derive(Clone, Debug)]
pub(crate) struct Indexed {
    name: Ident,
    bound: Bound,
}

impl Indexed {
    /// A shared slice.
    pub(crate) fn slice(name: &Ident) -> Self {
        Indexed {
            name: name.clone(),
            bound: Bound::Slice,
        }
    }

    /// A `ChunkWindow`.
    pub(crate) fn chunk_window(name: &Ident) -> Self {
        Indexed {
            name: name.clone(),
            bound: Bound::ChunkWindow,
        }
    }
}

/// The name of a `ChunkWindow<..>` parameter (`mut` or not).
pub(crate) fn window_param(param: &syn::PatType) -> Option<Ident> {
    let Pat::Ident(p) = &*param.pat else {
        return None;
    };
    let Type::Path(path) = &*param.ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    (p.by_ref.is_none()
        && p.subpat.is_none()
        && path.qself.is_none()
        && last.ident == "ChunkWindow")
        .then(|| p.ident.clone())
}

/// What a lane runs to check its reads: the loop body's `let`s the
/// checks use (in wrapping arithmetic), and the checks; and the reads a
/// step may take through windows (`lane_window.rs`), if any.
pub(super) struct LaneChecks {
    pub(super) lets: Vec<TokenStream>,
    pub(super) checks: Vec<TokenStream>,
    pub(super) windows: Option<LaneWindows>,
}

/// The reads of a loop body that a step takes through windows: each
/// one's index (in wrapping arithmetic, as the checks compute it), the
/// name it indexes with whether that is a `ChunkWindow` (a `&mut` window),
/// and its place among the body's reads of indexed names (in the order
/// `syn`'s visitors meet them).
pub(super) struct LaneWindows {
    pub(super) indices: Vec<TokenStream>,
    pub(super) targets: Vec<(Ident, bool)>,
    pub(super) reads: Vec<usize>,
    /// Every name the indexed reads may read, to find them again.
    pub(super) indexed: Vec<Ident>,
    /// Whether every index is affine in the loop's value
    /// (`WindowCandidate::affine`).
    pub(super) affine: bool,
}

/// The checks of the reads in `body`, the body of an interchanged loop;
/// `item` is the item's name, `queries` the names the prefix binds to item
/// queries, `pattern` the names the loop's pattern binds, `bound` every
/// name bound in the item body (with repeats). `None` if nothing is
/// checked.
pub(super) fn lane_checks(
    body: &Block,
    indexed: &[Indexed],
    item: &Ident,
    queries: &[Ident],
    pat: &Pat,
    bound: &[Ident],
) -> Option<LaneChecks> {
    let mut pattern = Vec::new();
    crate::check::pat_names(pat, &mut pattern);
    let pattern = &pattern[..];
    let fixed_pattern = !binds_mutably(pat);
    let indexed: Vec<&Indexed> = indexed
        .iter()
        .filter(|i| !bound.contains(&i.name) && i.name != *item)
        .collect();
    if indexed.is_empty() {
        return None;
    }
    // The loop body's top-level `let NAME = index;`, bound once.
    let mut lets: Vec<(Ident, &Expr, usize)> = Vec::new();
    for (at, stmt) in body.stmts.iter().enumerate() {
        let Stmt::Local(local) = stmt else { continue };
        let (Pat::Ident(p), Some(init)) = (&local.pat, &local.init) else {
            continue;
        };
        let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
        if plain
            && init.diverge.is_none()
            && local.attrs.is_empty()
            && bound.iter().filter(|b| **b == p.ident).count() == 1
        {
            lets.push((p.ident.clone(), &init.expr, at));
        }
    }
    let mut reads = Reads {
        item,
        indexed,
        queries,
        pattern,
        bound,
        lets: &lets,
        used_lets: Vec::new(),
        checks: Vec::new(),
        fixed_pattern,
        at: 0,
        seen: 0,
        windowed: Vec::new(),
    };
    for (at, stmt) in body.stmts.iter().enumerate() {
        reads.at = at;
        reads.visit_stmt(stmt);
    }
    if reads.checks.is_empty() {
        return None;
    }
    // The `let`s in the body's order, each in wrapping arithmetic.
    let mut out = Vec::new();
    for (name, init, _) in &lets {
        if reads.used_lets.contains(name) {
            let Term { tokens, .. } = reads.term(init, 0)?;
            let name = Ident::new(&format!("__scoped_check_{name}"), Span::mixed_site());
            out.push(quote!(let #name: usize = #tokens;));
        }
    }
    let names: Vec<Ident> = reads.indexed.iter().map(|i| i.name.clone()).collect();
    let windows = super::lane_window::windows(body, item, &names, reads.windowed);
    Some(LaneChecks {
        lets: out,
        checks: reads.checks,
        windows,
    })
}

/// Whether `pat` binds a name `mut` or by reference.
fn binds_mutably(pat: &Pat) -> bool {
    struct Mutable(bool);
    impl<'ast> Visit<'ast> for Mutable {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= p.mutability.is_some() || p.by_ref.is_some();
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut mutable = Mutable(false);
    mutable.visit_pat(pat);
    mutable.0
}

/// A read a step might take through a window: its place among the reads
/// of indexed names, its index, its target and the names the index reads
/// (`outer` those bound outside the item body).
pub(super) struct WindowCandidate {
    pub(super) read: usize,
    pub(super) index: TokenStream,
    pub(super) target: Ident,
    pub(super) written: bool,
    pub(super) names: Vec<Ident>,
    pub(super) outer: Vec<Ident>,
    /// Whether the index is the loop's value times a factor plus a term,
    /// neither depending on the loop's value and the factor not on the
    /// lane: its starts then step by one distance per iteration of a range.
    pub(super) affine: bool,
}

/// An index term: its tokens (a `usize`), and whether its syntax makes
/// it an integer (an operator, a literal, a cast, a query). For windows:
/// whether it depends on the item (`lane`), whether each name it reads
/// holds one value for the whole step at the read (`fixed`: bound once,
/// not `mut`, a `let` before the read), and the names it reads. For
/// windows checked once per loop: its degree in the loop pattern's names
/// (2 for any higher or unknown), and whether a factor of those names
/// depends on the item (`lane_factor`).
struct Term {
    tokens: TokenStream,
    integer: bool,
    lane: bool,
    fixed: bool,
    names: Vec<Ident>,
    outer: Vec<Ident>,
    degree: u8,
    lane_factor: bool,
}

impl Term {
    /// A term reading no name.
    fn plain(tokens: TokenStream, integer: bool) -> Self {
        Term {
            tokens,
            integer,
            lane: false,
            fixed: true,
            names: Vec::new(),
            outer: Vec::new(),
            degree: 0,
            lane_factor: false,
        }
    }
}

struct Reads<'a> {
    item: &'a Ident,
    indexed: Vec<&'a Indexed>,
    queries: &'a [Ident],
    pattern: &'a [Ident],
    bound: &'a [Ident],
    lets: &'a [(Ident, &'a Expr, usize)],
    /// The `lets` the checks read.
    used_lets: Vec<Ident>,
    checks: Vec<TokenStream>,
    /// Whether the loop's pattern binds nothing `mut` or by reference.
    fixed_pattern: bool,
    /// The top-level statement of the loop body being visited.
    at: usize,
    /// Reads of indexed names met so far.
    seen: usize,
    windowed: Vec<WindowCandidate>,
}

impl Reads<'_> {
    /// `index` as a `usize` in wrapping arithmetic, or `None` if it is
    /// not of the shape above; `depth` bounds the `let`s followed.
    fn term(&mut self, index: &Expr, depth: usize) -> Option<Term> {
        let mixed = Span::mixed_site();
        if depth > 8 {
            return None;
        }
        match index {
            Expr::Paren(p) => self.term(&p.expr, depth),
            Expr::Group(g) => self.term(&g.expr, depth),
            Expr::Lit(lit) if matches!(lit.lit, Lit::Int(_)) && lit.attrs.is_empty() => {
                Some(Term::plain(quote!((#lit as usize)), true))
            }
            Expr::Cast(cast)
                if cast.attrs.is_empty()
                    && matches!(&*cast.ty, Type::Path(t) if t.qself.is_none() && t.path.is_ident("usize")) =>
            {
                // A cast never panics; the name's own type is the user's.
                // Windows take only names from outside the item body here.
                let name = self.name(peel(&cast.expr))?;
                let outer = !self.bound.contains(&name) && name != *self.item;
                Some(Term {
                    tokens: quote_spanned!(mixed=> (#name as usize)),
                    integer: true,
                    lane: false,
                    fixed: outer,
                    outer: vec![name.clone()],
                    names: vec![name],
                    degree: if outer { 0 } else { 2 },
                    lane_factor: false,
                })
            }
            Expr::Path(_) => {
                let name = self.name(index)?;
                if let Some((_, init, at)) = self.lets.iter().find(|(n, _, _)| *n == name) {
                    let (init, at) = (*init, *at);
                    let before = at < self.at;
                    // Names in the `let` are read where it stands.
                    let reading = std::mem::replace(&mut self.at, at);
                    let inner = self.term(init, depth + 1);
                    self.at = reading;
                    let mut inner = inner?;
                    if !self.used_lets.contains(&name) {
                        self.used_lets.push(name.clone());
                    }
                    let local = Ident::new(&format!("__scoped_check_{name}"), Span::mixed_site());
                    inner.tokens = quote!(#local);
                    // A read before the `let` reads a name from outside.
                    inner.fixed &= before;
                    inner.names.push(name);
                    return Some(inner);
                }
                let (query, pattern) = (self.queries.contains(&name), self.pattern.contains(&name));
                let outer = !self.bound.contains(&name) && name != *self.item;
                let once = self.bound.iter().filter(|b| **b == name).count() == 1;
                let known = query || pattern || outer;
                known.then(|| Term {
                    tokens: quote_spanned!(mixed=> ::scoped::__private::index_term(#name)),
                    integer: query,
                    lane: query,
                    fixed: outer || once && (query || self.fixed_pattern),
                    outer: if outer {
                        vec![name.clone()]
                    } else {
                        Vec::new()
                    },
                    names: vec![name],
                    degree: u8::from(pattern && !query && !outer),
                    lane_factor: false,
                })
            }
            Expr::Binary(b) if b.attrs.is_empty() => {
                let op = super::item_syntax::wrapping_method(&b.op)?;
                let left = self.term(&b.left, depth)?;
                let right = self.term(&b.right, depth)?;
                let (l, r) = (&left.tokens, &right.tokens);
                let product = matches!(b.op, BinOp::Mul(_));
                let (degree, lane_factor) = if product {
                    (
                        (left.degree + right.degree).min(2),
                        left.lane_factor
                            || right.lane_factor
                            || left.degree > 0 && right.lane
                            || right.degree > 0 && left.lane,
                    )
                } else {
                    (
                        left.degree.max(right.degree),
                        left.lane_factor || right.lane_factor,
                    )
                };
                Some(Term {
                    tokens: quote_spanned!(mixed=> ::core::primitive::usize::#op(#l, #r)),
                    integer: true,
                    lane: left.lane || right.lane,
                    fixed: left.fixed && right.fixed,
                    names: [left.names, right.names].concat(),
                    outer: [left.outer, right.outer].concat(),
                    degree,
                    lane_factor,
                })
            }
            e => {
                query(e, self.item)?;
                Some(Term {
                    tokens: quote_spanned!(mixed=> ::scoped::__private::index_term(#e)),
                    integer: true,
                    lane: true,
                    fixed: true,
                    names: vec![self.item.clone()],
                    outer: Vec::new(),
                    degree: 0,
                    lane_factor: false,
                })
            }
        }
    }

    /// The plain name `expr` is, if it is one.
    fn name(&self, expr: &Expr) -> Option<Ident> {
        match expr {
            Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                path.path.get_ident().cloned()
            }
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_expr_index(&mut self, read: &'ast syn::ExprIndex) {
        let target = match peel(&read.expr) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
            _ => None,
        };
        let indexed = target.and_then(|t| self.indexed.iter().find(|i| i.name == *t).copied());
        if let Some(indexed) = indexed {
            let used = self.used_lets.len();
            let read_number = self.seen;
            self.seen += 1;
            match self.term(&read.index, 0) {
                Some(term) if term.integer || indexed.bound == Bound::ChunkWindow => {
                    let (name, index) = (&indexed.name, &term.tokens);
                    self.checks.push(match indexed.bound {
                        Bound::Slice => quote!(#index < <[_]>::len(#name)),
                        Bound::ChunkWindow => quote!(#name.__index_fits(#index)),
                    });
                    if term.lane && term.fixed {
                        self.windowed.push(WindowCandidate {
                            read: read_number,
                            index: term.tokens,
                            target: name.clone(),
                            written: indexed.bound == Bound::ChunkWindow,
                            names: term.names,
                            outer: term.outer,
                            affine: term.degree <= 1 && !term.lane_factor,
                        });
                    }
                }
                _ => self.used_lets.truncate(used),
            }
        }
        syn::visit::visit_expr_index(self, read);
    }

    // Reads inside closures may run any number of times, with names the
    // closure binds; items are not statements of the body.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
