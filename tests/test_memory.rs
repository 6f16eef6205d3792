//! Memory environments (scoped parallelism v2, "Explicit allocation of
//! local and private memory"): initial values of local and private memory,
//! private memory that persists across `distribute_items!` calls, ordering
//! of the `_and_wait` forms, environments on sub-groups and scalar groups,
//! nested environments, the `local_memory_environment!` and
//! `private_memory_environment!` shorthands, and `async_work_group_copy`.

use std::sync::Mutex;

use bytemuck::Zeroable;
use scoped::prelude::*;
use scoped::PRIVATE_STACK_BYTES;

/// Row-major linear id of `id` in `range`.
fn linear<const D: usize>(range: [usize; D], id: [usize; D]) -> usize {
    (0..D).fold(0, |acc, d| acc * range[d] + id[d])
}

// ---------------------------------------------------------------------------
// Local memory initial values.

/// Copies a `[[i32; 16]; 16]` local tile filled from the scalar `fill`
/// into the group's chunk (row-major), after adding the item's local id to
/// the elements of row 0, to show the tile is writable memory.
#[kernel]
fn scalar_fill_2d(group: WorkGroup<1>, fill: i32, mut out: ChunkWindow<'_, i32>) {
    memory_environment!(group, require_local_mem::<[[i32; 16]; 16]>(fill), |tile| {
        distribute_items!(group, |idx| {
            let lid = idx.innermost_local_id_dim(0);
            tile[0][lid] += lid as i32;
        });
        single_item!(group, || {
            let start = out.start();
            for (i, row) in tile.iter().enumerate() {
                for (j, &value) in row.iter().enumerate() {
                    out[start + i * 16 + j] = value;
                }
            }
        });
    });
}

#[test]
fn local_memory_scalar_fill_of_2d_array() {
    let (groups, size, fill) = (3, 16, -7);
    let mut out = vec![0; groups * 256];
    Queue::new()
        .parallel_with(groups, size, ChunksMut::new(&mut out, 256), |g, w| {
            scalar_fill_2d(g, fill, w)
        })
        .unwrap();
    for group in 0..groups {
        for i in 0..16 {
            for j in 0..16 {
                let expected = if i == 0 { fill + j as i32 } else { fill };
                assert_eq!(
                    out[group * 256 + i * 16 + j],
                    expected,
                    "group {group} [{i}][{j}]"
                );
            }
        }
    }
}

/// Writes the address of each of three local requests (one byte, an `i32`
/// array, a zero-filled `u16` array), modulo 64, into the group's chunk.
#[kernel]
fn local_addresses(group: WorkGroup<1>, mut out: ChunkWindow<'_, usize>) {
    memory_environment!(
        group,
        require_local_mem::<u8>(3),
        require_local_mem::<[i32; 5]>(1),
        require_local_mem::<[u16; 3]>(),
        |byte, ints, shorts| {
            single_item!(group, || {
                let start = out.start();
                out[start] = std::ptr::from_mut(byte) as usize % 64;
                out[start + 1] = ints.as_ptr() as usize % 64;
                out[start + 2] = shorts.as_ptr() as usize % 64;
            });
        }
    );
}

#[test]
fn local_memory_is_cache_line_aligned() {
    let groups = 4;
    let mut out = vec![usize::MAX; groups * 3];
    Queue::new()
        .parallel_with(groups, 8, ChunksMut::new(&mut out, 3), local_addresses)
        .unwrap();
    assert_eq!(out, vec![0; groups * 3]);
}

/// Flattens 1-D and 3-D local arrays filled from scalars into the chunk:
/// 100 `f32`s, then 7 × 5 × 3 `u16`s in row-major order.
#[kernel]
fn array_fills(group: WorkGroup<1>, mut out: ChunkWindow<'_, f64>) {
    memory_environment!(
        group,
        require_local_mem::<[f32; 100]>(2.5),
        require_local_mem::<[[[u16; 3]; 5]; 7]>(9),
        |flat, cube| {
            single_item!(group, || {
                let chunk = out.as_mut_slice();
                for (i, &v) in flat.iter().enumerate() {
                    chunk[i] = f64::from(v);
                }
                let mut k = 100;
                for plane in cube.iter() {
                    for row in plane.iter() {
                        for &v in row.iter() {
                            chunk[k] = f64::from(v);
                            k += 1;
                        }
                    }
                }
            });
        }
    );
}

#[test]
fn local_memory_scalar_fill_of_1d_and_3d_arrays() {
    let per_group = 100 + 7 * 5 * 3;
    let mut out = vec![0.0; 2 * per_group];
    Queue::new()
        .parallel_with(2, 1, ChunksMut::new(&mut out, per_group), array_fills)
        .unwrap();
    for chunk in out.chunks(per_group) {
        assert!(
            chunk[..100].iter().all(|&v| v == 2.5),
            "{:?}",
            &chunk[..100]
        );
        assert!(
            chunk[100..].iter().all(|&v| v == 9.0),
            "{:?}",
            &chunk[100..]
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pair {
    count: u32,
    label: [u8; 3],
    weight: f64,
}

/// Whole-value initialisation of a struct, an array from an array value,
/// and a tuple; each is reported as it was seen.
#[kernel]
fn whole_values(
    group: WorkGroup<1>,
    pair: Pair,
    mut pairs: ChunkWindow<'_, Pair>,
    mut arrays: ChunkWindow<'_, [i32; 4]>,
    mut tuples: ChunkWindow<'_, (u64, bool)>,
) {
    memory_environment!(
        group,
        require_local_mem::<Pair>(pair),
        require_local_mem::<[i32; 4]>([1, -2, 3, -4]),
        require_local_mem::<(u64, bool)>((u64::MAX - 1, true)),
        |p, a, t| {
            single_item!(group, || {
                let g = group.group_linear_id();
                pairs[g] = *p;
                arrays[g] = *a;
                tuples[g] = *t;
            });
        }
    );
}

#[test]
fn local_memory_whole_value_init() {
    let pair = Pair {
        count: 42,
        label: *b"abc",
        weight: -0.25,
    };
    let groups = 3;
    let zero_pair = Pair {
        count: 0,
        label: [0; 3],
        weight: 0.0,
    };
    let mut pairs = vec![zero_pair; groups];
    let mut arrays = vec![[0; 4]; groups];
    let mut tuples = vec![(0, false); groups];
    let args = (
        ChunksMut::new(&mut pairs, 1),
        ChunksMut::new(&mut arrays, 1),
        ChunksMut::new(&mut tuples, 1),
    );
    Queue::new()
        .parallel_with(groups, 4, args, |g, (p, a, t)| {
            whole_values(g, pair, p, a, t)
        })
        .unwrap();
    assert_eq!(pairs, vec![pair; groups]);
    assert_eq!(arrays, vec![[1, -2, 3, -4]; groups]);
    assert_eq!(tuples, vec![(u64::MAX - 1, true); groups]);
}

#[derive(Clone, Copy, Debug, PartialEq, Zeroable)]
struct Accumulator {
    sum: f64,
    count: u32,
}

/// First fills local and private memory with garbage in one environment,
/// then opens environments without initial values (which reuse the same
/// thread's buffers) and reports what each item and the group see.
#[kernel]
fn zero_init_after_garbage(
    group: WorkGroup<2>,
    mut items: ItemsWindow<'_, (i64, u32, Accumulator), 2>,
    mut locals: ChunkWindow<'_, u64>,
) {
    memory_environment!(
        group,
        require_local_mem::<[u64; 40]>(u64::MAX),
        require_private_mem::<i64>(-1),
        |garbage, private| {
            distribute_items!(group, |idx| {
                private[idx] -= idx.global_linear_id() as i64;
                garbage[idx.innermost_local_linear_id() % 40] ^= 0x5555;
            });
        }
    );
    memory_environment!(
        group,
        require_local_mem::<[u64; 40]>(),
        require_private_mem::<i64>(),
        require_private_mem::<Accumulator>(),
        |zeros, private, acc| {
            private_memory_environment!(group, u32, |small| {
                distribute_items!(group, |idx| {
                    items[idx] = (private[idx], small[idx], acc[idx]);
                });
            });
            single_item!(group, || {
                let sum: u64 = zeros.iter().sum();
                let any = zeros.iter().fold(0, |a, &z| a | z);
                locals[group.group_linear_id()] = sum | any;
            });
        }
    );
}

#[test]
fn zero_init_of_local_and_private_memory() {
    // One thread, so later groups reuse the buffers earlier groups dirtied.
    let queue = Queue::with_threads(1).unwrap();
    let (groups, size) = ((2, 3), (5, 7));
    let items = 6 * 35;
    let zero = (7, 7, Accumulator { sum: 7.0, count: 7 });
    let mut seen = vec![zero; items];
    let mut locals = vec![7; 6];
    queue
        .parallel_with(
            groups,
            size,
            (ItemsMut::new(&mut seen), ChunksMut::new(&mut locals, 1)),
            |g, (i, l)| zero_init_after_garbage(g, i, l),
        )
        .unwrap();
    let expected = (0, 0, Accumulator { sum: 0.0, count: 0 });
    assert!(seen.iter().all(|s| *s == expected), "{seen:?}");
    assert_eq!(locals, vec![0; 6]);
}

// ---------------------------------------------------------------------------
// Private memory.

/// Private memory initialised from a value, persisting across three
/// `distribute_items!` calls: `out = (init + 3 * global linear id) * 2 +
/// local linear id`.
#[kernel]
fn private_persists<const D: usize>(
    group: WorkGroup<D>,
    init: i64,
    mut out: ItemsWindow<'_, i64, D>,
) {
    memory_environment!(group, require_private_mem::<i64>(init), |value| {
        distribute_items!(group, |idx| {
            value[idx] += 3 * idx.global_linear_id() as i64;
        });
        distribute_items!(group, |idx| {
            value[&idx] *= 2;
        });
        distribute_items!(group, |idx| {
            out[idx] = value[idx] + idx.innermost_local_linear_id() as i64;
        });
    });
}

fn check_private_persists<const D: usize>(num_groups: [usize; D], group_size: [usize; D]) {
    let global: [usize; D] = std::array::from_fn(|d| num_groups[d] * group_size[d]);
    let items: usize = global.iter().product();
    let init = -11;
    let mut out = vec![0; items];
    Queue::new()
        .parallel_with(num_groups, group_size, ItemsMut::new(&mut out), |g, w| {
            private_persists::<D>(g, init, w)
        })
        .unwrap();
    for (position, &got) in out.iter().enumerate() {
        // The global id at `position`, and its local linear id in its group.
        let mut rest = position;
        let mut gid = [0; D];
        for d in (0..D).rev() {
            gid[d] = rest % global[d];
            rest /= global[d];
        }
        let local: [usize; D] = std::array::from_fn(|d| gid[d] % group_size[d]);
        let expected = (init + 3 * position as i64) * 2 + linear(group_size, local) as i64;
        assert_eq!(got, expected, "global id {gid:?}");
    }
}

#[test]
fn private_memory_on_the_stack_and_on_the_heap() {
    // 8-byte values: 512 items fill the stack room exactly, more go to
    // the heap.
    assert_eq!(PRIVATE_STACK_BYTES, 512 * std::mem::size_of::<i64>());
    check_private_persists([2], [512]);
    check_private_persists([3], [513]);
    check_private_persists([2, 2], [16, 40]);
}

/// A heap-backed work-group memory with stack-backed memories of its
/// sub-groups inside: `out = 3 * global linear id + 7 + local linear id`.
#[kernel]
fn heap_outer_stack_inner(group: WorkGroup<1, 16>, mut out: ItemsWindow<'_, i64>) {
    memory_environment!(group, require_private_mem::<i64>(), |outer| {
        distribute_items!(group, |idx| outer[idx] = 3 * idx.global_linear_id() as i64);
        distribute_groups!(group, |sub| {
            memory_environment!(sub, require_private_mem::<u16>(7), |inner| {
                distribute_items!(sub, |idx| {
                    inner[idx] += idx.local_linear_id(&group) as u16;
                    out[idx] = outer[idx] + i64::from(inner[idx]);
                });
            });
        });
    });
}

#[test]
fn stack_backed_memory_nested_in_heap_backed_memory() {
    let (groups, size) = (3, 600);
    assert!(size * std::mem::size_of::<i64>() > PRIVATE_STACK_BYTES);
    let mut out = vec![0; groups * size];
    Queue::new()
        .parallel_with(
            groups,
            size,
            ItemsMut::new(&mut out),
            heap_outer_stack_inner,
        )
        .unwrap();
    for (i, &got) in out.iter().enumerate() {
        assert_eq!(got, 3 * i as i64 + 7 + (i % size) as i64, "item {i}");
    }
}

#[test]
fn private_memory_persists_across_distribute_items() {
    check_private_persists([3], [100]);
    check_private_persists([2, 3], [7, 5]);
    check_private_persists([3, 2, 2], [7, 5, 3]);
}

/// Private memory in a 2-D or 3-D group, read whole: `as_slice()` lists
/// the items' values in increasing local linear id.
#[kernel]
fn private_as_slice<const D: usize>(group: WorkGroup<D>, mut out: ChunkWindow<'_, usize>) {
    memory_environment!(group, require_private_mem::<usize>(), |gids| {
        distribute_items!(group, |idx| {
            gids[idx] = idx.global_linear_id();
        });
        single_item!(group, || {
            assert_eq!(gids.len(), group.logical_local_linear_range());
            assert_eq!(gids.range(), group.logical_local_range());
            assert!(!gids.is_empty());
            out.as_mut_slice().copy_from_slice(gids.as_slice());
        });
    });
}

fn check_private_as_slice<const D: usize>(num_groups: [usize; D], group_size: [usize; D]) {
    let global: [usize; D] = std::array::from_fn(|d| num_groups[d] * group_size[d]);
    let per_group: usize = group_size.iter().product();
    let groups: usize = num_groups.iter().product();
    let mut out = vec![usize::MAX; groups * per_group];
    Queue::new()
        .parallel_with(
            num_groups,
            group_size,
            ChunksMut::new(&mut out, per_group),
            private_as_slice::<D>,
        )
        .unwrap();
    for (g, chunk) in out.chunks(per_group).enumerate() {
        // Group id of linear group g, then its items in row-major order.
        let mut rest = g;
        let mut group_id = [0; D];
        for d in (0..D).rev() {
            group_id[d] = rest % num_groups[d];
            rest /= num_groups[d];
        }
        for (l, &got) in chunk.iter().enumerate() {
            let mut rest = l;
            let mut gid = [0; D];
            for d in (0..D).rev() {
                gid[d] = group_id[d] * group_size[d] + rest % group_size[d];
                rest /= group_size[d];
            }
            assert_eq!(got, linear(global, gid), "group {g}, local linear id {l}");
        }
    }
}

#[test]
fn private_memory_in_2d_and_3d_groups() {
    check_private_as_slice([2, 3], [7, 5]);
    check_private_as_slice([3, 2, 2], [7, 5, 3]);
    check_private_as_slice([1, 1, 1], [2, 1, 9]);
}

// ---------------------------------------------------------------------------
// Ordering of the _and_wait forms.

/// Reverses the group's values through local memory and adds the group's
/// total, each pass reading what the previous `_and_wait` pass wrote.
#[kernel]
fn reverse_plus_total(group: WorkGroup<1>, input: &[i32], mut out: ItemsWindow<'_, i32>) {
    memory_environment!(
        group,
        require_local_mem::<[i32; 128]>(),
        require_local_mem::<i32>(),
        require_private_mem::<i32>(),
        |tile, total, reversed| {
            let n = group.logical_local_linear_range();
            distribute_items_and_wait!(group, |idx| {
                tile[idx.innermost_local_id_dim(0)] = input[idx.global_id_dim(0)];
            });
            distribute_items_and_wait!(group, |idx| {
                reversed[idx] = tile[n - 1 - idx.innermost_local_id_dim(0)];
            });
            single_item_and_wait!(group, || {
                *total = tile[..n].iter().sum();
            });
            distribute_groups_and_wait!(group, |sub| {
                single_item!(sub, || {
                    *total += 1;
                });
            });
            distribute_items!(group, |idx| {
                out[idx] = reversed[idx] + *total;
            });
        }
    );
}

#[test]
fn and_wait_passes_see_earlier_results() {
    let (groups, size) = (4, 100);
    let input: Vec<i32> = (0..groups * size)
        .map(|i| (i as i32 * 37) % 101 - 50)
        .collect();
    let mut out = vec![0; groups * size];
    Queue::new()
        .parallel_with(groups, size, ItemsMut::new(&mut out), |g, w| {
            reverse_plus_total(g, &input, w)
        })
        .unwrap();
    let sub_groups = size.div_ceil(scoped::DEFAULT_SUB_GROUP_SIZE) as i32;
    for g in 0..groups {
        let chunk = &input[g * size..(g + 1) * size];
        let total: i32 = chunk.iter().sum::<i32>() + sub_groups;
        for l in 0..size {
            assert_eq!(
                out[g * size + l],
                chunk[size - 1 - l] + total,
                "group {g}, item {l}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Environments on sub-groups and scalar groups, nested environments.

/// Per item: `out = 1000 * group's marker + 10 * sub-group sum-check + ...`,
/// see the test for the reference. Each sub-group keeps a local sum and a
/// private copy of its items' inputs; each scalar group keeps a local and a
/// private counter. The work group's own private memory must survive the
/// nested environments unchanged.
#[kernel]
fn nested_environments(
    group: WorkGroup<1, 4>,
    input: &[i64],
    mut out: ItemsWindow<'_, i64>,
    mut sub_sums: ChunkWindow<'_, i64>,
) {
    memory_environment!(group, require_private_mem::<i64>(), |outer| {
        distribute_items!(group, |idx| {
            outer[idx] = input[idx.global_linear_id()];
        });
        distribute_groups!(group, |sub| {
            memory_environment!(
                sub,
                require_local_mem::<i64>(0),
                require_private_mem::<i64>(-5),
                |sum, inner| {
                    assert_eq!(inner.len(), sub.logical_local_linear_range());
                    assert_eq!(inner.range(), sub.logical_local_range());
                    assert!(inner.as_slice().iter().all(|&v| v == -5));
                    distribute_items!(sub, |idx| {
                        inner[idx] = 2 * input[idx.global_linear_id()];
                        *sum += inner[idx];
                    });
                    distribute_groups!(sub, |scalar| {
                        memory_environment!(
                            scalar,
                            require_local_mem::<[i64; 2]>(3),
                            require_private_mem::<i64>(100),
                            |pair, own| {
                                assert_eq!(own.len(), 1);
                                distribute_items!(scalar, |idx| {
                                    own[idx] += pair[0] + pair[1];
                                    pair[1] = own[idx];
                                });
                                distribute_items!(scalar, |idx| {
                                    // 2 * input from the sub-group's memory,
                                    // 106 from the scalar group's.
                                    out[idx] = inner[idx] + pair[1];
                                });
                            }
                        );
                    });
                    single_item!(sub, || {
                        let slot = sub_sums.start() + sub.group_linear_id();
                        sub_sums[slot] = *sum;
                    });
                }
            );
        });
        distribute_items!(group, |idx| {
            // The work group's private memory is intact: out += input.
            out[idx] += outer[idx];
        });
    });
}

#[test]
fn memory_environments_on_sub_groups_and_scalar_groups() {
    let (groups, size, s): (usize, usize, usize) = (3, 10, 4);
    let subs = size.div_ceil(s);
    let input: Vec<i64> = (0..groups * size).map(|i| (i * i) as i64 - 40).collect();
    let mut out = vec![0; groups * size];
    let mut sums = vec![0; groups * subs];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(
            groups,
            size,
            (ItemsMut::new(&mut out), ChunksMut::new(&mut sums, subs)),
            |g, (o, c)| nested_environments(g, &input, o, c),
        )
        .unwrap();
    for (i, &got) in out.iter().enumerate() {
        assert_eq!(got, 2 * input[i] + 106 + input[i], "item {i}");
    }
    for g in 0..groups {
        for sub in 0..subs {
            let first = g * size + sub * s;
            let last = (first + s).min((g + 1) * size);
            let expected: i64 = input[first..last].iter().map(|v| 2 * v).sum();
            assert_eq!(sums[g * subs + sub], expected, "group {g}, sub-group {sub}");
        }
    }
}

/// The shorthand environments: zero-initialised local and private memory.
#[kernel]
fn shorthands(group: WorkGroup<1>, mut out: ItemsWindow<'_, (i32, u32)>) {
    local_memory_environment!(group, [i32; 8], |hist| {
        private_memory_environment!(group, u32, |count| {
            distribute_items!(group, |idx| {
                let lid = idx.innermost_local_id_dim(0);
                hist[lid % 8] += 1;
                count[idx] += lid as u32;
            });
            distribute_items!(group, |idx| {
                let lid = idx.innermost_local_id_dim(0);
                out[idx] = (hist[lid % 8], count[idx]);
            });
        });
    });
}

#[test]
fn local_and_private_memory_environment_shorthands() {
    let (groups, size) = (2, 21);
    let mut out = vec![(-1, 0); groups * size];
    Queue::new()
        .parallel_with(groups, size, ItemsMut::new(&mut out), shorthands)
        .unwrap();
    for (i, &(hist, count)) in out.iter().enumerate() {
        let lid = i % size;
        let bucket = (0..size).filter(|l| l % 8 == lid % 8).count() as i32;
        assert_eq!((hist, count), (bucket, lid as u32), "item {i}");
    }
}

// ---------------------------------------------------------------------------
// async_work_group_copy and wait_for.

const TILE: usize = 24;

/// Copies in three ways and reports each copy in the group's chunk of 4
/// regions of `3 * TILE` elements: a contiguous load of the group's
/// `TILE` inputs into local memory, a gather of every third input from
/// the group's region, and a scatter of the local tile with stride 3.
#[kernel]
fn copies(group: WorkGroup<1>, input: &[i32], mut out: ChunkWindow<'_, i32>) {
    memory_environment!(
        group,
        require_local_mem::<[i32; TILE]>(),
        require_local_mem::<[i32; TILE]>(),
        |tile, gathered| {
            let g = group.group_linear_id();
            let region = &input[g * 3 * TILE..(g + 1) * 3 * TILE];
            let load = group.async_work_group_copy(&mut tile[..], &input[g * TILE..], TILE);
            let gather = group.async_work_group_copy_src_stride(&mut gathered[..], region, TILE, 3);
            group.wait_for([load, gather]);
            let chunk = out.as_mut_slice();
            let (head, rest) = chunk.split_at_mut(3 * TILE);
            head[..TILE].copy_from_slice(&tile[..]);
            let (second, scatter) = rest.split_at_mut(3 * TILE);
            second[..TILE].copy_from_slice(&gathered[..]);
            group
                .async_work_group_copy_dest_stride(scatter, &tile[..], TILE, 3)
                .wait();
            let none = group.async_work_group_copy::<i32>(&mut [], &[], 0);
            group.wait_for([none]);
        }
    );
}

#[test]
fn async_work_group_copies_match_serial_copies() {
    let groups = 3;
    let per_group = 3 * 3 * TILE;
    let input: Vec<i32> = (0..groups * 3 * TILE)
        .map(|i| (i as i32) * 7 - 100)
        .collect();
    let mut out = vec![-1; groups * per_group];
    Queue::new()
        .parallel_with(groups, 8, ChunksMut::new(&mut out, per_group), |g, w| {
            copies(g, &input, w)
        })
        .unwrap();
    for g in 0..groups {
        let mut expected = vec![-1; per_group];
        for i in 0..TILE {
            expected[i] = input[g * TILE + i];
            expected[3 * TILE + i] = input[g * 3 * TILE + 3 * i];
            expected[6 * TILE + 3 * i] = input[g * TILE + i];
        }
        assert_eq!(
            &out[g * per_group..(g + 1) * per_group],
            &expected[..],
            "group {g}"
        );
    }
}

/// Performs one copy of `kind` with the given slice lengths.
#[kernel]
fn bad_copy(group: WorkGroup<1>, kind: u8, dest_len: usize, src_len: usize, n: usize) {
    let mut dest = vec![0u8; dest_len];
    let src = vec![1u8; src_len];
    let event = match kind {
        0 => group.async_work_group_copy(&mut dest, &src, n),
        1 => group.async_work_group_copy_src_stride(&mut dest, &src, n, 4),
        _ => group.async_work_group_copy_dest_stride(&mut dest, &src, n, 4),
    };
    group.wait_for([event]);
}

fn run_bad_copy(kind: u8, dest_len: usize, src_len: usize, n: usize) {
    Queue::new()
        .parallel(1, 1, |g| bad_copy(g, kind, dest_len, src_len, n))
        .unwrap();
}

#[test]
fn copies_with_exact_lengths_do_not_panic() {
    run_bad_copy(0, 10, 10, 10);
    run_bad_copy(1, 10, 37, 10);
    run_bad_copy(2, 37, 10, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: src has 9 elements, but copying 10 elements \
                           with stride 1 needs 10"
)]
fn contiguous_copy_from_short_src_panics() {
    run_bad_copy(0, 10, 9, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: dest has 9 elements, but copying 10 elements \
                           with stride 1 needs 10"
)]
fn contiguous_copy_into_short_dest_panics() {
    run_bad_copy(0, 9, 10, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: src has 36 elements, but copying 10 elements \
                           with stride 4 needs 37"
)]
fn gather_from_short_src_panics() {
    run_bad_copy(1, 10, 36, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: dest has 9 elements, but copying 10 elements \
                           with stride 1 needs 10"
)]
fn gather_into_short_dest_panics() {
    run_bad_copy(1, 9, 37, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: dest has 36 elements, but copying 10 elements \
                           with stride 4 needs 37"
)]
fn scatter_into_short_dest_panics() {
    run_bad_copy(2, 36, 10, 10);
}

#[test]
#[should_panic(
    expected = "async_work_group_copy: src has 9 elements, but copying 10 elements \
                           with stride 1 needs 10"
)]
fn scatter_from_short_src_panics() {
    run_bad_copy(2, 37, 9, 10);
}

/// Sub-group 0 keeps one of its items; sub-group 1 indexes its own private
/// memory with it.
#[kernel]
fn foreign_private_index(group: WorkGroup<1, 4>, kept: &Mutex<Option<SItem<1>>>) {
    distribute_groups!(group, |sub| {
        private_memory_environment!(sub, i32, |values| {
            distribute_items!(sub, |idx| {
                if sub.group_linear_id() == 0 {
                    kept.lock().unwrap().get_or_insert(idx);
                } else if let Some(other) = *kept.lock().unwrap() {
                    values[other] += 1;
                }
            });
        });
    });
}

#[test]
#[should_panic(
    expected = "private memory: the item with global id 0 is not one of the items of the \
                group whose items start at global id 4 with range 4"
)]
fn private_memory_indexed_with_an_item_of_another_group_panics() {
    let kept = Mutex::new(None);
    Queue::with_threads(1)
        .unwrap()
        .parallel(1, 8, |g| foreign_private_index(g, &kept))
        .unwrap();
}
