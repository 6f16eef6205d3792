//! The order the runner's variants run in within a round.
//!
//! Rounds take the rows of a Williams design, a Latin square balanced for
//! what ran just before: over one cycle of rows (`n` rows for an even `n`,
//! `2n` for an odd one) every variant runs once in every place, and right
//! after every other variant equally often. A fixed order had the same
//! kernel measure up to 1% apart in the first and in the third place.

/// Rows in one balanced cycle for `n` variants.
pub(crate) fn cycle_len(n: usize) -> usize {
    match n % 2 {
        0 => n,
        _ => 2 * n,
    }
}

/// The order of `0..n` for `round`: row `round % cycle_len(n)` of the
/// Williams design. Row 0 is `0, 1, n-1, 2, n-2, ...`; row `r < n` adds
/// `r` to each entry (mod `n`); for odd `n`, rows `n..2n` are rows
/// `0..n` reversed.
pub(crate) fn balanced_order(n: usize, round: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let row = round % cycle_len(n);
    let first_row = (0..n).map(|i| {
        if i % 2 == 1 {
            i.div_ceil(2)
        } else {
            (n - i / 2) % n
        }
    });
    let mut order: Vec<usize> = first_row.map(|v| (v + row % n) % n).collect();
    if row >= n {
        order.reverse();
    }
    order
}
