//! The OpenCL C++ synchronization functions ("Synchronization Functions"):
//! `work_group_barrier`, `sub_group_barrier`, `mem_fence` flags and
//! `work_group_named_barrier`, with the spec's constraints.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;

fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("must panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Each group rotates its items' values left by one through local memory,
/// with the barrier `flags`/`scope` between the store and the load.
#[kernel]
fn rotate(
    group: WorkGroup<1>,
    input: &[i64],
    flags: MemFence,
    scope: MemoryScope,
    mut out: ItemsWindow<'_, i64>,
) {
    memory_environment!(group, require_local_mem_slice::<i64>(24), |tile| {
        distribute_items!(group, |idx| {
            tile[idx.innermost_local_linear_id()] = input[idx.global_linear_id()];
        });
        work_group_barrier_with_scope(group, flags, scope);
        work_group_barrier(group, flags);
        distribute_items!(group, |idx| {
            out[idx] = tile[(idx.innermost_local_linear_id() + 1) % 24];
        });
    });
}

#[test]
fn work_group_barrier_orders_local_and_global_memory_for_every_valid_pair() {
    let input: Vec<i64> = (0..72).map(|i| i * i - 40).collect();
    let mut expected = Vec::new();
    for group in input.chunks(24) {
        expected.extend(group.iter().cycle().skip(1).take(24));
    }
    let cases = [
        (MemFence::NONE, MemoryScope::WorkGroup),
        (MemFence::LOCAL, MemoryScope::WorkGroup),
        (MemFence::GLOBAL, MemoryScope::Device),
        (MemFence::LOCAL | MemFence::GLOBAL, MemoryScope::System),
        (MemFence::IMAGE, MemoryScope::Device),
    ];
    for (flags, scope) in cases {
        let mut out = vec![0; 72];
        Queue::new()
            .parallel_with(3, 24, ItemsMut::new(&mut out), |g, w| {
                rotate(g, &input, flags, scope, w)
            })
            .unwrap();
        assert_eq!(out, expected, "{flags:?} {scope:?}");
    }
}

/// Each sub-group of 4 reverses its items, with a sub-group barrier
/// between its loops.
#[kernel]
fn reverse_sub_groups(group: WorkGroup<1, 4>, input: &[u8], mut out: ItemsWindow<'_, u8>) {
    distribute_groups!(group, |sg| {
        memory_environment!(sg, require_local_mem::<[u8; 4]>(), |lanes| {
            distribute_items!(sg, |idx| lanes[idx.innermost_local_linear_id()] =
                input[idx.global_linear_id()]);
            sub_group_barrier(sg, MemFence::LOCAL);
            sub_group_barrier_with_scope(sg, MemFence::GLOBAL, MemoryScope::SubGroup);
            distribute_items!(sg, |idx| out[idx] =
                lanes[3 - idx.innermost_local_linear_id()]);
        });
    });
}

#[test]
fn sub_group_barrier_between_a_sub_groups_loops() {
    let input: Vec<u8> = (0..16).collect();
    let mut out = vec![0; 16];
    Queue::new()
        .parallel_with(2, 8, ItemsMut::new(&mut out), |g, w| {
            reverse_sub_groups(g, &input, w)
        })
        .unwrap();
    let expected: Vec<u8> = input
        .chunks(4)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_eq!(out, expected);
}

/// The spec's named-barrier example in the CPU's shape: barriers `a` (4
/// sub-groups), `b` and `c` (2 each) on a group of 6 sub-groups; each
/// phase is a `distribute_groups!` and each wait sits between phases.
/// Sub-groups 0–3 write, 0–1 and 2–3 exchange within their pair after `b`
/// and `c`, and after `a` every sub-group reads sub-group 3's values.
#[kernel]
fn named_phases(group: WorkGroup<1, 2>, mut out: ItemsWindow<'_, u32>) {
    let a = work_group_named_barrier(group, 4);
    let b = work_group_named_barrier(group, 2);
    let c = work_group_named_barrier(group, 2);
    memory_environment!(group, require_local_mem::<[u32; 12]>(), |shared| {
        distribute_groups!(group, |sg| {
            let s = sg.group_linear_id();
            if s < 4 {
                distribute_items!(sg, |idx| shared[idx.global_linear_id() % 12] =
                    10 * s as u32 + idx.innermost_local_linear_id() as u32);
            }
        });
        a.wait(MemFence::LOCAL);
        b.wait(MemFence::GLOBAL);
        c.wait_with_scope(MemFence::LOCAL, MemoryScope::Device);
        distribute_groups!(group, |sg| {
            let s = sg.group_linear_id();
            if s < 4 {
                // The other sub-group of the pair.
                let partner = s ^ 1;
                distribute_items!(sg, |idx| out[idx] =
                    shared[2 * partner + idx.innermost_local_linear_id()]);
            }
        });
        a.wait_with_scope(MemFence::GLOBAL, MemoryScope::WorkGroup);
        distribute_groups!(group, |sg| {
            if sg.group_linear_id() >= 4 {
                distribute_items!(sg, |idx| out[idx] =
                    shared[6 + idx.innermost_local_linear_id()]);
            }
        });
    });
    assert_eq!((a.sub_group_count(), b.sub_group_count()), (4, 2));
}

#[test]
fn named_barriers_order_phases_of_sub_groups() {
    let mut out = vec![0; 24];
    Queue::new()
        .parallel_with(2, 12, ItemsMut::new(&mut out), |g, w| named_phases(g, w))
        .unwrap();
    // Sub-group s wrote 10 s + lane; 0 reads 1's, 1 reads 0's, 2 reads 3's,
    // 3 reads 2's, 4 and 5 read 3's.
    let per_group = [10, 11, 0, 1, 30, 31, 20, 21, 30, 31, 30, 31];
    assert_eq!(&out[..12], &per_group);
    assert_eq!(&out[12..], &per_group);
}

#[kernel]
fn named_with_count(group: WorkGroup<2, 4>, count: usize, flags: MemFence) {
    let barrier = work_group_named_barrier(group, count);
    barrier.wait(flags);
}

#[test]
fn named_barrier_counts_outside_one_to_the_sub_group_count_panic_naming_both() {
    // A 3 x 10 group of sub-groups of 4: 3 rows of 3 sub-groups.
    let launch = |count, flags| {
        Queue::new().parallel(Range::new([1, 1]), Range::new([3, 10]), |g| {
            named_with_count(g, count, flags)
        })
    };
    launch(9, MemFence::LOCAL).unwrap();
    launch(1, MemFence::NONE).unwrap();
    for count in [0, 10] {
        let message = panic_message(|| launch(count, MemFence::LOCAL).unwrap());
        assert_eq!(
            message,
            format!(
                "work_group_named_barrier: sub_group_count is {count}, but it must be between 1 \
                 and the 9 sub-groups of the work group (sub-group size 4)"
            )
        );
    }
    let message = panic_message(|| launch(2, MemFence::IMAGE).unwrap());
    assert!(
        message.contains(
            "flags MemFence(IMAGE) with scope WorkGroup: `MemFence::IMAGE` cannot be used here"
        ),
        "{message}"
    );
}

#[kernel]
fn barrier_with(group: WorkGroup<1, 4>, flags: MemFence, scope: MemoryScope, sub: bool) {
    if sub {
        distribute_groups!(group, |sg| sub_group_barrier_with_scope(sg, flags, scope));
    } else {
        work_group_barrier_with_scope(group, flags, scope);
    }
}

#[test]
fn invalid_flags_and_scopes_panic_naming_them() {
    let run = |flags, scope, sub| {
        panic_message(|| {
            Queue::new()
                .parallel(1, 8, |g| barrier_with(g, flags, scope, sub))
                .unwrap()
        })
    };
    let cases = [
        (
            MemFence::IMAGE | MemFence::LOCAL,
            MemoryScope::WorkGroup,
            false,
            "work_group_barrier: flags MemFence(LOCAL | IMAGE) with scope WorkGroup: \
             `MemFence::IMAGE` cannot be combined with `LOCAL` or `GLOBAL`",
        ),
        (
            MemFence::IMAGE,
            MemoryScope::System,
            true,
            "sub_group_barrier: flags MemFence(IMAGE) with scope System: with `MemFence::IMAGE` \
             the scope must be `WorkGroup` or `Device`",
        ),
        (
            MemFence::GLOBAL,
            MemoryScope::SubGroup,
            false,
            "work_group_barrier: flags MemFence(GLOBAL) with scope SubGroup: the scope is \
             narrower than the barrier's group, WorkGroup",
        ),
        (
            MemFence::LOCAL,
            MemoryScope::WorkItem,
            true,
            "sub_group_barrier: flags MemFence(LOCAL) with scope WorkItem: the scope is \
             narrower than the barrier's group, SubGroup",
        ),
    ];
    for (flags, scope, sub, expected) in cases {
        let message = run(flags, scope, sub);
        assert!(message.starts_with(expected), "{message}");
    }
}

#[test]
fn mem_fence_flags_combine_like_opencl_bits() {
    let mut flags = MemFence::NONE;
    assert_eq!(flags, MemFence::default());
    flags |= MemFence::GLOBAL;
    assert_eq!((flags | MemFence::LOCAL).bits(), 3);
    assert_eq!(MemFence::IMAGE.bits(), 4);
    assert!(flags.contains(MemFence::NONE));
    assert!(!flags.contains(MemFence::LOCAL | MemFence::GLOBAL));
    assert_eq!(format!("{:?}", MemFence::NONE), "MemFence(NONE)");
}

#[group_function]
fn helper_barrier(group: WorkGroup<1>) {
    work_group_barrier(group, MemFence::LOCAL);
}

#[kernel]
fn barrier_in_items_through_a_helper(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| helper_barrier(group));
}

#[cfg(debug_assertions)]
#[test]
fn a_barrier_a_helper_reaches_inside_distribute_items_panics_in_debug_builds() {
    let message = panic_message(|| {
        Queue::new()
            .parallel(1, 4, barrier_in_items_through_a_helper)
            .unwrap()
    });
    assert!(
        message.starts_with("nesting rule 2: `work_group_barrier` is a collective"),
        "{message}"
    );
}

#[kernel]
fn named_wait_inside_distribute_groups(group: WorkGroup<1, 4>) {
    let barrier = work_group_named_barrier(group, 2);
    distribute_groups!(group, |_sg| barrier.wait(MemFence::LOCAL));
}

#[cfg(debug_assertions)]
#[test]
fn a_named_wait_inside_distribute_groups_panics_in_debug_builds() {
    let message = panic_message(|| {
        Queue::new()
            .parallel(1, 8, named_wait_inside_distribute_groups)
            .unwrap()
    });
    assert!(
        message.starts_with(
            "nesting rule 1: `work_group_named_barrier::wait` orders the sub-groups of a work group"
        ),
        "{message}"
    );
}
