//! The loops behind the shuffles: fixed-width copies for groups of 2, 4,
//! …, 64 items, a scalar loop for any other size.
//!
//! A full sub-group's values are `S` consecutive values of private memory.
//! Taken as an array of constant length `N`, a permute by a constant mask
//! or a shift by a constant distance is a copy between constant lanes,
//! which the optimiser turns into vector shuffles (`vpermilps`,
//! `vpermpd`, `vshufps`, …, or none at all for a mask that swaps whole
//! vectors) or unaligned vector moves, and keeps in registers when the
//! private memory is. Masks and distances are dispatched by value, so a
//! butterfly loop `for m in [8, 4, 2, 1]` that the optimiser unrolls
//! folds each call to its shuffle, and one it does not unroll jumps to it.
//! The slice loops they replace had a bounds check per item and a run-time
//! length, and stayed scalar.
//!
//! Every path copies values, so the results are bit for bit those of the
//! scalar loops, which run for other group sizes (a partial sub-group, a
//! work group of 100 items), for values wider than 16 bytes, and under the
//! cargo feature `scalar-algorithms`.

use std::convert::Infallible;
use std::mem::size_of;

use super::simd::FORCE_SCALAR;

/// Calls `$body` with `$n` a constant equal to `$len` when that is a
/// power of two from 2 to 64; otherwise evaluates `$fallback`.
macro_rules! with_width {
    ($len:expr, $n:ident => $body:expr, _ => $fallback:expr) => {
        match $len {
            2 => {
                const $n: usize = 2;
                $body
            }
            4 => {
                const $n: usize = 4;
                $body
            }
            8 => {
                const $n: usize = 8;
                $body
            }
            16 => {
                const $n: usize = 16;
                $body
            }
            32 => {
                const $n: usize = 32;
                $body
            }
            64 => {
                const $n: usize = 64;
                $body
            }
            _ => $fallback,
        }
    };
}

/// Whether values of `T` take the fixed-width paths: primitives and small
/// structs, which fit a few vector registers per group.
#[inline(always)]
fn lanes_of<T>(src: &[T], dst: &[T]) -> Option<usize> {
    (!FORCE_SCALAR && size_of::<T>() <= 16 && src.len() == dst.len()).then_some(src.len())
}

/// `dst[i] = src[i ^ mask]` for every `i` with `i ^ mask < src.len()`;
/// the other `dst[i]` keep their value.
#[inline(always)]
pub(crate) fn xor<T: Copy>(src: &[T], dst: &mut [T], mask: usize) {
    match lanes_of(src, dst) {
        Some(len) => {
            with_width!(len, N => xor_fixed::<T, N>(as_array(src), as_array_mut(dst), mask), _ => xor_scalar(src, dst, mask))
        }
        None => xor_scalar(src, dst, mask),
    }
}

#[inline(always)]
fn xor_scalar<T: Copy>(src: &[T], dst: &mut [T], mask: usize) {
    for (i, d) in dst.iter_mut().enumerate() {
        if let Some(&value) = src.get(i ^ mask) {
            *d = value;
        }
    }
}

/// [`xor`] for `N` (a power of two) items: a partner is outside exactly
/// when `mask >= N`, for every item at once.
#[inline(always)]
fn xor_fixed<T: Copy, const N: usize>(src: &[T; N], dst: &mut [T; N], mask: usize) {
    match mask {
        0 => *dst = *src,
        m if m >= N => {}
        // The butterfly's masks, each a constant shuffle.
        1 => *dst = xor_const::<T, N, 1>(src),
        2 => *dst = xor_const::<T, N, 2>(src),
        4 => *dst = xor_const::<T, N, 4>(src),
        8 => *dst = xor_const::<T, N, 8>(src),
        16 => *dst = xor_const::<T, N, 16>(src),
        32 => *dst = xor_const::<T, N, 32>(src),
        // `mask < N`, so `i ^ mask < N`: the `%` only tells the optimiser.
        _ => *dst = lanes(|i| src[(i ^ mask) % N]),
    }
}

#[inline(always)]
fn xor_const<T: Copy, const N: usize, const M: usize>(src: &[T; N]) -> [T; N] {
    lanes(|i| src[(i ^ M) % N])
}

/// `dst[i] = src[i + delta]` for every `i + delta < src.len()`; the last
/// `delta` items keep their value.
#[inline(always)]
pub(crate) fn shift_left<T: Copy>(src: &[T], dst: &mut [T], delta: usize) {
    match lanes_of(src, dst) {
        Some(len) => {
            with_width!(len, N => shift_left_fixed::<T, N>(as_array(src), as_array_mut(dst), delta), _ => shift_left_scalar(src, dst, delta))
        }
        None => shift_left_scalar(src, dst, delta),
    }
}

#[inline(always)]
fn shift_left_scalar<T: Copy>(src: &[T], dst: &mut [T], delta: usize) {
    if delta < src.len() {
        let n = src.len() - delta;
        dst[..n].copy_from_slice(&src[delta..]);
    }
}

/// `dst[i] = src[i - delta]` for every `i >= delta`; the first `delta`
/// items keep their value.
#[inline(always)]
pub(crate) fn shift_right<T: Copy>(src: &[T], dst: &mut [T], delta: usize) {
    match lanes_of(src, dst) {
        Some(len) => {
            with_width!(len, N => shift_right_fixed::<T, N>(as_array(src), as_array_mut(dst), delta), _ => shift_right_scalar(src, dst, delta))
        }
        None => shift_right_scalar(src, dst, delta),
    }
}

#[inline(always)]
fn shift_right_scalar<T: Copy>(src: &[T], dst: &mut [T], delta: usize) {
    if delta < src.len() {
        let n = src.len() - delta;
        dst[delta..].copy_from_slice(&src[..n]);
    }
}

/// Dispatches a shift distance: the distances of scans and stencils
/// (1–4, and the powers of two) as constants, any other by value.
macro_rules! shift_fixed {
    ($name:ident, $constant:ident, $scalar:ident) => {
        #[inline(always)]
        fn $name<T: Copy, const N: usize>(src: &[T; N], dst: &mut [T; N], delta: usize) {
            match delta {
                0 => *dst = *src,
                d if d >= N => {}
                1 => $constant::<T, N, 1>(src, dst),
                2 => $constant::<T, N, 2>(src, dst),
                3 => $constant::<T, N, 3>(src, dst),
                4 => $constant::<T, N, 4>(src, dst),
                8 => $constant::<T, N, 8>(src, dst),
                16 => $constant::<T, N, 16>(src, dst),
                32 => $constant::<T, N, 32>(src, dst),
                _ => $scalar(src, dst, delta),
            }
        }
    };
}

shift_fixed!(shift_left_fixed, shift_left_const, shift_left_scalar);
shift_fixed!(shift_right_fixed, shift_right_const, shift_right_scalar);

/// [`shift_left`] by the constant `D < N`.
#[inline(always)]
fn shift_left_const<T: Copy, const N: usize, const D: usize>(src: &[T; N], dst: &mut [T; N]) {
    // Branch-free lanes: a lane past the end takes its own old value.
    let old = *dst;
    *dst = lanes(|i| if i + D < N { src[(i + D) % N] } else { old[i] });
}

/// [`shift_right`] by the constant `D < N`.
#[inline(always)]
fn shift_right_const<T: Copy, const N: usize, const D: usize>(src: &[T; N], dst: &mut [T; N]) {
    let old = *dst;
    *dst = lanes(|i| if i >= D { src[(i + N - D) % N] } else { old[i] });
}

/// `dst[i] = src[linear(ids[i])]` for every `i`; calls `outside(i, id)`
/// for the first item whose id `linear` maps to `None` (ids it maps to
/// `Some` are below `src.len()`).
#[inline(always)]
pub(crate) fn select<T: Copy, I: Copy>(
    src: &[T],
    dst: &mut [T],
    ids: &[I],
    linear: impl Fn(I) -> Option<usize>,
    outside: impl FnOnce(usize, I) -> Infallible,
) {
    match lanes_of(src, dst) {
        Some(len) if ids.len() == len => {
            with_width!(len, N => select_fixed::<T, I, N>(as_array(src), as_array_mut(dst), as_array(ids), linear, outside), _ => select_scalar(src, dst, ids, linear, outside))
        }
        _ => select_scalar(src, dst, ids, linear, outside),
    }
}

#[inline(always)]
fn select_scalar<T: Copy, I: Copy>(
    src: &[T],
    dst: &mut [T],
    ids: &[I],
    linear: impl Fn(I) -> Option<usize>,
    outside: impl FnOnce(usize, I) -> Infallible,
) {
    for (i, (d, &id)) in dst.iter_mut().zip(ids).enumerate() {
        match linear(id) {
            Some(l) => *d = src[l],
            None => {
                outside(i, id);
            }
        }
    }
}

#[inline(always)]
fn select_fixed<T: Copy, I: Copy, const N: usize>(
    src: &[T; N],
    dst: &mut [T; N],
    ids: &[I; N],
    linear: impl Fn(I) -> Option<usize>,
    outside: impl FnOnce(usize, I) -> Infallible,
) {
    // All ids are checked first, branch-free, so that the check and the
    // copy are each one vector loop.
    let remote: [usize; N] = lanes(|i| linear(ids[i]).unwrap_or(usize::MAX));
    if remote.iter().fold(false, |bad, &r| bad | (r >= N)) {
        let i = remote.iter().position(|&r| r >= N).unwrap_or(0);
        outside(i, ids[i]);
    }
    // Every id is below `N`: the `%` only tells the optimiser, which then
    // gathers or permutes without checks.
    *dst = lanes(|i| src[remote[i] % N]);
}

/// `[f(0), f(1), …, f(N - 1)]`, as a plain loop that is always inlined:
/// `array::from_fn` stayed out of line (`try_from_fn`) in builds with no
/// flags, so an AVX-512 kernel ran its shuffles at the baseline level.
#[inline(always)]
fn lanes<T: Copy, const N: usize>(f: impl Fn(usize) -> T) -> [T; N] {
    crate::lowering::interchange::lane_array(f)
}

/// `values` as an array; its length is `N` (the dispatch matched it).
#[inline(always)]
fn as_array<T, const N: usize>(values: &[T]) -> &[T; N] {
    values.try_into().expect("dispatched on the length")
}

/// [`as_array`], mutably.
#[inline(always)]
fn as_array_mut<T, const N: usize>(values: &mut [T]) -> &mut [T; N] {
    values.try_into().expect("dispatched on the length")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path against the plain definitions, at every width the
    /// dispatch has and at widths it does not, for every mask and distance
    /// up to past the end.
    #[test]
    fn fixed_widths_match_the_definitions() {
        for len in 1..=70usize {
            let src: Vec<u64> = (0..len as u64).map(|i| 1000 + i).collect();
            let fill: Vec<u64> = (0..len as u64).map(|i| 5000 + i).collect();
            for k in 0..2 * len + 3 {
                let mut got = fill.clone();
                xor(&src, &mut got, k);
                let want: Vec<u64> = (0..len)
                    .map(|i| if i ^ k < len { src[i ^ k] } else { fill[i] })
                    .collect();
                assert_eq!(got, want, "xor, {len} items, mask {k}");

                let mut got = fill.clone();
                shift_left(&src, &mut got, k);
                let want: Vec<u64> = (0..len)
                    .map(|i| if i + k < len { src[i + k] } else { fill[i] })
                    .collect();
                assert_eq!(got, want, "shift left, {len} items, delta {k}");

                let mut got = fill.clone();
                shift_right(&src, &mut got, k);
                let want: Vec<u64> = (0..len)
                    .map(|i| if i >= k { src[i - k] } else { fill[i] })
                    .collect();
                assert_eq!(got, want, "shift right, {len} items, delta {k}");
            }
            let remote: Vec<usize> = (0..len).map(|i| (i * 7 + 3) % len).collect();
            let mut got = fill.clone();
            select(&src, &mut got, &remote, Some, |i, id| -> Infallible {
                panic!("item {i}, id {id}")
            });
            let want: Vec<u64> = remote.iter().map(|&r| src[r]).collect();
            assert_eq!(got, want, "select, {len} items");
        }
    }
}
