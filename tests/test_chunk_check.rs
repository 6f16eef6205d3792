//! Shared-slice parameters read at indices computed from the item's ids
//! (GPU tile loads), which the lowering checks a chunk of items at a time:
//! every read gives `slice[index]` and every out-of-range read panics as
//! indexing does, in full chunks, in the items after the last full chunk
//! of a row, and in chunks where some item's index is out of range,
//! against serial references.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

use scoped::prelude::*;

/// Groups of 3 × 20 items: each row is one chunk of 16 lanes and 4 items
/// after it.
const ROWS: usize = 3;
const COLS: usize = 20;

/// Tile loads as in GPU matrix multiply: `A`'s row at a column offset,
/// `B`'s column at a row offset, and a read whose index wraps below zero on
/// a branch the first column never takes.
#[kernel]
fn loads(
    group: WorkGroup<2>,
    (a, b): (&[i64], &[i64]),
    (n, k0): (usize, usize),
    mut out: ItemsWindow<'_, i64, 2>,
) {
    distribute_items!(group, |idx| {
        let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
        let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
        let west = if j > 0 { a[i * n + j - 1] } else { -1 };
        out[idx] = 1000 * a[i * n + k0 + col] + b[(k0 + r) * n + j] + 7 * west;
    });
}

/// Elements that are not `Copy`, read by reference and by method.
#[kernel]
fn lengths(group: WorkGroup<1>, names: &[String], mut out: ItemsWindow<'_, usize>) {
    distribute_items_and_wait!(group, |idx| {
        let gid = idx.global_id_dim(0);
        let name: &String = &names[2 * gid + 1];
        out[idx] = names[2 * gid].len() + name.len();
    });
}

fn values(n: usize) -> Vec<i64> {
    (0..n as i64).map(|i| (i * 7919) % 1009 - 500).collect()
}

fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// `loads` of an `rows`×`cols` launch over `n`-column matrices, serially.
fn loads_reference(
    a: &[i64],
    b: &[i64],
    n: usize,
    k0: usize,
    rows: usize,
    cols: usize,
) -> Vec<i64> {
    let mut out = vec![0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let (r, col) = (i % ROWS, j % COLS);
            let west = if j > 0 { a[i * n + j - 1] } else { -1 };
            out[i * cols + j] = 1000 * a[i * n + k0 + col] + b[(k0 + r) * n + j] + 7 * west;
        }
    }
    out
}

#[test]
fn computed_reads_give_the_slice_elements() {
    let (groups, n, k0) = ((4, 3), 64, 5);
    let (rows, cols) = (groups.0 * ROWS, groups.1 * COLS);
    let (a, b) = (values(n * n), values(n * n + 3));
    for threads in [1, 2] {
        let mut out = vec![0; rows * cols];
        let window = ItemsMut::new(&mut out);
        Queue::with_threads(threads)
            .unwrap()
            .parallel_with(groups, (ROWS, COLS), window, |g, o| {
                loads(g, (&a, &b), (n, k0), o)
            })
            .unwrap();
        assert_eq!(
            out,
            loads_reference(&a, &b, n, k0, rows, cols),
            "{threads} threads"
        );
    }
}

#[test]
fn non_copy_elements_are_read_in_place() {
    let n = 4 * 32;
    let names: Vec<String> = (0..2 * n).map(|i| "x".repeat(i % 13)).collect();
    let mut out = vec![0; n];
    Queue::new()
        .parallel_with(4, 32, ItemsMut::new(&mut out), |g, o| lengths(g, &names, o))
        .unwrap();
    let expected: Vec<usize> = (0..n)
        .map(|i| names[2 * i].len() + names[2 * i + 1].len())
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn an_out_of_range_read_panics_as_indexing_does() {
    // `B` two rows long: item (2, 0) of the first group reads past it.
    let (groups, n, k0) = ((2, 3), 64, 0);
    let (rows, cols) = (groups.0 * ROWS, groups.1 * COLS);
    let (a, b) = (values(n * n), values(2 * n));
    let mut out = vec![-1; rows * cols];
    let result = catch_unwind(AssertUnwindSafe(|| {
        Queue::with_threads(1).unwrap().parallel_with(
            groups,
            (ROWS, COLS),
            ItemsMut::new(&mut out),
            |g, o| loads(g, (&a, &b), (n, k0), o),
        )
    }));
    let message = message(&*result.expect_err("no panic"));
    assert_eq!(
        message,
        format!(
            "index out of bounds: the len is {0} but the index is {0}",
            2 * n
        )
    );
    // The first group wrote its items up to the first bad read, in order.
    let expected = loads_reference(&a, &b, n, k0, 2, cols);
    for i in 0..2 {
        assert_eq!(
            out[i * cols..][..COLS],
            expected[i * cols..][..COLS],
            "row {i}"
        );
    }
    assert!(out[2 * cols..][..COLS].iter().all(|&v| v == -1));
}

/// Reads whose index moves by one per item run from one window per chunk;
/// the others (a stride of 2, an index the same for a whole row) send the
/// chunk down the checked path. Each item also reads back what it wrote,
/// so lanes that ran in a different order would show.
#[kernel]
fn strides(
    group: WorkGroup<2>,
    a: &[i64],
    (n, stride): (usize, usize),
    mut out: ItemsWindow<'_, i64, 2>,
) {
    memory_environment!(group, require_local_mem::<[[i64; COLS]; ROWS]>(), |tile| {
        distribute_items!(group, |idx| {
            let (r, col) = (idx.local_id_dim(&group, 0), idx.local_id_dim(&group, 1));
            let (i, j) = (idx.global_id_dim(0), idx.global_id_dim(1));
            tile[r][col] = a[i * n + j * stride];
            out[idx] = tile[r][col] + 3 * a[i * n] + 5 * tile[r][col / 2];
        });
    });
}

#[allow(clippy::needless_range_loop)] // written as the kernel is
fn strides_reference(a: &[i64], n: usize, stride: usize, rows: usize, cols: usize) -> Vec<i64> {
    let mut out = vec![0; rows * cols];
    let mut tile = [[0; COLS]; ROWS];
    for gi in 0..rows / ROWS {
        for gj in 0..cols / COLS {
            for r in 0..ROWS {
                for col in 0..COLS {
                    let (i, j) = (gi * ROWS + r, gj * COLS + col);
                    tile[r][col] = a[i * n + j * stride];
                    out[i * cols + j] = tile[r][col] + 3 * a[i * n] + 5 * tile[r][col / 2];
                }
            }
        }
    }
    out
}

#[test]
fn strided_and_uniform_reads_match_a_serial_loop() {
    let (groups, n) = ((2, 3), 256);
    let (rows, cols) = (groups.0 * ROWS, groups.1 * COLS);
    let a = values(n * rows);
    // Stride 1: every chunk windowed; 0 and 2: none.
    for stride in [1, 0, 2] {
        for threads in [1, 2] {
            let mut out = vec![0; rows * cols];
            Queue::with_threads(threads)
                .unwrap()
                .parallel_with(groups, (ROWS, COLS), ItemsMut::new(&mut out), |g, o| {
                    strides(g, &a, (n, stride), o)
                })
                .unwrap();
            assert_eq!(
                out,
                strides_reference(&a, n, stride, rows, cols),
                "stride {stride}, {threads} threads"
            );
        }
    }
}

/// A read whose index wraps past `usize::MAX` to the slice's start.
#[kernel]
fn shifted(group: WorkGroup<1>, a: &[i64], shift: usize, mut out: ItemsWindow<'_, i64>) {
    distribute_items!(group, |idx| {
        let gid = idx.global_id_dim(0);
        out[idx] = a[gid + 8 + shift];
    });
}

/// In wrapping arithmetic every chunk's indices are consecutive and in
/// range, but the index as written overflows: debug builds panic as the
/// body would, release builds read what the wrapped index names, as the
/// body would.
#[test]
fn an_overflowing_index_is_computed_as_written() {
    let a = values(64);
    let run = |shift: usize, items: usize| {
        let mut out = vec![0; items];
        let result = catch_unwind(AssertUnwindSafe(|| {
            Queue::with_threads(1).unwrap().parallel_with(
                1,
                items,
                ItemsMut::new(&mut out),
                |g, o| shifted(g, &a, shift, o),
            )
        }));
        result.map(|r| r.map(|_| out))
    };
    // `gid + 8 + shift` is `gid + 2^64`.
    let result = run(usize::MAX - 7, 32);
    if cfg!(debug_assertions) {
        let message = message(&*result.expect_err("no overflow panic"));
        assert_eq!(message, "attempt to add with overflow");
    } else {
        assert_eq!(result.unwrap().unwrap(), a[..32]);
    }
    assert_eq!(run(3, 16).unwrap().unwrap(), a[11..27]);
    // A group shorter than a chunk runs item by item, checked as written.
    assert_eq!(run(3, 8).unwrap().unwrap(), a[11..19]);
    assert_eq!(run(60, 8).map(|r| r.is_ok()).ok(), None, "a[68] read");
}

/// Windows of elements with interior mutability reach the lanes in place:
/// each item reads its cell after the item before it wrote it, as in a
/// serial loop (a copy of the window taken before the lanes ran would
/// hold the old values).
#[kernel]
fn chained(group: WorkGroup<1>, cells: &[AtomicI64], mut out: ItemsWindow<'_, i64>) {
    distribute_items!(group, |idx| {
        let gid = idx.global_id_dim(0);
        let value = cells[gid].load(Relaxed);
        cells[gid + 1].store(value + 1, Relaxed);
        out[idx] = value;
    });
}

#[test]
fn cells_in_a_window_are_read_after_earlier_lanes_wrote_them() {
    for items in [16, 40] {
        let cells: Vec<AtomicI64> = (0..=items as i64)
            .map(|i| 100 * i)
            .map(Into::into)
            .collect();
        let mut out = vec![0; items];
        Queue::with_threads(1)
            .unwrap()
            .parallel_with(1, items, ItemsMut::new(&mut out), |g, o| {
                chained(g, &cells, o)
            })
            .unwrap();
        let expected: Vec<i64> = (0..items as i64).collect();
        assert_eq!(out, expected, "{items} items");
        assert_eq!(cells[items].load(Relaxed), items as i64);
    }
}

/// A kernel generic over its element type: `Copy` elements by value, any
/// other `Clone` by reference, both from one window per chunk.
#[kernel]
fn neighbours<T: Clone + Send + Sync>(
    group: WorkGroup<1>,
    a: &[T],
    mut out: ItemsWindow<'_, (T, T)>,
) {
    distribute_items!(group, |idx| {
        let gid = idx.global_id_dim(0);
        out[idx] = (a[gid].clone(), a[gid + 1].clone());
    });
}

#[test]
fn generic_elements_are_read_from_windows_by_value_or_in_place() {
    fn run<T: Clone + Send + Sync + Default + PartialEq + std::fmt::Debug>(a: &[T]) {
        let items = a.len() - 1;
        let mut out = vec![(T::default(), T::default()); items];
        Queue::new()
            .parallel_with(2, items / 2, ItemsMut::new(&mut out), |g, o| {
                neighbours(g, a, o)
            })
            .unwrap();
        let expected: Vec<(T, T)> = a.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect();
        assert_eq!(out, expected);
    }
    run(&values(65));
    run(&(0..65).map(|i| format!("{i}")).collect::<Vec<_>>());
}

/// Tile loads in the kernel's loops, each step's reads `n` rows further
/// (the shapes whose next step the lowering fetches ahead: a range with
/// `let`s of the step, typed or not, a `step_by`, an inclusive range) and
/// one it cannot follow (a cast in the step's `let`, a loop over a `u32`).
#[kernel]
fn stepped(
    group: WorkGroup<2>,
    a: &[i64],
    (n, steps): (usize, usize),
    mut out: ItemsWindow<'_, i64, 2>,
) {
    memory_environment!(group, require_private_mem::<i64>(), |sum| {
        distribute_items!(group, |idx| sum[idx] = 0);
        for step in 0..steps {
            let k0 = step * ROWS;
            let row: usize = k0 + 1;
            distribute_items!(group, |idx| {
                let (r, j) = (idx.local_id_dim(&group, 0), idx.global_id_dim(1));
                sum[idx] += a[(row + r) * n + j];
            });
        }
        for k0 in (0..steps).step_by(2) {
            distribute_items!(group, |idx| sum[idx] +=
                3 * a[k0 * n + idx.global_id_dim(1)]);
        }
        for step in 1..=steps {
            let step = step - 1;
            distribute_items!(group, |idx| sum[idx] +=
                5 * a[step * n + idx.global_id_dim(1)]);
        }
        for t in 0..steps as u32 {
            let k0 = t as usize * 2;
            distribute_items!(group, |idx| sum[idx] +=
                7 * a[k0 * n + idx.global_id_dim(1)]);
        }
        distribute_items!(group, |idx| out[idx] = sum[idx]);
    });
}

/// `stepped` of an `rows`×`cols` launch, serially.
fn stepped_reference(a: &[i64], n: usize, steps: usize, rows: usize, cols: usize) -> Vec<i64> {
    let mut out = vec![0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let r = i % ROWS;
            let mut sum = 0;
            for step in 0..steps {
                sum += a[(step * ROWS + 1 + r) * n + j];
            }
            for k0 in (0..steps).step_by(2) {
                sum += 3 * a[k0 * n + j];
            }
            for step in 0..steps {
                sum += 5 * a[step * n + j] + 7 * a[step * 2 * n + j];
            }
            out[i * cols + j] = sum;
        }
    }
    out
}

#[test]
fn reads_in_steps_of_a_loop_give_the_slice_elements() {
    // The last steps read the slice's last rows: the windows a step
    // ahead of them lie past its end and are not fetched.
    let (groups, n, steps) = ((2, 3), 3 * COLS, 5);
    let (rows, cols) = (groups.0 * ROWS, groups.1 * COLS);
    let a = values(n * (ROWS * steps + 1));
    for threads in [1, 2] {
        let mut out = vec![0; rows * cols];
        Queue::with_threads(threads)
            .unwrap()
            .parallel_with(groups, (ROWS, COLS), ItemsMut::new(&mut out), |g, o| {
                stepped(g, &a, (n, steps), o)
            })
            .unwrap();
        assert_eq!(
            out,
            stepped_reference(&a, n, steps, rows, cols),
            "{threads} threads"
        );
    }
}
