//! `Id<D>` and `Range<D>`: SYCL's `id` and `range` for 1, 2 and 3 dimensions.
//!
//! Both are row-major: dimension `D - 1` is the fastest-varying one, so the
//! linear id of `(i0, i1, i2)` in a range `(r0, r1, r2)` is
//! `(i0 * r1 + i1) * r2 + i2` (SYCL 2020, section 3.11.1 "Linearization").

use std::fmt;
use std::ops::{Add, Index, IndexMut, Sub};

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name<const D: usize>(pub(crate) [usize; D]);

        impl<const D: usize> $name<D> {
            /// Builds the value from its components, dimension 0 first.
            #[inline(always)]
            #[must_use]
            pub const fn new(components: [usize; D]) -> Self {
                Self(components)
            }

            /// Number of dimensions, `D`.
            pub const DIMENSIONS: usize = D;

            /// Returns the components, dimension 0 first.
            #[inline(always)]
            #[must_use]
            pub const fn to_array(self) -> [usize; D] {
                self.0
            }

            /// Returns component `dimension`.
            ///
            /// # Panics
            /// If `dimension >= D`, naming it and the value.
            #[inline(always)]
            #[must_use]
            #[track_caller]
            pub fn get(self, dimension: usize) -> usize {
                check_dimension::<D, _>(dimension, "get", self);
                self.0[dimension]
            }
        }

        impl<const D: usize> Default for $name<D> {
            fn default() -> Self {
                Self([0; D])
            }
        }

        impl<const D: usize> Index<usize> for $name<D> {
            type Output = usize;
            #[inline(always)]
            #[track_caller]
            fn index(&self, dimension: usize) -> &usize {
                &self.0[dimension]
            }
        }

        impl<const D: usize> IndexMut<usize> for $name<D> {
            #[inline(always)]
            #[track_caller]
            fn index_mut(&mut self, dimension: usize) -> &mut usize {
                &mut self.0[dimension]
            }
        }

        impl<const D: usize> From<[usize; D]> for $name<D> {
            #[inline(always)]
            fn from(components: [usize; D]) -> Self {
                Self(components)
            }
        }

        impl<const D: usize> From<$name<D>> for [usize; D] {
            #[inline(always)]
            fn from(value: $name<D>) -> Self {
                value.0
            }
        }

        impl From<usize> for $name<1> {
            #[inline(always)]
            fn from(value: usize) -> Self {
                Self([value])
            }
        }

        impl From<(usize, usize)> for $name<2> {
            #[inline(always)]
            fn from((a, b): (usize, usize)) -> Self {
                Self([a, b])
            }
        }

        impl From<(usize, usize, usize)> for $name<3> {
            #[inline(always)]
            fn from((a, b, c): (usize, usize, usize)) -> Self {
                Self([a, b, c])
            }
        }

        impl<const D: usize> fmt::Debug for $name<D> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{:?}", stringify!($name), self.0)
            }
        }

        impl<const D: usize> fmt::Display for $name<D> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match D {
                    1 => write!(f, "{}", self.0[0]),
                    _ => write!(f, "{:?}", self.0),
                }
            }
        }
    };
}

index_type!(
    /// A position in a `D`-dimensional index space (SYCL `id<D>`).
    ///
    /// # Examples
    /// ```
    /// use scoped_runtime::Id;
    /// let id = Id::new([1, 2]);
    /// assert_eq!(id[1], 2);
    /// ```
    Id
);

index_type!(
    /// The extent of a `D`-dimensional index space (SYCL `range<D>`).
    ///
    /// # Examples
    /// ```
    /// use scoped_runtime::{Id, Range};
    /// let r = Range::new([7, 5, 3]);
    /// assert_eq!(r.size(), 105);
    /// assert_eq!(r.linearize(Id::new([1, 2, 1])), 22);
    /// assert_eq!(r.delinearize(22), Id::new([1, 2, 1]));
    /// ```
    Range
);

impl<const D: usize> Id<D> {
    /// The origin, all components zero.
    #[inline(always)]
    #[must_use]
    pub const fn zero() -> Self {
        Self([0; D])
    }
}

impl<const D: usize> Range<D> {
    /// Number of points in the space: the product of the components
    /// (SYCL `range::size()`).
    ///
    /// # Panics
    /// If the product overflows `usize`, naming the range (a launch's
    /// ranges never do: launches check it).
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn size(self) -> usize {
        match self.checked_size() {
            Some(size) => size,
            None => size_overflow(self),
        }
    }

    /// Like [`size`](Self::size), but `None` if the product overflows `usize`.
    #[inline(always)]
    #[must_use]
    pub fn checked_size(self) -> Option<usize> {
        self.0.iter().try_fold(1usize, |acc, &r| acc.checked_mul(r))
    }

    /// A range with every component equal to `value`.
    #[inline(always)]
    #[must_use]
    pub const fn splat(value: usize) -> Self {
        Self([value; D])
    }

    /// Whether `id` lies inside the range in every dimension.
    #[inline(always)]
    #[must_use]
    pub fn contains(self, id: Id<D>) -> bool {
        (0..D).all(|d| id.0[d] < self.0[d])
    }

    /// Row-major linear position of `id` in this range. `id` is not checked.
    #[inline(always)]
    #[must_use]
    pub fn linearize(self, id: Id<D>) -> usize {
        let mut linear = id.0[0];
        for d in 1..D {
            linear = linear * self.0[d] + id.0[d];
        }
        linear
    }

    /// Inverse of [`linearize`](Self::linearize): the id at row-major
    /// position `linear`. `linear` is not checked.
    ///
    /// # Panics
    /// If the range is empty (a zero component), naming it and `linear`.
    #[inline(always)]
    #[must_use]
    #[track_caller]
    pub fn delinearize(self, mut linear: usize) -> Id<D> {
        if self.0.contains(&0) {
            delinearize_empty(self, linear);
        }
        let mut id = [0; D];
        for d in (1..D).rev() {
            id[d] = linear % self.0[d];
            linear /= self.0[d];
        }
        if D > 0 {
            id[0] = linear;
        }
        Id(id)
    }
}

/// Component-wise sum.
///
/// # Panics
/// If a component overflows `usize`, naming both ids.
impl<const D: usize> Add for Id<D> {
    type Output = Id<D>;
    #[inline(always)]
    #[track_caller]
    fn add(self, rhs: Id<D>) -> Id<D> {
        let mut out = self;
        for d in 0..D {
            match self.0[d].checked_add(rhs.0[d]) {
                Some(sum) => out.0[d] = sum,
                None => arithmetic_overflow(self, '+', rhs),
            }
        }
        out
    }
}

/// Component-wise difference.
///
/// # Panics
/// If a component of `rhs` is larger than that of `self`, naming both ids.
impl<const D: usize> Sub for Id<D> {
    type Output = Id<D>;
    #[inline(always)]
    #[track_caller]
    fn sub(self, rhs: Id<D>) -> Id<D> {
        let mut out = self;
        for d in 0..D {
            match self.0[d].checked_sub(rhs.0[d]) {
                Some(difference) => out.0[d] = difference,
                None => arithmetic_overflow(self, '-', rhs),
            }
        }
        out
    }
}

impl<const D: usize> Id<D> {
    /// `self + by` for ids whose sum is an id of a launch, which fits in
    /// `usize` (launches check it): the item loops' own sum, free of the
    /// public operator's check.
    #[inline(always)]
    pub(crate) fn plus(mut self, by: Id<D>) -> Id<D> {
        for d in 0..D {
            self.0[d] += by.0[d];
        }
        self
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn arithmetic_overflow<const D: usize>(lhs: Id<D>, op: char, rhs: Id<D>) -> ! {
    panic!("{lhs:?} {op} {rhs:?} overflows usize in some dimension")
}

#[cold]
#[inline(never)]
#[track_caller]
fn size_overflow<const D: usize>(range: Range<D>) -> ! {
    panic!("the size of {range:?} (the product of its components) overflows usize")
}

#[cold]
#[inline(never)]
#[track_caller]
fn delinearize_empty<const D: usize>(range: Range<D>, linear: usize) -> ! {
    panic!("cannot delinearize {linear} in {range:?}: the range is empty (a zero component)")
}

/// Panics, naming `dimension`, `D` and what was asked of whom, unless
/// `dimension < D`. `whose` names the value in the message; it is passed
/// by value, as a reference passed to a call would make the optimiser keep
/// the value in memory around every item loop that asks.
#[inline(always)]
#[track_caller]
pub(crate) fn check_dimension<const D: usize, W: fmt::Debug>(
    dimension: usize,
    method: &'static str,
    whose: W,
) {
    if dimension >= D {
        bad_dimension(dimension, D, method, whose);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn bad_dimension<W: fmt::Debug>(dimension: usize, dimensions: usize, method: &str, whose: W) -> ! {
    let plural = if dimensions == 1 { "" } else { "s" };
    panic!(
        "{method}: dimension {dimension} is out of range for {whose:?}, which has {dimensions} \
         dimension{plural} (0 ..= {})",
        dimensions.saturating_sub(1)
    )
}

/// Component-wise product of a group id and a group size: the first global
/// id of that group.
#[inline(always)]
pub(crate) fn scale<const D: usize>(id: Id<D>, by: Range<D>) -> Id<D> {
    let mut out = id.0;
    // No overflow: the product is the first id of a group of a launch.
    for (component, size) in out.iter_mut().zip(by.0) {
        *component *= size;
    }
    Id(out)
}

/// Calls `f` with every id of `range` in increasing row-major order, as a
/// plain loop nest of depth `D`.
#[inline(always)]
pub(crate) fn for_each_id<const D: usize>(range: Range<D>, mut f: impl FnMut(Id<D>)) {
    let r = range.0;
    let mut id = [0usize; D];
    match D {
        1 => {
            for i in 0..r[0] {
                id[0] = i;
                f(Id(id));
            }
        }
        2 => {
            for i in 0..r[0] {
                id[0] = i;
                for j in 0..r[1] {
                    id[1] = j;
                    f(Id(id));
                }
            }
        }
        3 => {
            for i in 0..r[0] {
                id[0] = i;
                for j in 0..r[1] {
                    id[1] = j;
                    for k in 0..r[2] {
                        id[2] = k;
                        f(Id(id));
                    }
                }
            }
        }
        _ => unreachable!("scoped supports 1, 2 and 3 dimensions, not {D}"),
    }
}
