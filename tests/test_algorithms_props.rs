//! Property tests of the reductions and scans: random group sizes (1,
//! sizes that sub-groups do not divide, 1024), every operator on every
//! element type it supports, on work groups, sub-groups, scalar groups and
//! jointly over slices, against a serial left-to-right loop.
//!
//! Integers (and `bool`) must match exactly: their arithmetic wraps, so
//! any grouping gives the same result. Floats must match within
//! `2 · (n + 1) · ε · m`, where `n` is the number of values combined, `ε`
//! the type's machine epsilon and `m` the magnitude of the exact result's
//! terms (`|init| + Σ|xi|` for sums, `|init| · Π|xi|` for products; `0` for
//! minimum and maximum, which are exact): the standard error bound of any
//! summation or product order, once for the serial reference and once for
//! the result.

use std::fmt::Debug;

use bytemuck::Zeroable;
use half::f16;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use scoped::prelude::*;

/// Per item: `[reduce, reduce_init, inclusive, inclusive_init, exclusive,
/// exclusive_init]` for the work group, its sub-group, its scalar group and
/// the joint forms over the group's input slice, in that order.
const RESULTS: usize = 24;
const KINDS: [&str; 4] = ["work group", "sub-group", "scalar group", "joint"];

#[kernel]
fn every_algorithm<T, Op, const S: usize>(
    group: WorkGroup<1, S>,
    input: &[T],
    init: T,
    op: Op,
    mut out: ItemsWindow<'_, [T; RESULTS]>,
) where
    T: Copy + Zeroable,
    Op: GroupOperator<T>,
{
    memory_environment!(
        group,
        require_private_mem::<T>(),
        require_private_mem::<T>(),
        |x, scan| {
            distribute_items!(group, |idx| x[idx] = input[idx.global_linear_id()]);

            let reduced = reduce_over_group(group, x, op);
            let reduced_init = reduce_over_group_with_init(group, x, init, op);
            distribute_items!(group, |idx| {
                out[idx][0] = reduced;
                out[idx][1] = reduced_init;
            });
            inclusive_scan_over_group(group, x, scan, op);
            distribute_items!(group, |idx| out[idx][2] = scan[idx]);
            inclusive_scan_over_group_with_init(group, x, scan, init, op);
            distribute_items!(group, |idx| out[idx][3] = scan[idx]);
            exclusive_scan_over_group(group, x, scan, op);
            distribute_items!(group, |idx| out[idx][4] = scan[idx]);
            exclusive_scan_over_group_with_init(group, x, scan, init, op);
            distribute_items!(group, |idx| out[idx][5] = scan[idx]);

            // Sub-groups read the work group's memory and scan into their own.
            distribute_groups!(group, |sg| {
                memory_environment!(sg, require_private_mem::<T>(), |sg_scan| {
                    let reduced = reduce_over_group(sg, x, op);
                    let reduced_init = reduce_over_group_with_init(sg, x, init, op);
                    distribute_items!(sg, |idx| {
                        out[idx][6] = reduced;
                        out[idx][7] = reduced_init;
                    });
                    inclusive_scan_over_group(sg, x, sg_scan, op);
                    distribute_items!(sg, |idx| out[idx][8] = sg_scan[idx]);
                    inclusive_scan_over_group_with_init(sg, x, sg_scan, init, op);
                    distribute_items!(sg, |idx| out[idx][9] = sg_scan[idx]);
                    exclusive_scan_over_group(sg, x, sg_scan, op);
                    distribute_items!(sg, |idx| out[idx][10] = sg_scan[idx]);
                    exclusive_scan_over_group_with_init(sg, x, sg_scan, init, op);
                    distribute_items!(sg, |idx| out[idx][11] = sg_scan[idx]);

                    // Scalar groups: values of their own, copied in.
                    distribute_groups!(sg, |scalar| {
                        memory_environment!(
                            scalar,
                            require_private_mem::<T>(),
                            require_private_mem::<T>(),
                            |own, own_scan| {
                                distribute_items!(scalar, |idx| own[idx] = x[idx]);
                                let reduced = reduce_over_group(scalar, own, op);
                                let reduced_init =
                                    reduce_over_group_with_init(scalar, own, init, op);
                                distribute_items!(scalar, |idx| {
                                    out[idx][12] = reduced;
                                    out[idx][13] = reduced_init;
                                });
                                inclusive_scan_over_group(scalar, own, own_scan, op);
                                distribute_items!(scalar, |idx| out[idx][14] = own_scan[idx]);
                                inclusive_scan_over_group_with_init(
                                    scalar, own, own_scan, init, op,
                                );
                                distribute_items!(scalar, |idx| out[idx][15] = own_scan[idx]);
                                exclusive_scan_over_group(scalar, own, own_scan, op);
                                distribute_items!(scalar, |idx| out[idx][16] = own_scan[idx]);
                                exclusive_scan_over_group_with_init(
                                    scalar, own, own_scan, init, op,
                                );
                                distribute_items!(scalar, |idx| out[idx][17] = own_scan[idx]);
                            }
                        );
                    });
                });
            });

            // Joint forms over the group's part of the input.
            let n = group.logical_local_linear_range();
            let mine = &input[group.group_linear_id() * n..][..n];
            let reduced = joint_reduce(group, mine, op);
            let reduced_init = joint_reduce_with_init(group, mine, init, op);
            let mut scans = vec![[op.identity(); 4]; n];
            let mut column = vec![op.identity(); n];
            joint_inclusive_scan(group, mine, &mut column, op);
            scans.iter_mut().zip(&column).for_each(|(s, &c)| s[0] = c);
            joint_inclusive_scan_with_init(group, mine, &mut column, init, op);
            scans.iter_mut().zip(&column).for_each(|(s, &c)| s[1] = c);
            joint_exclusive_scan(group, mine, &mut column, op);
            scans.iter_mut().zip(&column).for_each(|(s, &c)| s[2] = c);
            joint_exclusive_scan_with_init(group, mine, &mut column, init, op);
            scans.iter_mut().zip(&column).for_each(|(s, &c)| s[3] = c);
            distribute_items!(group, |idx| {
                out[idx][18] = reduced;
                out[idx][19] = reduced_init;
                out[idx][20..].copy_from_slice(&scans[idx.innermost_local_linear_id()]);
            });
        }
    );
}

/// How rounding errors of an operator grow (see the module docs).
#[derive(Clone, Copy, Debug)]
enum Growth {
    Sum,
    Product,
    Exact,
}

trait Element: Copy + PartialEq + Debug + Zeroable + Send + Sync + 'static {
    /// Machine epsilon; 0 for exact types.
    const EPSILON: f64 = 0.0;
    /// The value as an `f64` (floats only).
    fn to_f64(self) -> f64 {
        0.0
    }
    fn magnitude(self) -> f64 {
        self.to_f64().abs()
    }
}

macro_rules! exact {
    ($($t:ty),*) => {$(impl Element for $t {})*};
}
exact!(i8, u8, i16, u16, i32, u32, i64, u64, bool, [u32; 4]);

impl Element for f32 {
    const EPSILON: f64 = f32::EPSILON as f64;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}
impl Element for f64 {
    const EPSILON: f64 = f64::EPSILON;
    fn to_f64(self) -> f64 {
        self
    }
}
impl Element for f16 {
    const EPSILON: f64 = 0.000_976_562_5; // 2^-10
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
}

/// The serial reference of one prefix and its error bound.
struct Reference<T> {
    value: T,
    count: usize,
    magnitude: f64,
}

impl<T: Element> Reference<T> {
    fn start<Op: GroupOperator<T>>(op: Op, init: Option<T>, growth: Growth) -> Self {
        let value = init.unwrap_or(op.identity());
        // The identity's magnitude: 1 for products, 0 otherwise.
        let identity = if matches!(growth, Growth::Product) {
            1.0
        } else {
            0.0
        };
        let magnitude = init.map_or(identity, T::magnitude);
        Reference {
            value,
            count: 0,
            magnitude,
        }
    }

    fn push<Op: GroupOperator<T>>(&mut self, op: Op, x: T, growth: Growth) {
        self.value = op.combine(self.value, x);
        self.count += 1;
        self.magnitude = match growth {
            Growth::Sum => self.magnitude + x.magnitude(),
            Growth::Product => self.magnitude * x.magnitude(),
            Growth::Exact => 0.0,
        };
    }

    /// `what` names the check; it is only built when the check fails.
    fn check(
        &self,
        got: T,
        growth: Growth,
        what: impl Fn() -> String,
    ) -> Result<(), TestCaseError> {
        if got == self.value {
            return Ok(());
        }
        prop_assert!(
            T::EPSILON != 0.0,
            "{}: got {:?}, serial loop gives {:?}",
            what(),
            got,
            self.value
        );
        let bound = match growth {
            Growth::Exact => 0.0,
            _ => 2.0 * (self.count + 1) as f64 * T::EPSILON * self.magnitude,
        };
        let (g, w) = (got.to_f64(), self.value.to_f64());
        prop_assert!(
            (g - w).abs() <= bound,
            "{}: got {}, serial loop gives {}, bound {}",
            what(),
            g,
            w,
            bound
        );
        Ok(())
    }
}

/// Checks one launch of `num_groups` groups of `size` items against the
/// serial reference, for every group kind.
fn check<T: Element, Op: GroupOperator<T> + Send + Sync + Debug, const S: usize>(
    input: &[T],
    size: usize,
    init: T,
    op: Op,
    growth: Growth,
) -> Result<(), TestCaseError> {
    let mut out = vec![[op.identity(); RESULTS]; input.len()];
    Queue::new()
        .parallel_with(input.len() / size, size, ItemsMut::new(&mut out), |g, w| {
            every_algorithm::<T, Op, S>(g, input, init, op, w)
        })
        .unwrap();
    for (group, (values, results)) in input.chunks(size).zip(out.chunks(size)).enumerate() {
        // Runs of items that each kind combines: the group, its sub-groups
        // of S, single items, and (joint) the group again.
        let runs = [size, S, 1, size];
        for (k, (kind, &run)) in KINDS.iter().zip(&runs).enumerate() {
            let base = 6 * k;
            for (r, chunk) in values.chunks(run).enumerate() {
                let what = |name: &'static str, i: usize| {
                    move || {
                        format!("{op:?} {name} on {kind} {r} of group {group}, item {i} of {size}")
                    }
                };
                let first = r * run;
                let mut plain = Reference::start(op, None, growth);
                let mut with_init = Reference::start(op, Some(init), growth);
                for (i, &x) in chunk.iter().enumerate() {
                    let got = &results[first + i];
                    plain.check(got[base + 4], growth, what("exclusive scan", i))?;
                    with_init.check(got[base + 5], growth, what("exclusive scan with init", i))?;
                    plain.push(op, x, growth);
                    with_init.push(op, x, growth);
                    plain.check(got[base + 2], growth, what("inclusive scan", i))?;
                    with_init.check(got[base + 3], growth, what("inclusive scan with init", i))?;
                }
                for i in 0..chunk.len() {
                    let got = &results[first + i];
                    plain.check(got[base], growth, what("reduce", i))?;
                    with_init.check(got[base + 1], growth, what("reduce with init", i))?;
                }
            }
        }
    }
    Ok(())
}

/// Group sizes: 1, 1024, and sizes mostly not divisible by 8.
fn sizes() -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(1usize), 1 => Just(1024usize), 6 => 2usize..=150]
}

/// `groups` groups of `size` values drawn from `values`, and an init.
fn launch<T: Debug + Clone>(
    values: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (usize, Vec<T>, T)> {
    (sizes(), 1usize..=3).prop_flat_map(move |(size, groups)| {
        (
            Just(size),
            proptest::collection::vec(values.clone(), size * groups),
            values.clone(),
        )
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    }
}

/// Every integer operator on one integer type; values include zeros so
/// that the logical operators see both truth values.
macro_rules! integer_props {
    ($($name:ident: $t:ty;)*) => {$(
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name((size, input, init) in launch(prop_oneof![3 => any::<$t>(), 1 => Just(0 as $t)])) {
                check::<$t, _, 8>(&input, size, init, plus(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, multiplies(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, minimum(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, maximum(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, bit_and(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, bit_or(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, bit_xor(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, logical_and(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, logical_or(), Growth::Exact)?;
            }
        }
    )*};
}

integer_props! {
    i8_every_operator: i8;
    u8_every_operator: u8;
    i16_every_operator: i16;
    u16_every_operator: u16;
    i32_every_operator: i32;
    u32_every_operator: u32;
    i64_every_operator: i64;
    u64_every_operator: u64;
}

/// Floats: sums, min and max over `[-100, 100]`; products over values of
/// magnitude near 1 so that 3072 of them stay finite.
macro_rules! float_props {
    ($($name:ident: $t:ty, $from:expr;)*) => {$(
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(
                (size, input, init) in launch((-100.0f64..100.0).prop_map($from)),
                factors in proptest::collection::vec(
                    (0.97f64..1.03, any::<bool>()).prop_map(|(m, neg)| $from(if neg { -m } else { m })),
                    1024 * 3 + 1,
                ),
            ) {
                check::<$t, _, 8>(&input, size, init, plus(), Growth::Sum)?;
                check::<$t, _, 8>(&input, size, init, minimum(), Growth::Exact)?;
                check::<$t, _, 8>(&input, size, init, maximum(), Growth::Exact)?;
                let products = &factors[..input.len()];
                check::<$t, _, 8>(products, size, factors[input.len()], multiplies(), Growth::Product)?;
            }
        }
    )*};
}

float_props! {
    f32_every_operator: f32, |v: f64| v as f32;
    f64_every_operator: f64, |v: f64| v;
    f16_every_operator: f16, f16::from_f64;
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn bool_every_operator((size, input, init) in launch(any::<bool>())) {
        check::<bool, _, 8>(&input, size, init, bit_and(), Growth::Exact)?;
        check::<bool, _, 8>(&input, size, init, bit_or(), Growth::Exact)?;
        check::<bool, _, 8>(&input, size, init, bit_xor(), Growth::Exact)?;
        check::<bool, _, 8>(&input, size, init, logical_and(), Growth::Exact)?;
        check::<bool, _, 8>(&input, size, init, logical_or(), Growth::Exact)?;
    }

    /// A user-defined operator that is associative but not commutative:
    /// 2×2 matrix product with wrapping `u32` entries. Any reordering of
    /// the operands would show.
    #[test]
    fn custom_non_commutative_operator_keeps_the_order(
        (size, input, init) in launch(any::<[u32; 4]>()),
    ) {
        let product = custom_operator([1u32, 0, 0, 1], |a: [u32; 4], b: [u32; 4]| {
            let m = |x: u32, y: u32| x.wrapping_mul(y);
            [
                m(a[0], b[0]).wrapping_add(m(a[1], b[2])),
                m(a[0], b[1]).wrapping_add(m(a[1], b[3])),
                m(a[2], b[0]).wrapping_add(m(a[3], b[2])),
                m(a[2], b[1]).wrapping_add(m(a[3], b[3])),
            ]
        });
        check::<[u32; 4], _, 8>(&input, size, init, product, Growth::Exact)?;
    }

    /// A user-defined operator on floats (absolute maximum).
    #[test]
    fn custom_float_operator((size, input, init) in launch(-1e6f32..1e6)) {
        let abs_max = custom_operator(0.0f32, |a: f32, b: f32| a.abs().max(b.abs()));
        check::<f32, _, 8>(&input, size, init, abs_max, Growth::Exact)?;
    }

    /// Other sub-group sizes, including 1 and sizes wider than a vector.
    #[test]
    fn other_sub_group_sizes(
        (size, input, init) in launch(any::<i32>()),
        floats in proptest::collection::vec(-100.0f32..100.0, 3 * 1024),
    ) {
        let floats = &floats[..input.len()];
        check::<i32, _, 1>(&input, size, init, plus(), Growth::Exact)?;
        check::<i32, _, 3>(&input, size, init, maximum(), Growth::Exact)?;
        check::<i32, _, 16>(&input, size, init, plus(), Growth::Exact)?;
        check::<i32, _, 64>(&input, size, init, bit_xor(), Growth::Exact)?;
        check::<f32, _, 3>(floats, size, 0.5, plus(), Growth::Sum)?;
        check::<f32, _, 32>(floats, size, 0.5, plus(), Growth::Sum)?;
    }
}
