//! Private memory of a work group that only one `distribute_groups!`
//! uses, which the macros make per sub-group, against serial references:
//! the xor butterfly on full and partial sub-groups (whose items without
//! a partner keep their previous value, so a partner slot carries over
//! from round to round), an initial value computed once per environment,
//! the `private_memory_environment!` form, and an environment whose
//! memory is read after the sub-group loop (made on the work group, as
//! written). At every instruction-set level this CPU has.

use std::sync::atomic::{AtomicUsize, Ordering};

use scoped::prelude::*;
use scoped::{permute_group_by_xor, Isa};

const S: usize = 16;

/// Each item's value, then the butterfly over its sub-group; the result
/// is written per item.
#[kernel]
fn butterfly(group: WorkGroup<1, S>, input: &[f32], mut out: ItemsWindow<'_, f32>) {
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |sum, partner| {
            distribute_groups!(group, |sg| {
                distribute_items!(sg, |idx| sum[idx] = input[idx.global_linear_id()]);
                for m in [8, 4, 2, 1] {
                    permute_group_by_xor(sg, sum, partner, m);
                    distribute_items!(sg, |idx| sum[idx] = 0.5 * sum[idx] + partner[idx]);
                }
                distribute_items!(sg, |idx| out[idx] = sum[idx]);
            })
        }
    );
}

/// The butterfly of one sub-group's values, partner slots starting at 0
/// and kept where `l ^ m` is past the sub-group's end.
fn butterfly_reference(values: &[f32]) -> Vec<f32> {
    let mut sum = values.to_vec();
    let mut partner = vec![0.0f32; values.len()];
    for m in [8usize, 4, 2, 1] {
        for (l, p) in partner.iter_mut().enumerate() {
            if let Some(&v) = sum.get(l ^ m) {
                *p = v;
            }
        }
        for (s, p) in sum.iter_mut().zip(&partner) {
            *s = 0.5 * *s + p;
        }
    }
    sum
}

fn levels() -> impl Iterator<Item = Isa> {
    Isa::ALL.into_iter().filter(|isa| isa.is_supported())
}

#[test]
fn the_butterfly_on_full_and_partial_sub_groups_matches_the_reference() {
    for isa in levels() {
        let queue = Queue::new().with_isa(isa).unwrap();
        // Four full sub-groups; two and a partial one of 8 items.
        for size in [64, 40] {
            let groups = 3;
            let input: Vec<f32> = (0..groups * size)
                .map(|i| (i * 37 % 101) as f32 * 0.37 - 11.0)
                .collect();
            let mut out = vec![f32::NAN; groups * size];
            queue
                .parallel_with(groups, size, ItemsMut::new(&mut out), |g, w| {
                    butterfly(g, &input, w)
                })
                .unwrap();
            let want: Vec<f32> = input
                .chunks(size)
                .flat_map(|group| group.chunks(S).flat_map(butterfly_reference))
                .collect();
            let (got, want): (Vec<u32>, Vec<u32>) = (
                out.iter().map(|v| v.to_bits()).collect(),
                want.iter().map(|v| v.to_bits()).collect(),
            );
            assert_eq!(got, want, "group size {size}, level {isa}");
        }
    }
}

static INITS: AtomicUsize = AtomicUsize::new(0);

/// The initial value, counting its evaluations.
fn initial() -> i64 {
    INITS.fetch_add(1, Ordering::Relaxed);
    7
}

/// Every item adds its id to the initial value, then its sub-group's
/// first item's value (read through `group_broadcast`).
#[kernel]
fn from_initial(group: WorkGroup<1, S>, mut out: ItemsWindow<'_, i64>) {
    memory_environment!(group, require_private_mem::<i64>(initial()), |m| {
        distribute_groups!(group, |sg| {
            distribute_items!(sg, |idx| m[idx] += idx.global_linear_id() as i64);
            let first = group_broadcast(sg, m);
            distribute_items!(sg, |idx| out[idx] = 1000 * m[idx] + first);
        })
    });
}

#[test]
fn an_initial_value_is_computed_once_per_environment() {
    for isa in levels() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let (groups, size) = (3, 64);
        let mut out = vec![0i64; groups * size];
        let before = INITS.load(Ordering::Relaxed);
        queue
            .parallel_with(groups, size, ItemsMut::new(&mut out), from_initial)
            .unwrap();
        assert_eq!(
            INITS.load(Ordering::Relaxed) - before,
            groups,
            "level {isa}"
        );
        let want: Vec<i64> = (0..groups * size)
            .map(|i| 1000 * (7 + i as i64) + 7 + (i - i % S) as i64)
            .collect();
        assert_eq!(out, want, "level {isa}");
    }
}

/// The single-request form: each item doubles its value, then takes its
/// xor-1 partner's.
#[kernel]
fn single_request(group: WorkGroup<1, S>, mut out: ItemsWindow<'_, u32>) {
    private_memory_environment!(group, u32, |m| {
        distribute_groups!(group, |sg| {
            distribute_items!(sg, |idx| m[idx] = 2 * idx.global_linear_id() as u32);
            memory_environment!(sg, require_private_mem::<u32>(), |partner| {
                permute_group_by_xor(sg, m, partner, 1);
                distribute_items!(sg, |idx| out[idx] = m[idx] + 3 * partner[idx]);
            });
        });
    });
}

#[test]
fn the_single_request_form_matches_the_reference() {
    for isa in levels() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut out = vec![0u32; 2 * 48];
        queue
            .parallel_with(2, 48, ItemsMut::new(&mut out), single_request)
            .unwrap();
        let want: Vec<u32> = (0..96u32).map(|i| 2 * i + 3 * 2 * (i ^ 1)).collect();
        assert_eq!(out, want, "level {isa}");
    }
}

/// Memory read after the sub-group loop, by the work group's items: made
/// on the work group, as written.
#[kernel]
fn read_after(group: WorkGroup<1, S>, mut out: ItemsWindow<'_, u64>) {
    memory_environment!(group, require_private_mem::<u64>(), |m| {
        distribute_groups!(group, |sg| {
            distribute_items!(sg, |idx| m[idx] = (idx.global_linear_id() as u64).pow(2));
        });
        distribute_items!(group, |idx| out[idx] = m[idx] + 1);
    });
}

#[test]
fn memory_read_after_the_sub_group_loop_keeps_every_value() {
    for isa in levels() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut out = vec![0u64; 3 * 40];
        queue
            .parallel_with(3, 40, ItemsMut::new(&mut out), read_after)
            .unwrap();
        let want: Vec<u64> = (0..120u64).map(|i| i * i + 1).collect();
        assert_eq!(out, want, "level {isa}");
    }
}
