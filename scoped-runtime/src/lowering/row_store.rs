//! The stores behind the row-store shortcut: a `distribute_items!` whose
//! body ends by storing its item's value into an output window,
//! `out[idx] = value` (the macros' `lower/row_store.rs`).
//!
//! The generated loop ([`distribute_items_row_stored`]) takes the items in
//! chunks of [`ROW_STORE_LANES`] consecutive items along the fastest
//! dimension (a row of a 16×16 tile), the chunks of a row of 2 or 4
//! chunks written out (`GroupLoops::__for_each_row_chunk`).
//! Where `out` is an [`ItemsWindow`] of 4- or 8-byte numbers
//! ([`RowElement`]) over the chunk's work group, it hands out the chunk's
//! elements as one [`Row`]; the chunk's values are computed in lane order
//! and then stored as 16-byte vectors. Item by item, the values of a
//! transposed tile (`b[idx] = tile[c][r]`, read down a column) were 16
//! scalar loads and 16 scalar stores a row, since the optimiser does not
//! pack values loaded from scattered places: each store to an output line
//! not yet in cache holds a store-queue entry until the line arrives, and
//! the queue filled (GPU-form transpose 1.19–1.25× its peer at the
//! baseline and v3, 1.0 at v4, whose gathers made one store of 8 lanes).
//! Any other output (another type, another group's window) gets no row
//! ([`NotARow`]), and the chunk stores item by item as written.

use std::mem::{size_of, ManuallyDrop};

use crate::group::ScopedGroup;
use crate::item::SItem;
use crate::lowering::interchange::{ItemChunk, ItemLanes};
use crate::outputs::ItemsWindow;
use crate::rules::{check_collective, ItemScope};

/// Items per chunk: one row of a 16×16 tile, 64 bytes of `f32`.
pub const ROW_STORE_LANES: usize = 16;

/// Runs `f` once for every logical item of `group`, in increasing linear
/// id: in chunks of `W` where they fill one, one by one in a group of one
/// dimension or with rows shorter than `W`. One dimension is one long item
/// loop, which the optimiser widens as a whole, stores included: as rows
/// of 16, the flat triad ran 1.06–1.11× its peer (1.01× as one loop).
/// Does not synchronise.
#[inline(always)]
#[track_caller]
pub fn distribute_items_row_stored<const W: usize, G: ScopedGroup<D>, const D: usize>(
    group: &G,
    mut f: impl FnMut(ItemChunk<W, D>),
) {
    check_collective(group.__nesting(), "distribute_items!");
    let _scope = ItemScope::enter(group.__nesting());
    if D < 2 || group.logical_local_range()[D - 1] < W {
        group.__for_each_item(
            #[inline(always)]
            |item| f(ItemChunk::Item(item)),
        );
    } else {
        group.__for_each_row_chunk(f);
    }
}

/// The value closure of a row-stored body, typed as an item closure of
/// `group`'s items (written before the loop, its parameter has no other
/// type to infer from).
#[inline(always)]
pub fn item_value<G: ScopedGroup<D>, const D: usize, V>(
    _group: &G,
    value: impl FnMut(SItem<D>) -> V,
) -> impl FnMut(SItem<D>) -> V {
    value
}

mod sealed {
    pub trait Sealed {}
}

/// Element types a [`Row`] stores as vectors: numbers of 4 or 8 bytes.
/// They are `Copy`, have no padding and no invalid bit patterns, so their
/// bytes may be moved as `f32` or `f64` lanes.
pub trait RowElement: Copy + sealed::Sealed {}

macro_rules! row_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl RowElement for $t {}
    )*};
}

row_elements!(f32, i32, u32, f64, i64, u64, isize, usize);

/// The `W` elements of a window that a chunk of `W` items covers, made
/// only for [`RowElement`] types.
pub struct Row<'a, T, const W: usize>(&'a mut [T; W]);

impl<T, const W: usize> Row<'_, T, W> {
    /// Stores `values`, lane `l` into the element of the chunk's item `l`.
    #[inline(always)]
    pub fn store(self, values: [T; W]) {
        let values = ManuallyDrop::new(values);
        #[cfg(target_arch = "x86_64")]
        {
            if size_of::<T>() == 4 {
                // SAFETY: a `Row` is made only for `RowElement` types, and
                // those of 4 bytes (`f32`, `i32`, `u32`) have initialised
                // bytes that are a valid `f32` and take any `f32`'s bytes.
                // Same size and alignment, so the row is `W` `f32`s.
                let (bits, row) = unsafe {
                    (
                        std::mem::transmute_copy::<[T; W], [f32; W]>(&values),
                        &mut *self.0.as_mut_ptr().cast::<[f32; W]>(),
                    )
                };
                return x86::store_f32(row, bits);
            }
            if size_of::<T>() == 8 {
                // SAFETY: as above, for the `RowElement` types of 8 bytes
                // (`f64`, `i64`, `u64`, `isize`, `usize` on x86-64).
                let (bits, row) = unsafe {
                    (
                        std::mem::transmute_copy::<[T; W], [f64; W]>(&values),
                        &mut *self.0.as_mut_ptr().cast::<[f64; W]>(),
                    )
                };
                return x86::store_f64(row, bits);
            }
        }
        *self.0 = ManuallyDrop::into_inner(values);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    #[allow(clippy::wildcard_imports)]
    use std::arch::x86_64::*;

    /// `*row = values` in vectors of `$lanes`, each packed with
    /// `$set(v[i], ...)` for the listed lanes `i` and stored with `$store`,
    /// the rest as a plain copy.
    macro_rules! packed {
        (@ $repeat:ident $row:ident, $values:ident, $at:ident, $lanes:literal, $set:ident($($i:literal)*), $store:ident) => {{
            $repeat $at + $lanes <= W {
                let v: &[_; $lanes] = $values[$at..$at + $lanes].try_into().unwrap();
                // SAFETY: the build enables the instructions (the `cfg`
                // around each use); `at + $lanes <= W`: the lanes from `at`
                // lie in `$row`, borrowed mutably, and the store needs no
                // alignment.
                unsafe { $store($row.as_mut_ptr().add($at), $set($(v[$i]),*)) };
                $at += $lanes;
            }
        }};
        (once $($rest:tt)*) => {
            packed!(@ if $($rest)*)
        };
        ($($rest:tt)*) => {
            packed!(@ while $($rest)*)
        };
    }

    /// `*row = values`: with 32-byte (`wide`) and 16-byte (`narrow`)
    /// vectors, one narrow vector first where the row starts 16 bytes past
    /// a 32-byte boundary, then wide vectors, then narrow ones, then the
    /// lanes left; with `narrow` alone, narrow vectors and the lanes left.
    macro_rules! stored {
        ($row:ident, $values:ident, $(wide $wide:literal $wset:ident $w:tt $wstore:ident,)?
         narrow $narrow:literal $nset:ident $n:tt $nstore:ident) => {{
            let mut at = 0;
            $(
                if ($row.as_ptr() as usize) % 32 == 16 {
                    packed!(once $row, $values, at, $narrow, $nset $n, $nstore);
                }
                packed!($row, $values, at, $wide, $wset $w, $wstore);
            )?
            packed!($row, $values, at, $narrow, $nset $n, $nstore);
            $row[at..].copy_from_slice(&$values[at..]);
        }};
    }

    /// `*row = values`, a whole vector at a time: packed with a `set`
    /// intrinsic, the optimiser builds each vector from its lanes' loads
    /// (`insertps`, or `unpcklps` with SSE2) where, as plain stores, it
    /// kept them scalar. 32 bytes where the build enables AVX (v3, v4),
    /// else 16 (a build with no flags, whose AVX bodies included): values
    /// that are already vectors (a stencil's row) then keep their stores
    /// (with 16 bytes, 2-D tiled Jacobi took ~6% more time at v3 and v4).
    /// A row 16 bytes past a 32-byte boundary (where glibc starts a large
    /// `Vec`) begins with one 16-byte store, so that no 32-byte store
    /// straddles two cache lines (Intel Xeon, builds for v3 and v4,
    /// against the peer: GPU-form Jacobi 1.69–1.81 → 1.43–1.59, 2-D tiled
    /// Jacobi 1.33–1.46 → 1.27–1.32, transpose 0.97–1.19 → 0.90–1.11).
    /// Not 64 with AVX-512: a transposed row, built in one vector, took
    /// 5–7% more time than as 8 lanes (gathers) and 7 single stores.
    #[inline(always)]
    pub(super) fn store_f32<const W: usize>(row: &mut [f32; W], values: [f32; W]) {
        #[cfg(target_feature = "avx")]
        stored!(row, values, wide 8 _mm256_setr_ps(0 1 2 3 4 5 6 7) _mm256_storeu_ps,
            narrow 4 _mm_setr_ps(0 1 2 3) _mm_storeu_ps);
        #[cfg(not(target_feature = "avx"))]
        stored!(row, values, narrow 4 _mm_setr_ps(0 1 2 3) _mm_storeu_ps);
    }

    /// As [`store_f32`], for `f64` lanes.
    #[inline(always)]
    pub(super) fn store_f64<const W: usize>(row: &mut [f64; W], values: [f64; W]) {
        #[cfg(target_feature = "avx")]
        stored!(row, values, wide 4 _mm256_setr_pd(0 1 2 3) _mm256_storeu_pd,
            narrow 2 _mm_setr_pd(0 1) _mm_storeu_pd);
        #[cfg(not(target_feature = "avx"))]
        stored!(row, values, narrow 2 _mm_setr_pd(0 1) _mm_storeu_pd);
    }
}

impl<T: RowElement, const D: usize> ItemsWindow<'_, T, D> {
    /// The elements of the chunk `lanes`, if they are this window's (the
    /// chunk's items belong to the window's work group). What the
    /// row-store lowering asks every output it stores into; [`NotARow`]
    /// answers for any other type.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __scoped_row<const W: usize>(
        &mut self,
        lanes: &ItemLanes<W, D>,
    ) -> Option<Row<'_, T, W>> {
        self.lanes_mut(lanes).map(Row)
    }

    /// Asks the CPU to fetch the row the same chunk has in the next work
    /// group, the one the thread most likely runs next: a group's output
    /// is many short rows (a GPU tile's), whose lines the hardware
    /// prefetchers leave to be fetched when the stores reach them. Takes
    /// `&mut self`, as [`NotARow`]'s does, so that this method wins the
    /// lookup for a window held by value or by `&mut`.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __scoped_prefetch_row<const W: usize>(&mut self, lanes: &ItemLanes<W, D>) {
        self.prefetch_next_lanes(lanes);
    }
}

/// Any output other than an [`ItemsWindow`] of [`RowElement`]s (the
/// window's own method takes precedence where it applies): no row, so
/// that the lowering stores item by item and compiles for any output.
pub trait NotARow {
    /// `None`.
    #[inline(always)]
    fn __scoped_row<T, const W: usize, const D: usize>(
        &mut self,
        _lanes: &ItemLanes<W, D>,
    ) -> Option<Row<'_, T, W>> {
        None
    }

    /// Nothing.
    #[inline(always)]
    fn __scoped_prefetch_row<const W: usize, const D: usize>(&mut self, _lanes: &ItemLanes<W, D>) {}
}

impl<X: ?Sized> NotARow for X {}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored<T: RowElement + PartialEq + std::fmt::Debug, const W: usize>(
        values: [T; W],
        fill: T,
    ) {
        let mut row = [fill; W];
        Row(&mut row).store(values);
        assert_eq!(row, values);
    }

    #[test]
    fn rows_store_every_lane_bit_for_bit() {
        let f: [f32; 16] = std::array::from_fn(|l| l as f32 - 7.5);
        stored(f, f32::NAN);
        // NaN payloads and negative zero keep their bits.
        let odd = [f32::from_bits(0x7fc0_1234), -0.0, f32::INFINITY, 1e-45];
        let mut row = [0.0f32; 4];
        Row(&mut row).store(odd);
        assert_eq!(row.map(f32::to_bits), odd.map(f32::to_bits));
        stored(
            std::array::from_fn::<i32, 16, _>(|l| -(l as i32) * 1_000_003),
            0,
        );
        stored(std::array::from_fn::<u32, 8, _>(|l| u32::MAX - l as u32), 0);
        stored(
            std::array::from_fn::<f64, 16, _>(|l| l as f64 * 0.1),
            f64::NAN,
        );
        stored(std::array::from_fn::<u64, 16, _>(|l| u64::MAX >> l), 0);
        stored(std::array::from_fn::<isize, 4, _>(|l| -(l as isize)), 7);
        // Widths that leave a remainder after the vectors.
        stored([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], 0.0);
        stored([1.0f64, 2.0, 3.0], 0.0);
        stored([9u32], 0);
    }

    /// A row at `offset` elements into a buffer aligned to a cache line:
    /// each lane stored, nothing around the row touched.
    fn stored_at<T: RowElement + PartialEq + std::fmt::Debug, const W: usize>(
        values: [T; W],
        fill: T,
        offset: usize,
    ) {
        #[repr(C, align(64))]
        struct Line<T>([T; 64]);
        let mut buffer = Line([fill; 64]);
        let row: &mut [T; W] = (&mut buffer.0[offset..offset + W]).try_into().unwrap();
        Row(row).store(values);
        for (k, got) in buffer.0.iter().enumerate() {
            let want = if (offset..offset + W).contains(&k) {
                values[k - offset]
            } else {
                fill
            };
            assert_eq!(*got, want, "element {k}, row at {offset}");
        }
    }

    #[test]
    fn rows_at_every_alignment_store_each_lane_once() {
        // Every offset from a 32-byte boundary, the 16-byte one included
        // (which AVX builds store as 16, 32 and 16 bytes).
        for offset in 0..16 {
            let halves = |l: usize| l as f32 + 0.5;
            stored_at(std::array::from_fn::<f32, 16, _>(halves), -1.0, offset);
            stored_at(
                std::array::from_fn::<u32, 12, _>(|l| l as u32 + 1),
                0,
                offset,
            );
            stored_at(std::array::from_fn::<f32, 5, _>(halves), -1.0, offset);
            // `f64` rows: every offset from a 32-byte boundary is one of 0..8.
            if offset < 8 {
                let halves = |l: usize| l as f64 + 0.5;
                stored_at(std::array::from_fn::<f64, 16, _>(halves), -1.0, offset);
                stored_at(
                    std::array::from_fn::<i64, 6, _>(|l| l as i64 + 1),
                    0,
                    offset,
                );
                stored_at(std::array::from_fn::<f64, 3, _>(halves), -1.0, offset);
            }
        }
    }
}
