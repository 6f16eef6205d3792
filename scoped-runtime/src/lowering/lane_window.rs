//! Windows of an interchanged loop's step (the macros'
//! `lower/lane_check.rs`): where every lane's index into a slice or a
//! `ChunkWindow` is the first lane's plus the lane, the step takes the `W`
//! elements its lanes touch as one array reference per read, and the lanes
//! run reading lane `l` of each array, the element their index names.
//!
//! The lanes then run with no bounds check, and the arrays reach them as
//! arguments of a closure ([`with_windows`] and its siblings): a reference
//! argument tells the optimiser that a window written through `&mut`
//! overlaps no other, so the lanes' loads may move above the previous
//! lanes' stores and the step becomes vector loads and stores. Taken as
//! local values, layer norm's normalising step stayed 8 scalar loads and
//! stores a read (AMD EPYC, AVX-512).

use crate::outputs::ChunkWindow;

/// A window a lane loop reads or writes: the `W` elements from `start` on
/// of a shared slice or of a `ChunkWindow` (indexed by position in the
/// whole slice, as the window's own indexing does).
pub trait LaneWindow<'a, const W: usize> {
    /// `&[T; W]` or `&mut [T; W]`.
    type Window;
    /// The starts whose windows lie inside.
    fn __bound(&self) -> WindowBound;
    /// The `W` elements from `start` on, if they all lie inside.
    fn __lane_window(self, start: usize) -> Option<Self::Window>;
}

/// The starts whose `W` elements lie in a slice or a `ChunkWindow`:
/// `start - origin < limit` in wrapping arithmetic. One comparison against
/// a bound the same for every step, which the optimiser computes once per
/// loop. (`get(start..)?.first_chunk()` compared twice a step; with four
/// windows a step, the step's checks took more instructions than its
/// lanes.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowBound {
    origin: usize,
    limit: usize,
}

impl WindowBound {
    /// The bound of `W`-element windows in `len` elements, index `origin`
    /// the first.
    #[inline(always)]
    fn new<const W: usize>(origin: usize, len: usize) -> Self {
        const { assert!(W > 0) };
        Self {
            origin,
            limit: len.saturating_sub(W - 1),
        }
    }

    /// Whether the window from `start` on lies inside: then `start -
    /// origin + W` is at most the length.
    #[inline(always)]
    fn fits(self, start: usize) -> bool {
        start.wrapping_sub(self.origin) < self.limit
    }

    /// Whether the windows at `start + t * step` (wrapping) all lie
    /// inside, for every `t` below `steps`: the starts less `origin` run
    /// from the first to the last in a straight line, so both ends lying
    /// in `0..limit` puts every start there. Always inlined, as every
    /// helper the lowering calls: out of line, each item loop with a plan
    /// called it (after a `vzeroupper`) in the level's copy.
    #[inline(always)]
    pub(crate) fn fits_all(self, start: usize, step: usize, steps: usize) -> bool {
        let Some(last) = steps.checked_sub(1) else {
            return true;
        };
        let first = start.wrapping_sub(self.origin) as i128;
        // `step` as a signed distance: a loop may run backwards.
        let end = first + last as i128 * (step as isize as i128);
        let inside = 0..self.limit as i128;
        inside.contains(&first) && inside.contains(&end)
    }
}

/// The `W` elements of `slice` from `start` on, as an array: the one cast
/// behind every window, checked or planned.
///
/// # Safety
/// `start + W <= slice.len()`.
#[inline(always)]
pub(crate) unsafe fn array_at<T, const W: usize>(slice: &[T], start: usize) -> &[T; W] {
    // SAFETY: by the caller, the `W` elements from `start` on lie inside
    // the slice, and an array of `W` `T`s has the layout of `W`
    // consecutive `T`s; the array borrows the slice.
    unsafe { &*slice.as_ptr().add(start).cast::<[T; W]>() }
}

/// [`array_at`], borrowing the elements mutably.
///
/// # Safety
/// As for [`array_at`].
#[inline(always)]
pub(crate) unsafe fn array_at_mut<T, const W: usize>(slice: &mut [T], start: usize) -> &mut [T; W] {
    // SAFETY: as for `array_at`; the array borrows the slice mutably.
    unsafe { &mut *slice.as_mut_ptr().add(start).cast::<[T; W]>() }
}

impl<'a, T, const W: usize> LaneWindow<'a, W> for &'a [T] {
    type Window = &'a [T; W];
    #[inline(always)]
    fn __bound(&self) -> WindowBound {
        WindowBound::new::<W>(0, self.len())
    }
    #[inline(always)]
    fn __lane_window(self, start: usize) -> Option<&'a [T; W]> {
        // SAFETY: the bound holds, so `start + W <= len` (W >= 1).
        LaneWindow::<W>::__bound(&self)
            .fits(start)
            .then(|| unsafe { array_at(self, start) })
    }
}

impl<'a, 'w, T, const W: usize> LaneWindow<'a, W> for &'a mut ChunkWindow<'w, T> {
    type Window = &'a mut [T; W];
    #[inline(always)]
    fn __bound(&self) -> WindowBound {
        WindowBound::new::<W>(self.start(), self.len())
    }
    #[inline(always)]
    fn __lane_window(self, start: usize) -> Option<&'a mut [T; W]> {
        let fits = LaneWindow::<W>::__bound(&self).fits(start);
        let offset = start.wrapping_sub(self.start());
        let chunk = self.as_mut_slice();
        // SAFETY: as for slices, `offset + W` is at most the chunk's
        // length; the array borrows `chunk` mutably for 'a.
        fits.then(|| unsafe { array_at_mut(chunk, offset) })
    }
}

/// `LaneWindow::__lane_window` with the width named first, for the
/// generated code.
#[inline(always)]
pub fn lane_window<'a, const W: usize, S: LaneWindow<'a, W>>(
    source: S,
    start: usize,
) -> Option<S::Window> {
    source.__lane_window(start)
}

macro_rules! with_windows {
    ($($name:ident: $($t:ident $v:ident),+;)+) => {$(
        /// Calls `f` with the windows as separate arguments: references
        /// passed as arguments are known not to overlap a `&mut` one.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)] // one per window, by design
        pub fn $name<$($t,)+ R>($($v: $t,)+ f: impl FnOnce($($t),+) -> R) -> R {
            f($($v),+)
        }
    )+};
}

with_windows! {
    with_windows: A a;
    with_windows_2: A a, B b;
    with_windows_3: A a, B b, C c;
    with_windows_4: A a, B b, C c, D d;
    with_windows_5: A a, B b, C c, D d, E e;
    with_windows_6: A a, B b, C c, D d, E e, F f;
    with_windows_7: A a, B b, C c, D d, E e, F f, G g;
    with_windows_8: A a, B b, C c, D d, E e, F f, G g, H h;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_windows_lie_inside_the_slice() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(lane_window::<4, _>(&v[..], 6), Some(&[6, 7, 8, 9]));
        assert_eq!(lane_window::<4, _>(&v[..], 7), None);
        assert_eq!(lane_window::<4, _>(&v[..], usize::MAX), None);
    }

    fn fits<const W: usize>(start: usize, len: usize) -> bool {
        WindowBound::new::<W>(0, len).fits(start)
    }

    #[test]
    fn windows_fit_exactly_up_to_the_end() {
        assert!(fits::<4>(0, 4) && fits::<4>(6, 10) && fits::<1>(9, 10));
        assert!(!fits::<4>(0, 3) && !fits::<4>(7, 10) && !fits::<1>(10, 10));
        assert!(!fits::<4>(usize::MAX - 1, usize::MAX) && !fits::<2>(0, 0));
        let empty: &[u8] = &[];
        assert_eq!(lane_window::<1, _>(empty, 0), None);
    }

    #[test]
    fn chunk_windows_are_placed_by_position_in_the_whole_slice() {
        let mut data: Vec<u32> = (6..12).collect();
        // The second chunk of 6 of a whole slice of 12.
        let mut window = ChunkWindow::over(&mut data, 6);
        let w = lane_window::<4, _>(&mut window, 7).expect("inside");
        assert_eq!(*w, [7, 8, 9, 10]);
        w[0] = 70;
        assert_eq!(window[7], 70);
        assert!(lane_window::<4, _>(&mut window, 9).is_none());
        // Before the chunk: the offset wraps and lies outside.
        assert!(lane_window::<4, _>(&mut window, 5).is_none());
        assert!(lane_window::<4, _>(&mut window, 0).is_none());
    }

    #[test]
    fn arrays_at_the_end_of_a_slice_are_its_last_elements() {
        let mut v: Vec<u32> = (0..20).collect();
        // SAFETY: `19 + 1` and `4 + 16` are at most the length, 20.
        let (one, sixteen) = unsafe { (array_at::<_, 1>(&v, 19), array_at::<_, 16>(&v, 4)) };
        assert_eq!((one, &sixteen[..]), (&[19], &v[4..]));
        // SAFETY: as above.
        let sixteen = unsafe { array_at_mut::<_, 16>(&mut v, 4) };
        sixteen[15] = 90;
        sixteen[0] = 40;
        // SAFETY: as above.
        let one = unsafe { array_at_mut::<_, 1>(&mut v, 19) };
        one[0] += 1;
        assert_eq!((v[3], v[4], v[5], v[18], v[19]), (3, 40, 5, 18, 91));
    }

    #[test]
    fn windows_reach_the_closure_in_order() {
        let (a, mut b) = ([1, 2], [0, 0]);
        let sum = with_windows_2(&a, &mut b, |a, b| {
            b[1] = a[0] + a[1];
            b[1]
        });
        assert_eq!((sum, b), (3, [0, 3]));
    }
}
