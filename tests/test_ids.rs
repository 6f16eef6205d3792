//! `Id<D>` and `Range<D>` (SYCL `id` / `range`): every query against plain
//! formulas and an independent row-major enumeration (an odometer whose
//! counter is the linear id).

use proptest::prelude::*;
use scoped::prelude::*;

/// Every id of `range` in row-major order, by an odometer that increments
/// the last dimension and carries into earlier ones: the position of an id
/// in the result is its linear id, independently of any formula.
fn odometer<const D: usize>(range: [usize; D]) -> Vec<[usize; D]> {
    let mut ids = Vec::new();
    if range.contains(&0) {
        return ids;
    }
    let mut id = [0usize; D];
    'outer: loop {
        ids.push(id);
        let mut d = D;
        while d > 0 {
            d -= 1;
            id[d] += 1;
            if id[d] < range[d] {
                continue 'outer;
            }
            id[d] = 0;
        }
        break;
    }
    ids
}

#[test]
fn odometer_is_row_major() {
    // The reference itself, against nested loops written out by hand.
    let mut expected = Vec::new();
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..2 {
                expected.push([i, j, k]);
            }
        }
    }
    assert_eq!(odometer([2, 3, 2]), expected);
    assert_eq!(odometer([4]), vec![[0], [1], [2], [3]]);
    assert!(odometer([3, 0]).is_empty());
}

fn check_round_trip<const D: usize>(components: [usize; D]) {
    let range = Range::new(components);
    let ids = odometer(components);
    assert_eq!(range.size(), ids.len(), "size of {range}");
    assert_eq!(
        range.checked_size(),
        Some(ids.len()),
        "checked_size of {range}"
    );
    for (linear, id) in ids.iter().enumerate() {
        let id = Id::new(*id);
        assert!(range.contains(id), "{range} contains {id}");
        assert_eq!(range.linearize(id), linear, "linearize {id} in {range}");
        assert_eq!(
            range.delinearize(linear),
            id,
            "delinearize {linear} in {range}"
        );
        assert_eq!(range.linearize(range.delinearize(linear)), linear);
    }
}

#[test]
fn linearize_delinearize_round_trip_1d() {
    for n in [1, 7, 47, 100] {
        check_round_trip([n]);
    }
}

#[test]
fn linearize_delinearize_round_trip_2d() {
    for r in [[1, 1], [7, 5], [5, 7], [1, 47], [13, 1], [10, 10]] {
        check_round_trip(r);
    }
}

#[test]
fn linearize_delinearize_round_trip_3d() {
    for r in [[7, 5, 3], [3, 5, 7], [1, 1, 47], [21, 10, 6], [2, 1, 9]] {
        check_round_trip(r);
    }
}

#[test]
fn linearize_matches_sycl_formula_3d() {
    // SYCL 2020, 3.11.1: (i0 * r1 + i1) * r2 + i2.
    let (r0, r1, r2) = (7, 5, 3);
    let range = Range::new([r0, r1, r2]);
    for i0 in 0..r0 {
        for i1 in 0..r1 {
            for i2 in 0..r2 {
                let linear = (i0 * r1 + i1) * r2 + i2;
                assert_eq!(range.linearize(Id::new([i0, i1, i2])), linear);
                assert_eq!(
                    range.delinearize(linear),
                    Id::new([linear / (r1 * r2), (linear / r2) % r1, linear % r2])
                );
            }
        }
    }
}

#[test]
fn size_and_checked_size() {
    assert_eq!(Range::new([7, 5, 3]).size(), 105);
    assert_eq!(Range::new([100]).size(), 100);
    assert_eq!(Range::new([47, 2]).size(), 94);
    assert_eq!(Range::new([3, 0, 4]).size(), 0);
    assert_eq!(Range::new([3, 0, 4]).checked_size(), Some(0));
    assert_eq!(Range::new([usize::MAX]).checked_size(), Some(usize::MAX));
    assert_eq!(Range::new([usize::MAX, 2]).checked_size(), None);
    assert_eq!(Range::new([1 << 22, 1 << 22, 1 << 22]).checked_size(), None);
    let half = usize::MAX / 2;
    assert_eq!(Range::new([half, 2]).checked_size(), Some(half * 2));
    assert_eq!(Range::new([half + 1, 2]).checked_size(), None);
}

#[test]
fn display_and_debug() {
    assert_eq!(Id::new([5]).to_string(), "5");
    assert_eq!(Range::new([100]).to_string(), "100");
    assert_eq!(Id::new([1, 2]).to_string(), "[1, 2]");
    assert_eq!(Range::new([7, 5, 3]).to_string(), "[7, 5, 3]");
    assert_eq!(Id::new([0, 4, 2]).to_string(), "[0, 4, 2]");
    assert_eq!(format!("{:?}", Id::new([1, 2])), "Id[1, 2]");
    assert_eq!(format!("{:?}", Range::new([3])), "Range[3]");
}

#[test]
fn components_conversions_and_arithmetic() {
    let mut id = Id::new([1, 2, 3]);
    assert_eq!(Id::<3>::DIMENSIONS, 3);
    assert_eq!(Range::<2>::DIMENSIONS, 2);
    assert_eq!((id[0], id[1], id[2]), (1, 2, 3));
    assert_eq!((id.get(0), id.get(1), id.get(2)), (1, 2, 3));
    id[1] = 9;
    assert_eq!(id.to_array(), [1, 9, 3]);
    assert_eq!(<[usize; 3]>::from(id), [1, 9, 3]);
    assert_eq!(Id::from([4, 5]), Id::new([4, 5]));
    assert_eq!(Id::from(6), Id::new([6]));
    assert_eq!(Id::from((1, 2)), Id::new([1, 2]));
    assert_eq!(Range::from((7, 5, 3)), Range::new([7, 5, 3]));
    assert_eq!(Id::<3>::default(), Id::zero());
    assert_eq!(Id::<2>::zero().to_array(), [0, 0]);
    assert_eq!(Range::<3>::default().to_array(), [0, 0, 0]);
    assert_eq!(Range::<3>::splat(4).to_array(), [4, 4, 4]);
    assert_eq!(
        Id::new([1, 2, 3]) + Id::new([10, 20, 30]),
        Id::new([11, 22, 33])
    );
    assert_eq!(
        Id::new([11, 22, 33]) - Id::new([10, 20, 30]),
        Id::new([1, 2, 3])
    );
}

#[test]
fn contains_checks_every_dimension() {
    let range = Range::new([7, 5, 3]);
    assert!(range.contains(Id::new([6, 4, 2])));
    assert!(!range.contains(Id::new([7, 0, 0])));
    assert!(!range.contains(Id::new([0, 5, 0])));
    assert!(!range.contains(Id::new([0, 0, 3])));
    assert!(!Range::new([0]).contains(Id::new([0])));
}

#[test]
#[should_panic(expected = "get: dimension 2 is out of range for Id[1, 2], which has 2 dimensions")]
fn get_out_of_range_dimension_panics() {
    let _ = Id::new([1, 2]).get(2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_random_3d(r0 in 1usize..40, r1 in 1usize..40, r2 in 1usize..40, seed in any::<usize>()) {
        let range = Range::new([r0, r1, r2]);
        let linear = seed % range.size();
        let id = range.delinearize(linear);
        prop_assert!(range.contains(id));
        prop_assert_eq!(id.to_array(), [linear / (r1 * r2), (linear / r2) % r1, linear % r2]);
        prop_assert_eq!(range.linearize(id), linear);
    }

    #[test]
    fn round_trip_random_2d(r0 in 1usize..1000, r1 in 1usize..1000, i0 in any::<usize>(), i1 in any::<usize>()) {
        let range = Range::new([r0, r1]);
        let id = Id::new([i0 % r0, i1 % r1]);
        let linear = range.linearize(id);
        prop_assert_eq!(linear, id[0] * r1 + id[1]);
        prop_assert!(linear < range.size());
        prop_assert_eq!(range.delinearize(linear), id);
    }
}
