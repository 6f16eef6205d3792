//! Launching: validation of the launch parameters before anything runs
//! (each error variant, its message, and output left untouched), queues,
//! every work group run exactly once, panics reaching the caller, and the
//! bounds checks of the per-group output windows.

use std::any::Any;
use std::error::Error;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

use scoped::prelude::*;
use scoped::{LaunchError, LaunchShape};

/// Row-major linear id of `id` in `range`.
fn linear<const D: usize>(range: [usize; D], id: [usize; D]) -> usize {
    (0..D).fold(0, |acc, d| acc * range[d] + id[d])
}

fn counters(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// The message of a panic payload.
fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<not a string>".to_string()
    }
}

// ---------------------------------------------------------------------------
// Launch errors: exact variant, message naming the value, nothing run or
// written.

/// Runs a 1-D launch with an `ItemsMut` over `out` and a kernel that
/// writes 1 everywhere and counts its groups.
fn launch_items_1d(
    num_groups: usize,
    group_size: usize,
    out: &mut [i32],
    runs: &AtomicUsize,
) -> Result<(), LaunchError> {
    Queue::new().parallel_with(
        num_groups,
        group_size,
        ItemsMut::new(out),
        |_g: WorkGroup<1>, mut w| {
            runs.fetch_add(1, Ordering::Relaxed);
            w.as_mut_slice().fill(1);
        },
    )
}

fn launch_items_3d(
    num_groups: (usize, usize, usize),
    group_size: (usize, usize, usize),
    out: &mut [i32],
    runs: &AtomicUsize,
) -> Result<(), LaunchError> {
    Queue::new().parallel_with(
        num_groups,
        group_size,
        ItemsMut::new(out),
        |g: WorkGroup<3>, mut w| {
            runs.fetch_add(1, Ordering::Relaxed);
            let first = w.first();
            w[first] = 1;
            let _ = g;
        },
    )
}

/// Checks that the launch was refused with `expected`, that its message
/// contains every one of `mentions`, and that nothing ran or was written.
fn assert_refused(
    result: Result<(), LaunchError>,
    expected: LaunchError,
    mentions: &[&str],
    out: &[i32],
    runs: &AtomicUsize,
) {
    let err = result.expect_err("the launch must be refused");
    assert_eq!(err, expected);
    let text = err.to_string();
    for m in mentions {
        assert!(text.contains(m), "message {text:?} does not mention {m:?}");
    }
    assert_eq!(runs.load(Ordering::Relaxed), 0, "no group may run");
    assert!(out.iter().all(|&v| v == 0), "nothing may be written");
    // It is a std error, usable with `?` into `Box<dyn Error>`.
    let boxed: Box<dyn Error> = Box::new(err);
    assert_eq!(boxed.to_string(), text);
}

#[test]
fn zero_num_groups_1d() {
    let (mut out, runs) = (vec![0; 64], AtomicUsize::new(0));
    let result = launch_items_1d(0, 8, &mut out, &runs);
    let expected = LaunchError::ZeroRange {
        name: "num_groups",
        range: "0".into(),
    };
    assert_refused(result, expected, &["num_groups = 0", "zero"], &out, &runs);
}

#[test]
fn zero_group_size_1d() {
    let (mut out, runs) = (vec![0; 64], AtomicUsize::new(0));
    let result = launch_items_1d(8, 0, &mut out, &runs);
    let expected = LaunchError::ZeroRange {
        name: "group_size",
        range: "0".into(),
    };
    assert_refused(result, expected, &["group_size = 0"], &out, &runs);
}

#[test]
fn zero_num_groups_3d() {
    let (mut out, runs) = (vec![0; 64], AtomicUsize::new(0));
    let result = launch_items_3d((2, 0, 3), (1, 2, 2), &mut out, &runs);
    let expected = LaunchError::ZeroRange {
        name: "num_groups",
        range: "[2, 0, 3]".into(),
    };
    assert_refused(result, expected, &["num_groups = [2, 0, 3]"], &out, &runs);
}

#[test]
fn zero_group_size_3d() {
    let (mut out, runs) = (vec![0; 64], AtomicUsize::new(0));
    let result = launch_items_3d((2, 1, 3), (7, 5, 0), &mut out, &runs);
    let expected = LaunchError::ZeroRange {
        name: "group_size",
        range: "[7, 5, 0]".into(),
    };
    assert_refused(result, expected, &["group_size = [7, 5, 0]"], &out, &runs);
}

#[test]
fn zero_range_is_reported_before_short_output() {
    let (mut out, runs) = (vec![0; 0], AtomicUsize::new(0));
    let result = launch_items_1d(0, 0, &mut out, &runs);
    let expected = LaunchError::ZeroRange {
        name: "num_groups",
        range: "0".into(),
    };
    assert_refused(result, expected, &["num_groups = 0"], &out, &runs);
}

#[test]
fn overflowing_global_range_1d() {
    let (mut out, runs) = (vec![0; 16], AtomicUsize::new(0));
    let result = launch_items_1d(usize::MAX, 2, &mut out, &runs);
    let expected = LaunchError::Overflow {
        num_groups: usize::MAX.to_string(),
        group_size: "2".into(),
    };
    let groups = format!("num_groups = {}", usize::MAX);
    assert_refused(
        result,
        expected,
        &[&groups, "group_size = 2", "overflows"],
        &out,
        &runs,
    );
}

#[test]
fn overflowing_item_count_3d() {
    // Every dimension fits, the product does not.
    let (mut out, runs) = (vec![0; 16], AtomicUsize::new(0));
    let big = 1 << (usize::BITS / 3 + 1);
    let result = launch_items_3d((big, big, big), (1, 1, 1), &mut out, &runs);
    let expected = LaunchError::Overflow {
        num_groups: format!("[{big}, {big}, {big}]"),
        group_size: "[1, 1, 1]".into(),
    };
    let groups = format!("num_groups = [{big}, {big}, {big}]");
    assert_refused(
        result,
        expected,
        &[&groups, "group_size = [1, 1, 1]"],
        &out,
        &runs,
    );
}

#[test]
fn overflowing_dimension_3d() {
    let (mut out, runs) = (vec![0; 16], AtomicUsize::new(0));
    let result = launch_items_3d((1, usize::MAX / 2 + 1, 1), (1, 2, 1), &mut out, &runs);
    assert!(matches!(result, Err(LaunchError::Overflow { .. })));
    assert_eq!(runs.load(Ordering::Relaxed), 0);
}

#[test]
fn items_mut_shorter_than_the_launch() {
    let (mut out, runs) = (vec![0; 99], AtomicUsize::new(0));
    let result = launch_items_1d(10, 10, &mut out, &runs);
    let expected = LaunchError::OutputTooShort {
        position: 0,
        view: "ItemsMut",
        len: 99,
        needed: 100,
        covers: "100 logical items".into(),
    };
    assert_refused(
        result,
        expected,
        &["ItemsMut", "99 elements", "needs 100"],
        &out,
        &runs,
    );
}

#[test]
fn items_mut_shorter_than_a_3d_launch() {
    let needed = 3 * 2 * 2 * 7 * 5 * 3;
    let (mut out, runs) = (vec![0; needed - 1], AtomicUsize::new(0));
    let result = launch_items_3d((3, 2, 2), (7, 5, 3), &mut out, &runs);
    let expected = LaunchError::OutputTooShort {
        position: 0,
        view: "ItemsMut",
        len: needed - 1,
        needed,
        covers: format!("{needed} logical items"),
    };
    let has = format!("{} elements", needed - 1);
    assert_refused(result, expected, &[&has], &out, &runs);
}

fn launch_chunks(
    num_groups: usize,
    per_group: usize,
    out: &mut [i32],
    runs: &AtomicUsize,
) -> Result<(), LaunchError> {
    Queue::new().parallel_with(
        num_groups,
        5,
        ChunksMut::new(out, per_group),
        |_g: WorkGroup<1>, mut w| {
            runs.fetch_add(1, Ordering::Relaxed);
            w.as_mut_slice().fill(1);
        },
    )
}

#[test]
fn chunks_mut_shorter_than_the_launch() {
    let (mut out, runs) = (vec![0; 11], AtomicUsize::new(0));
    let result = launch_chunks(3, 4, &mut out, &runs);
    let expected = LaunchError::OutputTooShort {
        position: 0,
        view: "ChunksMut",
        len: 11,
        needed: 12,
        covers: "3 work groups of 4 elements".into(),
    };
    assert_refused(
        result,
        expected,
        &["ChunksMut", "11 elements", "needs 12", "3 work groups of 4"],
        &out,
        &runs,
    );
}

#[test]
fn chunks_mut_with_per_group_zero() {
    let (mut out, runs) = (vec![0; 12], AtomicUsize::new(0));
    let result = launch_chunks(3, 0, &mut out, &runs);
    let expected = LaunchError::EmptyChunks { position: 0 };
    assert_refused(result, expected, &["per_group = 0"], &out, &runs);
}

#[test]
fn chunks_mut_whose_need_overflows() {
    let (mut out, runs) = (vec![0; 12], AtomicUsize::new(0));
    let result = launch_chunks(3, usize::MAX / 2, &mut out, &runs);
    assert!(
        matches!(
            result,
            Err(LaunchError::OutputTooShort {
                view: "ChunksMut",
                len: 12,
                ..
            })
        ),
        "{result:?}"
    );
    assert_eq!(runs.load(Ordering::Relaxed), 0);
    assert!(out.iter().all(|&v| v == 0));
}

#[test]
fn a_bad_view_in_a_tuple_is_named_by_position_and_nothing_is_written() {
    let mut items = vec![0; 20];
    let mut chunks = vec![0; 3];
    let runs = AtomicUsize::new(0);
    let result = Queue::new().parallel_with(
        4,
        5,
        (ItemsMut::new(&mut items), ChunksMut::new(&mut chunks, 1)),
        |_g: WorkGroup<1>, (mut i, mut c)| {
            runs.fetch_add(1, Ordering::Relaxed);
            i.as_mut_slice().fill(1);
            c.as_mut_slice().fill(1);
        },
    );
    let expected = LaunchError::OutputTooShort {
        position: 1,
        view: "ChunksMut",
        len: 3,
        needed: 4,
        covers: "4 work groups of 1 elements".into(),
    };
    assert_refused(result, expected, &["argument 1"], &items, &runs);
    assert_eq!(chunks, vec![0; 3]);
}

#[test]
fn launch_shape_is_checked_and_computes_the_global_range() {
    let shape = LaunchShape::new(Range::new([3, 2, 2]), Range::new([7, 5, 3])).unwrap();
    assert_eq!(shape.global_range, Range::new([21, 10, 6]));
    assert_eq!(shape.num_groups, Range::new([3, 2, 2]));
    assert_eq!(shape.group_size, Range::new([7, 5, 3]));
    assert!(LaunchShape::new(Range::new([1]), Range::new([0])).is_err());
}

#[test]
fn queue_with_zero_threads_is_an_error() {
    let err = Queue::with_threads(0).expect_err("zero threads");
    let text = err.to_string();
    assert!(text.contains("0 threads"), "{text}");
    let boxed: Box<dyn Error> = Box::new(err);
    assert_eq!(boxed.to_string(), text);
}

#[test]
fn queues_report_their_threads() {
    let two = Queue::with_threads(2).unwrap();
    assert_eq!(two.num_threads(), 2);
    assert_eq!(two.clone().num_threads(), 2);
    assert!(format!("{two:?}").contains("threads: 2"));
    assert_eq!(Queue::new().num_threads(), rayon::current_num_threads());
    assert_eq!(Queue::default().num_threads(), rayon::current_num_threads());
}

// ---------------------------------------------------------------------------
// Every group exactly once.

fn check_every_group_once(queue: &Queue, num_groups: [usize; 3], group_size: [usize; 3]) {
    let groups: usize = num_groups.iter().product();
    let counts = counters(groups);
    let wrong = AtomicUsize::new(0);
    queue
        .parallel(num_groups, group_size, |g: WorkGroup<3>| {
            let id = g.group_id().to_array();
            let position = linear(num_groups, id);
            if g.group_linear_id() != position
                || g.group_range() != Range::new(num_groups)
                || g.logical_local_range() != Range::new(group_size)
            {
                wrong.fetch_add(1, Ordering::Relaxed);
            }
            counts[position].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(wrong.into_inner(), 0);
    for (g, c) in counts.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "group {g}");
    }
}

#[test]
fn every_group_runs_exactly_once() {
    check_every_group_once(&Queue::new(), [4, 3, 5], [2, 1, 3]);
    check_every_group_once(&Queue::with_threads(1).unwrap(), [3, 2, 2], [7, 5, 3]);
    check_every_group_once(&Queue::with_threads(2).unwrap(), [5, 7, 3], [1, 1, 1]);
}

#[test]
fn one_by_one_launch_runs_once() {
    let runs = AtomicUsize::new(0);
    Queue::new()
        .parallel(1, 1, |g: WorkGroup<1>| {
            assert_eq!(g.group_id(), Id::zero());
            runs.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(runs.into_inner(), 1);
}

// ---------------------------------------------------------------------------
// Panics reach the caller; the queue stays usable.

/// Panics in group `bad`, inside a collective when `inside` is set, and
/// otherwise sums its items into its chunk.
#[kernel]
fn sum_or_panic(group: WorkGroup<1>, bad: usize, inside: bool, mut sums: ChunkWindow<'_, usize>) {
    let g = group.group_linear_id();
    if g == bad && !inside {
        panic!("work group {g} gave up");
    }
    memory_environment!(
        group,
        require_local_mem::<usize>(),
        require_private_mem::<usize>(),
        |total, private| {
            distribute_items!(group, |idx| {
                if g == bad {
                    panic!("item {} of work group {g} gave up", idx.global_linear_id());
                }
                private[idx] = idx.global_linear_id();
            });
            distribute_groups!(group, |sub| {
                single_item!(sub, || {});
            });
            distribute_items!(group, |idx| {
                *total += private[idx];
            });
            single_item!(group, || {
                sums[g] = *total;
            });
        }
    );
}

fn run_sums(queue: &Queue, groups: usize, bad: usize, inside: bool) -> Vec<usize> {
    let size = 13;
    let mut sums = vec![0; groups];
    queue
        .parallel_with(groups, size, ChunksMut::new(&mut sums, 1), |g, w| {
            sum_or_panic(g, bad, inside, w)
        })
        .unwrap();
    sums
}

fn check_panic_then_recovery(queue: &Queue, inside: bool) {
    let (groups, size) = (16, 13);
    let caught = catch_unwind(AssertUnwindSafe(|| run_sums(queue, groups, 5, inside)))
        .expect_err("the group's panic must reach the caller");
    let text = message(caught.as_ref());
    if inside {
        assert_eq!(text, "item 65 of work group 5 gave up");
    } else {
        assert_eq!(text, "work group 5 gave up");
    }
    // The same queue, and the same threads, run a correct launch after.
    for _ in 0..2 {
        let sums = run_sums(queue, groups, usize::MAX, false);
        let expected: Vec<usize> = (0..groups)
            .map(|g| (g * size..(g + 1) * size).sum())
            .collect();
        assert_eq!(sums, expected);
    }
}

#[test]
fn panic_in_a_group_reaches_the_caller_and_the_queue_recovers() {
    check_panic_then_recovery(&Queue::new(), false);
    check_panic_then_recovery(&Queue::with_threads(2).unwrap(), false);
}

#[test]
fn panic_inside_distribute_items_reaches_the_caller_and_the_queue_recovers() {
    // One thread: the recovery launch runs its collectives on the thread
    // that unwound out of `distribute_items!`.
    check_panic_then_recovery(&Queue::with_threads(1).unwrap(), true);
    check_panic_then_recovery(&Queue::with_threads(2).unwrap(), true);
    check_panic_then_recovery(&Queue::new(), true);
}

// ---------------------------------------------------------------------------
// Output windows.

#[test]
fn items_window_covers_exactly_the_group_items() {
    let (groups, size) = (4, 10);
    let mut out = vec![0usize; groups * size + 3];
    Queue::new()
        .parallel_with(
            groups,
            size,
            ItemsMut::new(&mut out),
            |g: WorkGroup<1>, mut w| {
                let first = g.group_linear_id() * size;
                assert_eq!(w.first(), Id::new([first]));
                assert_eq!(w.range(), Range::new([size]));
                assert!(w.contains(Id::new([first])));
                assert!(w.contains(Id::new([first + size - 1])));
                assert!(!w.contains(Id::new([first + size])));
                assert!(first == 0 || !w.contains(Id::new([first - 1])));
                assert_eq!(w.as_slice().len(), size);
                for (i, v) in w.as_mut_slice().iter_mut().enumerate() {
                    *v = first + i;
                }
                w[first] += 1000;
                w[Id::new([first + 1])] += 2000;
            },
        )
        .unwrap();
    for (i, &v) in out.iter().enumerate() {
        let expected = match i {
            i if i >= groups * size => 0,
            i if i % size == 0 => i + 1000,
            i if i % size == 1 => i + 2000,
            i => i,
        };
        assert_eq!(v, expected, "element {i}");
    }
}

#[test]
fn items_window_in_3d_is_indexed_by_global_id() {
    let (num_groups, group_size) = ([3, 2, 2], [7, 5, 3]);
    let global = [21, 10, 6];
    let mut out = vec![usize::MAX; 21 * 10 * 6];
    Queue::new()
        .parallel_with(
            num_groups,
            group_size,
            ItemsMut::new(&mut out),
            |g: WorkGroup<3>, mut w| {
                let origin = w.first().to_array();
                assert_eq!(origin, std::array::from_fn(|d| g[d] * group_size[d]));
                for i in 0..7 {
                    for j in 0..5 {
                        for k in 0..3 {
                            let gid = [origin[0] + i, origin[1] + j, origin[2] + k];
                            w[Id::new(gid)] = g.group_linear_id();
                        }
                    }
                }
            },
        )
        .unwrap();
    for x in 0..21 {
        for y in 0..10 {
            for z in 0..6 {
                let group = linear(num_groups, [x / 7, y / 5, z / 3]);
                assert_eq!(out[linear(global, [x, y, z])], group, "[{x}, {y}, {z}]");
            }
        }
    }
}

#[test]
fn chunk_window_covers_exactly_the_group_chunk() {
    let (groups, per_group) = (5, 3);
    let mut out = vec![0usize; groups * per_group + 2];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(
            (groups, 1),
            (2, 2),
            ChunksMut::new(&mut out, per_group),
            |g: WorkGroup<2>, mut w| {
                let start = g.group_linear_id() * per_group;
                assert_eq!(w.start(), start);
                assert_eq!(w.len(), per_group);
                assert!(!w.is_empty());
                assert_eq!(
                    format!("{w:?}"),
                    format!("ChunkWindow({start}..{})", start + per_group)
                );
                for i in start..start + per_group {
                    w[i] = 10 * g.group_linear_id() + i;
                }
                w.as_mut_slice()[0] += 100;
                assert_eq!(w.as_slice()[0], w[start]);
            },
        )
        .unwrap();
    for (i, &v) in out.iter().enumerate() {
        let g = i / per_group;
        let expected = if g >= groups {
            0
        } else {
            10 * g + i + if i % per_group == 0 { 100 } else { 0 }
        };
        assert_eq!(v, expected, "element {i}");
    }
}

#[test]
#[should_panic(
    expected = "global id 0 is outside this work group's window of ItemsMut \
                           (global ids 10 ..= 19)"
)]
fn items_window_write_to_another_group_panics() {
    let mut out = vec![0; 20];
    Queue::new()
        .parallel_with(2, 10, ItemsMut::new(&mut out), |g: WorkGroup<1>, mut w| {
            if g.group_linear_id() == 1 {
                w[0] = 1;
            }
        })
        .unwrap();
}

#[test]
#[should_panic(
    expected = "global id 10 is outside this work group's window of ItemsMut \
                           (global ids 0 ..= 9)"
)]
fn items_window_read_past_the_group_panics() {
    let mut out = vec![0; 20];
    Queue::new()
        .parallel_with(2, 10, ItemsMut::new(&mut out), |g: WorkGroup<1>, w| {
            if g.group_linear_id() == 0 {
                let _ = w[10];
            }
        })
        .unwrap();
}

#[test]
#[should_panic(
    expected = "global id [7, 4] is outside this work group's window of ItemsMut \
                           (global ids [0, 0] ..= [6, 4])"
)]
fn items_window_2d_write_outside_panics() {
    let mut out = vec![0; 2 * 35];
    Queue::new()
        .parallel_with(
            (2, 1),
            (7, 5),
            ItemsMut::new(&mut out),
            |g: WorkGroup<2>, mut w| {
                if g.group_linear_id() == 0 {
                    w[Id::new([7, 4])] = 1;
                }
            },
        )
        .unwrap();
}

#[kernel]
fn write_past_chunk(group: WorkGroup<1>, mut out: ChunkWindow<'_, u8>) {
    single_item!(group, || {
        if group.group_linear_id() == 1 {
            let end = out.start() + out.len();
            out[end] = 1;
        }
    });
}

#[test]
#[should_panic(expected = "index 8 is outside this work group's chunk 4..8 of ChunksMut")]
fn chunk_window_write_past_the_chunk_panics() {
    let mut out = vec![0u8; 12];
    Queue::new()
        .parallel_with(3, 2, ChunksMut::new(&mut out, 4), write_past_chunk)
        .unwrap();
}

#[test]
#[should_panic(expected = "index 1 is outside this work group's chunk 2..4 of ChunksMut")]
fn chunk_window_read_before_the_chunk_panics() {
    let mut out = vec![0u8; 6];
    Queue::new()
        .parallel_with(3, 2, ChunksMut::new(&mut out, 2), |g: WorkGroup<1>, w| {
            if g.group_linear_id() == 1 {
                let _ = w[1];
            }
        })
        .unwrap();
}

#[kernel]
fn keep_item(group: WorkGroup<1>, kept: &Mutex<Option<SItem<1>>>) {
    distribute_items!(group, |idx| {
        if idx.global_linear_id() == 3 {
            kept.lock().unwrap().replace(idx);
        }
    });
}

/// An item of work group 0, kept from an earlier launch, used by work
/// group 1 to index its window: refused like any other id outside the
/// window.
#[test]
#[should_panic(
    expected = "global id 3 is outside this work group's window of ItemsMut \
                           (global ids 10 ..= 19)"
)]
fn items_window_indexed_with_an_item_of_another_group_panics() {
    let kept = Mutex::new(None);
    Queue::new()
        .parallel(2, 10, |g| keep_item(g, &kept))
        .unwrap();
    let item = kept.into_inner().unwrap().expect("item 3 was kept");
    assert_eq!(item.global_linear_id(), 3);
    let mut out = vec![0; 20];
    Queue::new()
        .parallel_with(2, 10, ItemsMut::new(&mut out), |g: WorkGroup<1>, mut w| {
            if g.group_linear_id() == 1 {
                w[item] = 7;
            }
        })
        .unwrap();
}
