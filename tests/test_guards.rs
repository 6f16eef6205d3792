//! `distribute_items!` whose body is a guard on a local id,
//! `if lid < bound { ... }`: the lowering loops only over the items below
//! the bound. Every case here checks that the body still runs for exactly
//! the items whose guard holds, in increasing linear id, against a serial
//! filter of all items: in one and two dimensions, on work groups,
//! sub-groups (full and partial) and scalar groups, for bounds of 0, inside
//! and beyond the group, with a bound that changes between passes, and
//! with a bound of a type other than `usize` (which keeps the full loop).

use std::sync::Mutex;

use scoped::prelude::*;

/// The global ids each work group's body ran for, in the order it ran
/// them, by group linear id.
struct Runs<const D: usize>(Mutex<Vec<Vec<[usize; D]>>>);

impl<const D: usize> Runs<D> {
    fn new(groups: usize) -> Self {
        Self(Mutex::new(vec![Vec::new(); groups]))
    }

    fn hit(&self, group: usize, idx: &SItem<D>) {
        self.0.lock().unwrap()[group].push(idx.global_id().to_array());
    }

    fn into_inner(self) -> Vec<Vec<[usize; D]>> {
        self.0.into_inner().unwrap()
    }
}

/// Row-major ids of `range`, offset by `first`.
fn ids<const D: usize>(first: [usize; D], range: [usize; D]) -> Vec<[usize; D]> {
    let size: usize = range.iter().product();
    (0..size)
        .map(|mut linear| {
            let mut id = [0; D];
            for d in (0..D).rev() {
                id[d] = first[d] + linear % range[d];
                linear /= range[d];
            }
            id
        })
        .collect()
}

/// For every work group of a launch of `num_groups` groups of
/// `group_size`, its items (by global id) whose local id satisfies `keep`,
/// in increasing linear id.
fn expected<const D: usize>(
    num_groups: [usize; D],
    group_size: [usize; D],
    keep: impl Fn([usize; D]) -> bool,
) -> Vec<Vec<[usize; D]>> {
    ids([0; D], num_groups)
        .into_iter()
        .map(|g| {
            let first: [usize; D] = std::array::from_fn(|d| g[d] * group_size[d]);
            ids([0; D], group_size)
                .into_iter()
                .filter(|&local| keep(local))
                .map(|local| std::array::from_fn(|d| first[d] + local[d]))
                .collect()
        })
        .collect()
}

fn run<const D: usize, const S: usize>(
    num_groups: [usize; D],
    group_size: [usize; D],
    kernel: impl Fn(WorkGroup<D, S>, &Runs<D>) + Sync,
) -> Vec<Vec<[usize; D]>> {
    let runs = Runs::new(num_groups.iter().product());
    Queue::with_threads(2)
        .unwrap()
        .parallel(num_groups, group_size, |g| kernel(g, &runs))
        .unwrap();
    runs.into_inner()
}

#[kernel]
fn below_1d(group: WorkGroup<1>, bound: usize, runs: &Runs<1>) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let lid = idx.innermost_local_id_dim(0);
        if lid < bound {
            runs.hit(g, &idx);
        }
    });
}

#[test]
fn one_dimension_below_zero_inside_at_and_beyond_the_group() {
    for bound in [0, 1, 5, 16, 40] {
        let got = run([3], [16], |g, r| below_1d(g, bound, r));
        assert_eq!(got, expected([3], [16], |l| l[0] < bound), "bound {bound}");
    }
}

#[kernel]
fn guards_2d(group: WorkGroup<2>, case: usize, runs: &Runs<2>) {
    let g = group.group_linear_id();
    let columns = 4;
    match case {
        0 => distribute_items_and_wait!(group, |idx| {
            let (r, c) = (idx.innermost_local_id_dim(0), idx.innermost_local_id_dim(1));
            if c < columns {
                assert!(r < 5);
                runs.hit(g, &idx);
            }
        }),
        1 => distribute_items!(group, |idx| {
            let r = idx.local_id_dim(&group, 0);
            if 2 > r {
                runs.hit(g, &idx);
            }
        }),
        2 => distribute_items!(group, |idx| {
            if idx.innermost_local_linear_id() < 10 {
                runs.hit(g, &idx);
            }
        }),
        _ => distribute_items!(group, |idx| {
            let (r, c) = (idx.innermost_local_id_dim(0), idx.local_id_dim(&group, 1));
            if c < columns - 1 && (r + c) % 2 == 0 {
                runs.hit(g, &idx);
            }
        }),
    }
}

#[test]
fn two_dimensions_columns_rows_linear_and_conjunctions() {
    let keep: [&dyn Fn([usize; 2]) -> bool; 4] = [
        &|l| l[1] < 4,
        &|l| l[0] < 2,
        &|l| l[0] * 6 + l[1] < 10,
        &|l| l[1] < 3 && (l[0] + l[1]) % 2 == 0,
    ];
    for (case, keep) in keep.iter().enumerate() {
        let got = run([2, 3], [5, 6], |g, r| guards_2d(g, case, r));
        assert_eq!(got, expected([2, 3], [5, 6], keep), "case {case}");
    }
}

#[kernel]
fn sub_group_lanes_1d(group: WorkGroup<1, 8>, bound: usize, runs: &Runs<1>) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let lane = idx.innermost_local_id_dim(0);
            if lane < bound {
                runs.hit(g, &idx);
            }
        });
    });
}

#[kernel]
fn sub_group_lanes_2d(group: WorkGroup<2, 8>, bound: usize, runs: &Runs<2>) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            let lane = idx.innermost_local_id_dim(1);
            if lane < bound {
                runs.hit(g, &idx);
            }
        });
    });
}

#[kernel]
fn sub_group_rows(group: WorkGroup<2, 8>, bound: usize, runs: &Runs<2>) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            if idx.innermost_local_id_dim(0) < bound {
                runs.hit(g, &idx);
            }
        });
    });
}

#[test]
fn sub_groups_full_partial_and_across_rows() {
    // 20 items: sub-groups of 8, 8 and 4 lanes.
    for bound in [0, 3, 5, 8, 9] {
        let got = run([2], [20], |g, r| sub_group_lanes_1d(g, bound, r));
        assert_eq!(
            got,
            expected([2], [20], |l| l[0] % 8 < bound),
            "bound {bound}"
        );
        let got = run([2, 1], [2, 12], |g, r| sub_group_lanes_2d(g, bound, r));
        let keep = |l: [usize; 2]| l[1] % 8 < bound;
        assert_eq!(got, expected([2, 1], [2, 12], keep), "2-D, bound {bound}");
    }
    // In a sub-group every lane's row id is 0.
    for bound in [0, 1, 2] {
        let got = run([1, 2], [3, 12], |g, r| sub_group_rows(g, bound, r));
        assert_eq!(
            got,
            expected([1, 2], [3, 12], |_| bound > 0),
            "rows, bound {bound}"
        );
    }
}

#[kernel]
fn scalar_groups(group: WorkGroup<1, 4>, bound: usize, runs: &Runs<1>) {
    let g = group.group_linear_id();
    distribute_groups!(group, |sub| {
        distribute_groups!(sub, |scalar| {
            distribute_items!(scalar, |idx| {
                let lid = idx.innermost_local_linear_id();
                if lid < bound {
                    runs.hit(g, &idx);
                }
            });
        });
    });
}

#[test]
fn scalar_groups_run_their_one_item_for_a_bound_above_zero() {
    for bound in [0, 1, 7] {
        let got = run([2], [10], |g, r| scalar_groups(g, bound, r));
        assert_eq!(got, expected([2], [10], |_| bound > 0), "bound {bound}");
    }
}

/// A bound of a type of its own, compared with `usize` ids.
#[derive(Clone, Copy)]
struct Limit(usize);

impl PartialEq<Limit> for usize {
    fn eq(&self, other: &Limit) -> bool {
        *self == other.0
    }
}

impl PartialOrd<Limit> for usize {
    fn partial_cmp(&self, other: &Limit) -> Option<std::cmp::Ordering> {
        self.partial_cmp(&other.0)
    }
}

#[kernel]
fn below_limit(group: WorkGroup<1>, limit: Limit, runs: &Runs<1>) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let lid = idx.innermost_local_id_dim(0);
        if lid < limit {
            runs.hit(g, &idx);
        }
    });
}

#[test]
fn a_bound_of_another_type_keeps_the_full_loop_and_the_same_items() {
    for bound in [0, 6, 30] {
        let got = run([3], [16], |g, r| below_limit(g, Limit(bound), r));
        assert_eq!(got, expected([3], [16], |l| l[0] < bound), "bound {bound}");
    }
}

/// The spec's tree: the bound halves between passes, read once per pass.
#[kernel]
fn tree_sum(group: WorkGroup<1>, input: &[i64], mut sums: ChunkWindow<'_, i64>) {
    const N: usize = 64;
    assert_eq!(group.logical_local_range_dim(0), N);
    memory_environment!(group, require_local_mem::<[i64; N]>(), |scratch| {
        distribute_items_and_wait!(group, |idx| {
            scratch[idx.innermost_local_id_dim(0)] = input[idx.global_linear_id()];
        });
        let mut active = N / 2;
        while active > 0 {
            distribute_items_and_wait!(group, |idx| {
                let lid = idx.innermost_local_id_dim(0);
                if lid < active {
                    scratch[lid] += scratch[lid + active];
                }
            });
            active /= 2;
        }
        single_item!(group, || sums[group.group_linear_id()] = scratch[0]);
    });
}

#[test]
fn tree_reduction_with_a_halving_bound_matches_serial_sums() {
    let groups = 37;
    let input: Vec<i64> = (0..groups * 64)
        .map(|i| (i as i64 * 7919) % 1001 - 500)
        .collect();
    let mut sums = vec![0; groups];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(groups, 64, ChunksMut::new(&mut sums, 1), |g, w| {
            tree_sum(g, &input, w)
        })
        .unwrap();
    let serial: Vec<i64> = input.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, serial);
}
