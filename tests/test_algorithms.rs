//! Group algorithms on fixed inputs: the OpenCL spec's worked examples,
//! broadcasts from every id form in 1-D, 2-D and 3-D groups, shuffles,
//! predicates, joint algorithms over local memory, the OpenCL aliases, and
//! the errors (foreign private memory, ids out of range, the run-time
//! nesting check). Property tests over random inputs are in
//! `test_algorithms_props.rs`.

use scoped::prelude::*;

/// OpenCL C++ "work_group_scan_inclusive" example input.
const SPEC_INPUT: [i32; 8] = [3, 1, 7, 0, 4, 1, 6, 3];
const SPEC_INCLUSIVE: [i32; 8] = [3, 4, 11, 11, 15, 16, 22, 25];
const SPEC_EXCLUSIVE: [i32; 8] = [0, 3, 4, 11, 11, 15, 16, 22];

/// Per item: inclusive and exclusive sums with the SYCL names and with the
/// OpenCL aliases, and the group's sum both ways.
#[kernel]
fn spec_scans(group: WorkGroup<1>, input: &[i32], mut out: ItemsWindow<'_, [i32; 6]>) {
    memory_environment!(
        group,
        require_private_mem::<i32>(),
        require_private_mem::<i32>(),
        require_private_mem::<i32>(),
        |x, inclusive, exclusive| {
            distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
            inclusive_scan_over_group(group, x, inclusive, plus());
            exclusive_scan_over_group(group, x, exclusive, plus());
            let sum = reduce_over_group(group, x, plus());
            distribute_items!(group, |idx| {
                out[idx][0] = inclusive[idx];
                out[idx][1] = exclusive[idx];
                out[idx][4] = sum;
            });
            work_group_scan_inclusive(group, x, inclusive, WorkGroupOp::Add);
            work_group_scan_exclusive(group, x, exclusive, WorkGroupOp::Add);
            let sum = work_group_reduce(group, x, WorkGroupOp::Add);
            distribute_items!(group, |idx| {
                out[idx][2] = inclusive[idx];
                out[idx][3] = exclusive[idx];
                out[idx][5] = sum;
            });
        }
    );
}

#[test]
fn opencl_worked_example_inclusive_and_exclusive_add() {
    let mut out = [[0; 6]; 8];
    Queue::new()
        .parallel_with(1, 8, ItemsMut::new(&mut out), |g, w| {
            spec_scans(g, &SPEC_INPUT, w)
        })
        .unwrap();
    let column = |c: usize| out.iter().map(|r| r[c]).collect::<Vec<_>>();
    assert_eq!(column(0), SPEC_INCLUSIVE);
    assert_eq!(column(1), SPEC_EXCLUSIVE);
    assert_eq!(column(2), SPEC_INCLUSIVE, "work_group_scan_inclusive");
    assert_eq!(column(3), SPEC_EXCLUSIVE, "work_group_scan_exclusive");
    assert_eq!(column(4), [25; 8]);
    assert_eq!(column(5), [25; 8], "work_group_reduce");
}

/// The worked example on sub-groups of 4 and on scalar groups: each scans
/// its own items.
#[kernel]
fn spec_scans_nested(group: WorkGroup<1, 4>, input: &[i32], mut out: ItemsWindow<'_, [i32; 5]>) {
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
        distribute_groups!(group, |sg| {
            memory_environment!(
                sg,
                require_private_mem::<i32>(),
                require_private_mem::<i32>(),
                |inclusive, exclusive| {
                    inclusive_scan_over_group(sg, x, inclusive, plus());
                    exclusive_scan_over_group(sg, x, exclusive, plus());
                    let sum = sub_group_reduce(sg, x, WorkGroupOp::Add);
                    distribute_items!(sg, |idx| {
                        out[idx][0] = inclusive[idx];
                        out[idx][1] = exclusive[idx];
                        out[idx][4] = sum;
                    });
                    distribute_groups!(sg, |scalar| {
                        inclusive_scan_over_group(scalar, x, inclusive, plus());
                        exclusive_scan_over_group(scalar, x, exclusive, plus());
                        distribute_items!(scalar, |idx| {
                            out[idx][2] = inclusive[idx];
                            out[idx][3] = exclusive[idx];
                        });
                    });
                }
            );
        });
    });
}

#[test]
fn opencl_worked_example_on_sub_groups_and_scalar_groups() {
    let mut out = [[0; 5]; 8];
    Queue::new()
        .parallel_with(1, 8, ItemsMut::new(&mut out), |g, w| {
            spec_scans_nested(g, &SPEC_INPUT, w)
        })
        .unwrap();
    let column = |c: usize| out.iter().map(|r| r[c]).collect::<Vec<_>>();
    assert_eq!(column(0), [3, 4, 11, 11, 4, 5, 11, 14]);
    assert_eq!(column(1), [0, 3, 4, 11, 0, 4, 5, 11]);
    assert_eq!(column(2), SPEC_INPUT, "scalar inclusive scan is the value");
    assert_eq!(column(3), [0; 8], "scalar exclusive scan is the identity");
    assert_eq!(column(4), [11, 11, 11, 11, 14, 14, 14, 14]);
}

/// Identities of the exclusive scan's first item: OpenCL's `INT_MAX`,
/// `UINT_MAX`, `INT_MIN`, `0`, `+INF`, `-INF`.
#[kernel]
fn first_exclusive(
    group: WorkGroup<1>,
    mut ints: ChunkWindow<'_, i32>,
    mut uints: ChunkWindow<'_, u32>,
    mut floats: ChunkWindow<'_, f32>,
) {
    memory_environment!(
        group,
        require_private_mem::<i32>(5),
        require_private_mem::<u32>(5),
        require_private_mem::<f32>(5.0),
        require_private_mem::<i32>(),
        require_private_mem::<u32>(),
        require_private_mem::<f32>(),
        |i, u, f, ri, ru, rf| {
            exclusive_scan_over_group(group, i, ri, minimum());
            let min_i = ri.as_slice()[0];
            exclusive_scan_over_group(group, i, ri, maximum());
            let max_i = ri.as_slice()[0];
            work_group_scan_exclusive(group, u, ru, WorkGroupOp::Min);
            let min_u = ru.as_slice()[0];
            work_group_scan_exclusive(group, u, ru, WorkGroupOp::Max);
            let max_u = ru.as_slice()[0];
            exclusive_scan_over_group(group, f, rf, minimum());
            let min_f = rf.as_slice()[0];
            exclusive_scan_over_group(group, f, rf, maximum());
            let max_f = rf.as_slice()[0];
            single_item!(group, || {
                ints.as_mut_slice().copy_from_slice(&[min_i, max_i]);
                uints.as_mut_slice().copy_from_slice(&[min_u, max_u]);
                floats.as_mut_slice().copy_from_slice(&[min_f, max_f]);
            });
        }
    );
}

#[test]
fn exclusive_scans_start_with_the_opencl_identities() {
    let (mut ints, mut uints, mut floats) = ([0; 2], [0; 2], [0.0; 2]);
    Queue::new()
        .parallel_with(
            1,
            3,
            (
                ChunksMut::new(&mut ints, 2),
                ChunksMut::new(&mut uints, 2),
                ChunksMut::new(&mut floats, 2),
            ),
            |g, (i, u, f)| first_exclusive(g, i, u, f),
        )
        .unwrap();
    assert_eq!(ints, [i32::MAX, i32::MIN]);
    assert_eq!(uints, [u32::MAX, 0]);
    assert_eq!(floats, [f32::INFINITY, f32::NEG_INFINITY]);
}

/// Every broadcast form, from every item, in a `D`-dimensional group whose
/// items hold their global linear id. Per group: the leader's value, then
/// for each local linear id `l` the values from `group_broadcast_linear`,
/// `group_broadcast_id` and `work_group_broadcast`.
#[kernel]
fn broadcasts<const D: usize>(group: WorkGroup<D>, mut out: ChunkWindow<'_, usize>) {
    memory_environment!(group, require_private_mem::<usize>(), |ids| {
        distribute_items!(group, |idx| ids[idx] = idx.global_linear_id());
        let range = group.logical_local_range();
        let n = range.size();
        let start = out.start();
        let leader = group_broadcast(group, ids);
        for l in 0..n {
            let linear = group_broadcast_linear(group, ids, l);
            let by_id = group_broadcast_id(group, ids, range.delinearize(l));
            let opencl = work_group_broadcast(group, ids, range.delinearize(l));
            single_item!(group, || {
                out[start + 1 + 3 * l] = linear;
                out[start + 2 + 3 * l] = by_id;
                out[start + 3 + 3 * l] = opencl;
            });
        }
        single_item!(group, || out[start] = leader);
    });
}

fn check_broadcasts<const D: usize>(num_groups: [usize; D], group_size: [usize; D]) {
    let num_groups = Range::new(num_groups);
    let group_size = Range::new(group_size);
    let n = group_size.size();
    let per_group = 1 + 3 * n;
    let mut out = vec![usize::MAX; num_groups.size() * per_group];
    Queue::new()
        .parallel_with(
            num_groups,
            group_size,
            ChunksMut::new(&mut out, per_group),
            |g, w| broadcasts::<D>(g, w),
        )
        .unwrap();
    let mut global = [0; D];
    for d in 0..D {
        global[d] = num_groups[d] * group_size[d];
    }
    let global = Range::new(global);
    for group in 0..num_groups.size() {
        let group_id = num_groups.delinearize(group);
        // Global linear id of the item with local linear id `l`.
        let global_of = |l: usize| {
            let local = group_size.delinearize(l);
            let mut id = [0; D];
            for d in 0..D {
                id[d] = group_id[d] * group_size[d] + local[d];
            }
            global.linearize(Id::new(id))
        };
        let chunk = &out[group * per_group..(group + 1) * per_group];
        assert_eq!(chunk[0], global_of(0), "leader of group {group_id:?}");
        for l in 0..n {
            let want = global_of(l);
            assert_eq!(chunk[1 + 3 * l], want, "linear id {l}, group {group_id:?}");
            assert_eq!(
                chunk[2 + 3 * l],
                want,
                "id form, linear id {l}, group {group_id:?}"
            );
            assert_eq!(
                chunk[3 + 3 * l],
                want,
                "work_group_broadcast, linear id {l}"
            );
        }
    }
}

#[test]
fn broadcast_from_every_id_form_in_1d_2d_3d() {
    check_broadcasts([3], [13]);
    check_broadcasts([2, 3], [3, 5]);
    check_broadcasts([2, 1, 2], [2, 3, 4]);
}

/// OpenCL's `work_group_broadcast(a, x, y)` takes the fastest dimension
/// first; here ids are row-major, so `(y, x)` in a tuple.
#[kernel]
fn broadcast_tuple(group: WorkGroup<2>, mut out: ChunkWindow<'_, usize>) {
    memory_environment!(group, require_private_mem::<usize>(), |ids| {
        distribute_items!(group, |idx| ids[idx] = idx.local_linear_id(&group));
        let value = work_group_broadcast(group, ids, (1, 2));
        single_item!(group, || out[0] = value);
    });
}

#[test]
fn tuple_ids_are_row_major() {
    let mut out = [0];
    Queue::new()
        .parallel_with((1, 1), (2, 5), ChunksMut::new(&mut out, 1), broadcast_tuple)
        .unwrap();
    assert_eq!(out[0], 5 + 2);
}

/// Broadcasts on sub-groups (of 4, along the last dimension of a 2-D group)
/// and on scalar groups: per item, its sub-group's leader value, the value
/// of its sub-group's last item, and its scalar group's value.
#[kernel]
fn nested_broadcasts(group: WorkGroup<2, 4>, mut out: ItemsWindow<'_, [usize; 3], 2>) {
    memory_environment!(group, require_private_mem::<usize>(), |ids| {
        distribute_items!(group, |idx| ids[idx] = idx.global_linear_id());
        distribute_groups!(group, |sg| {
            let n = sg.logical_local_linear_range();
            let leader = group_broadcast(sg, ids);
            let last = sub_group_broadcast(sg, ids, n - 1);
            let last_by_id = group_broadcast_id(sg, ids, Id::new([0, n - 1]));
            assert_eq!(last, last_by_id);
            distribute_items!(sg, |idx| {
                out[idx][0] = leader;
                out[idx][1] = last;
            });
            distribute_groups!(sg, |scalar| {
                let own = group_broadcast_linear(scalar, ids, 0);
                distribute_items!(scalar, |idx| out[idx][2] = own);
            });
        });
    });
}

#[test]
fn broadcast_on_sub_groups_and_scalar_groups() {
    // Rows of 10 items: sub-groups of 4, 4 and a partial one of 2.
    let (groups, size) = ((2, 1), (3, 10));
    let mut out = vec![[0; 3]; 6 * 10];
    Queue::new()
        .parallel_with(groups, size, ItemsMut::new(&mut out), nested_broadcasts)
        .unwrap();
    for (global, record) in out.iter().enumerate() {
        let column = global % 10;
        let sub_start = global - column % 4;
        let sub_len = if column >= 8 { 2 } else { 4 };
        assert_eq!(record[0], sub_start, "leader, item {global}");
        assert_eq!(record[1], sub_start + sub_len - 1, "last, item {global}");
        assert_eq!(record[2], global, "scalar group, item {global}");
    }
}

/// Shifts and permutes of the items' global linear ids, on the work group
/// (2-D), its sub-groups and its scalar groups. Results start as
/// `usize::MAX`, which items without a source keep.
#[kernel]
fn shuffles(group: WorkGroup<2, 8>, delta: usize, mut out: ItemsWindow<'_, [usize; 8], 2>) {
    memory_environment!(
        group,
        require_private_mem::<usize>(),
        require_private_mem::<usize>(),
        |ids, remote| {
            distribute_items!(group, |idx| {
                ids[idx] = idx.global_linear_id();
                // Reverse order within the group.
                remote[idx] = group.logical_local_linear_range() - 1 - idx.local_linear_id(&group);
            });
            memory_environment!(
                group,
                require_private_mem::<usize>(usize::MAX),
                require_private_mem::<usize>(usize::MAX),
                require_private_mem::<usize>(usize::MAX),
                require_private_mem::<usize>(usize::MAX),
                |left, right, xor, select| {
                    shift_group_left(group, ids, left, delta);
                    shift_group_right(group, ids, right, delta);
                    permute_group_by_xor(group, ids, xor, delta);
                    select_from_group(group, ids, select, remote);
                    distribute_items!(group, |idx| {
                        out[idx][0] = left[idx];
                        out[idx][1] = right[idx];
                        out[idx][2] = xor[idx];
                        out[idx][3] = select[idx];
                    });
                }
            );
            distribute_groups!(group, |sg| {
                memory_environment!(
                    sg,
                    require_private_mem::<usize>(usize::MAX),
                    require_private_mem::<usize>(usize::MAX),
                    require_private_mem::<usize>(usize::MAX),
                    |left, right, xor| {
                        shift_group_left(sg, ids, left, delta);
                        shift_group_right(sg, ids, right, delta);
                        permute_group_by_xor(sg, ids, xor, delta);
                        distribute_items!(sg, |idx| {
                            out[idx][4] = left[idx];
                            out[idx][5] = right[idx];
                            out[idx][6] = xor[idx];
                        });
                        distribute_groups!(sg, |scalar| {
                            memory_environment!(
                                scalar,
                                require_private_mem::<usize>(usize::MAX),
                                |own| {
                                    shift_group_left(scalar, ids, own, delta);
                                    distribute_items!(scalar, |idx| out[idx][7] = own[idx]);
                                }
                            );
                        });
                    }
                );
            });
        }
    );
}

#[test]
fn shifts_and_permutes_match_a_serial_reference() {
    let (rows, columns) = (3, 11);
    let n = rows * columns;
    for delta in [0, 1, 3, 8, 10, 32, 33, 40] {
        let mut out = vec![[0; 8]; 2 * n];
        Queue::new()
            .parallel_with((2, 1), (rows, columns), ItemsMut::new(&mut out), |g, w| {
                shuffles(g, delta, w)
            })
            .unwrap();
        for (global, record) in out.iter().enumerate() {
            let group_start = global / n * n;
            let l = global - group_start;
            let at = |i: usize| group_start + i;
            let want_left = if l + delta < n {
                at(l + delta)
            } else {
                usize::MAX
            };
            let want_right = if l >= delta {
                at(l - delta)
            } else {
                usize::MAX
            };
            let want_xor = if l ^ delta < n {
                at(l ^ delta)
            } else {
                usize::MAX
            };
            assert_eq!(record[0], want_left, "left, delta {delta}, item {global}");
            assert_eq!(record[1], want_right, "right, delta {delta}, item {global}");
            assert_eq!(record[2], want_xor, "xor, delta {delta}, item {global}");
            assert_eq!(record[3], at(n - 1 - l), "select, item {global}");
            // Sub-groups: runs of 8 along each row of 11 (8 + a partial 3).
            let column = l % columns;
            let sub_start = global - column % 8;
            let sub_len = if column >= 8 { 3 } else { 8 };
            let s = column % 8;
            let want = |ok: bool, i: usize| if ok { sub_start + i } else { usize::MAX };
            assert_eq!(
                record[4],
                want(s + delta < sub_len, s + delta),
                "sub left, item {global}"
            );
            assert_eq!(
                record[5],
                want(s >= delta, s.wrapping_sub(delta)),
                "sub right"
            );
            assert_eq!(
                record[6],
                want(s ^ delta < sub_len, s ^ delta),
                "sub xor, item {global}"
            );
            let scalar = if delta == 0 { global } else { usize::MAX };
            assert_eq!(record[7], scalar, "scalar left, delta {delta}");
        }
    }
}

/// any/all/none over private bools and with predicates, on the work group
/// and its sub-groups, with the OpenCL aliases. Per item: 9 answers.
#[kernel]
fn predicates(group: WorkGroup<1, 8>, input: &[i32], mut out: ItemsWindow<'_, [bool; 12]>) {
    memory_environment!(
        group,
        require_private_mem::<i32>(),
        require_private_mem::<bool>(),
        |x, positive| {
            distribute_items!(group, |idx| {
                x[idx] = input[idx.global_linear_id()];
                positive[idx] = x[idx] > 0;
            });
            let answers = [
                any_of_group(group, positive),
                all_of_group(group, positive),
                none_of_group(group, positive),
                any_of_group_by(group, x, |&v| v > 0),
                all_of_group_by(group, x, |&v| v > 0),
                none_of_group_by(group, x, |&v| v > 0),
                work_group_any(group, positive),
                work_group_all(group, positive),
            ];
            distribute_items!(group, |idx| out[idx][..8].copy_from_slice(&answers));
            distribute_groups!(group, |sg| {
                let answers = [
                    sub_group_any(sg, positive),
                    sub_group_all(sg, positive),
                    none_of_group(sg, positive),
                    all_of_group_by(sg, x, |&v| v > 0),
                ];
                distribute_items!(sg, |idx| out[idx][8..].copy_from_slice(&answers));
            });
        }
    );
}

#[test]
fn any_all_none_match_iterators() {
    let n = 300; // Several 128-byte SIMD blocks and a tail.
    let mut patterns: Vec<Vec<i32>> = vec![vec![1; n], vec![-1; n]];
    for odd in [0, 7, 8, 127, 128, 200, 299] {
        let mut ones = vec![1; n];
        ones[odd] = -1;
        let mut minus = vec![-1; n];
        minus[odd] = 1;
        patterns.push(ones);
        patterns.push(minus);
    }
    for input in patterns {
        let mut out = vec![[false; 12]; n];
        Queue::new()
            .parallel_with(1, n, ItemsMut::new(&mut out), |g, w| {
                predicates(g, &input, w)
            })
            .unwrap();
        let any = input.iter().any(|&v| v > 0);
        let all = input.iter().all(|&v| v > 0);
        let want = [any, all, !any, any, all, !any, any, all];
        for (i, record) in out.iter().enumerate() {
            assert_eq!(record[..8], want, "work group, item {i}");
            let sub = &input[i / 8 * 8..(i / 8 * 8 + 8).min(n)];
            let (sub_any, sub_all) = (sub.iter().any(|&v| v > 0), sub.iter().all(|&v| v > 0));
            assert_eq!(
                record[8..],
                [sub_any, sub_all, !sub_any, sub_all],
                "sub-group, item {i}"
            );
        }
    }
}

/// Joint algorithms over a group's local memory: the items store their
/// values there, then the group scans and tests them jointly.
#[kernel]
fn joint_local(group: WorkGroup<1>, input: &[u32], mut out: ChunkWindow<'_, u32>) {
    memory_environment!(
        group,
        require_local_mem::<[u32; 64]>(),
        require_local_mem::<[u32; 64]>(),
        |values, scanned| {
            distribute_items!(group, |idx| {
                values[idx.local_linear_id(&group)] = input[idx.global_linear_id()];
            });
            let total = joint_reduce(group, &values[..], plus());
            let start = out.start();
            joint_inclusive_scan_with_init(group, &values[..], &mut scanned[..], 100, plus());
            single_item!(group, || out.as_mut_slice()[..64]
                .copy_from_slice(&scanned[..]));
            joint_exclusive_scan_with_init(group, &values[..], &mut scanned[..], 100, plus());
            let even = joint_all_of(group, &values[..], |v| v % 2 == 0);
            let big = joint_any_of(group, &values[..], |&v| v > 1000);
            let none_zero = joint_none_of(group, &values[..], |&v| v == 0);
            single_item!(group, || {
                out.as_mut_slice()[64..128].copy_from_slice(&scanned[..]);
                out[start + 128] = total;
                out[start + 129] =
                    u32::from(even) | u32::from(big) << 1 | u32::from(none_zero) << 2;
            });
        }
    );
}

#[test]
fn joint_algorithms_over_local_memory() {
    let input: Vec<u32> = (0..128).map(|i| i * 2 + 2).collect();
    let mut out = vec![0; 2 * 130];
    Queue::new()
        .parallel_with(2, 64, ChunksMut::new(&mut out, 130), |g, w| {
            joint_local(g, &input, w)
        })
        .unwrap();
    for group in 0..2 {
        let values = &input[group * 64..(group + 1) * 64];
        let chunk = &out[group * 130..(group + 1) * 130];
        let mut acc = 100;
        for i in 0..64 {
            assert_eq!(chunk[64 + i], acc, "exclusive, group {group}, element {i}");
            acc += values[i];
            assert_eq!(chunk[i], acc, "inclusive, group {group}, element {i}");
        }
        assert_eq!(chunk[128], values.iter().sum::<u32>());
        let big = values.iter().any(|&v| v > 1000);
        assert_eq!(chunk[129], 1 | u32::from(big) << 1 | 1 << 2);
    }
}

/// A sub-group's algorithm given its work group's private memory reads the
/// sub-group's part (2-D: rows of 6 split into sub-groups of 4 and 2).
#[kernel]
fn sub_group_sums_2d(group: WorkGroup<2, 4>, mut out: ItemsWindow<'_, u64, 2>) {
    memory_environment!(group, require_private_mem::<u64>(), |x| {
        distribute_items!(group, |idx| x[idx] = idx.global_linear_id() as u64);
        distribute_groups!(group, |sg| {
            let sum = reduce_over_group_with_init(sg, x, 1000, plus());
            distribute_items!(sg, |idx| out[idx] = sum);
        });
    });
}

#[test]
fn sub_groups_read_their_part_of_work_group_memory_in_2d() {
    let mut out = vec![0u64; 2 * 3 * 6];
    Queue::new()
        .parallel_with((2, 1), (3, 6), ItemsMut::new(&mut out), sub_group_sums_2d)
        .unwrap();
    for (global, &sum) in out.iter().enumerate() {
        let column = global % 6;
        let (start, len) = if column < 4 {
            (global - column, 4)
        } else {
            (global - column + 4, 2)
        };
        let want: u64 = 1000 + (start..start + len).map(|i| i as u64).sum::<u64>();
        assert_eq!(sum, want, "item {global}");
    }
}

/// Sub-groups use memory of their own; scalar groups use their work
/// group's.
#[kernel]
fn own_and_enclosing_memory(group: WorkGroup<1, 4>, mut out: ItemsWindow<'_, [i32; 2]>) {
    distribute_groups!(group, |sg| {
        memory_environment!(sg, require_private_mem::<i32>(), |x| {
            distribute_items!(sg, |idx| x[idx] = idx.global_linear_id() as i32);
            let sum = reduce_over_group(sg, x, plus());
            distribute_items!(sg, |idx| out[idx][0] = sum);
        });
    });
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        distribute_items!(group, |idx| x[idx] = -(idx.global_linear_id() as i32));
        distribute_groups!(group, |sg| {
            distribute_groups!(sg, |scalar| {
                let own = group_broadcast(scalar, x);
                distribute_items!(scalar, |idx| out[idx][1] = own);
            });
        });
    });
}

#[test]
fn nested_groups_may_use_enclosing_memory() {
    let mut out = vec![[0; 2]; 16];
    Queue::new()
        .parallel_with(2, 8, ItemsMut::new(&mut out), own_and_enclosing_memory)
        .unwrap();
    for (i, record) in out.iter().enumerate() {
        let start = (i / 4 * 4) as i32;
        assert_eq!(record[0], 4 * start + 6, "sub-group sum, item {i}");
        assert_eq!(record[1], -(i as i32), "scalar broadcast, item {i}");
    }
}

/// Runs the collective out of the macros' sight, on a group that is not
/// the innermost one.
fn reduce_on(group: SubGroup<1, 4>, x: &PrivateMem<'_, i32, 1>) -> i32 {
    reduce_over_group(group, x, plus())
}

/// Misuse: the second sub-group's memory used for the first sub-group.
#[kernel]
fn sibling_memory(group: WorkGroup<1, 4>) {
    let mut first: Option<SubGroup<1, 4>> = None;
    distribute_groups!(group, |sg| {
        match first {
            None => first = Some(sg),
            Some(other) => {
                memory_environment!(sg, require_private_mem::<i32>(), |mine| {
                    let _ = reduce_on(other, mine);
                });
            }
        }
    });
}

#[test]
#[should_panic(expected = "reduce_over_group: the private memory holds the items from global id 4")]
fn memory_of_another_group_is_refused() {
    Queue::new().parallel(1, 8, sibling_memory).unwrap();
}

#[kernel]
fn out_of_range(group: WorkGroup<2>) {
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        let _ = group_broadcast_id(group, x, (1, 3));
    });
}

#[test]
#[should_panic(
    expected = "group_broadcast_id: local id [1, 3] is outside the group's range [2, 3]"
)]
fn broadcast_id_out_of_range_is_refused() {
    Queue::new().parallel((1, 1), (2, 3), out_of_range).unwrap();
}

#[kernel]
fn linear_out_of_range(group: WorkGroup<1>) {
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        let _ = group_broadcast_linear(group, x, 6);
    });
}

#[test]
#[should_panic(expected = "local linear id 6 is outside the group, which has 6 items")]
fn broadcast_linear_out_of_range_is_refused() {
    Queue::new().parallel(1, 6, linear_out_of_range).unwrap();
}

#[kernel]
fn bad_select(group: WorkGroup<1>) {
    memory_environment!(
        group,
        require_private_mem::<i32>(),
        require_private_mem::<i32>(),
        require_private_mem::<usize>(9),
        |x, y, ids| {
            select_from_group(group, x, y, ids);
        }
    );
}

#[test]
#[should_panic(
    expected = "select_from_group: item 0 selects local linear id 9, but the group has 5 items"
)]
fn select_out_of_range_is_refused() {
    Queue::new().parallel(1, 5, bad_select).unwrap();
}

#[kernel]
fn bad_joint(group: WorkGroup<1>, input: &[i32]) {
    let mut output = vec![0; input.len() - 1];
    joint_inclusive_scan(group, input, &mut output, plus());
}

#[test]
#[should_panic(expected = "joint_inclusive_scan: the output has 3 elements but the input has 4")]
fn joint_scan_length_mismatch_is_refused() {
    Queue::new()
        .parallel(1, 1, |g| bad_joint(g, &[1, 2, 3, 4]))
        .unwrap();
}

/// A helper that runs a collective, called where the macros cannot see it.
fn sneaky_sum(group: WorkGroup<1>, x: &PrivateMem<'_, i32, 1>) -> i32 {
    reduce_over_group(group, x, plus())
}

#[kernel]
fn collective_inside_items(group: WorkGroup<1>) {
    memory_environment!(group, require_private_mem::<i32>(), |x| {
        distribute_items!(group, |_idx| {
            let _ = sneaky_sum(group, x);
        });
    });
}

#[test]
#[should_panic(expected = "`reduce_over_group` is a collective")]
fn collectives_inside_distribute_items_panic() {
    Queue::new()
        .parallel(1, 4, collective_inside_items)
        .unwrap();
}
