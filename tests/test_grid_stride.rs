//! `distribute_items!` whose items each run a grid-stride loop
//! (`let mut i = gid; while i < n { …; i += stride }` or
//! `for i in (gid..n).step_by(stride)`): the lowering runs it in rounds,
//! iteration `t` of every item before iteration `t + 1`.
//!
//! Every kernel records the order of its iterations and checks it against
//! the rounds computed here (the shortcut was taken) or the item-by-item
//! order (the plain loop); sums are checked bit for bit against a serial
//! loop and against the same kernel in a form the shortcut does not take.
//! 1-D, 2-D and 3-D groups, sub-groups, group-stride loops over local ids,
//! partial last rounds, fewer indices than items, strides larger than `n`,
//! and each fallback.

use std::sync::Mutex;

use scoped::prelude::*;

/// What each group's body did, in order: (local linear id, index).
struct Trace(Mutex<Vec<Vec<(usize, usize)>>>);

impl Trace {
    fn new(groups: usize) -> Self {
        Self(Mutex::new(vec![Vec::new(); groups]))
    }

    fn hit(&self, group: usize, item: usize, index: usize) {
        self.0.lock().unwrap()[group].push((item, index));
    }

    fn into_inner(self) -> Vec<Vec<(usize, usize)>> {
        self.0.into_inner().unwrap()
    }
}

/// The rounds: `starts` are (local linear id, first index) in linear id
/// order.
fn rounds(starts: &[(usize, usize)], n: usize, stride: usize) -> Vec<(usize, usize)> {
    let mut order = Vec::new();
    for t in 0.. {
        let before = order.len();
        for &(l, s) in starts {
            let i = s + t * stride;
            if i < n {
                order.push((l, i));
            }
        }
        if order.len() == before {
            return order;
        }
    }
    unreachable!()
}

/// The plain loop: item after item.
fn plain(starts: &[(usize, usize)], n: usize, stride: usize) -> Vec<(usize, usize)> {
    let mut order = Vec::new();
    for &(l, s) in starts {
        let mut i = s;
        while i < n {
            order.push((l, i));
            i += stride;
        }
    }
    order
}

#[kernel]
fn walk_1d(group: WorkGroup<1>, n: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let mut i = idx.global_linear_id();
        while i < n {
            trace.hit(g, idx.innermost_local_linear_id(), i);
            i += idx.global_linear_range();
        }
    });
}

#[kernel]
fn walk_1d_for(group: WorkGroup<1>, (n, stride): (usize, usize), trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items_and_wait!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        for i in (idx.global_linear_id()..n).step_by(stride) {
            trace.hit(g, l, i);
        }
    });
}

/// The starts of 1-D group `g` of `size` items.
fn starts_1d(g: usize, size: usize) -> Vec<(usize, usize)> {
    (0..size).map(|l| (l, g * size + l)).collect()
}

#[test]
fn one_dimensional_loops_run_in_rounds() {
    let (groups, size) = (3, 5);
    let items = groups * size;
    // Several full rounds and a partial one; one partial round; fewer
    // indices than items; no index at all.
    for n in [4 * items + 7, items + 2, items - 4, 3, 0] {
        let trace = Trace::new(groups);
        Queue::with_threads(2)
            .unwrap()
            .parallel(groups, size, |g| walk_1d(g, n, &trace))
            .unwrap();
        for (g, got) in trace.into_inner().into_iter().enumerate() {
            let want = rounds(&starts_1d(g, size), n, items);
            assert_eq!(got, want, "n {n}, group {g}");
        }
    }
    // The `for` form; strides above the number of items, and above `n`.
    for (n, stride) in [(100, items), (100, items + 4), (40, 50), (9, 1000)] {
        let trace = Trace::new(groups);
        Queue::with_threads(2)
            .unwrap()
            .parallel(groups, size, |g| walk_1d_for(g, (n, stride), &trace))
            .unwrap();
        for (g, got) in trace.into_inner().into_iter().enumerate() {
            let want = rounds(&starts_1d(g, size), n, stride);
            assert_eq!(got, want, "n {n}, stride {stride}, group {g}");
        }
    }
    // The rounds differ from the plain order where items iterate twice.
    let starts = starts_1d(0, size);
    assert_ne!(rounds(&starts, 100, items), plain(&starts, 100, items));
}

/// Reads `x[i]` (`x[i] == i`) at every index: with more than one group
/// the rounds leave gaps, and the round's item loop runs in chunks that
/// prefetch the slice ahead.
#[kernel]
fn walk_reading(group: WorkGroup<1>, x: &[usize], trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let mut i = idx.global_linear_id();
        while i < x.len() {
            trace.hit(g, idx.innermost_local_linear_id(), x[i]);
            i += idx.global_linear_range();
        }
    });
}

#[test]
fn rounds_with_gaps_run_in_chunks_in_the_same_order() {
    // Groups of 300 items: two chunks of 128 and 44 items alone.
    for (groups, size) in [(3, 300), (2, 128), (1, 300)] {
        let items = groups * size;
        for n in [5 * items + 77, items + 130, items - 1] {
            let x: Vec<usize> = (0..n).collect();
            let trace = Trace::new(groups);
            Queue::with_threads(2)
                .unwrap()
                .parallel(groups, size, |g| walk_reading(g, &x, &trace))
                .unwrap();
            for (g, got) in trace.into_inner().into_iter().enumerate() {
                let want = rounds(&starts_1d(g, size), n, items);
                assert_eq!(got, want, "{groups} groups of {size}, n {n}, group {g}");
            }
        }
    }
}

/// A stride below the span of the group's starts would let two items
/// reach the same index: the plain loop runs.
#[test]
fn strides_below_the_span_of_the_starts_run_item_by_item() {
    let (groups, size) = (2, 5);
    for stride in [1, 2, 4] {
        let trace = Trace::new(groups);
        Queue::with_threads(2)
            .unwrap()
            .parallel(groups, size, |g| walk_1d_for(g, (30, stride), &trace))
            .unwrap();
        for (g, got) in trace.into_inner().into_iter().enumerate() {
            assert_eq!(
                got,
                plain(&starts_1d(g, size), 30, stride),
                "stride {stride}"
            );
        }
    }
}

#[kernel]
fn walk_2d(group: WorkGroup<2>, n: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        let stride = idx.global_range_dim(0) * idx.global_range_dim(1);
        let mut i = gid;
        while i < n {
            trace.hit(g, idx.innermost_local_linear_id(), i);
            i += stride;
        }
    });
}

#[kernel]
fn walk_3d(group: WorkGroup<3>, n: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let l = idx.innermost_local_linear_id();
        let s = idx.global_linear_range();
        for i in (idx.global_linear_id()..n).step_by(s) {
            trace.hit(g, l, i);
        }
    });
}

#[test]
fn two_and_three_dimensional_ids_are_linearised() {
    let (groups, size) = ([2, 3], [3, 4]);
    let global = [groups[0] * size[0], groups[1] * size[1]];
    let items = global[0] * global[1];
    for n in [3 * items + 5, items - 7, 10] {
        let trace = Trace::new(6);
        Queue::with_threads(2)
            .unwrap()
            .parallel(groups, size, |g| walk_2d(g, n, &trace))
            .unwrap();
        for (g, got) in trace.into_inner().into_iter().enumerate() {
            let (gr, gc) = (g / groups[1], g % groups[1]);
            let starts: Vec<(usize, usize)> = (0..size[0] * size[1])
                .map(|l| {
                    let (r, c) = (l / size[1], l % size[1]);
                    (l, (gr * size[0] + r) * global[1] + gc * size[1] + c)
                })
                .collect();
            assert_eq!(got, rounds(&starts, n, items), "n {n}, group {g}");
        }
    }
    let (groups, size) = ([2, 1, 2], [2, 3, 2]);
    let global: Vec<usize> = (0..3).map(|d| groups[d] * size[d]).collect();
    let items: usize = global.iter().product();
    let n = 2 * items + 3;
    let trace = Trace::new(4);
    Queue::with_threads(2)
        .unwrap()
        .parallel(groups, size, |g| walk_3d(g, n, &trace))
        .unwrap();
    for (g, got) in trace.into_inner().into_iter().enumerate() {
        let group_id = [
            g / (groups[1] * groups[2]),
            g / groups[2] % groups[1],
            g % groups[2],
        ];
        let starts: Vec<(usize, usize)> = (0..size.iter().product())
            .map(|l| {
                let local = [l / (size[1] * size[2]), l / size[2] % size[1], l % size[2]];
                let id: Vec<usize> = (0..3).map(|d| group_id[d] * size[d] + local[d]).collect();
                (l, (id[0] * global[1] + id[1]) * global[2] + id[2])
            })
            .collect();
        assert_eq!(got, rounds(&starts, n, items), "group {g}");
    }
}

/// A group-stride loop filling a tile in local memory, then one over the
/// sub-groups' own items.
#[kernel]
fn walk_local(group: WorkGroup<1, 4>, tile_len: usize, trace: &Trace) {
    let g = group.group_linear_id();
    distribute_items!(group, |idx| {
        let mut i = idx.local_linear_id(&group);
        while i < tile_len {
            trace.hit(g, idx.local_linear_id(&group), i);
            i += idx.local_linear_range(&group);
        }
    });
    distribute_groups!(group, |sub| {
        let first = sub.group_linear_id() * 4;
        distribute_items!(sub, |idx| {
            let l = idx.innermost_local_linear_id();
            let mut i = l;
            while i < 6 {
                trace.hit(g, 100 + first + l, i);
                i += idx.innermost_local_linear_range();
            }
        });
    });
}

#[test]
fn group_stride_loops_and_sub_groups_run_in_rounds() {
    let size = 10;
    let trace = Trace::new(2);
    Queue::with_threads(2)
        .unwrap()
        .parallel(2, size, |g| walk_local(g, 27, &trace))
        .unwrap();
    let local: Vec<(usize, usize)> = (0..size).map(|l| (l, l)).collect();
    let mut want = rounds(&local, 27, size);
    // Sub-groups of 4, 4 and 2 items, each its own rounds.
    for (first, len) in [(0, 4), (4, 4), (8, 2)] {
        let lanes: Vec<(usize, usize)> = (0..len).map(|l| (100 + first + l, l)).collect();
        want.extend(rounds(&lanes, 6, len));
    }
    for got in trace.into_inner() {
        assert_eq!(got, want);
    }
}

/// Per-item float sums with values before and after the loop: the shape,
/// and the same kernel in a form the shortcut does not take.
#[kernel]
fn sums(group: WorkGroup<1>, (x, rounds): (&[f32], bool), mut out: ItemsWindow<'_, f32>) {
    if rounds {
        distribute_items!(group, |idx| {
            let gid = idx.global_linear_id();
            let mut s = 0.25 * gid as f32;
            let scale = 1.5f32;
            let mut i = gid;
            while i < x.len() {
                s = x[i].mul_add(scale, s);
                s += 1e-3;
                i += idx.global_linear_range();
            }
            out[idx] = s / 3.0;
        });
    } else {
        distribute_items!(group, |idx| {
            let gid = idx.global_linear_id();
            let mut s = 0.25 * gid as f32;
            let scale = 1.5f32;
            let mut i = gid;
            while i < x.len() {
                s = x[i].mul_add(scale, s);
                s += 1e-3;
                i += std::hint::black_box(idx.global_linear_range());
            }
            out[idx] = s / 3.0;
        });
    }
}

fn run_sums(groups: usize, size: usize, n: usize, rounds: bool) -> Vec<f32> {
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
        .collect();
    let mut out = vec![f32::NAN; groups * size];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(groups, size, ItemsMut::new(&mut out), |g, out| {
            sums(g, (&x, rounds), out)
        })
        .unwrap();
    let items = groups * size;
    for (gid, got) in out.iter().enumerate() {
        let mut s = 0.25 * gid as f32;
        for i in (gid..n).step_by(items) {
            s = x[i].mul_add(1.5, s);
            s += 1e-3;
        }
        let want = s / 3.0;
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "item {gid}, n {n}: {got} vs {want}"
        );
    }
    out
}

#[test]
fn float_sums_are_bit_for_bit_the_serial_and_the_plain_ones() {
    for (groups, size, n) in [(3, 20, 1000), (2, 17, 33), (4, 8, 20), (1, 1, 7)] {
        let shortcut = run_sums(groups, size, n, true);
        let plain = run_sums(groups, size, n, false);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&shortcut), bits(&plain));
    }
}

/// Shapes the shortcut does not take: each runs item after item.
#[kernel]
fn fallbacks(group: WorkGroup<1>, (case, n): (usize, usize), trace: &Trace) {
    let g = group.group_linear_id();
    match case {
        // The stride depends on the item (it is the same value here).
        0 => distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            let size = idx.innermost_local_linear_range();
            let mut i = idx.global_linear_id();
            while i < n {
                trace.hit(g, l, i);
                i += idx.global_linear_range() + l / size;
            }
        }),
        // The loop may end early.
        1 => distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            for i in (idx.global_linear_id()..n + 50).step_by(idx.global_linear_range()) {
                if i >= n {
                    break;
                }
                trace.hit(g, l, i);
            }
        }),
        // The index is written in the body (to the value it has).
        2 => distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            let mut i = idx.global_linear_id();
            while i < n {
                trace.hit(g, l, i);
                i = std::hint::black_box(i);
                i += idx.global_linear_range();
            }
        }),
        // The start is not a linear id.
        _ => distribute_items!(group, |idx| {
            let l = idx.innermost_local_linear_id();
            let mut i = idx.global_id_dim(0);
            while i < n {
                trace.hit(g, l, i);
                i += idx.global_linear_range();
            }
        }),
    }
}

#[test]
fn other_shapes_run_item_by_item() {
    let (groups, size, n) = (2, 5, 33);
    for case in 0..4 {
        let trace = Trace::new(groups);
        Queue::with_threads(2)
            .unwrap()
            .parallel(groups, size, |g| fallbacks(g, (case, n), &trace))
            .unwrap();
        for (g, got) in trace.into_inner().into_iter().enumerate() {
            assert_eq!(
                got,
                plain(&starts_1d(g, size), n, groups * size),
                "case {case}"
            );
        }
    }
}

/// Each item sums its grid-stride elements of a slice parameter, which
/// the rounds prefetch ahead of them.
#[kernel]
fn strided_sums(group: WorkGroup<1>, x: &[u64], mut out: ItemsWindow<'_, u64>) {
    distribute_items!(group, |idx| {
        let mut s = 0;
        let mut i = idx.global_linear_id();
        while i < x.len() {
            s = (s * 3 + x[i]) % 1_000_003;
            i += idx.global_linear_range();
        }
        out[idx] = s;
    });
}

#[test]
fn slices_read_at_the_index_give_the_plain_results() {
    for (groups, size, n) in [(2, 64, 100_000), (3, 16, 1000), (1, 32, 17), (4, 8, 0)] {
        let x: Vec<u64> = (0..n as u64).map(|v| v * 7919 % 1009).collect();
        let items = groups * size;
        let expected: Vec<u64> = (0..items)
            .map(|gid| {
                (gid..n)
                    .step_by(items)
                    .fold(0u64, |s, i| (s * 3 + x[i]) % 1_000_003)
            })
            .collect();
        let mut out = vec![0; items];
        Queue::with_threads(2)
            .unwrap()
            .parallel_with(groups, size, ItemsMut::new(&mut out), |g, o| {
                strided_sums(g, &x, o)
            })
            .unwrap();
        assert_eq!(out, expected, "{groups} groups of {size}, n = {n}");
    }
}
