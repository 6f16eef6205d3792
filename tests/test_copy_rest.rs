//! `distribute_items!` bodies that start with a staging copy,
//! `local[lid] = input[idx]`, and go on: the lowering copies the group's
//! slice at once and runs the rest as its own item loop where the rest
//! reaches the local memory and the input only at the item's own element,
//! and keeps the one item loop otherwise. Every kernel here checks what
//! the item loop computes, written out serially: the split forms, a body
//! that reads another item's element (which must see that element before
//! that item's copy, as the loop does), and a split form on sub-groups,
//! where no copy runs.

use scoped::prelude::*;

const SIZE: usize = 16;
const GROUPS: usize = 5;

fn input() -> Vec<i32> {
    (0..(SIZE * GROUPS) as i32).map(|v| v * 7 - 100).collect()
}

/// The spec's staging: local memory and private memory from the input,
/// then the rest updates both at the item's own element.
#[kernel]
fn stage_and_scale(
    group: WorkGroup<1>,
    (input, mut local_out, mut private_out): (
        ItemsRefWindow<'_, i32>,
        ChunkWindow<'_, i32>,
        ItemsWindow<'_, i32>,
    ),
) {
    memory_environment!(
        group,
        require_local_mem::<[i32; SIZE]>(),
        require_private_mem::<i32>(),
        |local, private| {
            distribute_items!(group, |idx| {
                local[idx.local_id_dim(&group, 0)] = input[idx.global_id_dim(0)];
                private[idx] = local[idx.local_id_dim(&group, 0)] * 3 + input[idx];
                local[idx.innermost_local_linear_id()] += 1;
            });
            distribute_items!(group, |idx| private_out[idx] = private[idx]);
            single_item!(group, || local_out.as_mut_slice().copy_from_slice(local));
        }
    );
}

/// The input is a window the rest writes back at the item's own element.
#[kernel]
fn stage_and_overwrite(
    group: WorkGroup<1>,
    (mut data, mut staged): (ItemsWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |idx| {
            local[idx.innermost_local_id_dim(0)] = data[idx.global_id_dim(0)];
            data[idx.global_id_dim(0)] = -local[idx.innermost_local_id_dim(0)];
        });
        single_item!(group, || staged.as_mut_slice().copy_from_slice(local));
    });
}

/// The rest reads the next item's element: item `l` sees it before item
/// `l + 1` has copied it (zero), the last item sees item 0's copy.
#[kernel]
fn stage_and_read_the_next(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ItemsWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |idx| {
            let lid = idx.innermost_local_id_dim(0);
            local[lid] = input[idx];
            out[idx] = local[(lid + 1) % SIZE];
        });
    });
}

/// The same first statement with the next element read right after it.
#[kernel]
fn copy_then_read_the_next(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ItemsWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |idx| {
            local[idx.innermost_local_id_dim(0)] = input[idx];
            out[idx] = local[(idx.innermost_local_id_dim(0) + 1) % SIZE];
        });
    });
}

/// A split form on sub-groups of 4, which never copy: the item loop.
#[kernel]
fn sub_groups_stage_and_scale(
    group: WorkGroup<1, 4>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ItemsWindow<'_, i32>),
) {
    distribute_groups!(group, |sub_group| {
        memory_environment!(sub_group, require_local_mem::<[i32; 4]>(), |lanes| {
            distribute_items!(sub_group, |idx| {
                lanes[idx.innermost_local_id_dim(0)] = input[idx];
                out[idx] = lanes[idx.innermost_local_id_dim(0)] * 2;
            });
        });
    });
}

#[test]
fn split_bodies_match_the_serial_loop() {
    let input = input();
    let queue = Queue::new();
    let (mut local, mut private) = (vec![i32::MIN; input.len()], vec![i32::MIN; input.len()]);
    let args = (
        ItemsRef::new(&input),
        ChunksMut::new(&mut local, SIZE),
        ItemsMut::new(&mut private),
    );
    queue
        .parallel_with(GROUPS, SIZE, args, stage_and_scale)
        .unwrap();
    let expected_local: Vec<i32> = input.iter().map(|v| v + 1).collect();
    let expected_private: Vec<i32> = input.iter().map(|v| v * 3 + v).collect();
    assert_eq!(local, expected_local);
    assert_eq!(private, expected_private);

    let mut data = input.clone();
    let mut staged = vec![i32::MIN; input.len()];
    let args = (ItemsMut::new(&mut data), ChunksMut::new(&mut staged, SIZE));
    queue
        .parallel_with(GROUPS, SIZE, args, stage_and_overwrite)
        .unwrap();
    assert_eq!(staged, input);
    assert_eq!(data, input.iter().map(|v| -v).collect::<Vec<_>>());

    let mut out = vec![i32::MIN; input.len()];
    let args = (ItemsRef::new(&input[..]), ItemsMut::new(&mut out));
    queue
        .parallel_with(GROUPS, SIZE, args, sub_groups_stage_and_scale)
        .unwrap();
    assert_eq!(out, input.iter().map(|v| v * 2).collect::<Vec<_>>());
}

#[test]
fn a_body_that_reads_another_items_element_sees_it_as_the_loop_does() {
    let input = input();
    let expected: Vec<i32> = input
        .chunks(SIZE)
        .flat_map(|chunk| {
            // Local memory starts zeroed; only item 0's copy precedes the
            // last item's read.
            (0..SIZE).map(|l| if l == SIZE - 1 { chunk[0] } else { 0 })
        })
        .collect();
    for kernel in [stage_and_read_the_next, copy_then_read_the_next] {
        let mut out = vec![i32::MIN; input.len()];
        let args = (ItemsRef::new(&input), ItemsMut::new(&mut out));
        Queue::new()
            .parallel_with(GROUPS, SIZE, args, kernel)
            .unwrap();
        assert_eq!(out, expected);
    }
}
