//! Writes outside a group's own items: `MappedMut` windows (transposed,
//! rows, columns) against serial loops, the launch's refusal of
//! overlapping or misfitting mappings (nothing written), out-of-window
//! panics; atomics (`&[AtomicU32]`, `AtomicView` over plain slices)
//! against serial counts; `ScatterMut` by a permutation.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use scoped::prelude::*;
use scoped::LaunchError;

/// Deterministic pseudo-random numbers (64-bit LCG, high bits).
fn lcg(seed: u64, n: usize) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        })
        .collect()
}

fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "<not a string>".to_string()
    }
}

fn queue() -> Queue {
    Queue::with_threads(4).unwrap()
}

// ---------------------------------------------------------------------------
// MappedMut.

const TILE_ROWS: usize = 8;
const TILE_COLS: usize = 16;

/// Tiled transpose of a `rows × cols` matrix: the group stages its
/// `8 × 16` tile in local memory, then writes tile `(j, i)` of the
/// `cols × rows` output, `16 × 8`, row by row (consecutive items write
/// consecutive elements).
#[kernel]
fn transpose_tiled(
    group: WorkGroup<2>,
    input: ItemsRefWindow<'_, f32, 2>,
    mut out: MappedWindow<'_, f32, 2>,
) {
    memory_environment!(
        group,
        require_local_mem::<[[f32; TILE_COLS]; TILE_ROWS]>(),
        |tile| {
            distribute_items_and_wait!(group, |idx| {
                let [r, c] = idx.local_id(&group).to_array();
                tile[r][c] = input[idx];
            });
            let first = out.first();
            distribute_items!(group, |idx| {
                // Item `l` writes element `l` of the output tile, row-major.
                let l = idx.local_linear_id(&group);
                let (a, b) = (l / TILE_ROWS, l % TILE_ROWS);
                out[[first[0] + a, first[1] + b]] = tile[b][a];
            });
        }
    );
}

#[test]
fn tiled_transpose_through_a_transposed_mapping_matches_a_serial_transpose() {
    let (rows, cols) = (5 * TILE_ROWS, 3 * TILE_COLS);
    let input: Vec<f32> = lcg(7, rows * cols).iter().map(|&x| x as f32).collect();
    let mut output = vec![f32::NAN; rows * cols];
    let args = (
        ItemsRef::new(&input),
        MappedMut::new(&mut output, [cols, rows], RangeMapper::transposed()),
    );
    queue()
        .parallel_with(
            [rows / TILE_ROWS, cols / TILE_COLS],
            [TILE_ROWS, TILE_COLS],
            args,
            |g, (input, out)| transpose_tiled(g, input, out),
        )
        .unwrap();
    let mut expected = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            expected[c * rows + r] = input[r * cols + c];
        }
    }
    assert_eq!(output, expected);
}

/// Each group fills its rows of a `rows × width` buffer, wider than the
/// launch: element `(r, c)` becomes `1000 r + c`, written by item `c % 8`.
#[kernel]
fn fill_rows(group: WorkGroup<2>, mut out: MappedWindow<'_, u32, 2>) {
    let width = out.range()[1];
    distribute_items!(group, |idx| {
        let [r, lc] = idx.global_id().to_array();
        for c in (lc..width).step_by(8) {
            out[[r, c]] = (1000 * r + c) as u32;
        }
    });
}

#[test]
fn rows_mapping_gives_each_group_whole_rows() {
    let (rows, width) = (12, 21);
    let mut out = vec![0u32; rows * width];
    let view = MappedMut::new(&mut out, [rows, width], RangeMapper::rows());
    queue()
        .parallel_with([rows / 3, 1], [3, 8], view, fill_rows)
        .unwrap();
    let expected: Vec<u32> = (0..rows * width)
        .map(|i| (1000 * (i / width) + i % width) as u32)
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn columns_mapping_gives_each_group_whole_columns() {
    // 1 × 4 groups of 2 × 2 items over a 5 × 8 buffer: group j owns
    // columns 2j and 2j + 1, all 5 rows.
    let (height, cols) = (5, 8);
    let mut out = vec![0usize; height * cols];
    let view = MappedMut::new(&mut out, [height, cols], RangeMapper::columns());
    queue()
        .parallel_with([1, 4], [2, 2], view, |g: WorkGroup<2>, mut w| {
            let (first, range) = (w.first(), w.range());
            assert_eq!((first[0], range[0], range[1]), (0, height, 2));
            for r in 0..height {
                for c in first[1]..first[1] + 2 {
                    w[[r, c]] = g.group_linear_id();
                }
            }
        })
        .unwrap();
    let expected: Vec<usize> = (0..height * cols).map(|i| (i % cols) / 2).collect();
    assert_eq!(out, expected);
}

#[test]
fn one_to_one_mapping_of_a_1d_launch_writes_each_item() {
    let mut out = vec![0u64; 48];
    let view = MappedMut::new(&mut out, 48, RangeMapper::one_to_one());
    queue()
        .parallel_with(6, 8, view, |g: WorkGroup<1>, mut w| {
            let first = w.first()[0];
            for i in first..first + 8 {
                w[i] = (i * i) as u64 + g.group_linear_id() as u64;
            }
        })
        .unwrap();
    assert!((0..48).all(|i| out[i] == (i * i + i / 8) as u64));
}

#[test]
fn fixed_and_all_mappings_serve_a_single_group() {
    let mut out = vec![0i32; 4 * 6];
    let view = MappedMut::new(&mut out, [4, 6], RangeMapper::fixed([1, 2], [2, 3]));
    queue()
        .parallel_with([1, 1], [2, 2], view, |_g: WorkGroup<2>, mut w| {
            for r in 1..3 {
                for c in 2..5 {
                    w[[r, c]] = 1;
                }
            }
        })
        .unwrap();
    let expected: Vec<i32> = (0..24)
        .map(|i| i32::from((1..3).contains(&(i / 6)) && (2..5).contains(&(i % 6))))
        .collect();
    assert_eq!(out, expected);
    let view = MappedMut::new(&mut out, [4, 6], RangeMapper::all());
    queue()
        .parallel_with([1, 1], [4, 4], view, |_g: WorkGroup<2>, mut w| {
            w[[3, 5]] = 9;
            w[[0, 0]] = 9;
        })
        .unwrap();
    assert_eq!((out[0], out[23]), (9, 9));
}

/// Runs `mapper` on `num_groups` groups of `group_size` items, with an
/// `ItemsMut` first, counting the groups that ran; every group writes 1
/// into its whole window and into the `ItemsMut`.
fn launch_mapped(
    num_groups: [usize; 2],
    group_size: [usize; 2],
    buffer: [usize; 2],
    mapper: RangeMapper<2>,
    mapped: &mut [i32],
    items: &mut [i32],
    runs: &AtomicUsize,
) -> Result<(), LaunchError> {
    let args = (ItemsMut::new(items), MappedMut::new(mapped, buffer, mapper));
    queue().parallel_with(
        num_groups,
        group_size,
        args,
        |g: WorkGroup<2>, (mut items, mut w)| {
            runs.fetch_add(1, Ordering::Relaxed);
            let (first, range) = (w.first(), w.range());
            for r in first[0]..first[0] + range[0] {
                for c in first[1]..first[1] + range[1] {
                    w[[r, c]] = 1;
                }
            }
            let item = items.first();
            items[item] = 1;
            let _ = g;
        },
    )
}

#[test]
fn overlapping_mappings_are_refused_before_anything_runs() {
    let cases = [
        // Rows with two groups along the rows: groups [0, 0] and [0, 1]
        // both own rows 0 and 1.
        (
            RangeMapper::rows(),
            [2, 2],
            "rows",
            "[0, 1]",
            "[0, 0] ..= [1, 7]",
        ),
        (
            RangeMapper::columns(),
            [2, 2],
            "columns",
            "[1, 0]",
            "[0, 0] ..= [3, 3]",
        ),
        (
            RangeMapper::all(),
            [1, 2],
            "all",
            "[0, 1]",
            "[0, 0] ..= [3, 7]",
        ),
        (
            RangeMapper::fixed([1, 1], [2, 2]),
            [2, 1],
            "fixed([1, 1], [2, 2])",
            "[1, 0]",
            "[1, 1] ..= [2, 2]",
        ),
    ];
    for (mapper, num_groups, name, second, region) in cases {
        let (mut mapped, mut items, runs) = (vec![0; 32], vec![0; 64], AtomicUsize::new(0));
        let result = launch_mapped(
            num_groups,
            [2, 4],
            [4, 8],
            mapper,
            &mut mapped,
            &mut items,
            &runs,
        );
        let err = result.expect_err("overlapping windows must be refused");
        let expected = LaunchError::OverlappingWindows {
            position: 1,
            mapper: name.into(),
            groups: ("[0, 0]".into(), second.into()),
            region: region.into(),
        };
        assert_eq!(err, expected);
        let text = err.to_string();
        for mention in ["argument 1 (MappedMut", name, "[0, 0] and ", second, region] {
            assert!(text.contains(mention), "{text:?} lacks {mention:?}");
        }
        assert_eq!(runs.load(Ordering::Relaxed), 0, "{name}: no group may run");
        assert!(
            mapped.iter().chain(&items).all(|&v| v == 0),
            "{name}: nothing written"
        );
    }
}

#[test]
fn mappings_that_do_not_fit_are_refused_before_anything_runs() {
    // A transposed 8 × 8 launch needs an 8 × 8 buffer; 8 × 6 is too narrow
    // for the last group's tile.
    let (mut mapped, mut items, runs) = (vec![0; 48], vec![0; 64], AtomicUsize::new(0));
    let result = launch_mapped(
        [2, 2],
        [4, 4],
        [8, 6],
        RangeMapper::transposed(),
        &mut mapped,
        &mut items,
        &runs,
    );
    let err = result.expect_err("a window outside the buffer must be refused");
    assert!(
        matches!(err, LaunchError::BadMapping { position: 1, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("work group [1, 1] gets positions [4, 4] ..= [7, 7]"),
        "{text}"
    );
    assert!(text.contains("outside the buffer's range [8, 6]"), "{text}");
    // A slice is shorter than its buffer range.
    let result = launch_mapped(
        [1, 1],
        [4, 4],
        [8, 8],
        RangeMapper::one_to_one(),
        &mut mapped,
        &mut items,
        &runs,
    );
    assert!(matches!(
        result,
        Err(LaunchError::OutputTooShort {
            position: 1,
            view: "MappedMut",
            len: 48,
            needed: 64,
            ..
        })
    ));
    assert_eq!(runs.load(Ordering::Relaxed), 0);
    assert!(
        mapped.iter().chain(&items).all(|&v| v == 0),
        "nothing written"
    );
}

#[test]
fn a_write_outside_the_window_panics_naming_position_and_window() {
    let mut out = vec![0u8; 64];
    let view = MappedMut::new(&mut out, [8, 8], RangeMapper::transposed());
    let result = catch_unwind(AssertUnwindSafe(|| {
        queue().parallel_with([2, 2], [4, 4], view, |g: WorkGroup<2>, mut w| {
            if g.group_id() == Id::new([0, 1]) {
                // Group (0, 1) owns tile (1, 0): rows 4..8, columns 0..4.
                w[[0, 4]] = 1;
            }
        })
    }));
    let text = message(&*result.expect_err("the write must panic"));
    assert!(
        text.contains("position [0, 4] is outside this work group's window of MappedMut"),
        "{text}"
    );
    assert!(
        text.contains("positions [4, 0] ..= [7, 3], mapped transposed"),
        "{text}"
    );
    assert!(out.iter().all(|&v| v == 0));
}

// ---------------------------------------------------------------------------
// Atomics.

#[kernel]
fn histogram_std(group: WorkGroup<1>, input: ItemsRefWindow<'_, u32>, bins: &[AtomicU32]) {
    distribute_items!(group, |idx| {
        bins[(input[idx] % 256) as usize].fetch_add(1, Ordering::Relaxed);
    });
}

#[kernel]
fn histogram_view(group: WorkGroup<1>, input: ItemsRefWindow<'_, u32>, bins: AtomicView<'_, u32>) {
    distribute_items!(group, |idx| {
        bins.at((input[idx] % 256) as usize).fetch_add(1);
    });
}

fn serial_histogram(input: &[u32]) -> Vec<u32> {
    let mut counts = vec![0u32; 256];
    for &x in input {
        counts[(x % 256) as usize] += 1;
    }
    counts
}

#[test]
fn histogram_of_256_bins_with_std_atomics_matches_a_serial_count() {
    let input = lcg(1, 64 * 256);
    let bins: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
    queue()
        .parallel_with(64, 256, ItemsRef::new(&input), |g, input| {
            histogram_std(g, input, &bins)
        })
        .unwrap();
    let counts: Vec<u32> = bins.into_iter().map(AtomicU32::into_inner).collect();
    assert_eq!(counts, serial_histogram(&input));
}

#[test]
fn histogram_of_256_bins_with_an_atomic_view_matches_a_serial_count() {
    let input = lcg(2, 64 * 256);
    let mut counts = vec![0u32; 256];
    let bins = AtomicView::new(&mut counts, MemoryOrder::Relaxed, MemoryScope::Device);
    queue()
        .parallel_with(64, 256, ItemsRef::new(&input), |g, input| {
            histogram_view(g, input, bins)
        })
        .unwrap();
    assert_eq!(counts, serial_histogram(&input));
}

#[test]
fn float_atomic_add_of_integer_values_is_exact() {
    // Integers below 2^24 are exact in f32, so every order of the adds
    // gives the same sums.
    let input: Vec<u32> = lcg(3, 32 * 128).iter().map(|x| x % 100).collect();
    let mut sums = [0.0f32; 4];
    let mut total = 0.0f64;
    let view = AtomicView::new(&mut sums, MemoryOrder::AcqRel, MemoryScope::Device);
    let total_ref = AtomicRef::new(&mut total, MemoryOrder::Relaxed, MemoryScope::Device);
    queue()
        .parallel_with(32, 128, ItemsRef::new(&input), |g: WorkGroup<1>, input| {
            for &x in input.group_slice() {
                view.at(x as usize % 4).fetch_add(x as f32);
                total_ref.fetch_add(f64::from(x));
                view.at(3).fetch_sub(1.0);
            }
            let _ = g;
        })
        .unwrap();
    let mut expected = [0.0f32; 4];
    for &x in &input {
        expected[x as usize % 4] += x as f32;
    }
    expected[3] -= input.len() as f32;
    assert_eq!(sums, expected);
    assert_eq!(total, input.iter().map(|&x| f64::from(x)).sum::<f64>());
}

#[test]
fn fetch_min_and_max_over_all_groups_match_the_serial_extremes() {
    let input: Vec<i32> = lcg(4, 16 * 64)
        .iter()
        .map(|&x| x as i32 - (1 << 30))
        .collect();
    let mut extremes = [i32::MAX, i32::MIN];
    let mut float_extremes = [f32::INFINITY, f32::NEG_INFINITY];
    let view = AtomicView::new(&mut extremes, MemoryOrder::Relaxed, MemoryScope::Device);
    let floats = AtomicView::new(
        &mut float_extremes,
        MemoryOrder::SeqCst,
        MemoryScope::Device,
    );
    queue()
        .parallel(16, 64, |g: WorkGroup<1>| {
            let start = g.group_linear_id() * 64;
            for &x in &input[start..start + 64] {
                view.at(0).fetch_min(x);
                view.at(1).fetch_max(x);
                floats.at(0).fetch_min(x as f32);
                floats.at(1).fetch_max(x as f32);
            }
        })
        .unwrap();
    let (min, max) = (*input.iter().min().unwrap(), *input.iter().max().unwrap());
    assert_eq!(extremes, [min, max]);
    assert_eq!(float_extremes, [min as f32, max as f32]);
}

#[test]
fn compare_exchange_lets_exactly_one_item_claim_each_slot() {
    // Every item of 32 groups of 64 tries to claim slot `id % 16` with its
    // id + 1; exactly one claim per slot succeeds, and every failure
    // reports the winner's value.
    let mut slots = [0u32; 16];
    let claims = AtomicView::new(&mut slots, MemoryOrder::AcqRel, MemoryScope::Device);
    let winners = AtomicU32::new(0);
    let failures_seeing_winner = AtomicU32::new(0);
    queue()
        .parallel(32, 64, |g: WorkGroup<1>| {
            let first = g.group_linear_id() * 64;
            for id in first..first + 64 {
                let slot = claims.at(id % 16);
                match slot.compare_exchange_strong(0, id as u32 + 1) {
                    Ok(previous) => {
                        assert_eq!(previous, 0);
                        winners.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(found) => {
                        // The winner is an id with the same slot, never 0.
                        if found != 0 && (found as usize - 1) % 16 == id % 16 {
                            failures_seeing_winner.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
        })
        .unwrap();
    assert_eq!(winners.into_inner(), 16);
    assert_eq!(failures_seeing_winner.into_inner(), 32 * 64 - 16);
    assert!(slots
        .iter()
        .enumerate()
        .all(|(s, &v)| v != 0 && (v as usize - 1) % 16 == s));
}

#[test]
fn a_compare_exchange_weak_loop_computes_a_product_exactly() {
    // Multiplication has no fetch_ op: a weak compare-exchange loop
    // applies it atomically. Products of 1s and a few 3s mod 2^64 are
    // order-independent.
    let mut product = 1u64;
    let cell = AtomicRef::new(&mut product, MemoryOrder::SeqCst, MemoryScope::Device);
    queue()
        .parallel(40, 8, |g: WorkGroup<1>| {
            let factor = if g.group_linear_id() % 4 == 0 { 3 } else { 1 };
            let mut old = cell.load();
            while let Err(found) = cell.compare_exchange_weak(old, old.wrapping_mul(factor)) {
                old = found;
            }
        })
        .unwrap();
    assert_eq!(product, 3u64.pow(10));
}

// ---------------------------------------------------------------------------
// ScatterMut.

#[kernel]
fn scatter_permutation(
    group: WorkGroup<1>,
    values: ItemsRefWindow<'_, u64>,
    to: ItemsRefWindow<'_, usize>,
    out: ScatterMut<'_, u64>,
) {
    distribute_items!(group, |idx| {
        // SAFETY: `to` is a permutation, so each index is written by one
        // item only, and nothing reads `out` during the launch.
        unsafe { out.write(to[idx], values[idx]) };
    });
}

#[test]
fn scatter_by_a_permutation_matches_a_serial_scatter() {
    let n = 100 * 37;
    // i ↦ 101 i mod n is a permutation (101 is prime and does not divide n).
    let to: Vec<usize> = (0..n).map(|i| (101 * i) % n).collect();
    let values: Vec<u64> = lcg(5, n).into_iter().map(u64::from).collect();
    let mut out = vec![u64::MAX; n];
    let view = ScatterMut::new(&mut out);
    let args = (ItemsRef::new(&values), ItemsRef::new(&to));
    queue()
        .parallel_with(100, 37, args, |g, (values, to)| {
            scatter_permutation(g, values, to, view)
        })
        .unwrap();
    let mut expected = vec![u64::MAX; n];
    for i in 0..n {
        expected[to[i]] = values[i];
    }
    assert_eq!(out, expected);
}

#[test]
fn a_scatter_past_the_end_panics_naming_the_index() {
    let mut out = vec![0u8; 16];
    let view = ScatterMut::new(&mut out);
    let result = catch_unwind(AssertUnwindSafe(|| {
        queue().parallel(2, 8, |g: WorkGroup<1>| {
            // SAFETY: each group writes its own index (or one past the end,
            // which panics before any access).
            unsafe { view.write(g.group_linear_id() * 16, 1) };
        })
    }));
    let text = message(&*result.expect_err("the write must panic"));
    assert_eq!(text, "index 16 is outside the ScatterMut of 16 elements");
    assert_eq!(out[0], 1);
}
