//! The comparison runner's variant order (`benches/compare/order.rs`):
//! every round runs each variant once, and the orders vary, so that no
//! variant always runs after the same one.

#[path = "../benches/compare/order.rs"]
mod order;

use order::shuffled;

#[test]
fn every_order_is_a_permutation() {
    for n in 0..8 {
        for seed in 0..50 {
            let mut order = shuffled(n, seed);
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>(), "n = {n}, seed = {seed}");
        }
    }
}

#[test]
fn orders_are_fixed_by_the_seed() {
    assert_eq!(shuffled(5, 7), shuffled(5, 7));
}

/// Over many seeds, every variant follows every other one, and each
/// takes every place: a serial count of the predecessor pairs.
#[test]
fn every_variant_follows_every_other() {
    let n = 5;
    let mut follows = vec![vec![0usize; n]; n];
    let mut places = vec![vec![0usize; n]; n];
    for seed in 0..200 {
        let order = shuffled(n, seed);
        for (place, &v) in order.iter().enumerate() {
            places[v][place] += 1;
        }
        for pair in order.windows(2) {
            follows[pair[1]][pair[0]] += 1;
        }
    }
    for v in 0..n {
        for other in (0..n).filter(|&o| o != v) {
            assert!(follows[v][other] > 0, "{v} never ran after {other}");
        }
        for (place, &count) in places[v].iter().enumerate() {
            // 200 orders over 5 places: 40 each on average.
            assert!(
                (15..=70).contains(&count),
                "{v} in place {place}: {count} times"
            );
        }
    }
}
