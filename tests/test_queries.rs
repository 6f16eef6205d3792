//! Every query of `SItem` and of the `ScopedGroup` trait, on work groups,
//! sub-groups and scalar groups, in 1, 2 and 3 dimensions, with group sizes
//! that are not powers of two and several groups per launch.
//!
//! A kernel records what each logical item sees at each depth of
//! `distribute_groups!` (work group → sub-group → scalar → scalar) into an
//! `ItemsMut` per depth; the test then rebuilds every value from plain
//! formulas (row-major linearisation, division by the group size) and
//! compares record by record.

use std::collections::BTreeMap;
use std::ops::Index;
use std::sync::Mutex;

use scoped::prelude::*;

const DEPTHS: usize = 4;

/// What the `SItem` alone answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ItemView<const D: usize> {
    global_range: Range<D>,
    global_range_dims: Id<D>,
    global_linear_range: usize,
    global_id: Id<D>,
    global_id_dims: Id<D>,
    global_linear_id: usize,
    innermost_local_range: Range<D>,
    innermost_local_range_dims: Id<D>,
    innermost_local_linear_range: usize,
    innermost_local_id: Id<D>,
    innermost_local_id_dims: Id<D>,
    innermost_local_linear_id: usize,
}

/// What a group answers, and what the item answers about that group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct GroupView<const D: usize> {
    group_id: Id<D>,
    group_id_dims: Id<D>,
    group_index: Id<D>,
    group_linear_id: usize,
    group_range: Range<D>,
    group_range_dims: Id<D>,
    group_linear_range: usize,
    logical_local_range: Range<D>,
    logical_local_range_dims: Id<D>,
    logical_local_linear_range: usize,
    logical_local_id: Id<D>,
    logical_local_id_dims: Id<D>,
    logical_local_linear_id: usize,
    local_id: Id<D>,
    local_id_dims: Id<D>,
    local_linear_id: usize,
    item_local_id: Id<D>,
    item_local_id_dims: Id<D>,
    item_local_linear_id: usize,
    item_local_range: Range<D>,
    item_local_range_dims: Id<D>,
    item_local_linear_range: usize,
}

/// One logical item at one depth: how often it was visited, what it saw,
/// and the view of every group from the work group down to the innermost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Record<const D: usize> {
    visits: u32,
    item: ItemView<D>,
    chain: [GroupView<D>; DEPTHS],
}

/// The queries about the physical items of a group, recorded once per
/// group outside `distribute_items!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Physical<const D: usize> {
    depth: usize,
    /// Group linear ids from the work group down to this group.
    key: [usize; DEPTHS],
    dimensions: usize,
    fence_scope: MemoryScope,
    physical_local_id: Id<D>,
    physical_local_id_dims: Id<D>,
    physical_local_linear_id: usize,
    physical_local_range: Range<D>,
    physical_local_range_dims: Id<D>,
    physical_local_linear_range: usize,
    leader: bool,
}

fn dims<const D: usize>(f: impl Fn(usize) -> usize) -> Id<D> {
    Id::new(std::array::from_fn(f))
}

fn observe_item<const D: usize>(idx: &SItem<D>) -> ItemView<D> {
    ItemView {
        global_range: idx.global_range(),
        global_range_dims: dims(|d| idx.global_range_dim(d)),
        global_linear_range: idx.global_linear_range(),
        global_id: idx.global_id(),
        global_id_dims: dims(|d| idx.global_id_dim(d)),
        global_linear_id: idx.global_linear_id(),
        innermost_local_range: idx.innermost_local_range(),
        innermost_local_range_dims: dims(|d| idx.innermost_local_range_dim(d)),
        innermost_local_linear_range: idx.innermost_local_linear_range(),
        innermost_local_id: idx.innermost_local_id(),
        innermost_local_id_dims: dims(|d| idx.innermost_local_id_dim(d)),
        innermost_local_linear_id: idx.innermost_local_linear_id(),
    }
}

fn observe_group<G, const D: usize>(g: &G, idx: &SItem<D>) -> GroupView<D>
where
    G: ScopedGroup<D> + Index<usize, Output = usize>,
{
    GroupView {
        group_id: g.group_id(),
        group_id_dims: dims(|d| g.group_id_dim(d)),
        group_index: dims(|d| g[d]),
        group_linear_id: g.group_linear_id(),
        group_range: g.group_range(),
        group_range_dims: dims(|d| g.group_range_dim(d)),
        group_linear_range: g.group_linear_range(),
        logical_local_range: g.logical_local_range(),
        logical_local_range_dims: dims(|d| g.logical_local_range_dim(d)),
        logical_local_linear_range: g.logical_local_linear_range(),
        logical_local_id: g.logical_local_id(idx),
        logical_local_id_dims: dims(|d| g.logical_local_id_dim(idx, d)),
        logical_local_linear_id: g.logical_local_linear_id(idx),
        local_id: g.local_id(idx),
        local_id_dims: dims(|d| g.local_id_dim(idx, d)),
        local_linear_id: g.local_linear_id(idx),
        item_local_id: idx.local_id(g),
        item_local_id_dims: dims(|d| idx.local_id_dim(g, d)),
        item_local_linear_id: idx.local_linear_id(g),
        item_local_range: idx.local_range(g),
        item_local_range_dims: dims(|d| idx.local_range_dim(g, d)),
        item_local_linear_range: idx.local_linear_range(g),
    }
}

fn observe_physical<G: ScopedGroup<D>, const D: usize>(
    g: &G,
    depth: usize,
    key: [usize; DEPTHS],
) -> Physical<D> {
    Physical {
        depth,
        key,
        dimensions: G::DIMENSIONS,
        fence_scope: G::FENCE_SCOPE,
        physical_local_id: g.physical_local_id(),
        physical_local_id_dims: dims(|d| g.physical_local_id_dim(d)),
        physical_local_linear_id: g.physical_local_linear_id(),
        physical_local_range: g.physical_local_range(),
        physical_local_range_dims: dims(|d| g.physical_local_range_dim(d)),
        physical_local_linear_range: g.physical_local_linear_range(),
        leader: g.leader(),
    }
}

type Windows<'a, const D: usize> = (
    ItemsWindow<'a, Record<D>, D>,
    ItemsWindow<'a, Record<D>, D>,
    ItemsWindow<'a, Record<D>, D>,
    ItemsWindow<'a, Record<D>, D>,
);

#[kernel]
fn observe<const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    (mut at0, mut at1, mut at2, mut at3): Windows<'_, D>,
    physical: &Mutex<Vec<Physical<D>>>,
) {
    let g0 = group.group_linear_id();
    physical
        .lock()
        .unwrap()
        .push(observe_physical(&group, 0, [g0, 0, 0, 0]));
    distribute_items!(group, |idx| {
        let record = &mut at0[idx];
        record.visits += 1;
        record.item = observe_item(&idx);
        record.chain[0] = observe_group(&group, &idx);
    });
    distribute_groups!(group, |sub| {
        let g1 = sub.group_linear_id();
        physical
            .lock()
            .unwrap()
            .push(observe_physical(&sub, 1, [g0, g1, 0, 0]));
        distribute_items!(sub, |idx| {
            let record = &mut at1[idx];
            record.visits += 1;
            record.item = observe_item(&idx);
            record.chain[0] = observe_group(&group, &idx);
            record.chain[1] = observe_group(&sub, &idx);
        });
        distribute_groups!(sub, |scalar| {
            let g2 = scalar.group_linear_id();
            physical
                .lock()
                .unwrap()
                .push(observe_physical(&scalar, 2, [g0, g1, g2, 0]));
            distribute_items!(scalar, |idx| {
                let record = &mut at2[idx];
                record.visits += 1;
                record.item = observe_item(&idx);
                record.chain[0] = observe_group(&group, &idx);
                record.chain[1] = observe_group(&sub, &idx);
                record.chain[2] = observe_group(&scalar, &idx);
            });
            distribute_groups!(scalar, |inner| {
                let g3 = inner.group_linear_id();
                physical
                    .lock()
                    .unwrap()
                    .push(observe_physical(&inner, 3, [g0, g1, g2, g3]));
                distribute_items!(inner, |idx| {
                    let record = &mut at3[idx];
                    record.visits += 1;
                    record.item = observe_item(&idx);
                    record.chain[0] = observe_group(&group, &idx);
                    record.chain[1] = observe_group(&sub, &idx);
                    record.chain[2] = observe_group(&scalar, &idx);
                    record.chain[3] = observe_group(&inner, &idx);
                });
            });
        });
    });
}

// ---------------------------------------------------------------------------
// The serial reference, from plain formulas.

/// Row-major linear id of `id` in `range`: `(i0 * r1 + i1) * r2 + i2`.
fn linear<const D: usize>(range: [usize; D], id: [usize; D]) -> usize {
    (0..D).fold(0, |acc, d| acc * range[d] + id[d])
}

fn product<const D: usize>(range: [usize; D]) -> usize {
    range.iter().product()
}

/// Every id of `range`, row-major (odometer on the last dimension).
fn all_ids<const D: usize>(range: [usize; D]) -> Vec<[usize; D]> {
    (0..product(range))
        .map(|mut l| {
            let mut id = [0; D];
            for d in (0..D).rev() {
                id[d] = l % range[d];
                l /= range[d];
            }
            id
        })
        .collect()
}

/// One group of the chain of a logical item: its id and range in its
/// parent, its logical range, and the item's id in it.
#[derive(Clone, Copy)]
struct Level<const D: usize> {
    group_id: [usize; D],
    group_range: [usize; D],
    local_range: [usize; D],
    local_id: [usize; D],
}

impl<const D: usize> Level<D> {
    fn view(&self) -> GroupView<D> {
        let id = Id::new(self.group_id);
        let range = Range::new(self.group_range);
        let local_range = Range::new(self.local_range);
        let local_id = Id::new(self.local_id);
        let local_linear = linear(self.local_range, self.local_id);
        GroupView {
            group_id: id,
            group_id_dims: id,
            group_index: id,
            group_linear_id: linear(self.group_range, self.group_id),
            group_range: range,
            group_range_dims: Id::new(self.group_range),
            group_linear_range: product(self.group_range),
            logical_local_range: local_range,
            logical_local_range_dims: Id::new(self.local_range),
            logical_local_linear_range: product(self.local_range),
            logical_local_id: local_id,
            logical_local_id_dims: local_id,
            logical_local_linear_id: local_linear,
            local_id,
            local_id_dims: local_id,
            local_linear_id: local_linear,
            item_local_id: local_id,
            item_local_id_dims: local_id,
            item_local_linear_id: local_linear,
            item_local_range: local_range,
            item_local_range_dims: Id::new(self.local_range),
            item_local_linear_range: product(self.local_range),
        }
    }
}

/// The chain of groups of global id `gid`: work group, sub-group of `s`
/// items along the last dimension (the last one of a row partial), scalar
/// group, scalar group.
fn chain<const D: usize>(
    num_groups: [usize; D],
    group_size: [usize; D],
    s: usize,
    gid: [usize; D],
) -> [Level<D>; DEPTHS] {
    let ones = [1; D];
    let zeros = [0; D];
    let last = D - 1;
    let work_group_id: [usize; D] = std::array::from_fn(|d| gid[d] / group_size[d]);
    let local: [usize; D] = std::array::from_fn(|d| gid[d] % group_size[d]);

    let mut sub_id = local;
    sub_id[last] = local[last] / s;
    let mut sub_range = group_size;
    sub_range[last] = group_size[last].div_ceil(s);
    let lane = local[last] % s;
    let len = s.min(group_size[last] - sub_id[last] * s);
    let mut sub_local_range = ones;
    sub_local_range[last] = len;
    let mut lane_id = zeros;
    lane_id[last] = lane;

    [
        Level {
            group_id: work_group_id,
            group_range: num_groups,
            local_range: group_size,
            local_id: local,
        },
        Level {
            group_id: sub_id,
            group_range: sub_range,
            local_range: sub_local_range,
            local_id: lane_id,
        },
        Level {
            group_id: lane_id,
            group_range: sub_local_range,
            local_range: ones,
            local_id: zeros,
        },
        Level {
            group_id: zeros,
            group_range: ones,
            local_range: ones,
            local_id: zeros,
        },
    ]
}

fn expected_record<const D: usize>(
    global_range: [usize; D],
    gid: [usize; D],
    levels: &[Level<D>; DEPTHS],
    depth: usize,
) -> Record<D> {
    let innermost = levels[depth];
    let mut record = Record {
        visits: 1,
        item: ItemView {
            global_range: Range::new(global_range),
            global_range_dims: Id::new(global_range),
            global_linear_range: product(global_range),
            global_id: Id::new(gid),
            global_id_dims: Id::new(gid),
            global_linear_id: linear(global_range, gid),
            innermost_local_range: Range::new(innermost.local_range),
            innermost_local_range_dims: Id::new(innermost.local_range),
            innermost_local_linear_range: product(innermost.local_range),
            innermost_local_id: Id::new(innermost.local_id),
            innermost_local_id_dims: Id::new(innermost.local_id),
            innermost_local_linear_id: linear(innermost.local_range, innermost.local_id),
        },
        chain: Default::default(),
    };
    for (view, level) in record.chain.iter_mut().zip(levels).take(depth + 1) {
        *view = level.view();
    }
    record
}

/// Launches `observe::<D, S>` and compares every record and every group's
/// physical queries with the reference.
fn check<const D: usize, const S: usize>(num_groups: [usize; D], group_size: [usize; D]) {
    let global_range: [usize; D] = std::array::from_fn(|d| num_groups[d] * group_size[d]);
    let items = product(global_range);
    let mut at: [Vec<Record<D>>; DEPTHS] = std::array::from_fn(|_| vec![Record::default(); items]);
    let physical = Mutex::new(Vec::new());
    {
        let [a0, a1, a2, a3] = &mut at;
        let windows = (
            ItemsMut::new(a0),
            ItemsMut::new(a1),
            ItemsMut::new(a2),
            ItemsMut::new(a3),
        );
        Queue::new()
            .parallel_with(num_groups, group_size, windows, |g, w| {
                observe::<D, S>(g, w, &physical)
            })
            .unwrap();
    }

    let mut expected_physical = BTreeMap::new();
    for (position, gid) in all_ids(global_range).into_iter().enumerate() {
        let levels = chain(num_groups, group_size, S, gid);
        for (depth, records) in at.iter().enumerate() {
            let expected = expected_record(global_range, gid, &levels, depth);
            assert_eq!(
                records[position], expected,
                "D = {D}, S = {S}, {num_groups:?} groups of {group_size:?}: global id {gid:?} \
                 at depth {depth}"
            );
        }
        let mut key = [0; DEPTHS];
        for depth in 0..DEPTHS {
            key[depth] = linear(levels[depth].group_range, levels[depth].group_id);
            let fence_scope = [
                MemoryScope::WorkGroup,
                MemoryScope::SubGroup,
                MemoryScope::WorkItem,
                MemoryScope::WorkItem,
            ][depth];
            expected_physical.insert(
                (depth, key),
                Physical {
                    depth,
                    key,
                    dimensions: D,
                    fence_scope,
                    physical_local_id: Id::zero(),
                    physical_local_id_dims: Id::zero(),
                    physical_local_linear_id: 0,
                    physical_local_range: Range::splat(1),
                    physical_local_range_dims: Id::new([1; D]),
                    physical_local_linear_range: 1,
                    leader: true,
                },
            );
        }
    }
    let mut got = physical.into_inner().unwrap();
    got.sort_by_key(|p| (p.depth, p.key));
    let expected: Vec<_> = expected_physical.into_values().collect();
    assert_eq!(got.len(), expected.len(), "one physical record per group");
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g, e);
    }
}

#[test]
fn queries_1d_groups_of_100() {
    check::<1, { scoped::DEFAULT_SUB_GROUP_SIZE }>([3], [100]);
    check::<1, 8>([1], [100]);
}

#[test]
fn queries_1d_groups_of_47_with_sub_groups_of_16() {
    check::<1, 16>([2], [3 * 16 - 1]);
}

#[test]
fn queries_2d() {
    check::<2, 4>([2, 3], [7, 5]);
    check::<2, 8>([1, 1], [5, 7]);
    check::<2, 3>([3, 1], [1, 10]);
}

#[test]
fn queries_3d_one_group_of_7x5x3() {
    check::<3, 2>([1, 1, 1], [7, 5, 3]);
}

#[test]
fn queries_3d_several_groups_of_7x5x3() {
    check::<3, 2>([3, 2, 2], [7, 5, 3]);
    check::<3, { scoped::DEFAULT_SUB_GROUP_SIZE }>([3, 2, 2], [7, 5, 3]);
}

#[test]
fn queries_3d_sub_groups_split_the_last_dimension() {
    check::<3, 4>([2, 1, 1], [2, 3, 9]);
}

#[test]
fn group_type_constants() {
    assert!(scoped::is_group::<WorkGroup<1>>());
    assert!(scoped::is_group::<WorkGroup<3, 16>>());
    assert!(scoped::is_group::<SubGroup<2, 8>>());
    assert!(scoped::is_group::<ScalarGroup<3>>());
    assert_eq!(<WorkGroup<1> as ScopedGroup<1>>::DIMENSIONS, 1);
    assert_eq!(<SubGroup<2, 4> as ScopedGroup<2>>::DIMENSIONS, 2);
    assert_eq!(<ScalarGroup<3> as ScopedGroup<3>>::DIMENSIONS, 3);
    assert_eq!(
        <WorkGroup<2> as ScopedGroup<2>>::FENCE_SCOPE,
        MemoryScope::WorkGroup
    );
    assert_eq!(
        <SubGroup<2, 8> as ScopedGroup<2>>::FENCE_SCOPE,
        MemoryScope::SubGroup
    );
    assert_eq!(
        <ScalarGroup<2> as ScopedGroup<2>>::FENCE_SCOPE,
        MemoryScope::WorkItem
    );
    assert_eq!(WorkGroup::<1, 16>::SUB_GROUP_SIZE, 16);
    assert_eq!(SubGroup::<1, 16>::SIZE, 16);
    // Scopes are ordered from narrow to wide, as `group_barrier_with_scope`
    // relies on.
    assert!(MemoryScope::WorkItem < MemoryScope::SubGroup);
    assert!(MemoryScope::SubGroup < MemoryScope::WorkGroup);
    assert!(MemoryScope::WorkGroup < MemoryScope::Device);
    assert!(MemoryScope::Device < MemoryScope::System);
}
