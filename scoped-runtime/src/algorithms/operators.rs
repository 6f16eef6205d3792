//! Binary operators of the group algorithms and their identities (SYCL
//! 2020 "Function objects" and "known_identity"; OpenCL C++ work-group
//! functions for the `add`, `min` and `max` identities).

use std::fmt;

use half::f16;

use super::simd;

/// A binary operator that group algorithms, joint algorithms and launch
/// reductions combine values with, together with its identity (SYCL 2020
/// `BinaryOperation` with `sycl::known_identity`).
///
/// The built-in operators are unit structs, also made by the functions of
/// the same name in snake case ([`plus()`] is [`Plus`]):
///
/// | operator | SYCL | element types | identity |
/// | --- | --- | --- | --- |
/// | [`Plus`] | `plus` | integers, `f16`, `f32`, `f64` | `0` |
/// | [`Multiplies`] | `multiplies` | integers, `f16`, `f32`, `f64` | `1` |
/// | [`Minimum`] | `minimum` | integers, `f16`, `f32`, `f64` | `T::MAX` (`INT_MAX`, `UINT_MAX`, …); `+INF` for floats |
/// | [`Maximum`] | `maximum` | integers, `f16`, `f32`, `f64` | `T::MIN` (`INT_MIN`, `0`, …); `−INF` for floats |
/// | [`BitAnd`] | `bit_and` | integers, `bool` | all bits set (`!0`, `true`) |
/// | [`BitOr`] | `bit_or` | integers, `bool` | `0`, `false` |
/// | [`BitXor`] | `bit_xor` | integers, `bool` | `0`, `false` |
/// | [`LogicalAnd`] | `logical_and` | integers, `bool` | `true` (`1`) |
/// | [`LogicalOr`] | `logical_or` | integers, `bool` | `false` (`0`) |
///
/// "Integers" are `i8`…`i64`, `u8`…`u64`, `isize` and `usize`; `f16` is
/// [`half::f16`], the OpenCL `half`. On integers, [`Plus`] and [`Multiplies`] wrap around
/// (two's complement), as the SIMD lanes do, so every evaluation order gives
/// the same result; the logical operators treat non-zero as true and give
/// `0` or `1`. On floats, [`Minimum`] and [`Maximum`] follow IEEE 754
/// `minNum`/`maxNum` like [`f32::min`]: a NaN operand is ignored.
///
/// A user-defined operator comes from [`custom_operator`] (a closure and
/// its identity) or from implementing this trait.
///
/// # Contract
/// `combine` must be associative and `identity()` must satisfy
/// `combine(identity(), x) == x` and `combine(x, identity()) == x`;
/// otherwise results are unspecified (but never undefined behaviour).
/// Algorithms keep values from lower linear ids as the left operand, so
/// `combine` need not be commutative.
pub trait GroupOperator<T: Copy>: Copy {
    /// `a op b`, where `a` comes from lower linear ids than `b`.
    fn combine(&self, a: T, b: T) -> T;

    /// The identity of the operator for `T`.
    fn identity(&self) -> T;

    /// `init op values[0] op …`; built-in operators use SIMD here.
    #[doc(hidden)]
    #[inline(always)]
    fn __fold(&self, init: T, values: &[T]) -> T {
        simd::scalar_fold(init, values, |a, b| self.combine(a, b))
    }

    /// Inclusive scan of `src` into `dst` (same length) from `carry`;
    /// built-in operators use SIMD here.
    #[doc(hidden)]
    #[inline(always)]
    fn __scan(&self, carry: T, src: &[T], dst: &mut [T]) {
        simd::scalar_scan(carry, src, dst, |a, b| self.combine(a, b));
    }
}

macro_rules! operator {
    ($(#[$doc:meta])* $name:ident, $make:ident, $sycl:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        #[doc = concat!("The [`", stringify!($name), "`] operator (SYCL 2020 `sycl::", $sycl, "`).")]
        #[inline(always)]
        #[must_use]
        pub const fn $make() -> $name {
            $name
        }
    };
}

operator!(
    /// Sum, `a + b` (SYCL 2020 `plus`, OpenCL `work_group_op::add`);
    /// identity 0. Wrapping on integers.
    Plus, plus, "plus"
);
operator!(
    /// Product, `a * b` (SYCL 2020 `multiplies`); identity 1. Wrapping on
    /// integers.
    Multiplies, multiplies, "multiplies"
);
operator!(
    /// Smaller value (SYCL 2020 `minimum`, OpenCL `work_group_op::min`);
    /// identity `T::MAX` for integers and `+INF` for floats, which ignore
    /// NaN operands.
    Minimum, minimum, "minimum"
);
operator!(
    /// Larger value (SYCL 2020 `maximum`, OpenCL `work_group_op::max`);
    /// identity `T::MIN` for integers (0 if unsigned) and `−INF` for floats,
    /// which ignore NaN operands.
    Maximum, maximum, "maximum"
);
operator!(
    /// Bitwise and, `a & b` (SYCL 2020 `bit_and`); identity all bits set.
    BitAnd, bit_and, "bit_and"
);
operator!(
    /// Bitwise or, `a | b` (SYCL 2020 `bit_or`); identity 0.
    BitOr, bit_or, "bit_or"
);
operator!(
    /// Bitwise exclusive or, `a ^ b` (SYCL 2020 `bit_xor`); identity 0.
    BitXor, bit_xor, "bit_xor"
);
operator!(
    /// Logical and, `a && b` (SYCL 2020 `logical_and`); identity `true`.
    /// On integers non-zero is true and the result is 0 or 1.
    LogicalAnd, logical_and, "logical_and"
);
operator!(
    /// Logical or, `a || b` (SYCL 2020 `logical_or`); identity `false`.
    /// On integers non-zero is true and the result is 0 or 1.
    LogicalOr, logical_or, "logical_or"
);

/// Implements `GroupOperator<T>` for `$op` on each `T`: scalar-only types
/// in `[…]`, types whose scans run in `wide` vectors as `T => vector /
/// half vector` in `simd […]`; `fold lanes` folds in those vectors too,
/// `fold plain` keeps the plain loop.
///
/// Integer folds keep the plain loop: the operators are exact in every
/// order, so the compiler vectorises it as a reduction at the width of the
/// level the kernel runs at. `wide`'s types are fixed when this crate is
/// compiled (pairs of 128-bit vectors in a build without flags, even inside
/// a kernel's AVX-512 copy): with them, `reduce_over_group` on `i32` took
/// 1.06× the time of a flat sum in a build without flags at v3 and v4
/// (medians), against 0.93–1.02× with the plain loop (Intel Xeon,
/// AVX-512). Float folds keep `wide`'s fixed lanes, so that they round the
/// same way at every level.
macro_rules! impls {
    (@fold plain $($rest:tt)*) => {};
    (@fold lanes $simd:ty, $vector:ident, |$a:ident, $b:ident| $combine:expr, |$va:ident, $vb:ident| $vcombine:expr) => {
        #[inline(always)]
        fn __fold(&self, init: $simd, values: &[$simd]) -> $simd {
            simd::fold::<wide::$vector>(
                init,
                values,
                self.identity(),
                |$va, $vb| $vcombine,
                |$a, $b| $combine,
            )
        }
    };
    (
        $op:ident, |$ty:ident| $identity:expr, |$a:ident, $b:ident| $combine:expr;
        scalar [$($scalar:ty),*]
        $(; simd [$($simd:ty => $vector:ident / $half:ident),*], |$va:ident, $vb:ident| $vcombine:expr;
            fold $fold:ident)?
    ) => {
        $(
            impl GroupOperator<$scalar> for $op {
                #[inline(always)]
                fn combine(&self, $a: $scalar, $b: $scalar) -> $scalar {
                    #[allow(dead_code)]
                    type $ty = $scalar;
                    $combine
                }
                #[inline(always)]
                fn identity(&self) -> $scalar {
                    #[allow(dead_code)]
                    type $ty = $scalar;
                    $identity
                }
            }
        )*
        $($(
            impl GroupOperator<$simd> for $op {
                #[inline(always)]
                fn combine(&self, $a: $simd, $b: $simd) -> $simd {
                    #[allow(dead_code)]
                    type $ty = $simd;
                    $combine
                }
                #[inline(always)]
                fn identity(&self) -> $simd {
                    #[allow(dead_code)]
                    type $ty = $simd;
                    $identity
                }
                impls!(@fold $fold $simd, $vector, |$a, $b| $combine, |$va, $vb| $vcombine);
                #[inline(always)]
                fn __scan(&self, carry: $simd, src: &[$simd], dst: &mut [$simd]) {
                    simd::scan_halved::<wide::$vector, wide::$half>(
                        carry,
                        src,
                        dst,
                        self.identity(),
                        |$va, $vb| $vcombine,
                        |$va, $vb| $vcombine,
                        |$a, $b| $combine,
                    )
                }
            }
        )*)?
    };
}

impls!(Plus, |T| 0, |a, b| a.wrapping_add(b);
    scalar [isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4,
          i64 => i64x4 / i64x2, u64 => u64x4 / u64x2], |a, b| a + b;
    fold plain);
impls!(Plus, |T| 0.0, |a, b| a + b;
    scalar [];
    simd [f32 => f32x8 / f32x4, f64 => f64x4 / f64x2], |a, b| a + b;
    fold lanes);
impls!(Plus, |T| f16::ZERO, |a, b| a + b; scalar [f16]);

impls!(Multiplies, |T| 1, |a, b| a.wrapping_mul(b);
    scalar [i8, u8, i64, u64, isize, usize];
    simd [i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4], |a, b| a * b;
    fold plain);
impls!(Multiplies, |T| 1.0, |a, b| a * b;
    scalar [];
    simd [f32 => f32x8 / f32x4, f64 => f64x4 / f64x2], |a, b| a * b;
    fold lanes);
impls!(Multiplies, |T| f16::ONE, |a, b| a * b; scalar [f16]);

impls!(Minimum, |T| T::MAX, |a, b| a.min(b);
    scalar [i64, u64, isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4],
    |a, b| a.min(b);
    fold plain);
impls!(Minimum, |T| T::INFINITY, |a, b| a.min(b);
    scalar [f16];
    simd [f32 => f32x8 / f32x4, f64 => f64x4 / f64x2], |a, b| a.min(b);
    fold lanes);

impls!(Maximum, |T| T::MIN, |a, b| a.max(b);
    scalar [i64, u64, isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4],
    |a, b| a.max(b);
    fold plain);
impls!(Maximum, |T| T::NEG_INFINITY, |a, b| a.max(b);
    scalar [f16];
    simd [f32 => f32x8 / f32x4, f64 => f64x4 / f64x2], |a, b| a.max(b);
    fold lanes);

impls!(BitAnd, |T| !0, |a, b| a & b;
    scalar [isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4,
          i64 => i64x4 / i64x2, u64 => u64x4 / u64x2], |a, b| a & b;
    fold plain);
impls!(BitOr, |T| 0, |a, b| a | b;
    scalar [isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4,
          i64 => i64x4 / i64x2, u64 => u64x4 / u64x2], |a, b| a | b;
    fold plain);
impls!(BitXor, |T| 0, |a, b| a ^ b;
    scalar [isize, usize];
    simd [i8 => i8x32 / i8x16, u8 => u8x32 / u8x16, i16 => i16x16 / i16x8, u16 => u16x16 / u16x8, i32 => i32x8 / i32x4, u32 => u32x8 / u32x4,
          i64 => i64x4 / i64x2, u64 => u64x4 / u64x2], |a, b| a ^ b;
    fold plain);
impls!(BitXor, |T| false, |a, b| a ^ b; scalar [bool]);

impls!(LogicalAnd, |T| 1, |a, b| T::from(a != 0 && b != 0);
    scalar [i8, u8, i16, u16, i32, u32, i64, u64, isize, usize]);
impls!(LogicalOr, |T| 0, |a, b| T::from(a != 0 || b != 0);
    scalar [i8, u8, i16, u16, i32, u32, i64, u64, isize, usize]);

/// `bool` and/or: the combination is "all true" / "any true", which the
/// byte-wise SIMD loops of `any_of_group` answer.
macro_rules! bool_impls {
    ($($op:ident: $identity:literal, |$a:ident, $b:ident| $combine:expr, $fold:expr;)*) => {$(
        impl GroupOperator<bool> for $op {
            #[inline(always)]
            fn combine(&self, $a: bool, $b: bool) -> bool {
                $combine
            }
            #[inline(always)]
            fn identity(&self) -> bool {
                $identity
            }
            #[inline(always)]
            fn __fold(&self, init: bool, values: &[bool]) -> bool {
                let fold: fn(bool, &[bool]) -> bool = $fold;
                fold(init, values)
            }
        }
    )*};
}

bool_impls! {
    BitAnd: true, |a, b| a & b, |init, values| init & simd::all_true(values);
    LogicalAnd: true, |a, b| a & b, |init, values| init & simd::all_true(values);
    BitOr: false, |a, b| a | b, |init, values| init | simd::any_true(values);
    LogicalOr: false, |a, b| a | b, |init, values| init | simd::any_true(values);
}

/// A user-defined operator: a closure `combine` and its `identity` (SYCL
/// 2020 user-defined `BinaryOperation` with an explicit identity). Made by
/// [`custom_operator`].
#[derive(Clone, Copy)]
pub struct CustomOperator<T, F> {
    identity: T,
    combine: F,
}

/// A user-defined operator from its `identity` and a closure `combine(a, b)`
/// (`a` from lower linear ids). It must be associative, with `identity` an
/// identity on both sides (see [`GroupOperator`]). The algorithms apply it
/// in increasing linear id, one value at a time.
///
/// # Examples
/// ```
/// use scoped_runtime::{custom_operator, GroupOperator};
/// // Absolute maximum, identity 0.
/// let abs_max = custom_operator(0i32, |a: i32, b: i32| a.abs().max(b.abs()));
/// assert_eq!(abs_max.combine(-7, 3), 7);
/// assert_eq!(abs_max.identity(), 0);
/// ```
#[inline]
#[must_use]
pub fn custom_operator<T: Copy, F: Fn(T, T) -> T + Copy>(
    identity: T,
    combine: F,
) -> CustomOperator<T, F> {
    CustomOperator { identity, combine }
}

impl<T: Copy, F: Fn(T, T) -> T + Copy> GroupOperator<T> for CustomOperator<T, F> {
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        (self.combine)(a, b)
    }

    #[inline(always)]
    fn identity(&self) -> T {
        self.identity
    }
}

impl<T: fmt::Debug, F> fmt::Debug for CustomOperator<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomOperator")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Copy + PartialEq + fmt::Debug, Op: GroupOperator<T> + fmt::Debug>(
        op: Op,
        samples: &[T],
    ) {
        for &x in samples {
            assert_eq!(op.combine(op.identity(), x), x, "{op:?} left identity");
            assert_eq!(op.combine(x, op.identity()), x, "{op:?} right identity");
        }
    }

    #[test]
    fn identities_are_the_opencl_ones() {
        assert_eq!(GroupOperator::<i32>::identity(&minimum()), i32::MAX);
        assert_eq!(GroupOperator::<u32>::identity(&minimum()), u32::MAX);
        assert_eq!(GroupOperator::<i64>::identity(&minimum()), i64::MAX);
        assert_eq!(GroupOperator::<u64>::identity(&minimum()), u64::MAX);
        assert_eq!(GroupOperator::<f32>::identity(&minimum()), f32::INFINITY);
        assert_eq!(GroupOperator::<f16>::identity(&minimum()), f16::INFINITY);
        assert_eq!(GroupOperator::<i32>::identity(&maximum()), i32::MIN);
        assert_eq!(GroupOperator::<u32>::identity(&maximum()), 0);
        assert_eq!(GroupOperator::<i64>::identity(&maximum()), i64::MIN);
        assert_eq!(GroupOperator::<u64>::identity(&maximum()), 0);
        assert_eq!(
            GroupOperator::<f64>::identity(&maximum()),
            f64::NEG_INFINITY
        );
        assert_eq!(GroupOperator::<i32>::identity(&plus()), 0);
        assert_eq!(GroupOperator::<u8>::identity(&bit_and()), 0xff);
        assert_eq!(GroupOperator::<i16>::identity(&bit_and()), -1);
    }

    #[test]
    fn identities_are_identities() {
        let ints = [i32::MIN, -5, -1, 0, 1, 7, i32::MAX];
        check(plus(), &ints);
        check(multiplies(), &ints);
        check(minimum(), &ints);
        check(maximum(), &ints);
        check(bit_and(), &ints);
        check(bit_or(), &ints);
        check(bit_xor(), &ints);
        check(logical_and(), &[0u8, 1]);
        check(logical_or(), &[0u64, 1]);
        let floats = [f64::NEG_INFINITY, -2.5, 0.0, 1.0, 3e300, f64::INFINITY];
        check(minimum(), &floats);
        check(maximum(), &floats);
        check(multiplies(), &floats[1..5]);
        check(plus(), &[f16::from_f32(-2.5), f16::ONE]);
        for op in [true, false] {
            check(logical_and(), &[op]);
            check(logical_or(), &[op]);
            check(bit_and(), &[op]);
            check(bit_or(), &[op]);
            check(bit_xor(), &[op]);
        }
    }

    #[test]
    fn integer_arithmetic_wraps_and_logic_gives_zero_or_one() {
        assert_eq!(plus().combine(i8::MAX, 1i8), i8::MIN);
        assert_eq!(multiplies().combine(200u8, 2u8), 144);
        assert_eq!(logical_and().combine(5i32, -3i32), 1);
        assert_eq!(logical_and().combine(5u16, 0u16), 0);
        assert_eq!(logical_or().combine(0i64, 9i64), 1);
    }

    #[test]
    fn float_min_max_ignore_nan() {
        assert_eq!(minimum().combine(f32::NAN, 2.0f32), 2.0);
        assert_eq!(maximum().combine(2.0f64, f64::NAN), 2.0);
    }
}
