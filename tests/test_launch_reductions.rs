//! Reductions in launches (SYCL 2020 `reduction`): alone and several at
//! once, with outputs, per-group and per-item combines, user-defined
//! operators, the target's initial value, reproducibility of float sums,
//! and what happens when a group panics or a reducer outlives its kernel.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::prelude::*;

/// Deterministic pseudo-random values.
fn values(n: usize, seed: u64) -> Vec<i64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as i64 % 2001 - 1000
        })
        .collect()
}

#[kernel]
fn group_sum(group: WorkGroup<1>, input: &[i64], mut sum: Reducer<'_, i64, Plus>) {
    memory_environment!(group, require_private_mem::<i64>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
        sum.combine(reduce_over_group(group, x, plus()));
    });
}

#[test]
fn whole_array_sum_needs_no_second_pass() {
    let input = values(100_000, 1);
    let mut sum = 0i64;
    Queue::new()
        .parallel_with(1000, 100, reduction(&mut sum, plus()), |g, s| {
            group_sum(g, &input, s)
        })
        .unwrap();
    assert_eq!(sum, input.iter().sum::<i64>());
}

#[kernel]
fn float_sum(group: WorkGroup<1>, input: &[f32], mut sum: Reducer<'_, f32, Plus>) {
    memory_environment!(group, require_private_mem::<f32>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
        sum.combine(reduce_over_group(group, x, plus()));
    });
}

#[test]
fn float_sums_are_reproducible_whatever_the_threads() {
    let input: Vec<f32> = values(64 * 1000, 2)
        .iter()
        .map(|&v| v as f32 * 0.001)
        .collect();
    let run = |queue: Queue| {
        let mut sum = 0.0f32;
        queue
            .parallel_with(1000, 64, reduction(&mut sum, plus()), |g, s| {
                float_sum(g, &input, s)
            })
            .unwrap();
        sum
    };
    let one = run(Queue::with_threads(1).unwrap());
    let two = run(Queue::with_threads(2).unwrap());
    let three = run(Queue::with_threads(3).unwrap());
    assert_eq!(one.to_bits(), two.to_bits());
    assert_eq!(one.to_bits(), three.to_bits());
    for _ in 0..3 {
        assert_eq!(run(Queue::new()).to_bits(), one.to_bits());
    }
    // Within the error bound of any summation order, n·ε·Σ|x|.
    let exact: f64 = input.iter().map(|&v| f64::from(v)).sum();
    let magnitude: f64 = input.iter().map(|&v| f64::from(v).abs()).sum();
    let bound = input.len() as f64 * f64::from(f32::EPSILON) * magnitude;
    assert!((f64::from(one) - exact).abs() <= bound, "{one} vs {exact}");
}

/// Every item's value, and the group's sum, minimum and maximum.
#[kernel]
fn copy_and_stats(
    group: WorkGroup<1>,
    input: &[i64],
    mut copy: ItemsWindow<'_, i64>,
    mut sum: Reducer<'_, i64, Plus>,
    mut min: Reducer<'_, i64, Minimum>,
    mut max: Reducer<'_, i64, Maximum>,
) {
    memory_environment!(group, require_private_mem::<i64>(), |x| {
        distribute_items!(group, |idx| {
            x[idx] = input[idx.global_linear_id()];
            copy[idx] = 2 * x[idx];
        });
        sum.combine(reduce_over_group(group, x, plus()));
        min.combine(reduce_over_group(group, x, minimum()));
        max.combine(reduce_over_group(group, x, maximum()));
    });
}

#[test]
fn several_reductions_at_once_beside_an_output() {
    let input = values(37 * 29, 3);
    let mut copy = vec![0; input.len()];
    let (mut sum, mut min, mut max) = (0, i64::MAX, i64::MIN);
    Queue::new()
        .parallel_with(
            37,
            29,
            (
                ItemsMut::new(&mut copy),
                reduction(&mut sum, plus()),
                reduction(&mut min, minimum()),
                reduction(&mut max, maximum()),
            ),
            |g, (c, s, lo, hi)| copy_and_stats(g, &input, c, s, lo, hi),
        )
        .unwrap();
    assert_eq!(sum, input.iter().sum::<i64>());
    assert_eq!(min, *input.iter().min().unwrap());
    assert_eq!(max, *input.iter().max().unwrap());
    assert!(copy.iter().zip(&input).all(|(&c, &x)| c == 2 * x));
}

#[test]
fn the_target_takes_part_unless_initialized_to_identity() {
    let input = values(8 * 16, 4);
    let total: i64 = input.iter().sum();
    let launch = |r: Reduction<'_, i64, Plus>| {
        Queue::new()
            .parallel_with(8, 16, r, |g, s| group_sum(g, &input, s))
            .unwrap();
    };
    let mut sum = 1000;
    launch(reduction(&mut sum, plus()));
    assert_eq!(sum, 1000 + total);
    let mut sum = 1000;
    launch(reduction(&mut sum, plus()).initialize_to_identity());
    assert_eq!(sum, total);

    // Nothing combined: the identity, or the target unchanged.
    let mut max = 5u8;
    let mut reset = 5u8;
    Queue::new()
        .parallel_with(
            4,
            4,
            (
                reduction(&mut max, maximum()),
                reduction(&mut reset, maximum()).initialize_to_identity(),
            ),
            |_g: WorkGroup<1>, (_a, _b)| {},
        )
        .unwrap();
    assert_eq!((max, reset), (5, 0));
}

/// Per-group combines with the reducer operators of SYCL 2020.
#[kernel]
fn bit_stats(
    group: WorkGroup<1>,
    input: &[u32],
    mut sum: Reducer<'_, u32, Plus>,
    mut and: Reducer<'_, u32, BitAnd>,
    mut or: Reducer<'_, u32, BitOr>,
    mut xor: Reducer<'_, u32, BitXor>,
) {
    memory_environment!(group, require_private_mem::<u32>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);
        sum += reduce_over_group(group, x, plus());
        and &= reduce_over_group(group, x, bit_and()) | 1;
        or |= reduce_over_group(group, x, bit_or());
        xor ^= reduce_over_group(group, x, bit_xor());
    });
}

#[kernel]
fn group_product(group: WorkGroup<1>, input: &[u32], mut product: Reducer<'_, u32, Multiplies>) {
    memory_environment!(group, require_private_mem::<u32>(), |x| {
        distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()] | 1);
        product *= reduce_over_group(group, x, multiplies());
    });
}

#[test]
fn group_combines_with_operator_assignments() {
    let input: Vec<u32> = values(50 * 30, 5)
        .iter()
        .map(|&v| (v * 7919) as u32)
        .collect();
    let (mut sum, mut and, mut or, mut xor) = (0u32, u32::MAX, 0u32, 0u32);
    Queue::new()
        .parallel_with(
            50,
            30,
            (
                reduction(&mut sum, plus()),
                reduction(&mut and, bit_and()),
                reduction(&mut or, bit_or()),
                reduction(&mut xor, bit_xor()),
            ),
            |g, (s, a, o, x)| bit_stats(g, &input, s, a, o, x),
        )
        .unwrap();
    assert_eq!(sum, input.iter().fold(0u32, |a, &v| a.wrapping_add(v)));
    // Each group's `and` has its lowest bit set before it is combined.
    let and_want = input
        .chunks(30)
        .fold(u32::MAX, |a, c| a & (c.iter().fold(!0, |b, &v| b & v) | 1));
    assert_eq!(and, and_want);
    assert_eq!(or, input.iter().fold(0, |a, &v| a | v));
    assert_eq!(xor, input.iter().fold(0, |a, &v| a ^ v));

    let mut product = 3u32;
    Queue::new()
        .parallel_with(50, 30, reduction(&mut product, multiplies()), |g, p| {
            group_product(g, &input, p)
        })
        .unwrap();
    assert_eq!(
        product,
        input.iter().fold(3u32, |a, &v| a.wrapping_mul(v | 1))
    );
}

type Matrix = [u64; 4];

fn matrix_product(a: Matrix, b: Matrix) -> Matrix {
    let m = |x: u64, y: u64| x.wrapping_mul(y);
    [
        m(a[0], b[0]).wrapping_add(m(a[1], b[2])),
        m(a[0], b[1]).wrapping_add(m(a[1], b[3])),
        m(a[2], b[0]).wrapping_add(m(a[3], b[2])),
        m(a[2], b[1]).wrapping_add(m(a[3], b[3])),
    ]
}

fn matrix(v: i64) -> Matrix {
    let v = v as u64;
    [v, v.wrapping_add(1), 3, v.wrapping_mul(5)]
}

type MatrixProduct = CustomOperator<Matrix, fn(Matrix, Matrix) -> Matrix>;

/// A non-commutative user-defined operator: each group reduces its items'
/// matrices in increasing local linear id (3-D group) and combines the
/// product into the launch's.
#[kernel]
fn matrices(
    group: WorkGroup<3>,
    input: &[i64],
    op: MatrixProduct,
    mut product: Reducer<'_, Matrix, MatrixProduct>,
) {
    memory_environment!(group, require_private_mem::<Matrix>(), |m| {
        distribute_items!(group, |idx| m[idx] = matrix(input[idx.global_linear_id()]));
        product.combine(reduce_over_group(group, m, op));
    });
}

#[test]
fn custom_operator_reductions_keep_group_and_item_order() {
    // One group per value of the slowest dimension, so that group order and
    // global linear order agree.
    let (groups, size) = ((6, 1, 1), (1, 4, 5));
    let input = values(6 * 4 * 5, 6);
    let op: MatrixProduct = custom_operator([1, 0, 0, 1], matrix_product);
    let mut product = [1, 0, 0, 1];
    Queue::new()
        .parallel_with(groups, size, reduction(&mut product, op), |g, p| {
            matrices(g, &input, op, p)
        })
        .unwrap();
    let want = input
        .iter()
        .fold([1, 0, 0, 1], |acc, &v| matrix_product(acc, matrix(v)));
    assert_eq!(product, want);
}

#[test]
fn reductions_in_2d_and_3d_launches() {
    let mut sum2 = 0usize;
    Queue::new()
        .parallel_with(
            (3, 5),
            (4, 2),
            reduction(&mut sum2, plus()),
            |g: WorkGroup<2>, mut s| {
                let first = g.group_linear_id();
                s.combine(first);
            },
        )
        .unwrap();
    assert_eq!(sum2, (0..15).sum::<usize>());

    #[kernel]
    fn ids(
        group: WorkGroup<3>,
        mut sum: Reducer<'_, u64, Plus>,
        mut count: Reducer<'_, u64, Plus>,
    ) {
        memory_environment!(group, require_private_mem::<u64>(), |id| {
            distribute_items!(group, |idx| id[idx] = idx.global_linear_id() as u64);
            sum += reduce_over_group(group, id, plus());
            count += group.logical_local_linear_range() as u64;
        });
    }
    let (mut sum, mut count) = (0u64, 0u64);
    Queue::new()
        .parallel_with(
            (2, 3, 2),
            (3, 2, 5),
            (reduction(&mut sum, plus()), reduction(&mut count, plus())),
            |g, (s, c)| ids(g, s, c),
        )
        .unwrap();
    let n = 2 * 3 * 2 * 3 * 2 * 5;
    assert_eq!(count, n);
    assert_eq!(sum, n * (n - 1) / 2);
}

#[test]
fn a_panicking_group_leaves_the_target_unchanged() {
    let queue = Queue::with_threads(2).unwrap();
    let mut sum = 7i64;
    let result = catch_unwind(AssertUnwindSafe(|| {
        queue.parallel_with(
            16,
            4,
            reduction(&mut sum, plus()),
            |g: WorkGroup<1>, mut s| {
                s.combine(1);
                if g.group_linear_id() == 9 {
                    panic!("group 9 fails");
                }
            },
        )
    }));
    assert!(result.is_err());
    assert_eq!(sum, 7);
    // The queue still works.
    queue
        .parallel_with(
            16,
            4,
            reduction(&mut sum, plus()),
            |_g: WorkGroup<1>, mut s| s.combine(1),
        )
        .unwrap();
    assert_eq!(sum, 7 + 16);
}

#[test]
fn a_refused_launch_leaves_the_target_unchanged() {
    let mut sum = 7i64;
    let mut out = vec![0i64; 3];
    let err = Queue::new()
        .parallel_with(
            4,
            1,
            (ItemsMut::new(&mut out), reduction(&mut sum, plus())),
            |_g: WorkGroup<1>, (_w, mut s)| s.combine(1),
        )
        .unwrap_err();
    assert!(
        matches!(err, scoped::LaunchError::OutputTooShort { position: 0, .. }),
        "{err}"
    );
    assert_eq!(sum, 7);
}

#[test]
fn a_forgotten_reducer_makes_the_launch_panic() {
    let mut sum = 7i64;
    let result = catch_unwind(AssertUnwindSafe(|| {
        Queue::new().parallel_with(
            8,
            4,
            reduction(&mut sum, plus()),
            |g: WorkGroup<1>, mut s| {
                s.combine(1);
                if g.group_linear_id() == 3 {
                    std::mem::forget(s);
                }
            },
        )
    }));
    let message = result.unwrap_err();
    let message = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.contains("the Reducer of work group 3 (linear id) was not dropped"),
        "{message}"
    );
    assert_eq!(sum, 7);
}

thread_local! {
    static STASH: RefCell<Vec<Reducer<'static, u64, Plus>>> = const { RefCell::new(Vec::new()) };
}

/// A reducer kept past its launch (in a thread-local) and dropped later
/// writes into memory the reduction leaked for it, never into freed
/// memory.
#[test]
fn a_reducer_dropped_after_its_launch_is_harmless() {
    let queue = Queue::with_threads(1).unwrap();
    let target: &'static mut u64 = Box::leak(Box::new(0));
    let pool = &queue;
    let sum: Reduction<'static, u64, Plus> = reduction(target, plus());
    let result = catch_unwind(AssertUnwindSafe(move || {
        pool.parallel_with(4, 2, sum, |_g: WorkGroup<1>, mut s| {
            s.combine(5);
            STASH.with(|stash| stash.borrow_mut().push(s));
        })
    }));
    assert!(result.is_err());
    // Drop the stashed reducers on the worker thread, after the launch.
    queue
        .parallel(1, 1, |_g: WorkGroup<1>| {
            let stashed = STASH.with(|stash| std::mem::take(&mut *stash.borrow_mut()));
            assert_eq!(stashed.len(), 4);
            drop(stashed);
        })
        .unwrap();
    // Later launches on the same thread allocate and reduce normally.
    let mut sum = 0u64;
    queue
        .parallel_with(
            64,
            2,
            reduction(&mut sum, plus()),
            |_g: WorkGroup<1>, mut s| s += 3,
        )
        .unwrap();
    assert_eq!(sum, 64 * 3);
}
