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
            /// If `dimension >= D`.
            #[inline(always)]
            #[must_use]
            pub fn get(self, dimension: usize) -> usize {
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
            fn index(&self, dimension: usize) -> &usize {
                &self.0[dimension]
            }
        }

        impl<const D: usize> IndexMut<usize> for $name<D> {
            #[inline(always)]
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
    #[inline(always)]
    #[must_use]
    pub fn size(self) -> usize {
        self.0.iter().product()
    }

    /// Like [`size`](Self::size), but `None` if the product overflows `usize`.
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
    #[inline(always)]
    #[must_use]
    pub fn delinearize(self, mut linear: usize) -> Id<D> {
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

impl<const D: usize> Add for Id<D> {
    type Output = Id<D>;
    #[inline(always)]
    fn add(mut self, rhs: Id<D>) -> Id<D> {
        for d in 0..D {
            self.0[d] += rhs.0[d];
        }
        self
    }
}

impl<const D: usize> Sub for Id<D> {
    type Output = Id<D>;
    #[inline(always)]
    fn sub(mut self, rhs: Id<D>) -> Id<D> {
        for d in 0..D {
            self.0[d] -= rhs.0[d];
        }
        self
    }
}

/// Component-wise product of a group id and a group size: the first global
/// id of that group.
#[inline(always)]
pub(crate) fn scale<const D: usize>(id: Id<D>, by: Range<D>) -> Id<D> {
    let mut out = id.0;
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
