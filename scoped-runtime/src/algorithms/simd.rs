//! The loops behind every group algorithm: a `wide` SIMD path and the
//! scalar path beside it.
//!
//! A group's values (its private memory, or a joint slice) are one
//! contiguous slice, so every algorithm is a loop over a slice:
//!
//! * [`fold`] (floats): `init op x0 op x1 …`, with four vector
//!   accumulators so that the adds of consecutive vectors do not wait on
//!   each other; integer folds are the plain loop, [`scalar_fold`], which
//!   the compiler vectorises at the kernel's level (see `operators.rs`);
//! * [`scan`]: inclusive scan; each vector is scanned in-register (log2
//!   lanes shift-and-combine steps), then the running carry from the
//!   previous vector is combined in;
//! * [`any_true`], [`all_true`] on `bool`s, read as bytes, 32 at a time;
//! * [`any_by`]: a predicate over blocks, branch-free inside a block so the
//!   compiler can vectorise the predicate itself.
//!
//! Only the built-in operators on the types `wide` covers take the SIMD
//! path (see `operators.rs`); everything else uses the scalar loops. The
//! cargo feature `scalar-algorithms` makes every call take the scalar path,
//! so that both are tested on one machine.
//!
//! The SIMD path combines values in another order than the scalar one:
//! exact for integers (wrapping arithmetic, associative and commutative),
//! rounded differently for floating point.

/// Whether the cargo feature `scalar-algorithms` forces the scalar loops.
pub(crate) const FORCE_SCALAR: bool = cfg!(feature = "scalar-algorithms");

/// A `wide` vector of [`N`](Lanes::N) lanes of [`Scalar`](Lanes::Scalar).
pub(crate) trait Lanes: Copy {
    type Scalar: Copy;
    const N: usize;

    fn splat(value: Self::Scalar) -> Self;
    /// Loads exactly `N` values.
    fn load(values: &[Self::Scalar]) -> Self;
    /// Loads fewer than `N` values, the other lanes set to `fill`.
    fn load_or(values: &[Self::Scalar], fill: Self::Scalar) -> Self;
    /// Stores all `N` lanes into `out` (of length `N`).
    fn store(self, out: &mut [Self::Scalar]);
    /// Stores the first `out.len()` (< `N`) lanes.
    fn store_prefix(self, out: &mut [Self::Scalar]);
    /// Lane `i` takes lane `i - k`; the first `k` lanes take `fill`.
    fn shift_up(self, k: usize, fill: Self::Scalar) -> Self;
    /// Lane `i` (< `N`).
    fn lane(self, i: usize) -> Self::Scalar;
    /// The last lane.
    #[inline(always)]
    fn last(self) -> Self::Scalar {
        self.lane(Self::N - 1)
    }
    /// Combines the lanes pairwise, as a tree: `(l0 op l_{N/2}) op …`.
    fn horizontal(self, op: impl Fn(Self::Scalar, Self::Scalar) -> Self::Scalar) -> Self::Scalar;
}

macro_rules! lanes {
    ($($vector:ident: $scalar:ty, $n:literal;)*) => {$(
        impl Lanes for wide::$vector {
            type Scalar = $scalar;
            const N: usize = $n;

            #[inline(always)]
            fn splat(value: $scalar) -> Self {
                wide::$vector::splat(value)
            }

            #[inline(always)]
            fn load(values: &[$scalar]) -> Self {
                let lanes: [$scalar; $n] = values.try_into().expect("a full vector");
                wide::$vector::new(lanes)
            }

            #[inline(always)]
            fn load_or(values: &[$scalar], fill: $scalar) -> Self {
                let mut lanes = [fill; $n];
                for (lane, &value) in lanes.iter_mut().zip(values) {
                    *lane = value;
                }
                wide::$vector::new(lanes)
            }

            #[inline(always)]
            fn store(self, out: &mut [$scalar]) {
                out.copy_from_slice(&self.to_array());
            }

            #[inline(always)]
            fn store_prefix(self, out: &mut [$scalar]) {
                for (out, lane) in out.iter_mut().zip(self.to_array()) {
                    *out = lane;
                }
            }

            #[inline(always)]
            fn shift_up(self, k: usize, fill: $scalar) -> Self {
                // Lane by lane, so that with `k` constant the optimiser
                // sees one shuffle: a copy of the slice `lanes[..n - k]`
                // went through the stack, and each scan step waited for a
                // store to forward (the scan ran 3-4x a scalar loop).
                let lanes = self.to_array();
                wide::$vector::new(std::array::from_fn(|i| {
                    if i >= k {
                        lanes[i - k]
                    } else {
                        fill
                    }
                }))
            }

            #[inline(always)]
            fn lane(self, i: usize) -> $scalar {
                self.to_array()[i]
            }

            #[inline(always)]
            fn horizontal(self, op: impl Fn($scalar, $scalar) -> $scalar) -> $scalar {
                let mut lanes = self.to_array();
                let mut width = $n;
                while width > 1 {
                    width /= 2;
                    for i in 0..width {
                        lanes[i] = op(lanes[i], lanes[i + width]);
                    }
                }
                lanes[0]
            }
        }
    )*};
}

lanes! {
    f32x8: f32, 8;
    f64x4: f64, 4;
    i8x32: i8, 32;
    u8x32: u8, 32;
    i16x16: i16, 16;
    u16x16: u16, 16;
    i32x8: i32, 8;
    u32x8: u32, 8;
    i64x4: i64, 4;
    u64x4: u64, 4;
    f32x4: f32, 4;
    f64x2: f64, 2;
    i8x16: i8, 16;
    u8x16: u8, 16;
    i16x8: i16, 8;
    u16x8: u16, 8;
    i32x4: i32, 4;
    u32x4: u32, 4;
    i64x2: i64, 2;
    u64x2: u64, 2;
}

/// `init op values[0] op values[1] op …`, strictly left to right.
#[inline(always)]
pub(crate) fn scalar_fold<T: Copy>(init: T, values: &[T], op: impl Fn(T, T) -> T) -> T {
    values.iter().fold(init, |acc, &x| op(acc, x))
}

/// Inclusive scan of `src` into `dst` starting from `carry`, strictly left
/// to right: `dst[i] = carry op src[0] op … op src[i]`.
#[inline(always)]
pub(crate) fn scalar_scan<T: Copy>(carry: T, src: &[T], dst: &mut [T], op: impl Fn(T, T) -> T) {
    let mut acc = carry;
    for (d, &s) in dst.iter_mut().zip(src) {
        acc = op(acc, s);
        *d = acc;
    }
}

/// `init op (the combination of all of values)` for an associative and
/// commutative `op` with identity `identity`; `vop` is `op` lane-wise.
///
/// Four vector accumulators, so that consecutive adds do not wait on each
/// other; the order is the same at every level, so floats round the same
/// way everywhere. Integer folds do not come here: the plain loop is
/// exact in any order, and the staging copy's in-order touch of a group's
/// lines (`lowering::prefetch::touch_lines`) took away what made it slow
/// from memory (its unrolled tree loads the group's lines last to first).
#[inline(always)]
pub(crate) fn fold<V: Lanes>(
    init: V::Scalar,
    values: &[V::Scalar],
    identity: V::Scalar,
    vop: impl Fn(V, V) -> V,
    op: impl Fn(V::Scalar, V::Scalar) -> V::Scalar,
) -> V::Scalar {
    if FORCE_SCALAR {
        return scalar_fold(init, values, op);
    }
    let n = V::N;
    if values.len() == n {
        // A full sub-group: one vector.
        return op(init, V::load(values).horizontal(&op));
    }
    if values.len() < n {
        return op(init, V::load_or(values, identity).horizontal(&op));
    }
    let mut acc = [V::splat(identity); 4];
    let mut blocks = values.chunks_exact(4 * n);
    for block in &mut blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = vop(*a, V::load(&block[k * n..(k + 1) * n]));
        }
    }
    let mut vectors = blocks.remainder().chunks_exact(n);
    for (k, vector) in (&mut vectors).enumerate() {
        acc[k] = vop(acc[k], V::load(vector));
    }
    let tail = vectors.remainder();
    if !tail.is_empty() {
        acc[3] = vop(acc[3], V::load_or(tail, identity));
    }
    let total = vop(vop(acc[0], acc[1]), vop(acc[2], acc[3]));
    op(init, total.horizontal(&op))
}

/// Scans one vector in-register: lane `i` becomes `lane 0 op … op lane i`.
#[inline(always)]
fn scan_lanes<V: Lanes>(mut x: V, identity: V::Scalar, vop: &impl Fn(V, V) -> V) -> V {
    let mut k = 1;
    while k < V::N {
        x = vop(x.shift_up(k, identity), x);
        k *= 2;
    }
    x
}

/// Inclusive scan of `src` into `dst` (same length) from `carry`, for an
/// associative `op` with identity `identity`: `dst[i] = carry op src[0] op
/// … op src[i]`. Values from lower positions are always the left operand.
///
/// Blocks of four vectors are scanned independently of the running carry
/// (each vector in-register, then each vector offset by the totals of the
/// ones before it in the block), so the only serial dependency from block
/// to block is one scalar combine with the carry. `op` must be `vop` lane
/// by lane (as every operator's pair is), so that the scalar carry is the
/// value the lanes compute.
#[inline(always)]
pub(crate) fn scan<V: Lanes>(
    carry: V::Scalar,
    src: &[V::Scalar],
    dst: &mut [V::Scalar],
    identity: V::Scalar,
    vop: impl Fn(V, V) -> V,
    op: impl Fn(V::Scalar, V::Scalar) -> V::Scalar,
) {
    debug_assert_eq!(src.len(), dst.len());
    let n = V::N;
    // Shorter than one vector (a sub-group of 4 `i32` of 8 lanes), the
    // lane shifts and partial loads cost more than the adds: a prefix sum
    // scanned in sub-groups of 4 took 1.8–2× the time of sub-groups of 32.
    if FORCE_SCALAR || src.len() < n {
        return scalar_scan(carry, src, dst, op);
    }
    // A scalar (see above); also the chain from call to call for a caller
    // that carries `dst`'s last value into the next.
    let mut carry = carry;
    let mut from = src.chunks_exact(4 * n);
    let mut to = dst.chunks_exact_mut(4 * n);
    for (s, d) in (&mut from).zip(&mut to) {
        let mut x = [V::splat(identity); 4];
        for (k, x) in x.iter_mut().enumerate() {
            *x = scan_lanes(V::load(&s[k * n..(k + 1) * n]), identity, &vop);
        }
        for k in 1..4 {
            x[k] = vop(V::splat(x[k - 1].last()), x[k]);
        }
        let running = V::splat(carry);
        for (k, x) in x.iter().enumerate() {
            vop(running, *x).store(&mut d[k * n..(k + 1) * n]);
        }
        carry = op(carry, x[3].last());
    }
    let mut from = from.remainder().chunks_exact(n);
    let mut to = to.into_remainder().chunks_exact_mut(n);
    for (s, d) in (&mut from).zip(&mut to) {
        let x = scan_lanes(V::load(s), identity, &vop);
        vop(V::splat(carry), x).store(d);
        carry = op(carry, x.last());
    }
    let (s, d) = (from.remainder(), to.into_remainder());
    if !s.is_empty() {
        let x = scan_lanes(V::load_or(s, identity), identity, &vop);
        vop(V::splat(carry), x).store_prefix(d);
        carry = op(carry, x.lane(s.len() - 1));
    }
    // The last value once more, the scalar: a caller that reads it next
    // (a running carry) takes it without waiting for a lane of the vector
    // (the suite's prefix sum in sub-groups of 8 `i32`, one vector each,
    // took 2-2.5x the time of sub-groups of 32 with the vector's lane).
    if let Some(end) = dst.last_mut() {
        *end = carry;
    }
}

/// [`scan`] in vectors `V`, or in `H` (half as wide) where the values fill
/// at least one `H` but not one `V`: a sub-group of 4 `i32` is then one
/// vector scanned in-register, where [`scan`]'s scalar loop for fewer
/// values than a `V` chained every value's combine to the next (a prefix
/// sum in sub-groups of 4, each from the previous one's last value, took
/// 1.5-1.65x the time of sub-groups of 16 to 64). `hop` is `vop` on `H`.
#[inline(always)]
pub(crate) fn scan_halved<V: Lanes, H: Lanes<Scalar = V::Scalar>>(
    carry: V::Scalar,
    src: &[V::Scalar],
    dst: &mut [V::Scalar],
    identity: V::Scalar,
    vop: impl Fn(V, V) -> V,
    hop: impl Fn(H, H) -> H,
    op: impl Fn(V::Scalar, V::Scalar) -> V::Scalar,
) {
    if !FORCE_SCALAR && (H::N..V::N).contains(&src.len()) {
        scan::<H>(carry, src, dst, identity, hop, op);
    } else {
        scan::<V>(carry, src, dst, identity, vop, op);
    }
}

/// Bytes of a `bool` slice (each 0 or 1).
#[inline(always)]
fn bytes(values: &[bool]) -> &[u8] {
    bytemuck::cast_slice(values)
}

/// Whether any value is `true`: blocks of four vectors with an early exit,
/// then the rest (a sub-group's bools, say) in vectors padded with `false`.
#[inline(always)]
pub(crate) fn any_true(values: &[bool]) -> bool {
    if FORCE_SCALAR {
        return values.iter().any(|&b| b);
    }
    type V = wide::u8x32;
    let zero = V::ZERO;
    let mut blocks = bytes(values).chunks_exact(128);
    for block in &mut blocks {
        let mut acc = zero;
        for vector in block.chunks_exact(32) {
            acc |= <V as Lanes>::load(vector);
        }
        if !acc.simd_eq(zero).all() {
            return true;
        }
    }
    let mut acc = zero;
    for vector in blocks.remainder().chunks(32) {
        acc |= V::load_or(vector, 0);
    }
    !acc.simd_eq(zero).all()
}

/// Whether every value is `true`; as [`any_true`], padding with `true`.
#[inline(always)]
pub(crate) fn all_true(values: &[bool]) -> bool {
    if FORCE_SCALAR {
        return values.iter().all(|&b| b);
    }
    type V = wide::u8x32;
    let (zero, one) = (V::ZERO, V::splat(1));
    let mut blocks = bytes(values).chunks_exact(128);
    for block in &mut blocks {
        let mut acc = one;
        for vector in block.chunks_exact(32) {
            acc &= <V as Lanes>::load(vector);
        }
        if acc.simd_eq(zero).any() {
            return false;
        }
    }
    let mut acc = one;
    for vector in blocks.remainder().chunks(32) {
        acc &= V::load_or(vector, 1);
    }
    !acc.simd_eq(zero).any()
}

/// Whether `pred` holds for any value. The predicate runs on every value of
/// a block of 64 without branches, which the compiler can vectorise.
#[inline(always)]
pub(crate) fn any_by<T>(values: &[T], pred: impl Fn(&T) -> bool) -> bool {
    if FORCE_SCALAR {
        return values.iter().any(pred);
    }
    values
        .chunks(64)
        .any(|block| block.iter().fold(false, |hit, x| hit | pred(x)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }

    #[test]
    fn fold_and_scan_match_the_scalar_loops_at_every_length() {
        for len in 0..140 {
            let values: Vec<i32> = (0..len).map(|i| (i * 37 % 23) - 11).collect();
            let want = scalar_fold(5, &values, add);
            let got = fold::<wide::i32x8>(5, &values, 0, |a, b| a + b, add);
            assert_eq!(got, want, "fold, len {len}");
            // Floats take the vector accumulators; small integers add
            // exactly in every order.
            let floats: Vec<f32> = values.iter().map(|&v| v as f32).collect();
            let got = fold::<wide::f32x8>(5.0, &floats, 0.0, |a, b| a + b, |a, b| a + b);
            assert_eq!(got, want as f32, "float fold, len {len}");

            let mut want = vec![0; values.len()];
            scalar_scan(5, &values, &mut want, add);
            let mut got = vec![0; values.len()];
            scan::<wide::i32x8>(5, &values, &mut got, 0, |a, b| a + b, add);
            assert_eq!(got, want, "scan, len {len}");
        }
    }

    /// Every operator with vectors, on every type with them, at lengths
    /// around both vector widths (the half vector's path, `H::N..V::N`,
    /// and the full one's): the scalar loop's results.
    #[test]
    fn scans_with_half_vectors_match_the_scalar_loops() {
        use crate::algorithms::operators::{
            bit_and, bit_or, bit_xor, maximum, minimum, multiplies, plus, GroupOperator,
        };
        fn check<T, Op>(op: Op, values: impl Fn(usize) -> T)
        where
            T: Copy + PartialEq + std::fmt::Debug,
            Op: GroupOperator<T>,
        {
            for len in 0..80 {
                let src: Vec<T> = (0..len).map(&values).collect();
                let carry = values(len + 3);
                let mut want = vec![carry; len];
                scalar_scan(carry, &src, &mut want, |a, b| op.combine(a, b));
                let mut got = vec![carry; len];
                op.__scan(carry, &src, &mut got);
                assert_eq!(got, want, "{}, len {len}", std::any::type_name::<T>());
            }
        }
        macro_rules! ints {
            ($($t:ty),*) => {$(
                let v = |i: usize| ((i * 37 % 23) as i64 - 11) as $t;
                check(plus(), v);
                check(minimum(), v);
                check(maximum(), v);
                check(bit_and(), v);
                check(bit_or(), v);
                check(bit_xor(), v);
            )*};
        }
        ints!(i8, u8, i16, u16, i32, u32, i64, u64);
        macro_rules! products {
            ($($t:ty),*) => {$(
                check(multiplies(), |i: usize| (i % 3) as $t);
            )*};
        }
        products!(i16, u16, i32, u32);
        // Small integers: every order of the adds gives the same sums.
        macro_rules! floats {
            ($($t:ty),*) => {$(
                let v = |i: usize| (i * 37 % 23) as $t - 11.0;
                check(plus(), v);
                check(minimum(), v);
                check(maximum(), v);
                check(multiplies(), |i: usize| if i % 4 == 0 { 2.0 as $t } else { 1.0 });
            )*};
        }
        floats!(f32, f64);
    }

    #[test]
    fn a_float_scan_ends_with_the_value_its_lanes_compute() {
        // Values whose sums round differently in every order. One vector
        // (8 lanes): lane 7 is `carry + (((s0 + s1) + (s2 + s3)) + ((s4 +
        // s5) + (s6 + s7)))`, the in-register scan's tree; the last value
        // is stored once more as a scalar and must be that same sum.
        let values: Vec<f32> = (0..8).map(|i| 1.0 / (3.0 + i as f32) * 1e3).collect();
        let carry = 0.1f32;
        let mut got = vec![0.0; 8];
        scan::<wide::f32x8>(carry, &values, &mut got, 0.0, |a, b| a + b, |a, b| a + b);
        let v = &values;
        let tree = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
        assert_eq!(got[7].to_bits(), (carry + tree).to_bits());
        let lane3 = (v[0] + v[1]) + (v[2] + v[3]);
        assert_eq!(got[3].to_bits(), (carry + lane3).to_bits());
    }

    #[test]
    fn scan_keeps_lower_positions_on_the_left() {
        // `a op b = b` is associative but not commutative, and 0 is a left
        // identity: every inclusive prefix is its own last value. A scan
        // that swapped operands anywhere would yield the carry (200) or a
        // value from a lower position.
        let values: Vec<u8> = (0..300).map(|i| (i % 250 + 1) as u8).collect();
        let mut got = vec![0; values.len()];
        scan::<wide::u8x32>(200, &values, &mut got, 0, |_, b| b, |_, b| b);
        assert_eq!(got, values);
    }

    #[test]
    fn bool_scans_find_the_one_odd_value_anywhere() {
        for len in 1..300 {
            for odd in [0, len / 2, len - 1] {
                let mut values = vec![false; len];
                values[odd] = true;
                assert!(any_true(&values), "len {len}, true at {odd}");
                values.iter_mut().for_each(|v| *v = !*v);
                assert!(!all_true(&values), "len {len}, false at {odd}");
            }
            assert!(!any_true(&vec![false; len]));
            assert!(all_true(&vec![true; len]));
            assert!(any_by(&vec![0u32; len], |&x| x == 0));
            assert!(!any_by(&vec![0u32; len], |&x| x != 0));
        }
        assert!(!any_true(&[]));
        assert!(all_true(&[]));
    }
}
