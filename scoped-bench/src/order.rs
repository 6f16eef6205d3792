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

// Every round runs each variant once, and over a cycle of rounds every
// variant takes every place and follows every other variant equally
// often, counted here serially.
#[cfg(test)]
mod tests {
    use super::{balanced_order, cycle_len};

    #[test]
    fn every_order_is_a_permutation() {
        for n in 0..9 {
            for round in 0..3 * cycle_len(n.max(1)) {
                let mut order = balanced_order(n, round);
                order.sort_unstable();
                assert_eq!(order, (0..n).collect::<Vec<_>>(), "n = {n}, round {round}");
            }
        }
    }

    #[test]
    fn the_first_row_is_williams_s() {
        assert_eq!(balanced_order(4, 0), [0, 1, 3, 2]);
        assert_eq!(balanced_order(5, 0), [0, 1, 4, 2, 3]);
        assert_eq!(balanced_order(5, 1), [1, 2, 0, 3, 4]);
        assert_eq!(balanced_order(5, 5), [3, 2, 4, 1, 0]);
    }

    #[test]
    fn a_cycle_balances_places_and_predecessors() {
        for n in 2..9 {
            let rows = cycle_len(n);
            let mut places = vec![vec![0usize; n]; n];
            let mut follows = vec![vec![0usize; n]; n];
            for round in 0..rows {
                let order = balanced_order(n, round);
                for (place, &v) in order.iter().enumerate() {
                    places[v][place] += 1;
                }
                for pair in order.windows(2) {
                    follows[pair[1]][pair[0]] += 1;
                }
            }
            let per_place = rows / n;
            let per_pair = rows / n;
            for v in 0..n {
                assert!(
                    places[v].iter().all(|&c| c == per_place),
                    "n = {n}: places of {v}: {:?}",
                    places[v]
                );
                for other in (0..n).filter(|&o| o != v) {
                    assert_eq!(follows[v][other], per_pair, "n = {n}: {v} after {other}");
                }
            }
        }
    }
}
