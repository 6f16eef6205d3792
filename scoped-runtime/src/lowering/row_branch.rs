//! Which branch of a row-stored `if` a chunk's lanes take (the macros'
//! `lower/row_branch.rs`): `Some(true)` if every lane takes the first,
//! `Some(false)` if every lane takes the second, `None` if they differ.
//!
//! Two ways to find it. [`uniform_branch`] folds every lane's condition.
//! Where the condition compares the item's ids with values fixed for the
//! chunk, [`row_comparison`] decides each comparison from the chunk's
//! first and last lanes alone, and [`row_all`], [`row_any`] and
//! [`row_not`] combine them: a chunk's lanes are consecutive items of one
//! row, so each id either stays fixed across them or rises by one per
//! lane. A few scalar compares per chunk in place of a compare per lane,
//! which at the baseline level (SSE2 has no 64-bit compare) were scalar:
//! about 150 instructions a row of 16 in GPU-form Jacobi.

/// Which branch of a row-stored `if` every lane of a chunk takes, from
/// each lane's condition as 0 or 1: `Some(true)` if all take the first,
/// `Some(false)` if all take the second, `None` if they differ (or `W` is
/// 0). Integers, not `bool`s: folded as bits of a mask, the 16 conditions
/// were packed one lane at a time at v4 (see the macros'
/// `lower/row_branch.rs`).
#[inline(always)]
pub fn uniform_branch<const W: usize>(conditions: [u32; W]) -> Option<bool> {
    let (mut any, mut all) = (0, 1);
    for c in conditions {
        any |= c;
        all &= c;
    }
    match (W, any, all) {
        (0, _, _) => None,
        (_, _, 1) => Some(true),
        (_, 0, _) => Some(false),
        _ => None,
    }
}

/// A comparison operator of a row-branch condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowComparison {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl RowComparison {
    #[inline(always)]
    fn holds(self, left: usize, right: usize) -> bool {
        match self {
            Self::Eq => left == right,
            Self::Ne => left != right,
            Self::Lt => left < right,
            Self::Le => left <= right,
            Self::Gt => left > right,
            Self::Ge => left >= right,
        }
    }
}

/// The two sides of a comparison, `left op right`, at one lane, typed as
/// the comparison types them (`RowSides::new(&j, &0)` makes the `0` a
/// `usize`): `(&sides).__sides()` is `Some((left, right))` for two
/// `usize`s ([`UsizeSides`]) and `None` for any other types
/// ([`OtherSides`]), whose comparison may run code of the user's.
/// Borrowed, so that no side is moved.
pub struct RowSides<'a, L: ?Sized, R: ?Sized>(&'a L, &'a R);

impl<'a, L: ?Sized + PartialEq<R>, R: ?Sized> RowSides<'a, L, R> {
    /// The sides `left` and `right`.
    #[inline(always)]
    pub fn new(left: &'a L, right: &'a R) -> Self {
        Self(left, right)
    }
}

/// [`RowSides`] of two `usize`s.
pub trait UsizeSides {
    /// Always `Some`.
    fn __sides(&self) -> Option<(usize, usize)>;
}

impl UsizeSides for RowSides<'_, usize, usize> {
    #[inline(always)]
    fn __sides(&self) -> Option<(usize, usize)> {
        Some((*self.0, *self.1))
    }
}

/// [`RowSides`] of any other types.
pub trait OtherSides {
    /// Always `None`.
    fn __sides(&self) -> Option<(usize, usize)>;
}

impl<L: ?Sized, R: ?Sized> OtherSides for &RowSides<'_, L, R> {
    #[inline(always)]
    fn __sides(&self) -> Option<(usize, usize)> {
        None
    }
}

/// Whether `left op right` holds in every lane of a chunk of `W`
/// consecutive items of one row (`Some(true)`), in none (`Some(false)`)
/// or in some (`None`), from its two sides at the first lane (`first`)
/// and at the last (`last`). Each side is an id query of the item (fixed
/// along the row, or rising by one per lane without overflow, as the ids
/// of a row do) or a value fixed for the chunk; sides that move otherwise,
/// and sides not `usize` (`None`), give `None`, never a wrong answer.
#[inline(always)]
pub fn row_comparison<const W: usize>(
    op: RowComparison,
    first: Option<(usize, usize)>,
    last: Option<(usize, usize)>,
) -> Option<bool> {
    let (Some(first), Some(last)) = (first, last) else {
        return None;
    };
    if W == 0 {
        return None;
    }
    let at_first = op.holds(first.0, first.1);
    let (left_steps, right_steps) = (last.0.wrapping_sub(first.0), last.1.wrapping_sub(first.1));
    if left_steps == right_steps {
        // Both fixed, or both rising alike: their difference, and the
        // comparison, is the same in every lane.
        return (left_steps == 0 || left_steps == W - 1).then_some(at_first);
    }
    let (moving, fixed) = match (left_steps, right_steps) {
        (steps, 0) if steps == W - 1 => (first.0, first.1),
        (0, steps) if steps == W - 1 => (first.1, first.0),
        _ => return None,
    };
    match op {
        // Equal in the one lane (if any) where the moving side meets the
        // fixed one.
        RowComparison::Eq | RowComparison::Ne => {
            let meets = fixed.wrapping_sub(moving) < W;
            (!meets).then_some(op == RowComparison::Ne)
        }
        // Monotonic along the row: decided by its two ends.
        _ => (at_first == op.holds(last.0, last.1)).then_some(at_first),
    }
}

/// `a && b` lane by lane, for conditions each uniform or not (`None`).
#[inline(always)]
pub fn row_all(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a || b` lane by lane, for conditions each uniform or not (`None`).
#[inline(always)]
pub fn row_any(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    row_not(row_all(row_not(a), row_not(b)))
}

/// `!a` lane by lane.
#[inline(always)]
pub fn row_not(a: Option<bool>) -> Option<bool> {
    a.map(|a| !a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_is_uniform_when_every_lane_agrees() {
        assert_eq!(uniform_branch([1u32; 16]), Some(true));
        assert_eq!(uniform_branch([0u32; 16]), Some(false));
        let mut mixed = [0u32; 16];
        mixed[15] = 1;
        assert_eq!(uniform_branch(mixed), None);
        mixed = [1; 16];
        mixed[0] = 0;
        assert_eq!(uniform_branch(mixed), None);
        assert_eq!(uniform_branch::<0>([]), None);
    }

    const OPS: [RowComparison; 6] = [
        RowComparison::Eq,
        RowComparison::Ne,
        RowComparison::Lt,
        RowComparison::Le,
        RowComparison::Gt,
        RowComparison::Ge,
    ];

    /// The comparison over the lanes one by one, `left` and `right` giving
    /// each side in a lane.
    fn lane_by_lane<const W: usize>(
        op: RowComparison,
        left: impl Fn(usize) -> usize,
        right: impl Fn(usize) -> usize,
    ) -> [u32; W] {
        std::array::from_fn(|lane| u32::from(op.holds(left(lane), right(lane))))
    }

    fn ends<const W: usize>(side: impl Fn(usize) -> usize) -> (usize, usize) {
        (side(0), side(W - 1))
    }

    /// Every operator, with an id rising along the row on either side or
    /// both, against fixed values before, on, inside and after the row
    /// (near 0 and `usize::MAX` too): the answer from the two ends is
    /// the fold of every lane's, or `None` where the lanes differ.
    #[test]
    fn comparisons_from_the_ends_agree_with_every_lane() {
        const W: usize = 16;
        let starts = [0, 1, 5, 100, usize::MAX - 40];
        let offsets = [0usize, 1, 7, 14, 15, 16, 17, 30];
        for op in OPS {
            for &start in &starts {
                for fixed in offsets
                    .iter()
                    .flat_map(|&o| [start.wrapping_add(o), start.wrapping_sub(o)])
                    .chain([0, 1, usize::MAX])
                {
                    let id = |lane: usize| start + lane;
                    let value = |_: usize| fixed;
                    for (left, right) in [
                        (
                            &id as &dyn Fn(usize) -> usize,
                            &value as &dyn Fn(usize) -> usize,
                        ),
                        (&value, &id),
                        (&id, &id),
                        (&value, &value),
                    ] {
                        let (l, r) = (ends::<W>(left), ends::<W>(right));
                        let got = row_comparison::<W>(op, Some((l.0, r.0)), Some((l.1, r.1)));
                        let lanes = lane_by_lane::<W>(op, left, right);
                        match got {
                            Some(_) => {
                                assert_eq!(got, uniform_branch(lanes), "{op:?} {start} {fixed}")
                            }
                            // `None` only where the lanes differ.
                            None => {
                                assert_eq!(uniform_branch(lanes), None, "{op:?} {start} {fixed}")
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_boundary_test_is_mixed_only_in_the_rows_it_cuts() {
        const W: usize = 16;
        // `j == 0 || j == n - 1` on rows of 16 from j0, n = 64.
        let n = 64;
        let row = |j0: usize| {
            let j = |lane: usize| j0 + lane;
            row_any(
                row_comparison::<W>(RowComparison::Eq, Some((j(0), 0)), Some((j(W - 1), 0))),
                row_comparison::<W>(
                    RowComparison::Eq,
                    Some((j(0), n - 1)),
                    Some((j(W - 1), n - 1)),
                ),
            )
        };
        assert_eq!(row(0), None);
        assert_eq!(row(16), Some(false));
        assert_eq!(row(32), Some(false));
        assert_eq!(row(48), None);
    }

    #[test]
    fn sides_that_move_otherwise_are_never_decided() {
        // Two lanes apart at the ends of a row of 16: not an id of the row.
        let lt = RowComparison::Lt;
        assert_eq!(
            row_comparison::<16>(lt, Some((0, 100)), Some((2, 100))),
            None
        );
        let eq = RowComparison::Eq;
        assert_eq!(row_comparison::<16>(eq, Some((0, 7)), Some((30, 40))), None);
        assert_eq!(row_comparison::<0>(eq, Some((0, 0)), Some((0, 0))), None);
        // Sides of other types: never decided.
        assert_eq!(row_comparison::<16>(eq, None, Some((0, 100))), None);
        assert_eq!(row_comparison::<16>(eq, Some((0, 100)), None), None);
    }

    // Borrowed as the lowering borrows them, for either trait to apply.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn sides_are_usize_only_where_the_comparison_makes_them_so() {
        let j = 5usize;
        // The literal is typed by the comparison, as in `j == 0`.
        assert_eq!((&RowSides::new(&j, &0)).__sides(), Some((5, 0)));
        assert_eq!((&RowSides::new(&3u32, &4)).__sides(), None);
        assert_eq!((&RowSides::new(&j, &Wrapped(0))).__sides(), None);
    }

    /// A user's type, comparable with `usize`.
    struct Wrapped(usize);

    impl PartialEq<Wrapped> for usize {
        fn eq(&self, other: &Wrapped) -> bool {
            *self == other.0
        }
    }

    #[test]
    fn three_valued_logic_is_lane_by_lane_logic() {
        let values = [Some(true), Some(false), None];
        for a in values {
            assert_eq!(row_not(a), a.map(|a| !a));
            for b in values {
                let all = row_all(a, b);
                let any = row_any(a, b);
                // Known answers only where the lanes' answers are fixed.
                match (a, b) {
                    (Some(x), Some(y)) => {
                        assert_eq!(all, Some(x && y));
                        assert_eq!(any, Some(x || y));
                    }
                    (Some(false), None) | (None, Some(false)) => {
                        assert_eq!(all, Some(false));
                        assert_eq!(any, None);
                    }
                    (Some(true), None) | (None, Some(true)) => {
                        assert_eq!(all, None);
                        assert_eq!(any, Some(true));
                    }
                    (None, None) => {
                        assert_eq!(all, None);
                        assert_eq!(any, None);
                    }
                }
            }
        }
    }
}
