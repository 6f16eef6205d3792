//! The group hierarchy: `distribute_groups!` from the work group down to
//! scalar groups nested five deep, the partial last sub-group (SYCL CTS
//! sub-group test plan, "With known sub-group size"), `single_item!` and
//! `leader()` once per group of every kind, and group barriers with an
//! explicit fence scope.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

use scoped::prelude::*;

/// Row-major linear id of `id` in `range`: `(i0 * r1 + i1) * r2 + i2`.
fn linear<const D: usize>(range: [usize; D], id: [usize; D]) -> usize {
    (0..D).fold(0, |acc, d| acc * range[d] + id[d])
}

fn counters(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

fn loads(counters: &[AtomicU32]) -> Vec<u32> {
    counters.iter().map(|c| c.load(Ordering::Relaxed)).collect()
}

const DEPTHS: usize = 6;

/// Per depth of nesting, how often each global linear id was visited.
struct Visits<const D: usize> {
    global_range: [usize; D],
    per_depth: [Vec<AtomicU32>; DEPTHS],
}

impl<const D: usize> Visits<D> {
    fn new(global_range: [usize; D]) -> Self {
        let items = global_range.iter().product();
        Self {
            global_range,
            per_depth: std::array::from_fn(|_| counters(items)),
        }
    }

    /// Counts a visit of `idx` at `depth`, after checking that its global
    /// id is `expected`, the id rebuilt from the group ids of its chain.
    fn hit(&self, depth: usize, idx: &SItem<D>, expected: Id<D>) {
        assert_eq!(
            idx.global_id(),
            expected,
            "global id at depth {depth} does not match the group chain"
        );
        let position = linear(self.global_range, expected.to_array());
        self.per_depth[depth][position].fetch_add(1, Ordering::Relaxed);
    }

    fn assert_each_once(&self, what: &str) {
        for (depth, counts) in self.per_depth.iter().enumerate() {
            let counts = loads(counts);
            for (position, &count) in counts.iter().enumerate() {
                assert_eq!(
                    count, 1,
                    "{what}: global linear id {position} visited {count} times at depth {depth}"
                );
            }
        }
    }
}

/// Global id of the first item of work group `group`: group id times group
/// size, per dimension.
fn work_group_origin<const D: usize, const S: usize>(group: &WorkGroup<D, S>) -> Id<D> {
    let range = group.logical_local_range();
    Id::new(std::array::from_fn(|d| group[d] * range[d]))
}

/// Global id of the first item of `sub` in `group`: sub-groups split the
/// last dimension into runs of `S` items.
fn sub_group_origin<const D: usize, const S: usize>(origin: Id<D>, sub: &SubGroup<D, S>) -> Id<D> {
    let mut first = origin;
    for d in 0..D {
        first[d] += if d == D - 1 { sub[d] * S } else { sub[d] };
    }
    first
}

/// Visits every logical item at depths 0 (work group) to 5 (the fourth
/// scalar group inside a scalar group).
#[kernel]
fn nested<const D: usize, const S: usize>(group: WorkGroup<D, S>, visits: &Visits<D>) {
    let origin = work_group_origin(&group);
    distribute_items!(group, |idx| {
        visits.hit(0, &idx, origin + idx.innermost_local_id());
    });
    distribute_groups!(group, |sub| {
        let sub_origin = sub_group_origin(origin, &sub);
        distribute_items!(sub, |idx| {
            visits.hit(1, &idx, sub_origin + idx.innermost_local_id());
        });
        distribute_groups!(sub, |s2| {
            // A scalar group's id in its sub-group is its lane.
            let item = sub_origin + s2.group_id();
            distribute_items!(s2, |idx| {
                assert_eq!(idx.innermost_local_id(), Id::zero());
                visits.hit(2, &idx, item);
            });
            distribute_groups!(s2, |s3| {
                assert_eq!(s3.group_id(), Id::zero());
                assert_eq!(s3.group_linear_range(), 1);
                distribute_items!(s3, |idx| {
                    visits.hit(3, &idx, item);
                });
                distribute_groups!(s3, |s4| {
                    assert_eq!(s4.group_id(), Id::zero());
                    distribute_items!(s4, |idx| {
                        visits.hit(4, &idx, item);
                    });
                    distribute_groups!(s4, |s5| {
                        assert_eq!(s5.group_linear_id(), 0);
                        distribute_items!(s5, |idx| {
                            visits.hit(5, &idx, item);
                        });
                    });
                });
            });
        });
    });
}

/// The same hierarchy with the `_and_wait` forms at every level.
#[kernel]
fn nested_and_wait<const D: usize, const S: usize>(group: WorkGroup<D, S>, visits: &Visits<D>) {
    let origin = work_group_origin(&group);
    distribute_items_and_wait!(group, |idx| {
        visits.hit(0, &idx, origin + idx.innermost_local_id());
    });
    distribute_groups_and_wait!(group, |sub| {
        let sub_origin = sub_group_origin(origin, &sub);
        distribute_items_and_wait!(sub, |idx| {
            visits.hit(1, &idx, sub_origin + idx.innermost_local_id());
        });
        distribute_groups_and_wait!(sub, |s2| {
            let item = sub_origin + s2.group_id();
            distribute_items_and_wait!(s2, |idx| {
                visits.hit(2, &idx, item);
            });
            distribute_groups_and_wait!(s2, |s3| {
                distribute_items_and_wait!(s3, |idx| {
                    visits.hit(3, &idx, item);
                });
                distribute_groups_and_wait!(s3, |s4| {
                    distribute_items_and_wait!(s4, |idx| {
                        visits.hit(4, &idx, item);
                    });
                    distribute_groups_and_wait!(s4, |s5| {
                        distribute_items_and_wait!(s5, |idx| {
                            visits.hit(5, &idx, item);
                        });
                    });
                });
            });
        });
    });
}

fn check_nesting<const D: usize, const S: usize>(num_groups: [usize; D], group_size: [usize; D]) {
    let global: [usize; D] = std::array::from_fn(|d| num_groups[d] * group_size[d]);
    let what = format!("D = {D}, S = {S}, {num_groups:?} groups of {group_size:?}");
    let visits = Visits::new(global);
    Queue::new()
        .parallel(num_groups, group_size, |g| nested::<D, S>(g, &visits))
        .unwrap();
    visits.assert_each_once(&what);
    let visits = Visits::new(global);
    Queue::new()
        .parallel(num_groups, group_size, |g| {
            nested_and_wait::<D, S>(g, &visits)
        })
        .unwrap();
    visits.assert_each_once(&format!("{what}, _and_wait forms"));
}

#[test]
fn every_item_once_at_every_depth_1d() {
    check_nesting::<1, 16>([2], [3 * 16 - 1]);
    check_nesting::<1, { scoped::DEFAULT_SUB_GROUP_SIZE }>([3], [100]);
    check_nesting::<1, 1>([2], [5]);
}

#[test]
fn every_item_once_at_every_depth_2d() {
    check_nesting::<2, 4>([2, 3], [7, 5]);
    check_nesting::<2, 8>([3, 1], [4, 17]);
}

#[test]
fn every_item_once_at_every_depth_3d() {
    check_nesting::<3, 2>([3, 2, 2], [7, 5, 3]);
    check_nesting::<3, { scoped::DEFAULT_SUB_GROUP_SIZE }>([3, 2, 2], [7, 5, 3]);
    check_nesting::<3, 4>([1, 2, 1], [2, 2, 11]);
}

// ---------------------------------------------------------------------------
// SYCL CTS sub-group test plan, "With known sub-group size".

/// What one logical item records about its sub-group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SubGroupRecord {
    written: bool,
    work_group_linear_id: usize,
    group_id: usize,
    group_linear_id: usize,
    local_id: usize,
    local_linear_id: usize,
    local_range: usize,
    local_linear_range: usize,
    group_range: usize,
    group_linear_range: usize,
    max_local_range: usize,
    global_linear_id: usize,
}

/// Per sub-group, what its one physical item answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SubGroupLeader {
    work_group: usize,
    sub_group: usize,
    leader: bool,
    physical_local_linear_id: usize,
    single_item_runs: usize,
}

#[kernel]
fn known_sub_group_size<const S: usize>(
    group: WorkGroup<1, S>,
    mut out: ItemsWindow<'_, SubGroupRecord>,
    leaders: &Mutex<Vec<SubGroupLeader>>,
) {
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            out[idx] = SubGroupRecord {
                written: true,
                work_group_linear_id: group.group_linear_id(),
                group_id: sub.group_id()[0],
                group_linear_id: sub.group_linear_id(),
                local_id: idx.local_id(&sub)[0],
                local_linear_id: idx.local_linear_id(&sub),
                local_range: sub.logical_local_range()[0],
                local_linear_range: sub.logical_local_linear_range(),
                group_range: sub.group_range()[0],
                group_linear_range: sub.group_linear_range(),
                max_local_range: sub.max_local_range()[0],
                global_linear_id: idx.global_linear_id(),
            };
        });
        let runs = AtomicUsize::new(0);
        single_item!(sub, || {
            runs.fetch_add(1, Ordering::Relaxed);
        });
        leaders.lock().unwrap().push(SubGroupLeader {
            work_group: group.group_linear_id(),
            sub_group: sub.group_linear_id(),
            leader: sub.leader(),
            physical_local_linear_id: sub.physical_local_linear_id(),
            single_item_runs: runs.into_inner(),
        });
    });
}

/// The CTS case for sub-group size `S`: work groups of `3 * S - 1` items
/// form 3 sub-groups, the last with `S - 1` items.
fn cts_known_sub_group_size<const S: usize>(num_groups: usize) {
    let group_size = 3 * S - 1;
    let items = num_groups * group_size;
    let mut out = vec![SubGroupRecord::default(); items];
    let leaders = Mutex::new(Vec::new());
    Queue::new()
        .parallel_with(num_groups, group_size, ItemsMut::new(&mut out), |g, w| {
            known_sub_group_size::<S>(g, w, &leaders)
        })
        .unwrap();

    let mut unique = HashSet::new();
    for (global, r) in out.iter().enumerate() {
        assert!(r.written, "S = {S}: item {global} was never written");
        let work_group = global / group_size;
        let local = global % group_size;
        let expected_sub = local / S;
        let expected_len = if expected_sub == 2 { S - 1 } else { S };
        assert_eq!(r.work_group_linear_id, work_group, "S = {S}, item {global}");
        assert_eq!(r.group_id, expected_sub, "S = {S}, item {global}");
        assert_eq!(r.group_id, r.group_linear_id);
        assert!(r.group_id < r.group_range);
        assert_eq!(r.local_id, local % S, "S = {S}, item {global}");
        assert_eq!(r.local_id, r.local_linear_id);
        assert!(r.local_id < r.local_range);
        assert_eq!(r.local_range, expected_len, "S = {S}, item {global}");
        assert_eq!(r.local_range, r.local_linear_range);
        assert!(r.local_range <= r.max_local_range);
        assert_eq!(r.group_range, 3, "S = {S}");
        assert_eq!(r.group_range, r.group_linear_range);
        assert_eq!(r.max_local_range, S);
        // A unique global index from the work group, sub-group and local ids.
        let index = r.work_group_linear_id * group_size + r.group_linear_id * S + r.local_linear_id;
        assert!(unique.insert(index), "S = {S}: index {index} repeats");
        assert_eq!(index, r.global_linear_id);
    }
    assert_eq!(unique.len(), items);

    let mut leaders = leaders.into_inner().unwrap();
    leaders.sort_by_key(|l| (l.work_group, l.sub_group));
    let expected: Vec<_> = (0..num_groups)
        .flat_map(|w| (0..3).map(move |s| (w, s)))
        .map(|(work_group, sub_group)| SubGroupLeader {
            work_group,
            sub_group,
            // The one physical item, local id 0, leads its sub-group.
            leader: true,
            physical_local_linear_id: 0,
            single_item_runs: 1,
        })
        .collect();
    assert_eq!(leaders, expected, "S = {S}");
}

#[test]
fn cts_known_sub_group_size_16() {
    cts_known_sub_group_size::<16>(1);
    cts_known_sub_group_size::<16>(3);
}

#[test]
fn cts_known_sub_group_sizes() {
    cts_known_sub_group_size::<2>(2);
    cts_known_sub_group_size::<3>(2);
    cts_known_sub_group_size::<4>(2);
    cts_known_sub_group_size::<8>(2);
    cts_known_sub_group_size::<32>(1);
    cts_known_sub_group_size::<64>(1);
    cts_known_sub_group_size::<{ scoped::DEFAULT_SUB_GROUP_SIZE }>(2);
}

// ---------------------------------------------------------------------------
// single_item! and leader() once per group of every kind.

/// Counters per work group, per sub-group (work group linear id times the
/// number of sub-groups plus the sub-group's linear id) and per scalar
/// group (its item's global linear id).
struct OncePerGroup {
    sub_groups_per_group: usize,
    single: [Vec<AtomicU32>; 3],
    single_and_wait: [Vec<AtomicU32>; 3],
    leader: [Vec<AtomicU32>; 3],
    returned: AtomicUsize,
}

impl OncePerGroup {
    fn count(&self, kind: usize, key: usize, leader: bool) {
        if leader {
            self.leader[kind][key].fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[kernel]
fn once_per_group<const S: usize>(group: WorkGroup<2, S>, once: &OncePerGroup) {
    let g = group.group_linear_id();
    once.count(0, g, group.leader());
    let value = single_item!(group, || {
        once.single[0][g].fetch_add(1, Ordering::Relaxed);
        g + 1
    });
    // single_item! hands back its closure's value to the group.
    once.returned.fetch_add(value, Ordering::Relaxed);
    single_item_and_wait!(group, || {
        once.single_and_wait[0][g].fetch_add(1, Ordering::Relaxed);
    });
    distribute_groups!(group, |sub| {
        let s = g * once.sub_groups_per_group + sub.group_linear_id();
        once.count(1, s, sub.leader());
        single_item!(sub, || {
            once.single[1][s].fetch_add(1, Ordering::Relaxed);
        });
        single_item_and_wait!(sub, || {
            once.single_and_wait[1][s].fetch_add(1, Ordering::Relaxed);
        });
        distribute_groups!(sub, |scalar| {
            // The scalar group's item: its global linear id, read from the
            // one item of the group.
            let item = AtomicUsize::new(usize::MAX);
            distribute_items!(scalar, |idx| {
                item.store(idx.global_linear_id(), Ordering::Relaxed);
            });
            let item = item.into_inner();
            once.count(2, item, scalar.leader());
            single_item!(scalar, || {
                once.single[2][item].fetch_add(1, Ordering::Relaxed);
            });
            single_item_and_wait!(scalar, || {
                once.single_and_wait[2][item].fetch_add(1, Ordering::Relaxed);
            });
        });
    });
}

fn check_once_per_group<const S: usize>(num_groups: [usize; 2], group_size: [usize; 2]) {
    let work_groups = num_groups[0] * num_groups[1];
    let sub_groups_per_group = group_size[0] * group_size[1].div_ceil(S);
    let items = work_groups * group_size[0] * group_size[1];
    let sizes = [work_groups, work_groups * sub_groups_per_group, items];
    let once = OncePerGroup {
        sub_groups_per_group,
        single: sizes.map(counters),
        single_and_wait: sizes.map(counters),
        leader: sizes.map(counters),
        returned: AtomicUsize::new(0),
    };
    Queue::new()
        .parallel(num_groups, group_size, |g| once_per_group::<S>(g, &once))
        .unwrap();
    let kinds = ["work group", "sub-group", "scalar group"];
    for (kind, name) in kinds.iter().enumerate() {
        for (what, counts) in [
            ("single_item!", &once.single[kind]),
            ("single_item_and_wait!", &once.single_and_wait[kind]),
            ("leader()", &once.leader[kind]),
        ] {
            let counts = loads(counts);
            assert_eq!(counts.len(), sizes[kind]);
            for (key, &count) in counts.iter().enumerate() {
                assert_eq!(count, 1, "{what} ran {count} times for {name} {key}");
            }
        }
    }
    let expected: usize = (1..=work_groups).sum();
    assert_eq!(once.returned.into_inner(), expected);
}

#[test]
fn single_item_and_leader_once_per_group_of_every_kind() {
    check_once_per_group::<4>([2, 3], [7, 5]);
    check_once_per_group::<16>([1, 2], [1, 47]);
    check_once_per_group::<{ scoped::DEFAULT_SUB_GROUP_SIZE }>([3, 1], [4, 100]);
}

// ---------------------------------------------------------------------------
// group_barrier and group_barrier_with_scope.

/// Shifts the group's values by one item through local memory, with a
/// barrier of every permitted scope between the write and the read, on the
/// work group, its sub-groups and their scalar groups. `out[i]` becomes
/// `input[i + 1]` within each work group (wrapping) plus the number of
/// scalar-group barriers that ran for item `i`.
#[kernel]
fn shift_with_barriers(group: WorkGroup<1, 4>, input: &[i32], mut out: ItemsWindow<'_, i32>) {
    memory_environment!(group, require_local_mem::<[i32; 64]>(), |tile| {
        distribute_items!(group, |idx| {
            tile[idx.innermost_local_id_dim(0)] = input[idx.global_linear_id()];
        });
        group_barrier(group);
        group_barrier_with_scope(group, MemoryScope::WorkGroup);
        group_barrier_with_scope(group, MemoryScope::Device);
        group_barrier_with_scope(group, MemoryScope::System);
        let n = group.logical_local_linear_range();
        distribute_items!(group, |idx| {
            let lid = idx.innermost_local_id_dim(0);
            out[idx] = tile[(lid + 1) % n];
        });
        distribute_groups!(group, |sub| {
            group_barrier(sub);
            group_barrier_with_scope(sub, MemoryScope::SubGroup);
            group_barrier_with_scope(sub, MemoryScope::WorkGroup);
            group_barrier_with_scope(sub, MemoryScope::Device);
            distribute_groups!(sub, |scalar| {
                group_barrier(scalar);
                for scope in [
                    MemoryScope::WorkItem,
                    MemoryScope::SubGroup,
                    MemoryScope::WorkGroup,
                    MemoryScope::Device,
                    MemoryScope::System,
                ] {
                    group_barrier_with_scope(scalar, scope);
                    distribute_items!(scalar, |idx| {
                        out[idx] += 1;
                    });
                }
            });
        });
    });
}

#[test]
fn barriers_with_own_or_wider_scope_order_memory() {
    let (groups, size) = (3, 50);
    let input: Vec<i32> = (0..groups * size).map(|i| (i * i % 97) as i32).collect();
    let mut out = vec![0; groups * size];
    Queue::new()
        .parallel_with(groups, size, ItemsMut::new(&mut out), |g, w| {
            shift_with_barriers(g, &input, w)
        })
        .unwrap();
    for (i, &got) in out.iter().enumerate() {
        let (group, lid) = (i / size, i % size);
        let expected = input[group * size + (lid + 1) % size] + 5;
        assert_eq!(got, expected, "item {i}");
    }
}

#[kernel]
fn work_group_barrier_scope(group: WorkGroup<1>, scope: MemoryScope) {
    group_barrier_with_scope(group, scope);
}

#[kernel]
fn sub_group_barrier_scope(group: WorkGroup<2, 4>, scope: MemoryScope) {
    distribute_groups!(group, |sub| {
        group_barrier_with_scope(sub, scope);
    });
}

#[test]
#[should_panic(
    expected = "fence scope SubGroup is narrower than the group's own fence scope \
                           WorkGroup"
)]
fn work_group_barrier_with_sub_group_scope_panics() {
    Queue::new()
        .parallel(2, 5, |g| work_group_barrier_scope(g, MemoryScope::SubGroup))
        .unwrap();
}

#[test]
#[should_panic(
    expected = "fence scope WorkItem is narrower than the group's own fence scope \
                           WorkGroup"
)]
fn work_group_barrier_with_work_item_scope_panics() {
    Queue::new()
        .parallel(1, 3, |g| work_group_barrier_scope(g, MemoryScope::WorkItem))
        .unwrap();
}

#[test]
#[should_panic(
    expected = "fence scope WorkItem is narrower than the group's own fence scope \
                           SubGroup"
)]
fn sub_group_barrier_with_work_item_scope_panics() {
    Queue::new()
        .parallel((1, 1), (2, 6), |g| {
            sub_group_barrier_scope(g, MemoryScope::WorkItem)
        })
        .unwrap();
}

#[test]
fn barrier_scopes_that_are_not_narrower_run() {
    let runs = AtomicUsize::new(0);
    for scope in [
        MemoryScope::SubGroup,
        MemoryScope::WorkGroup,
        MemoryScope::System,
    ] {
        Queue::new()
            .parallel((2, 1), (2, 6), |g| {
                sub_group_barrier_scope(g, scope);
                runs.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
    }
    assert_eq!(runs.into_inner(), 3 * 2);
}

// ---------------------------------------------------------------------------
// Visiting order, and `distribute_groups!` whose body is a lone
// `distribute_items!`.

/// What one item sees of its innermost group, and when it was visited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Visit<const D: usize> {
    count: u32,
    /// Position in the work group's visiting order.
    order: usize,
    group_id: Id<D>,
    group_range: Range<D>,
    group_local_range: Range<D>,
    innermost_local_id: Id<D>,
    innermost_local_range: Range<D>,
    local_id_in_work_group: Id<D>,
    global_id: Id<D>,
}

type VisitWindow<'a, const D: usize> = ItemsWindow<'a, Visit<D>, D>;

fn visit<G: ScopedGroup<D>, const D: usize>(
    out: &mut VisitWindow<'_, D>,
    order: &AtomicUsize,
    work_group: &impl ScopedGroup<D>,
    group: &G,
    idx: SItem<D>,
) {
    let v = &mut out[idx];
    v.count += 1;
    v.order = order.fetch_add(1, Ordering::Relaxed);
    v.group_id = group.group_id();
    v.group_range = group.group_range();
    v.group_local_range = group.logical_local_range();
    v.innermost_local_id = idx.innermost_local_id();
    v.innermost_local_range = idx.innermost_local_range();
    v.local_id_in_work_group = idx.local_id(work_group);
    v.global_id = idx.global_id();
}

/// The work group's items, then its sub-groups' items with the body a
/// lone statement, then as a lone expression, then the scalar groups'
/// items through two lone levels.
#[kernel]
fn lone_items<const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    (mut flat, mut block, mut expression, mut scalars): (
        VisitWindow<'_, D>,
        VisitWindow<'_, D>,
        VisitWindow<'_, D>,
        VisitWindow<'_, D>,
    ),
) {
    let order = AtomicUsize::new(0);
    distribute_items!(group, |idx| {
        visit(&mut flat, &order, &group, &group, idx);
    });
    let order = AtomicUsize::new(0);
    distribute_groups!(group, |sub| {
        distribute_items!(sub, |idx| {
            visit(&mut block, &order, &group, &sub, idx);
        });
    });
    let order = AtomicUsize::new(0);
    distribute_groups!(group, |sub| distribute_items!(sub, |idx| {
        visit(&mut expression, &order, &group, &sub, idx);
    }));
    let order = AtomicUsize::new(0);
    distribute_groups!(group, |sub| {
        distribute_groups!(sub, |scalar| {
            distribute_items!(scalar, |idx| {
                visit(&mut scalars, &order, &group, &scalar, idx);
            });
        });
    });
}

fn check_lone_items<const D: usize, const S: usize>(
    num_groups: [usize; D],
    group_size: [usize; D],
) {
    let global: [usize; D] = std::array::from_fn(|d| num_groups[d] * group_size[d]);
    let items: usize = global.iter().product();
    let mut at: [Vec<Visit<D>>; 4] = std::array::from_fn(|_| vec![Visit::default(); items]);
    {
        let [a, b, c, e] = &mut at;
        let windows = (
            ItemsMut::new(a),
            ItemsMut::new(b),
            ItemsMut::new(c),
            ItemsMut::new(e),
        );
        Queue::new()
            .parallel_with(num_groups, group_size, windows, lone_items::<D, S>)
            .unwrap();
    }
    let last = D - 1;
    let [flat, block, expression, scalars] = &at;
    let visits = flat.iter().zip(block).zip(expression).zip(scalars);
    for (position, (((flat, block), expression), scalar)) in visits.enumerate() {
        let mut rest = position;
        let mut gid = [0; D];
        for d in (0..D).rev() {
            gid[d] = rest % global[d];
            rest /= global[d];
        }
        let local: [usize; D] = std::array::from_fn(|d| gid[d] % group_size[d]);
        let work_group: [usize; D] = std::array::from_fn(|d| gid[d] / group_size[d]);
        let mut sub = local;
        sub[last] /= S;
        let mut sub_range = group_size;
        sub_range[last] = group_size[last].div_ceil(S);
        let mut lanes = [1; D];
        lanes[last] = S.min(group_size[last] - sub[last] * S);
        let mut lane = [0; D];
        lane[last] = local[last] % S;
        let base = Visit {
            count: 1,
            // Items are visited in increasing linear id of the work group,
            // whichever way the group is split.
            order: linear(group_size, local),
            group_id: Id::new(work_group),
            group_range: Range::new(num_groups),
            group_local_range: Range::new(group_size),
            innermost_local_id: Id::new(local),
            innermost_local_range: Range::new(group_size),
            local_id_in_work_group: Id::new(local),
            global_id: Id::new(gid),
        };
        let in_sub = Visit {
            group_id: Id::new(sub),
            group_range: Range::new(sub_range),
            group_local_range: Range::new(lanes),
            innermost_local_id: Id::new(lane),
            innermost_local_range: Range::new(lanes),
            ..base
        };
        let in_scalar = Visit {
            group_id: Id::new(lane),
            group_range: Range::new(lanes),
            group_local_range: Range::splat(1),
            innermost_local_id: Id::zero(),
            innermost_local_range: Range::splat(1),
            ..base
        };
        let what = format!("D = {D}, S = {S}, global id {gid:?}");
        assert_eq!(*flat, base, "{what}, work group");
        assert_eq!(*block, in_sub, "{what}, sub-group (statement)");
        assert_eq!(*expression, in_sub, "{what}, sub-group (expression)");
        assert_eq!(*scalar, in_scalar, "{what}, scalar group");
    }
}

#[test]
fn lone_distribute_items_in_distribute_groups_1d() {
    check_lone_items::<1, 16>([3], [47]);
    check_lone_items::<1, { scoped::DEFAULT_SUB_GROUP_SIZE }>([2], [100]);
}

#[test]
fn lone_distribute_items_in_distribute_groups_2d_and_3d() {
    check_lone_items::<2, 4>([2, 3], [7, 5]);
    check_lone_items::<3, 2>([3, 2, 2], [7, 5, 3]);
    check_lone_items::<3, { scoped::DEFAULT_SUB_GROUP_SIZE }>([1, 2, 1], [2, 3, 19]);
}
