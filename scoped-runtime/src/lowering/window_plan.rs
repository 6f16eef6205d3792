//! Window checks of an interchanged loop made once for the whole loop
//! (the macros' `lower/lane_window.rs`): where the loop runs over a range
//! and every window's start is the loop's value times a factor plus a
//! term fixed for the loop, the starts step by the same distance from one
//! iteration to the next. The plan takes the first two iterations'
//! starts and the number of iterations, and checks that every window
//! lies inside at the first and the last iteration, hence at all of them.
//! Its loop then hands each iteration its windows' starts, known to fit,
//! with no check left in the loop; a loop whose windows do not all fit
//! runs each iteration's own checks.
//!
//! Checked a step at a time, layer norm's normalising loop kept four
//! comparisons a step, the checked copy's bounds arithmetic and spilled
//! pointers: about 50 instructions per 16 elements against its peer's 15.
//!
//! Only the starts the plan computed reach the fast iterations, so a
//! window that fits is the plan's arithmetic alone; that they are the
//! elements the body reads rests, as for the windows of each step, on the
//! macro's reading of the indices.

use crate::lowering::lane_window::{array_at, array_at_mut, WindowBound};
use crate::outputs::ChunkWindow;

/// A slice or `ChunkWindow` an interchanged loop takes windows of `W`
/// elements from, indexed by position in the whole slice.
pub trait WindowSource<const W: usize> {
    /// `&[T; W]` or `&mut [T; W]`, borrowing the source for `'s`.
    type Window<'s>
    where
        Self: 's;
    /// The starts whose windows lie inside.
    fn bound(&self) -> WindowBound;
    /// The `W` elements from `start` on.
    ///
    /// # Safety
    /// `self.bound().fits(start)`.
    unsafe fn window_unchecked(&mut self, start: usize) -> Self::Window<'_>;
}

impl<T, const W: usize> WindowSource<W> for &[T] {
    type Window<'s>
        = &'s [T; W]
    where
        Self: 's;
    #[inline(always)]
    fn bound(&self) -> WindowBound {
        crate::lowering::lane_window::LaneWindow::<W>::__bound(self)
    }
    #[inline(always)]
    unsafe fn window_unchecked(&mut self, start: usize) -> &[T; W] {
        // SAFETY: the caller's bound holds: `start + W <= len`.
        unsafe { array_at(self, start) }
    }
}

impl<T, const W: usize> WindowSource<W> for &mut ChunkWindow<'_, T> {
    type Window<'s>
        = &'s mut [T; W]
    where
        Self: 's;
    #[inline(always)]
    fn bound(&self) -> WindowBound {
        crate::lowering::lane_window::LaneWindow::<W>::__bound(self)
    }
    #[inline(always)]
    unsafe fn window_unchecked(&mut self, start: usize) -> &mut [T; W] {
        let offset = start.wrapping_sub(self.start());
        let chunk = self.as_mut_slice();
        // SAFETY: the caller's bound holds: `offset + W` is at most the
        // chunk's length; the array borrows the chunk mutably.
        unsafe { array_at_mut(chunk, offset) }
    }
}

/// `R` window sources, as a tuple.
pub trait WindowSources<const W: usize, const R: usize> {
    /// One window per source, borrowing the sources for `'s`.
    type Windows<'s>
    where
        Self: 's;
    /// Each source's bound.
    fn bounds(&self) -> [WindowBound; R];
    /// Each source's window at its start.
    ///
    /// # Safety
    /// Each start fits its source's bound.
    unsafe fn windows(&mut self, starts: [usize; R]) -> Self::Windows<'_>;
}

macro_rules! window_sources {
    ($($r:literal: $($s:ident $n:tt),+;)+) => {$(
        impl<$($s: WindowSource<W>,)+ const W: usize> WindowSources<W, $r> for ($($s,)+) {
            type Windows<'s> = ($($s::Window<'s>,)+) where Self: 's;
            #[inline(always)]
            fn bounds(&self) -> [WindowBound; $r] {
                [$(self.$n.bound(),)+]
            }
            #[inline(always)]
            unsafe fn windows(&mut self, starts: [usize; $r]) -> Self::Windows<'_> {
                // SAFETY: the caller's bounds hold, start by start.
                unsafe { ($(self.$n.window_unchecked(starts[$n]),)+) }
            }
        }
    )+};
}

window_sources! {
    1: A 0;
    2: A 0, B 1;
    3: A 0, B 1, C 2;
    4: A 0, B 1, C 2, D 3;
    5: A 0, B 1, C 2, D 3, E 4;
    6: A 0, B 1, C 2, D 3, E 4, F 5;
    7: A 0, B 1, C 2, D 3, E 4, F 5, G 6;
    8: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7;
}

/// The windows of `R` sources at every iteration of a loop, if they all
/// fit: starts `first + t * step` at iteration `t < steps`.
pub struct WindowPlan<S, const W: usize, const R: usize> {
    sources: S,
    next: [usize; R],
    step: [usize; R],
    /// Iterations left whose windows fit; 0 if the plan failed.
    left: usize,
}

impl<S: WindowSources<W, R>, const W: usize, const R: usize> WindowPlan<S, W, R> {
    /// The plan of a loop over `iter` with windows of `sources`; `starts`
    /// gives an iteration's starts, if its lanes' indices are consecutive.
    /// `starts` runs on the first two values of a clone of `iter`.
    #[inline(always)]
    pub fn new<I: Iterator + Clone>(
        iter: &I,
        sources: S,
        starts: impl Fn(I::Item) -> Option<[usize; R]>,
    ) -> Self {
        let mut plan = Self {
            sources,
            next: [0; R],
            step: [0; R],
            left: 0,
        };
        let mut ahead = iter.clone();
        let Some(first) = ahead.next().and_then(&starts) else {
            return plan;
        };
        let (step, steps) = match ahead.next() {
            None => ([0; R], 1),
            Some(second) => {
                let Some(second) = starts(second) else {
                    return plan;
                };
                let rest = match ahead.size_hint() {
                    (low, Some(high)) if low == high => low,
                    _ => ahead.count(),
                };
                let step = std::array::from_fn(|n| second[n].wrapping_sub(first[n]));
                (step, rest.saturating_add(2))
            }
        };
        let bounds = plan.sources.bounds();
        if (0..R).all(|n| bounds[n].fits_all(first[n], step[n], steps)) {
            plan.next = first;
            plan.step = step;
            plan.left = steps;
        }
        plan
    }

    /// Whether any iteration runs with its windows from the plan.
    #[must_use]
    pub fn fits(&self) -> bool {
        self.left > 0
    }

    /// The next value of `iter` (the iterator the plan was made from)
    /// with its windows, while the plan covers it.
    #[inline(always)]
    pub fn next_step<I: Iterator>(&mut self, iter: &mut I) -> Option<(I::Item, S::Windows<'_>)> {
        if self.left == 0 {
            return None;
        }
        let value = iter.next()?;
        let starts = self.next;
        self.left -= 1;
        self.next = std::array::from_fn(|n| starts[n].wrapping_add(self.step[n]));
        // SAFETY: `new` checked with `fits_all`, against the bounds of
        // the sources the plan holds (which nothing else can change), that
        // the starts `first + t * step` fit for each of the `steps`
        // iterations; these are iteration `steps - left - 1`'s.
        Some((value, unsafe { self.sources.windows(starts) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The windows' first elements the plan hands out over `iter`, for
    /// windows of 4 of `0..len` at starts `start(value)`, then the values
    /// left to the per-step loop.
    fn handed(
        iter: impl Iterator<Item = usize> + Clone,
        len: usize,
        start: impl Fn(usize) -> Option<usize>,
    ) -> (bool, Vec<(usize, usize)>, Vec<usize>) {
        let data: Vec<usize> = (0..len).collect();
        let mut iter = iter;
        let mut plan = WindowPlan::<_, 4, 1>::new(&iter, (&data[..],), |k| start(k).map(|s| [s]));
        let fits = plan.fits();
        let mut seen = Vec::new();
        while let Some((k, (window,))) = plan.next_step(&mut iter) {
            assert_eq!(window.map(|x| x - window[0]), [0, 1, 2, 3]);
            seen.push((k, window[0]));
        }
        (fits, seen, iter.collect())
    }

    #[test]
    fn windows_that_just_fit_run_from_the_plan() {
        // 8 iterations of 4 elements: the last window ends at 32.
        let (fits, seen, rest) = handed(0..8, 32, |k| Some(4 * k));
        assert!(fits && rest.is_empty());
        assert_eq!(seen, (0..8).map(|k| (k, 4 * k)).collect::<Vec<_>>());
        // Backwards, with a step, from an offset.
        let (fits, seen, rest) = handed((1..=9).rev().step_by(2), 35, |k| Some(3 * k + 4));
        assert!(fits && rest.is_empty());
        assert_eq!(seen, [9, 7, 5, 3, 1].map(|k| (k, 3 * k + 4)));
        // One iteration, and none.
        assert_eq!(handed(5..6, 9, Some), (true, vec![(5, 5)], vec![]));
        assert_eq!(handed(0..0, 9, Some), (false, vec![], vec![]));
    }

    #[test]
    fn windows_that_just_do_not_fit_leave_every_iteration_to_its_checks() {
        let starts: [fn(usize) -> Option<usize>; 5] = [
            // The last window ends at 33 of 32.
            |k| Some(4 * k + 1),
            // The first starts before 0, wrapping.
            |k| Some((4 * k).wrapping_sub(1)),
            // Starts past the end of `usize`, wrapping into range.
            |k| Some((4 * k).wrapping_add(usize::MAX - 7)),
            // A step beyond `isize`.
            |k| Some(k.wrapping_mul(usize::MAX / 2 + 7)),
            // Lanes not consecutive at the second iteration.
            |k| (k != 1).then_some(k),
        ];
        for start in starts {
            assert_eq!(handed(0..8, 32, start), (false, vec![], (0..8).collect()));
        }
        assert!(!handed(0..8, 32, |k| (k > 0).then_some(k)).0);
    }

    #[test]
    fn chunk_windows_are_bounded_by_their_place_in_the_whole() {
        let mut data: Vec<u32> = (0..12).collect();
        // Elements 4..12 of the whole: starts 4 to 8 fit.
        let mut window = ChunkWindow::over(&mut data[4..], 4);
        let bound = WindowSource::<4>::bound(&&mut window);
        assert!(bound.fits_all(4, 2, 3) && bound.fits_all(8, usize::MAX, 5));
        assert!(!bound.fits_all(4, 2, 4) && !bound.fits_all(3, 1, 1));
        assert!(bound.fits_all(100, 1, 0));
        // Written through the plan's windows, one after the other.
        let mut iter = 0..3;
        let mut plan = WindowPlan::<_, 4, 2>::new(&iter, (&mut window, &[1u32; 6][..]), |k| {
            Some([8 - 2 * k, k])
        });
        while let Some((k, (out, ones))) = plan.next_step(&mut iter) {
            out[0] += 100 * ones[3] * (k as u32 + 1);
        }
        assert_eq!(data[4..], [304, 5, 206, 7, 108, 9, 10, 11]);
    }

    #[test]
    fn an_iterator_longer_than_planned_leaves_the_rest_to_its_checks() {
        // `size_hint` says 2 values, the iterator yields 4.
        #[derive(Clone)]
        struct Liar(usize);
        impl Iterator for Liar {
            type Item = usize;
            fn next(&mut self) -> Option<usize> {
                self.0 += 1;
                (self.0 <= 4).then_some(self.0 - 1)
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                (0, Some(0))
            }
        }
        let (fits, seen, rest) = handed(Liar(0), 16, |k| Some(4 * k));
        assert!(fits);
        assert_eq!((seen, rest), (vec![(0, 0), (1, 4)], vec![2, 3]));
    }
}
