//! Every size of `SUB_GROUP_SIZES` (SYCL `info::device::sub_group_sizes`)
//! runs sub-group algorithms correctly, and `select_from_group` with
//! local ids (`Id<D>`) matches serial indexing.

use scoped::prelude::*;

/// Per sub-group: the sum of its items and, for every item, the value of
/// the item in the mirrored lane (`select_from_group` with linear ids).
#[kernel]
fn sums_and_mirror<const S: usize>(
    group: WorkGroup<1, S>,
    input: &[i64],
    mut sums: ItemsWindow<'_, i64>,
    mut mirrored: ItemsWindow<'_, i64>,
) {
    distribute_groups!(group, |sg| {
        memory_environment!(
            sg,
            require_private_mem::<i64>(),
            require_private_mem::<i64>(),
            require_private_mem::<usize>(),
            |x, y, from| {
                let n = sg.logical_local_linear_range();
                distribute_items!(sg, |idx| {
                    x[idx] = input[idx.global_linear_id()];
                    from[idx] = n - 1 - idx.innermost_local_linear_id();
                });
                let sum = reduce_over_group(sg, x, plus());
                select_from_group(sg, x, y, from);
                distribute_items!(sg, |idx| {
                    sums[idx] = sum;
                    mirrored[idx] = y[idx];
                });
            }
        );
    });
}

fn check_size<const S: usize>() -> usize {
    // 3 groups of 2·S + 3 items: two full sub-groups and a partial one.
    let size = 2 * S + 3;
    let input: Vec<i64> = (0..3 * size as i64).map(|i| i * 7 % 23 - 11).collect();
    let (mut sums, mut mirrored) = (vec![0; input.len()], vec![0; input.len()]);
    Queue::new()
        .parallel_with(
            3,
            size,
            (ItemsMut::new(&mut sums), ItemsMut::new(&mut mirrored)),
            |g, (s, m)| sums_and_mirror::<S>(g, &input, s, m),
        )
        .unwrap();
    let (mut expected_sums, mut expected_mirrored) = (Vec::new(), Vec::new());
    for group in input.chunks(size) {
        for sub_group in group.chunks(S) {
            let sum: i64 = sub_group.iter().sum();
            expected_sums.extend(std::iter::repeat_n(sum, sub_group.len()));
            expected_mirrored.extend(sub_group.iter().rev());
        }
    }
    assert_eq!(sums, expected_sums, "S = {S}");
    assert_eq!(mirrored, expected_mirrored, "S = {S}");
    S
}

#[test]
fn every_listed_sub_group_size_runs_sub_group_algorithms() {
    let tested = [
        check_size::<1>(),
        check_size::<2>(),
        check_size::<4>(),
        check_size::<8>(),
        check_size::<16>(),
        check_size::<32>(),
        check_size::<64>(),
    ];
    assert_eq!(&tested[..], SUB_GROUP_SIZES);
    assert!(SUB_GROUP_SIZES.contains(&DEFAULT_SUB_GROUP_SIZE));
}

/// Item `(i, j, k)` of a 2 × 3 × 4 work group reads item
/// `(1 - i, (j + 1) % 3, 3 - k)`, by `Id<3>`.
#[kernel]
fn select_by_id(group: WorkGroup<3>, input: &[u32], mut out: ItemsWindow<'_, u32, 3>) {
    memory_environment!(
        group,
        require_private_mem::<u32>(),
        require_private_mem::<u32>(),
        require_private_mem::<Id<3>>(Id::zero()),
        |x, y, from| {
            distribute_items!(group, |idx| {
                x[idx] = input[idx.global_linear_id()];
                let [i, j, k] = idx.innermost_local_id().to_array();
                from[idx] = Id::new([1 - i, (j + 1) % 3, 3 - k]);
            });
            select_from_group(group, x, y, from);
            distribute_items!(group, |idx| out[idx] = y[idx]);
        }
    );
}

#[test]
fn select_from_group_with_local_ids_matches_serial_indexing() {
    let (groups, range) = (2, [2, 3, 4]);
    let per_group = 24;
    let input: Vec<u32> = (0..groups * per_group as u32).map(|v| v * 3 + 1).collect();
    let mut out = vec![0; input.len()];
    Queue::new()
        .parallel_with(
            Range::new([1, 1, groups as usize]),
            Range::new(range),
            ItemsMut::new(&mut out),
            |g, w| select_by_id(g, &input, w),
        )
        .unwrap();
    // Global ids: the groups sit side by side along the last dimension,
    // so the global range is 2 x 3 x 8.
    let global = |i: usize, j: usize, k: usize| (i * 3 + j) * 8 + k;
    for g in 0..groups as usize {
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    let from = global(1 - i, (j + 1) % 3, g * 4 + 3 - k);
                    assert_eq!(
                        out[global(i, j, g * 4 + k)],
                        input[from],
                        "group {g}, item ({i}, {j}, {k})"
                    );
                }
            }
        }
    }
}

#[kernel]
fn select_outside(group: WorkGroup<2>) {
    memory_environment!(
        group,
        require_private_mem::<u8>(),
        require_private_mem::<u8>(),
        require_private_mem::<Id<2>>(Id::new([0, 3])),
        |x, y, from| select_from_group(group, x, y, from)
    );
}

#[test]
#[should_panic(
    expected = "select_from_group: item 0 selects local id [0, 3], but the group has 6 items (range [2, 3])"
)]
fn a_local_id_outside_the_group_panics_naming_it_and_the_range() {
    Queue::new()
        .parallel(Range::new([1, 1]), Range::new([2, 3]), select_outside)
        .unwrap();
}

/// Sub-groups of a kernel typed `WorkGroup<1>` write their size.
#[kernel]
fn default_sizes(group: WorkGroup<1>, mut out: ItemsWindow<'_, usize>) {
    distribute_groups!(group, |sub_group| {
        let size = sub_group.max_local_range()[0];
        distribute_items!(sub_group, |idx| out[idx] = size);
    });
}

/// The default sub-group size is 8 whatever the build's target features
/// (it was 16 under `-C target-cpu=native` on AVX-512 CPUs): a kernel
/// typed `WorkGroup<D>` has the same sub-groups in every build and at
/// every level.
#[test]
fn the_default_sub_group_size_is_8_under_any_build_flags() {
    assert_eq!(DEFAULT_SUB_GROUP_SIZE, 8);
    for isa in scoped::Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        let mut out = vec![0; 20];
        Queue::new()
            .with_isa(isa)
            .unwrap()
            .parallel_with(1, 20, ItemsMut::new(&mut out), default_sizes)
            .unwrap();
        assert_eq!(out, vec![8; 20], "level {isa}");
    }
}
