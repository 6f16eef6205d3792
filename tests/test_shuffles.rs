//! The shuffles (`shift_group_left`, `shift_group_right`,
//! `permute_group_by_xor`, `select_from_group`) against a serial
//! reference: at every listed sub-group size, for the element types of
//! SIMD lanes and a few more, at every instruction-set level this CPU
//! has, on full and partial sub-groups and on work groups of exactly `S`
//! items (which take the fixed-width paths) and of `2·S + 3` (which do
//! not). Distances and masks run past the group's end, where an item with
//! no source keeps the value its result held before.

use std::fmt::Debug;

use scoped::prelude::*;
use scoped::Isa;

/// A value for global id `i`, distinct for every id the tests use.
trait Value: Copy + PartialEq + Debug + Send + Sync + 'static {
    fn of(i: usize) -> Self;
    /// The value results start with, which no `of(i)` takes.
    const FILL: Self;
}

macro_rules! values {
    ($($t:ty: $fill:expr, |$i:ident| $of:expr;)*) => {$(
        impl Value for $t {
            fn of($i: usize) -> Self {
                $of
            }
            const FILL: Self = $fill;
        }
    )*};
}

values! {
    f32: f32::NAN.abs(), |i| i as f32 * 0.5 - 7.25;
    f64: -1e300, |i| i as f64 * -0.25 + 3.5;
    i32: i32::MIN, |i| i as i32 * 3 - 100;
    u32: u32::MAX, |i| i as u32 * 7 + 1;
    i64: i64::MIN, |i| -(i as i64) * 11;
    u64: u64::MAX, |i| i as u64 + (1 << 40);
    u8: 255, |i| (i % 251) as u8;
    [f32; 3]: [0.0, -1.0, 0.5], |i| [i as f32, 1.0, -(i as f32)];
}

/// Compares values bit for bit (a float `FILL` may be NaN).
fn same<T: Value>(a: &[T], b: &[T]) -> bool {
    let bytes = |v: &[T]| {
        // SAFETY: `T` is one of the plain-data types above (no padding),
        // so its bytes are initialised.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
            .to_vec()
    };
    bytes(a) == bytes(b)
}

/// Per item, the results of the four shuffles on the work group (0..4)
/// and on its sub-group (4..8). `select_from_group` reads item
/// `(5 · id + 3) mod n`, `n` the group's number of items.
#[kernel]
fn shuffles<T: Value, const S: usize>(
    group: WorkGroup<1, S>,
    delta: usize,
    mut out: ItemsWindow<'_, [T; 8]>,
) {
    memory_environment!(
        group,
        require_private_mem::<T>(T::FILL),
        require_private_mem::<usize>(),
        require_private_mem::<T>(T::FILL),
        require_private_mem::<T>(T::FILL),
        require_private_mem::<T>(T::FILL),
        require_private_mem::<T>(T::FILL),
        |x, remote, left, right, xor, select| {
            let n = group.logical_local_linear_range();
            distribute_items!(group, |idx| {
                x[idx] = T::of(idx.global_linear_id());
                remote[idx] = (5 * idx.local_linear_id(&group) + 3) % n;
            });
            shift_group_left(group, x, left, delta);
            shift_group_right(group, x, right, delta);
            permute_group_by_xor(group, x, xor, delta);
            select_from_group(group, x, select, remote);
            distribute_items!(group, |idx| {
                out[idx][..4].copy_from_slice(&[left[idx], right[idx], xor[idx], select[idx]]);
            });
            distribute_groups!(group, |sg| {
                memory_environment!(
                    sg,
                    require_private_mem::<usize>(),
                    require_private_mem::<T>(T::FILL),
                    require_private_mem::<T>(T::FILL),
                    require_private_mem::<T>(T::FILL),
                    require_private_mem::<T>(T::FILL),
                    |lanes, left, right, xor, select| {
                        let n = sg.logical_local_linear_range();
                        distribute_items!(sg, |idx| {
                            lanes[idx] = (5 * idx.innermost_local_linear_id() + 3) % n;
                        });
                        shift_group_left(sg, x, left, delta);
                        shift_group_right(sg, x, right, delta);
                        permute_group_by_xor(sg, x, xor, delta);
                        select_from_group(sg, x, select, lanes);
                        distribute_items!(sg, |idx| {
                            out[idx][4..].copy_from_slice(&[
                                left[idx],
                                right[idx],
                                xor[idx],
                                select[idx],
                            ]);
                        });
                    }
                );
            });
        }
    );
}

/// The four shuffles of `values` (the items of one group, in increasing
/// local linear id), each result `FILL` where the item has no source.
fn reference<T: Value>(values: &[T], delta: usize) -> Vec<[T; 4]> {
    let n = values.len();
    let at = |j: Option<usize>| j.filter(|&j| j < n).map_or(T::FILL, |j| values[j]);
    (0..n)
        .map(|i| {
            [
                at(i.checked_add(delta)),
                at(i.checked_sub(delta)),
                at(Some(i ^ delta)),
                at(Some((5 * i + 3) % n)),
            ]
        })
        .collect()
}

fn check<T: Value, const S: usize>(isa: Isa) {
    let queue = Queue::new().with_isa(isa).unwrap();
    for size in [S, 2 * S + 3] {
        let groups = 3;
        let deltas = [
            0,
            1,
            2,
            3,
            4,
            5,
            7,
            8,
            9,
            16,
            31,
            32,
            33,
            63,
            64,
            65,
            200,
            usize::MAX,
        ];
        for delta in deltas {
            let mut out = vec![[T::FILL; 8]; groups * size];
            queue
                .parallel_with(groups, size, ItemsMut::new(&mut out), |g, w| {
                    shuffles::<T, S>(g, delta, w)
                })
                .unwrap();
            let mut expected = Vec::new();
            for g in 0..groups {
                let values: Vec<T> = (g * size..(g + 1) * size).map(T::of).collect();
                let whole = reference(&values, delta);
                let subs = values.chunks(S).flat_map(|sub| reference(sub, delta));
                for (w, s) in whole.into_iter().zip(subs) {
                    expected.push([w[0], w[1], w[2], w[3], s[0], s[1], s[2], s[3]]);
                }
            }
            for (i, (got, want)) in out.iter().zip(&expected).enumerate() {
                assert!(
                    same(got, want),
                    "{}, S = {S}, group size {size}, delta/mask {delta}, level {isa}, item {i}: \
                     got {got:?}, expected {want:?} (left, right, xor, select; work group, then \
                     sub-group)",
                    std::any::type_name::<T>(),
                );
            }
        }
    }
}

fn check_sizes<T: Value>() {
    for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
        check::<T, 1>(isa);
        check::<T, 2>(isa);
        check::<T, 4>(isa);
        check::<T, 8>(isa);
        check::<T, 16>(isa);
        check::<T, 32>(isa);
        check::<T, 64>(isa);
    }
    assert_eq!(SUB_GROUP_SIZES, [1, 2, 4, 8, 16, 32, 64]);
}

#[test]
fn shuffles_of_f32_match_the_reference() {
    check_sizes::<f32>();
}

#[test]
fn shuffles_of_f64_match_the_reference() {
    check_sizes::<f64>();
}

#[test]
fn shuffles_of_i32_match_the_reference() {
    check_sizes::<i32>();
}

#[test]
fn shuffles_of_u32_match_the_reference() {
    check_sizes::<u32>();
}

#[test]
fn shuffles_of_i64_match_the_reference() {
    check_sizes::<i64>();
}

#[test]
fn shuffles_of_u64_match_the_reference() {
    check_sizes::<u64>();
}

#[test]
fn shuffles_of_u8_match_the_reference() {
    check_sizes::<u8>();
}

/// Values wider than 16 bytes would take the scalar loops; 12 bytes still
/// take the fixed-width ones.
#[test]
fn shuffles_of_small_arrays_match_the_reference() {
    check_sizes::<[f32; 3]>();
}

#[kernel]
fn select_outside_a_full_sub_group(group: WorkGroup<1, 16>) {
    distribute_groups!(group, |sg| {
        memory_environment!(
            sg,
            require_private_mem::<f32>(0.0),
            require_private_mem::<f32>(),
            require_private_mem::<usize>(),
            |x, y, ids| {
                distribute_items!(sg, |idx| {
                    let lane = idx.innermost_local_linear_id();
                    ids[idx] = if lane >= 3 { 16 + lane } else { lane };
                });
                select_from_group(sg, x, y, ids);
            }
        );
    });
}

#[test]
#[should_panic(
    expected = "select_from_group: item 3 selects local linear id 19, but the group has 16 items"
)]
fn a_full_sub_group_refuses_an_id_outside_naming_the_first_item() {
    Queue::new()
        .parallel(1, 16, select_outside_a_full_sub_group)
        .unwrap();
}

/// A loop over literal masks around a shuffle (the xor butterfly of GPU
/// reductions), each round folding the partner's value in an
/// order-dependent way: the macros write such a loop out once per mask,
/// and the rounds must still run in the array's order.
#[kernel]
fn butterfly_rounds(group: WorkGroup<1, 8>, input: &[i64], mut out: ItemsWindow<'_, i64>) {
    memory_environment!(
        group,
        require_private_mem::<i64>(),
        require_private_mem::<i64>(),
        |x, partner| {
            distribute_groups!(group, |sg| {
                distribute_items!(sg, |idx| x[idx] = input[idx.global_linear_id()]);
                for m in [4, 1, 2] {
                    permute_group_by_xor(sg, x, partner, m);
                    distribute_items!(sg, |idx| x[idx] = 3 * x[idx] + partner[idx] + m as i64);
                }
            });
            distribute_items!(group, |idx| out[idx] = x[idx]);
        }
    );
}

#[test]
fn a_loop_over_literal_masks_runs_its_rounds_in_order() {
    let input: Vec<i64> = (0..16).map(|i| i * i - 5).collect();
    let mut out = vec![0; 16];
    Queue::new()
        .parallel_with(2, 8, ItemsMut::new(&mut out), |g, w| {
            butterfly_rounds(g, &input, w)
        })
        .unwrap();
    let mut want = input.clone();
    for m in [4usize, 1, 2] {
        let before = want.clone();
        for (i, w) in want.iter_mut().enumerate() {
            let partner = before[(i & !7) | ((i % 8) ^ m)];
            *w = 3 * *w + partner + m as i64;
        }
    }
    assert_eq!(out, want);
}
