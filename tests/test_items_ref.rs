//! `ItemsRef`: read-only inputs, checked once at launch, read by item and
//! by global id, against serial references.

use scoped::prelude::*;
use scoped::LaunchError;

#[kernel]
fn copy_doubled(
    group: WorkGroup<2>,
    input: ItemsRefWindow<'_, i64, 2>,
    mut out: ItemsWindow<'_, i64, 2>,
) {
    distribute_groups!(group, |sub_group| {
        distribute_items!(sub_group, |idx| out[idx] = 2 * input[idx]);
    });
}

#[kernel]
fn neighbour_sum(
    group: WorkGroup<2>,
    input: ItemsRefWindow<'_, i64, 2>,
    mut out: ItemsWindow<'_, i64, 2>,
) {
    distribute_items!(group, |idx| {
        let [r, c] = idx.global_id().to_array();
        let range = idx.global_range();
        let mut sum = input[idx];
        if r + 1 < range[0] {
            sum += input[Id::new([r + 1, c])];
        }
        if c > 0 {
            sum += input[Id::new([r, c - 1])];
        }
        out[idx] = sum;
    });
}

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

#[test]
fn items_read_their_own_element_in_sub_groups() {
    let (groups, size) = ([3, 2], [5, 13]);
    let (rows, cols) = (15, 26);
    let input = values(rows * cols);
    let mut out = vec![0i64; rows * cols];
    Queue::new()
        .parallel_with(
            groups,
            size,
            (ItemsRef::new(&input), ItemsMut::new(&mut out)),
            |g, (i, o)| copy_doubled(g, i, o),
        )
        .unwrap();
    let expected: Vec<i64> = input.iter().map(|x| 2 * x).collect();
    assert_eq!(out, expected);
}

#[test]
fn global_ids_reach_other_groups_elements() {
    let (rows, cols) = (12, 10);
    let input = values(rows * cols);
    let mut out = vec![0i64; rows * cols];
    Queue::new()
        .parallel_with(
            [3, 5],
            [4, 2],
            (ItemsRef::new(&input), ItemsMut::new(&mut out)),
            |g, (i, o)| neighbour_sum(g, i, o),
        )
        .unwrap();
    for r in 0..rows {
        for c in 0..cols {
            let mut sum = input[r * cols + c];
            if r + 1 < rows {
                sum += input[(r + 1) * cols + c];
            }
            if c > 0 {
                sum += input[r * cols + c - 1];
            }
            assert_eq!(out[r * cols + c], sum, "at ({r}, {c})");
        }
    }
}

#[test]
fn short_input_is_refused_before_anything_runs() {
    let input = values(99);
    let mut out = vec![-1i64; 100];
    let err = Queue::new()
        .parallel_with(
            10,
            10,
            (ItemsMut::new(&mut out), ItemsRef::<i64>::new(&input)),
            |_g: WorkGroup<1>, _| panic!("must not run"),
        )
        .unwrap_err();
    assert_eq!(
        err,
        LaunchError::OutputTooShort {
            position: 1,
            view: "ItemsRef",
            len: 99,
            needed: 100,
            covers: "100 logical items".into()
        }
    );
    assert!(err.to_string().contains("99"), "{err}");
    assert!(out.iter().all(|&x| x == -1));
}

#[kernel]
fn read_outside(group: WorkGroup<1>, input: ItemsRefWindow<'_, i64>) {
    single_item!(group, || {
        let _ = input[Id::new([input.as_slice().len() + 3])];
    });
}

#[test]
#[should_panic(
    expected = "ItemsRef: global id 23 is not an item of this group (of this launch) or is outside \
                the launch's range 20"
)]
fn ids_outside_the_launch_panic() {
    let input = values(20);
    Queue::new()
        .parallel_with(2, 10, ItemsRef::new(&input), read_outside)
        .unwrap();
}

#[test]
fn group_slice_is_the_groups_items() {
    let input = values(40);
    let mut firsts = vec![0i64; 4];
    Queue::new()
        .parallel_with(
            4,
            10,
            (ItemsRef::new(&input), ChunksMut::new(&mut firsts, 1)),
            |g: WorkGroup<1>, (i, mut f)| {
                f[g.group_linear_id()] = i.group_slice().iter().sum();
            },
        )
        .unwrap();
    let expected: Vec<i64> = input.chunks(10).map(|c| c.iter().sum()).collect();
    assert_eq!(firsts, expected);
}

/// Reads the group's items on another thread: the window is sent there
/// (`Send`) and shared by reference with a second one (`Sync`).
#[kernel]
fn sum_on_other_threads(
    group: WorkGroup<1>,
    input: ItemsRefWindow<'_, i64>,
    mut sums: ChunkWindow<'_, i64>,
) {
    // Shared by the logical items: a `RefCell`, as rule 4 asks.
    let items = std::cell::RefCell::new(Vec::new());
    distribute_items!(group, |idx| items.borrow_mut().push(idx));
    let items = items.into_inner();
    let (moved, shared) = std::thread::scope(|s| {
        let moved = s.spawn(move || items.iter().map(|&i| input[i]).sum::<i64>());
        let window = &input;
        let shared = s.spawn(move || {
            (0..window.range()[0])
                .map(|k| window[window.first()[0] + k])
                .sum::<i64>()
        });
        (moved.join().unwrap(), shared.join().unwrap())
    });
    assert_eq!(moved, shared);
    sums[2 * group.group_linear_id()] = moved;
    sums[2 * group.group_linear_id() + 1] = shared;
}

#[test]
fn windows_are_read_from_other_threads() {
    let input = values(36);
    let mut sums = vec![0i64; 6];
    Queue::new()
        .parallel_with(
            3,
            12,
            (ItemsRef::new(&input), ChunksMut::new(&mut sums, 2)),
            |g, (i, s)| sum_on_other_threads(g, i, s),
        )
        .unwrap();
    let expected: Vec<i64> = input
        .chunks(12)
        .flat_map(|c| [c.iter().sum(), c.iter().sum()])
        .collect();
    assert_eq!(sums, expected);
}

#[kernel]
fn group_sums<T: Copy + Into<i64> + Send + Sync>(
    group: WorkGroup<1>,
    (input, mut sums): (ItemsRefWindow<'_, T>, ChunkWindow<'_, i64>),
) {
    memory_environment!(group, require_local_mem::<[i64; 1]>(), |total| {
        distribute_items!(group, |idx| total[0] += input[idx].into());
        single_item!(group, || sums[group.group_linear_id()] = total[0]);
    });
}

/// Sums per group of an input exactly as long as the launch, for group
/// sizes whose next group's elements the window fetches ahead (the last
/// group's fetch points past the input) and sizes where it does not.
fn check_group_sums<T: Copy + Into<i64> + Send + Sync>(make: impl Fn(usize) -> T) {
    for size in [1, 3, 64, 65, 200, 512, 513] {
        let groups = 5;
        let input: Vec<T> = (0..groups * size).map(&make).collect();
        let mut sums = vec![0i64; groups];
        Queue::new()
            .parallel_with(
                groups,
                size,
                (ItemsRef::new(&input), ChunksMut::new(&mut sums, 1)),
                |g, args| group_sums(g, args),
            )
            .unwrap();
        let expected: Vec<i64> = input
            .chunks(size)
            .map(|chunk| chunk.iter().map(|&x| x.into()).sum())
            .collect();
        assert_eq!(sums, expected, "group size {size}");
    }
}

#[test]
fn small_and_large_groups_read_their_items_to_the_inputs_end() {
    check_group_sums(|i| (i % 251) as u8);
    check_group_sums(|i| (i as i64 * 7919) % 1009 - 500);
}
