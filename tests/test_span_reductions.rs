//! Span reductions in launches (SYCL 2020 `reduction(span, op)`) against a
//! serial histogram, and launches with many arguments.

use scoped::prelude::*;

fn input(n: usize) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect()
}

fn serial_histogram(input: &[u32], bins: usize) -> Vec<u64> {
    let mut h = vec![0u64; bins];
    for &x in input {
        h[x as usize % bins] += 1;
    }
    h
}

fn histogram_launch(input: &[u32], bins: &mut [u64], groups: usize, size: usize, fresh: bool) {
    let n = bins.len();
    let mut span = reduction_span(bins, plus());
    if fresh {
        span = span.initialize_to_identity();
    }
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(
            groups,
            size,
            span,
            kernel_closure!(|group, mut bins| {
                distribute_items!(group, |idx| {
                    bins.combine(input[idx.global_linear_id()] as usize % n, 1);
                });
            }),
        )
        .unwrap();
}

#[test]
fn histogram_combines_with_existing_contents() {
    let input = input(64 * 50);
    let mut bins: Vec<u64> = (0..17).map(|i| 1000 * i).collect();
    histogram_launch(&input, &mut bins, 64, 50, false);
    let expected: Vec<u64> = serial_histogram(&input, 17)
        .iter()
        .enumerate()
        .map(|(i, h)| h + 1000 * i as u64)
        .collect();
    assert_eq!(bins, expected);
}

#[test]
fn initialize_to_identity_discards_existing_contents() {
    let input = input(7 * 33);
    let mut bins = vec![u64::MAX; 5];
    histogram_launch(&input, &mut bins, 7, 33, true);
    assert_eq!(bins, serial_histogram(&input, 5));
}

/// Bins nobody combines into keep their value, or become the identity.
#[test]
fn untouched_bins_and_identities() {
    let mut max = [5i32, -3, 9];
    Queue::new()
        .parallel_with(
            4,
            2,
            reduction_span(&mut max, maximum()),
            kernel_closure!(|group, mut m| {
                single_item!(group, || m.combine(1, group.group_linear_id() as i32));
            }),
        )
        .unwrap();
    assert_eq!(max, [5, 3, 9]);
    let mut min = [5i32, -3, 9];
    Queue::new()
        .parallel_with(
            4,
            2,
            reduction_span(&mut min, minimum()).initialize_to_identity(),
            kernel_closure!(|group, mut m| {
                single_item!(group, || m.combine(2, 10 - group.group_linear_id() as i32));
            }),
        )
        .unwrap();
    assert_eq!(min, [i32::MAX, i32::MAX, 7]);
}

/// Float partial arrays fold in work group order: the result is the same
/// for any thread count, and equals the serial fold in that order.
#[test]
fn float_bins_fold_in_group_order() {
    let values: Vec<f32> = (0..4096).map(|i| 1.0 / (1 + i % 97) as f32).collect();
    let run = |threads| {
        let mut bins = [0.5f32; 4];
        Queue::with_threads(threads)
            .unwrap()
            .parallel_with(
                32,
                128,
                reduction_span(&mut bins, plus()),
                |g: WorkGroup<1>, mut b| {
                    // One value per group and bin, summed serially in the group.
                    let mut sums = [0.0f32; 4];
                    for i in 0..128 {
                        let global = g.group_linear_id() * 128 + i;
                        sums[global % 4] += values[global];
                    }
                    for (bin, s) in sums.into_iter().enumerate() {
                        b.combine(bin, s);
                    }
                },
            )
            .unwrap();
        bins
    };
    let mut expected = [0.5f32; 4];
    for group in values.chunks(128).enumerate() {
        let mut sums = [0.0f32; 4];
        for (i, v) in group.1.iter().enumerate() {
            sums[(group.0 * 128 + i) % 4] += v;
        }
        for bin in 0..4 {
            expected[bin] += sums[bin];
        }
    }
    assert_eq!(run(1), expected);
    assert_eq!(run(2), expected);
}

#[test]
fn out_of_span_index_panics_and_leaves_the_target() {
    let mut bins = [7u32; 3];
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Queue::new()
            .parallel_with(
                2,
                1,
                reduction_span(&mut bins, plus()),
                |g: WorkGroup<1>, mut b| {
                    b.combine(g.group_linear_id() + 2, 1);
                },
            )
            .unwrap();
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("index 3 is out of the span of 3"),
        "{message}"
    );
    assert_eq!(bins, [7; 3]);
}

#[test]
fn a_leaked_span_reducer_makes_the_launch_panic() {
    let mut bins = [0u32; 2];
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Queue::new()
            .parallel_with(
                3,
                1,
                reduction_span(&mut bins, plus()),
                |g: WorkGroup<1>, b| {
                    if g.group_linear_id() == 1 {
                        std::mem::forget(b);
                    }
                },
            )
            .unwrap();
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("work group 1"), "{message}");
    assert_eq!(bins, [0; 2]);
}

/// Black-Scholes-style: seven arguments, no nested tuples; 12 also work.
#[test]
fn launches_take_up_to_twelve_arguments() {
    let n = 96;
    let price: Vec<f32> = (0..n).map(|i| 10.0 + i as f32).collect();
    let strike: Vec<f32> = (0..n).map(|i| 50.0 + (i % 7) as f32).collect();
    let time: Vec<f32> = (0..n).map(|i| 0.5 + (i % 3) as f32).collect();
    let (mut call, mut put) = (vec![0.0f32; n], vec![0.0f32; n]);
    let mut total = 0.0f64;
    let mut counts = [0u32; 2];
    let args = (
        ItemsRef::new(&price),
        ItemsRef::new(&strike),
        ItemsRef::new(&time),
        ItemsMut::new(&mut call),
        ItemsMut::new(&mut put),
        reduction(&mut total, plus()),
        reduction_span(&mut counts, plus()),
    );
    Queue::new()
        .parallel_with(
            6,
            16,
            args,
            kernel_closure!(|g, (s, k, t, mut c, mut p, mut total, mut counts)| {
                distribute_items!(g, |idx| {
                    let intrinsic = (s[idx] - k[idx]) * t[idx];
                    c[idx] = intrinsic.max(0.0);
                    p[idx] = (-intrinsic).max(0.0);
                    total.combine(f64::from(intrinsic));
                    counts.combine(usize::from(intrinsic > 0.0), 1);
                });
            }),
        )
        .unwrap();
    let intrinsic: Vec<f32> = (0..n).map(|i| (price[i] - strike[i]) * time[i]).collect();
    assert_eq!(
        call,
        intrinsic.iter().map(|x| x.max(0.0)).collect::<Vec<_>>()
    );
    assert_eq!(
        put,
        intrinsic.iter().map(|x| (-x).max(0.0)).collect::<Vec<_>>()
    );
    let positive = intrinsic.iter().filter(|&&x| x > 0.0).count() as u32;
    assert_eq!(counts, [n as u32 - positive, positive]);
    let expected: f64 = intrinsic.iter().map(|&x| f64::from(x)).sum();
    assert!(
        (total - expected).abs() < 1e-6 * expected.abs(),
        "{total} vs {expected}"
    );

    let mut outs: Vec<Vec<usize>> = (0..12).map(|_| vec![0; 8]).collect();
    let mut it = outs.iter_mut().map(|v| ItemsMut::new(v));
    let mut next = || it.next().unwrap();
    let twelve = (
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
        next(),
    );
    Queue::new()
        .parallel_with(
            2,
            4,
            twelve,
            |g: WorkGroup<1>,
             (
                mut a,
                mut b,
                mut c,
                mut d,
                mut e,
                mut f,
                mut g2,
                mut h,
                mut i,
                mut j,
                mut k,
                mut l,
            )| {
                for (n, w) in [
                    &mut a, &mut b, &mut c, &mut d, &mut e, &mut f, &mut g2, &mut h, &mut i,
                    &mut j, &mut k, &mut l,
                ]
                .into_iter()
                .enumerate()
                {
                    for item in 0..4 {
                        let global = g.group_linear_id() * 4 + item;
                        w[global] = n * 100 + global;
                    }
                }
            },
        )
        .unwrap();
    for (n, out) in outs.iter().enumerate() {
        assert_eq!(out, &(0..8).map(|i| n * 100 + i).collect::<Vec<_>>());
    }
}
