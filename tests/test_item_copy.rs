//! `distribute_items!` whose body stages every item's element of a
//! per-item input in local or private memory, `local[lid] = input[idx]`:
//! the lowering copies the group's slice at once where the types allow
//! it, and runs the item loop otherwise. Every kernel here checks what the
//! memory holds afterwards against a serial copy, for each accepted form of
//! the local id and of the input index, for the forms that keep the loop
//! (2-D groups, sub-groups, plain slices, short arrays), and the dispatch
//! itself: which combinations copy.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::__private::{CopyItems as _, ItemCopy, ItemCopyPlace as _, NoItemCopy as _};
use scoped::prelude::*;
use scoped::{inclusive_scan_over_group, plus};

const SIZE: usize = 16;
const GROUPS: usize = 5;

fn input() -> Vec<i32> {
    (0..(SIZE * GROUPS) as i32).map(|v| v * 7 - 100).collect()
}

/// Writes the group's local array to its chunk of the output.
#[group_function]
fn write_out(group: WorkGroup<1>, local: &[i32; SIZE], out: &mut ChunkWindow<'_, i32>) {
    single_item!(group, || out.as_mut_slice().copy_from_slice(local));
}

#[kernel]
fn copy_by_item(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |idx| {
            local[idx.innermost_local_id_dim(0)] = input[idx];
        });
        write_out(group, local, &mut out);
    });
}

#[kernel]
fn copy_by_global_id(
    group: WorkGroup<1>,
    (input, mut out): (ItemsWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items_and_wait!(group, |idx| local[idx.local_id_dim(&group, 0)] =
            input[idx.global_id_dim(0)]);
        write_out(group, local, &mut out);
    });
}

#[kernel]
fn copy_by_linear_ids(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[[i32; SIZE]; 2]>(), |tiles| {
        let row = 1;
        distribute_items!(group, |idx| {
            tiles[row][idx.local_linear_id(&group)] = input[idx.global_linear_id()];
        });
        distribute_items!(group, |idx| {
            tiles[0][idx.innermost_local_linear_id()] = input[idx];
        });
        assert_eq!(tiles[0], tiles[1]);
        write_out(group, &tiles[1], &mut out);
    });
}

/// A local array longer than the group: the copy fills its first
/// `SIZE` elements and leaves the rest as they were.
#[kernel]
fn copy_into_longer(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; SIZE + 3]>(), |local| {
        local[SIZE..].fill(-1);
        distribute_items!(group, |idx| local[idx.innermost_local_id_dim(0)] =
            input[idx]);
        single_item!(group, || out.as_mut_slice().copy_from_slice(&local[..SIZE]));
        assert_eq!(local[SIZE..], [-1; 3]);
    });
}

/// A local array shorter than the group: the item loop runs and panics at
/// the first item without room, as it always did.
#[kernel]
fn copy_into_shorter(group: WorkGroup<1>, input: ItemsRefWindow<'_, i32>) {
    memory_environment!(group, require_local_mem::<[i32; SIZE - 1]>(), |local| {
        distribute_items!(group, |idx| local[idx.innermost_local_id_dim(0)] =
            input[idx]);
    });
}

/// The input is a plain slice (indexed by global id): no window, the loop.
#[kernel]
fn copy_from_slice_input(group: WorkGroup<1>, input: &[i32], mut out: ChunkWindow<'_, i32>) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |idx| local[idx.innermost_local_id_dim(0)] =
            input[idx.global_id_dim(0)]);
        write_out(group, local, &mut out);
    });
}

/// Private memory filled by the copy, then scanned (order matters).
#[kernel]
fn private_scans(
    group: WorkGroup<1>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ItemsWindow<'_, i32>),
) {
    memory_environment!(
        group,
        require_private_mem::<i32>(),
        require_private_mem::<i32>(),
        |x, scanned| {
            distribute_items!(group, |idx| x[idx] = input[idx]);
            inclusive_scan_over_group(group, x, scanned, plus());
            distribute_items!(group, |idx| out[idx] = scanned[idx]);
        }
    );
}

/// Sub-groups copy their items into per-lane arrays (lane id): the loop,
/// since only whole work groups copy.
#[kernel]
fn sub_group_lanes(
    group: WorkGroup<1, 4>,
    (input, mut out): (ItemsRefWindow<'_, i32>, ChunkWindow<'_, i32>),
) {
    distribute_groups!(group, |sub_group| {
        memory_environment!(sub_group, require_local_mem::<[i32; 4]>(), |lanes| {
            distribute_items!(sub_group, |idx| lanes[idx.innermost_local_id_dim(0)] =
                input[idx]);
            let first = sub_group.group_linear_id() * 4;
            single_item!(sub_group, || out.as_mut_slice()[first..first + 4]
                .copy_from_slice(lanes));
        });
    });
}

/// A 2-D group copying its first column's items by row id: the loop.
#[kernel]
fn rows_2d(
    group: WorkGroup<2>,
    (input, mut out): (ItemsRefWindow<'_, i32, 2>, ChunkWindow<'_, i32>),
) {
    memory_environment!(group, require_local_mem::<[i32; 4]>(), |local| {
        distribute_items!(group, |idx| local[idx.innermost_local_id_dim(0)] =
            input[idx]);
        single_item!(group, || out.as_mut_slice().copy_from_slice(local));
    });
}

/// A kernel that stages its group's items and writes them to its chunk.
type Staging = for<'a, 'b> fn(WorkGroup<1>, (ItemsRefWindow<'a, i32>, ChunkWindow<'b, i32>));

/// What `kernel` writes, run over `input`.
fn staged(kernel: Staging, input: &[i32]) -> Vec<i32> {
    let mut out = vec![i32::MIN; input.len()];
    let args = (ItemsRef::new(input), ChunksMut::new(&mut out, SIZE));
    Queue::new()
        .parallel_with(GROUPS, SIZE, args, kernel)
        .unwrap();
    out
}

#[test]
fn copies_by_item_by_global_id_and_by_linear_ids_match_the_input() {
    let input = input();
    for kernel in [
        copy_by_item as Staging,
        copy_by_linear_ids,
        copy_into_longer,
    ] {
        assert_eq!(staged(kernel, &input), input);
    }
    let queue = Queue::new();

    // From an output window read by global id.
    let mut source = input.clone();
    let mut out = vec![i32::MIN; input.len()];
    let args = (ItemsMut::new(&mut source), ChunksMut::new(&mut out, SIZE));
    queue
        .parallel_with(GROUPS, SIZE, args, copy_by_global_id)
        .unwrap();
    assert_eq!(out, input);
    assert_eq!(source, input);
}

#[test]
fn copies_that_keep_the_item_loop_match_the_input() {
    let input = input();
    let queue = Queue::new();
    let mut out = vec![i32::MIN; input.len()];
    queue
        .parallel_with(GROUPS, SIZE, ChunksMut::new(&mut out, SIZE), |g, w| {
            copy_from_slice_input(g, &input, w)
        })
        .unwrap();
    assert_eq!(out, input);

    let mut lanes = vec![i32::MIN; input.len()];
    let args = (ItemsRef::new(&input[..]), ChunksMut::new(&mut lanes, SIZE));
    queue
        .parallel_with(GROUPS, SIZE, args, sub_group_lanes)
        .unwrap();
    assert_eq!(lanes, input);

    // 2-D groups of 4 × 2 over an 8 × 10 grid: each group keeps the first
    // column of its rows, row by row (later columns overwrite: the last).
    let grid: Vec<i32> = (0..80).collect();
    let mut out = vec![i32::MIN; 40];
    let args = (ItemsRef::<i32, 2>::new(&grid), ChunksMut::new(&mut out, 4));
    queue.parallel_with((2, 5), (4, 2), args, rows_2d).unwrap();
    let expected: Vec<i32> = (0..2)
        .flat_map(|gr| (0..5).map(move |gc| (gr, gc)))
        .flat_map(|(gr, gc)| (0..4).map(move |r| (gr * 4 + r) * 10 + gc * 2 + 1))
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn a_local_array_shorter_than_the_group_still_panics_at_the_first_item_without_room() {
    let input = input();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _ = Queue::new().parallel_with(GROUPS, SIZE, ItemsRef::new(&input), copy_into_shorter);
    }));
    let payload = result.expect_err("the launch must panic");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert!(message.contains("index out of bounds"), "{message}");
    assert!(
        message.contains(&format!("the index is {}", SIZE - 1)),
        "{message}"
    );
}

#[test]
fn private_memory_filled_by_the_copy_scans_to_the_serial_prefix_sums() {
    let input = input();
    let mut out = vec![i32::MIN; input.len()];
    let args = (ItemsRef::new(&input), ItemsMut::new(&mut out));
    Queue::new()
        .parallel_with(GROUPS, SIZE, args, private_scans)
        .unwrap();
    let expected: Vec<i32> = input
        .chunks(SIZE)
        .flat_map(|chunk| {
            chunk.iter().scan(0, |running, v| {
                *running += v;
                Some(*running)
            })
        })
        .collect();
    assert_eq!(out, expected);
}

/// Whether the dispatch copies, for each combination, run in a launch:
/// arrays and slices from both windows on 1-D work groups do; anything
/// else does not, and then writes nothing.
#[test]
// The `&` is the dispatch, as in the generated code: without it the
// fallback (implemented for `&ItemCopy`) is out of the method's reach.
#[allow(clippy::needless_borrow)]
fn the_dispatch_copies_only_what_the_loop_would_write() {
    let input = input();
    let mut outcomes = vec![[false; 6]; GROUPS];
    let args = (ItemsRef::new(&input), ChunksMut::new(&mut outcomes, 1));
    Queue::new()
        .parallel_with(
            GROUPS,
            SIZE,
            args,
            |group: WorkGroup<1>, (window, mut out)| {
                let mut array = [0; SIZE];
                let mut vector = vec![0; SIZE];
                let mut short = [0; SIZE - 1];
                let mut slice = [0; SIZE + 1];
                let plain: &[i32] = &input;
                let copied = [
                    (&ItemCopy::new(array.__item_copy_place(), &window)).__copy_items(&group),
                    (&ItemCopy::new(slice[..].__item_copy_place(), &window)).__copy_items(&group),
                    (&ItemCopy::new(vector.__item_copy_place(), &window)).__copy_items(&group),
                    (&ItemCopy::new(short.__item_copy_place(), &window)).__copy_items(&group),
                    (&ItemCopy::new(array.__item_copy_place(), &plain)).__copy_items(&group),
                    {
                        let mut in_sub_group = false;
                        scoped::__private::distribute_groups(&group, |sub_group| {
                            let mut lanes = [0; SIZE];
                            in_sub_group |= (&ItemCopy::new(lanes.__item_copy_place(), &window))
                                .__copy_items(&sub_group);
                        });
                        in_sub_group
                    },
                ];
                let first = group.group_linear_id() * SIZE;
                assert_eq!(array[..], input[first..first + SIZE]);
                assert_eq!(slice[..SIZE], input[first..first + SIZE]);
                assert_eq!(
                    (vector, short, slice[SIZE]),
                    (vec![0; SIZE], [0; SIZE - 1], 0)
                );
                out[group.group_linear_id()] = copied;
            },
        )
        .unwrap();
    for copied in outcomes {
        assert_eq!(copied, [true, true, false, false, false, false]);
    }
}

/// Stages the group's items in `local`: a copy body, in a helper.
#[group_function]
fn stage(group: WorkGroup<1>, local: &mut [i32; SIZE], input: ItemsRefWindow<'_, i32>) {
    distribute_items!(group, |idx| local[idx.innermost_local_id_dim(0)] =
        input[idx]);
}

/// Calls the helper inside `distribute_items!`: breaks rule 2 at run time.
#[kernel]
fn stage_in_distribute_items(group: WorkGroup<1>, input: ItemsRefWindow<'_, i32>) {
    memory_environment!(group, require_local_mem::<[i32; SIZE]>(), |local| {
        distribute_items!(group, |_idx| {
            let mut staged = [0; SIZE];
            stage(group, &mut staged, input);
            local[0] += staged[0];
        });
    });
}

#[test]
fn a_copy_reached_inside_distribute_items_panics_with_rule_2() {
    let input = input();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _ = Queue::new().parallel_with(
            GROUPS,
            SIZE,
            ItemsRef::new(&input),
            stage_in_distribute_items,
        );
    }));
    let payload = result.expect_err("the launch must panic");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert!(
        message.starts_with("nesting rule 2: `distribute_items!`"),
        "{message}"
    );
}
