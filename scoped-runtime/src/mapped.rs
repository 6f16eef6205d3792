//! `MappedMut`: outputs whose windows a range mapper places anywhere in
//! the buffer, checked for disjointness before the launch runs.
//!
//! [`ItemsMut`](crate::ItemsMut) gives each work group the elements of its
//! own items. A [`RangeMapper`] (after Celerity's range mappers) maps a
//! group's items to another box of the buffer: its transposed tile, whole
//! rows, a fixed region. The launch computes what every group would get
//! and refuses, before any group runs, a mapping under which two groups'
//! windows overlap or a window leaves the buffer; so windows stay safe to
//! write in parallel.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use crate::id::{scale, Id, Range};
use crate::launch::{LaunchArgs, LaunchError, LaunchShape, Sealed};

/// How a work group's items map to its window of a [`MappedMut`] buffer
/// (Celerity's range mappers). A group's items are the box `first ..
/// first + group_size` of the launch's global range; the window is:
///
/// | mapper | window of the group whose items start at `first` | disjoint |
/// | --- | --- | --- |
/// | [`one_to_one`](Self::one_to_one) | the same box | always |
/// | [`transposed`](Self::transposed) (2-D) | the box with both coordinates swapped: group `(i, j)` gets tile `(j, i)` | always |
/// | [`slice(d)`](Self::slice) | the same box, extended over the whole buffer along dimension `d` | with one group along `d` |
/// | [`rows`](Self::rows), [`columns`](Self::columns) (2-D) | `slice(1)`: whole rows; `slice(0)`: whole columns | as `slice` |
/// | [`fixed(offset, range)`](Self::fixed) | `offset .. offset + range`, for every group | with one group |
/// | [`all`](Self::all) | the whole buffer | with one group |
///
/// A transposed mapping only exists for 2-D launches (a compile error
/// otherwise).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RangeMapper<const D: usize>(Mapping<D>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mapping<const D: usize> {
    OneToOne,
    Transposed,
    Slice(usize),
    Fixed(Id<D>, Range<D>),
    All,
}

impl<const D: usize> RangeMapper<D> {
    /// Each group writes the elements of its own items.
    #[must_use]
    pub const fn one_to_one() -> Self {
        Self(Mapping::OneToOne)
    }

    /// Each group writes its own box extended over the whole buffer along
    /// `dimension`. Disjoint only when the launch has one group along
    /// `dimension`; a `dimension >= D` is refused at launch.
    #[must_use]
    pub const fn slice(dimension: usize) -> Self {
        Self(Mapping::Slice(dimension))
    }

    /// Every group writes `offset .. offset + range`: valid for a launch of
    /// one work group (or an empty range).
    #[must_use]
    pub fn fixed(offset: impl Into<Id<D>>, range: impl Into<Range<D>>) -> Self {
        Self(Mapping::Fixed(offset.into(), range.into()))
    }

    /// Every group writes the whole buffer: valid for a launch of one work
    /// group.
    #[must_use]
    pub const fn all() -> Self {
        Self(Mapping::All)
    }

    /// The window of the group whose first item is `first`: its first
    /// position and extent.
    #[inline(always)]
    fn window(self, first: Id<D>, group_size: Range<D>, buffer: Range<D>) -> (Id<D>, Range<D>) {
        match self.0 {
            Mapping::OneToOne => (first, group_size),
            Mapping::Transposed => {
                let (mut first, mut size) = (first.to_array(), group_size.to_array());
                first.swap(0, 1);
                size.swap(0, 1);
                (Id::new(first), Range::new(size))
            }
            Mapping::Slice(dimension) => {
                let (mut first, mut size) = (first, group_size);
                first[dimension] = 0;
                size[dimension] = buffer[dimension];
                (first, size)
            }
            Mapping::Fixed(offset, range) => (offset, range),
            Mapping::All => (Id::zero(), buffer),
        }
    }
}

impl RangeMapper<2> {
    /// Group `(i, j)` writes tile `(j, i)`: its items' box with both
    /// coordinates swapped, in a buffer of the transposed shape.
    #[must_use]
    pub const fn transposed() -> Self {
        Self(Mapping::Transposed)
    }

    /// `slice(1)`: each group writes whole rows, those of its items.
    #[must_use]
    pub const fn rows() -> Self {
        Self::slice(1)
    }

    /// `slice(0)`: each group writes whole columns, those of its items.
    #[must_use]
    pub const fn columns() -> Self {
        Self::slice(0)
    }
}

impl<const D: usize> fmt::Debug for RangeMapper<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Mapping::OneToOne => write!(f, "one_to_one"),
            Mapping::Transposed => write!(f, "transposed"),
            Mapping::Slice(1) if D == 2 => write!(f, "rows"),
            Mapping::Slice(0) if D == 2 => write!(f, "columns"),
            Mapping::Slice(d) => write!(f, "slice({d})"),
            Mapping::Fixed(offset, range) => write!(f, "fixed({offset}, {range})"),
            Mapping::All => write!(f, "all"),
        }
    }
}

/// A `D`-dimensional output buffer (row-major, `buffer_range` elements)
/// whose windows a [`RangeMapper`] assigns to work groups. Each work group
/// gets a [`MappedWindow`], indexed by position in the buffer.
///
/// Before anything runs, a launch refuses (with a [`LaunchError`], nothing
/// written) a slice shorter than `buffer_range`, a mapping that does not
/// fit the launch (a window outside the buffer, a slice along a dimension
/// the launch lacks), and a mapping that gives two groups overlapping
/// windows ([`LaunchError::OverlappingWindows`], naming both and the
/// region).
///
/// # Examples
/// A tiled transpose: group `(i, j)` reads its 4×4 tile of `input` and
/// writes tile `(j, i)` of `output`.
/// ```
/// use scoped::prelude::*;
///
/// #[kernel]
/// fn transpose(group: WorkGroup<2>, input: ItemsRefWindow<'_, u32, 2>, mut out: MappedWindow<'_, u32, 2>) {
///     distribute_items!(group, |idx| {
///         let [r, c] = idx.global_id().to_array();
///         out[[c, r]] = input[idx];
///     });
/// }
///
/// let (rows, cols) = (8, 12);
/// let input: Vec<u32> = (0..(rows * cols) as u32).collect();
/// let mut output = vec![0; rows * cols];
/// let args = (
///     ItemsRef::new(&input),
///     MappedMut::new(&mut output, [cols, rows], RangeMapper::transposed()),
/// );
/// Queue::new()
///     .parallel_with([rows / 4, cols / 4], [4, 4], args, |g, (input, out)| transpose(g, input, out))
///     .unwrap();
/// assert_eq!(output[1 * rows + 2], input[2 * cols + 1]);
/// ```
pub struct MappedMut<'a, T, const D: usize = 1> {
    ptr: *mut T,
    len: usize,
    buffer: Range<D>,
    mapper: RangeMapper<D>,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T, const D: usize> MappedMut<'a, T, D> {
    /// Views `data` as a buffer of `buffer_range` elements (row-major)
    /// whose windows `mapper` assigns.
    #[must_use]
    pub fn new(
        data: &'a mut [T],
        buffer_range: impl Into<Range<D>>,
        mapper: RangeMapper<D>,
    ) -> Self {
        Self {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            buffer: buffer_range.into(),
            mapper,
            _borrow: PhantomData,
        }
    }
}

// SAFETY: the view is a unique borrow of `[T]` handed out as windows that
// the launch checked to be disjoint, one per work group; sharing it between
// the launch's threads only moves exclusive access to `T`s to other
// threads, which `T: Send` allows.
unsafe impl<T: Send, const D: usize> Sync for MappedMut<'_, T, D> {}
// SAFETY: as above, the view is a `&mut [T]`.
unsafe impl<T: Send, const D: usize> Send for MappedMut<'_, T, D> {}

/// "[0, 4] ..= [3, 7]", or "none" for an empty box.
fn region<const D: usize>(first: Id<D>, range: Range<D>) -> String {
    if range.size() == 0 {
        return format!("none (an empty box at {first})");
    }
    let mut last = first;
    for d in 0..D {
        last[d] += range[d] - 1;
    }
    format!("{first} ..= {last}")
}

impl<T, const D: usize> MappedMut<'_, T, D> {
    fn bad(&self, position: usize, reason: String) -> LaunchError {
        LaunchError::BadMapping {
            position,
            mapper: format!("{:?}", self.mapper),
            reason,
        }
    }

    /// The first pair of groups whose windows overlap, with the shared
    /// region; `None` when all windows are disjoint. Transposition and the
    /// identity are one-to-one, so only mappings that ignore a group's
    /// position along some dimension can overlap.
    fn overlap(&self, shape: &LaunchShape<D>) -> Option<(Id<D>, Id<D>)> {
        let zero = Id::zero();
        let mut other = zero;
        match self.mapper.0 {
            Mapping::OneToOne | Mapping::Transposed => return None,
            Mapping::Slice(d) if shape.num_groups[d] > 1 && self.buffer[d] > 0 => other[d] = 1,
            Mapping::Fixed(..) | Mapping::All if shape.num_groups.size() > 1 => {
                other = shape.num_groups.delinearize(1);
            }
            _ => return None,
        }
        let (_, range) = self.mapper.window(zero, shape.group_size, self.buffer);
        (range.size() > 0).then_some((zero, other))
    }
}

impl<T: Send, const D: usize> Sealed for MappedMut<'_, T, D> {}

impl<'a, T: Send, const D: usize> LaunchArgs<D> for MappedMut<'a, T, D> {
    type PerGroup = MappedWindow<'a, T, D>;

    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError> {
        let needed = self.buffer.checked_size();
        if !matches!(needed, Some(needed) if self.len >= needed) {
            return Err(LaunchError::OutputTooShort {
                position,
                view: "MappedMut",
                len: self.len,
                needed: needed.unwrap_or(usize::MAX),
                covers: format!("a buffer of range {}", self.buffer),
            });
        }
        if let Mapping::Slice(d) = self.mapper.0 {
            if d >= D {
                let reason = format!("dimension {d} is not below the launch's {D} dimensions");
                return Err(self.bad(position, reason));
            }
        }
        // Window ends grow with the group id in every dimension, so the
        // last group's window reaches furthest.
        let mut last_group = Id::zero();
        for d in 0..D {
            last_group[d] = shape.num_groups[d] - 1;
        }
        let last_first = scale(last_group, shape.group_size);
        let (first, range) = self
            .mapper
            .window(last_first, shape.group_size, self.buffer);
        let fits = (0..D).all(|d| {
            first[d]
                .checked_add(range[d])
                .is_some_and(|end| end <= self.buffer[d])
        });
        if !fits {
            let reason = format!(
                "work group {last_group} gets positions {}, outside the buffer's range {}",
                region(first, range),
                self.buffer
            );
            return Err(self.bad(position, reason));
        }
        if let Some((a, b)) = self.overlap(shape) {
            let (first, range) =
                self.mapper
                    .window(scale(a, shape.group_size), shape.group_size, self.buffer);
            return Err(LaunchError::OverlappingWindows {
                position,
                mapper: format!("{:?}", self.mapper),
                groups: (a.to_string(), b.to_string()),
                region: region(first, range),
            });
        }
        Ok(())
    }

    #[inline(always)]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        _: crate::tag::GroupTag,
    ) -> Self::PerGroup {
        let (first, range) = self.mapper.window(
            scale(group_id, shape.group_size),
            shape.group_size,
            self.buffer,
        );
        // `__check` proved every window inside the buffer, which the slice
        // covers, and the windows of distinct groups disjoint.
        MappedWindow {
            base: self.ptr,
            buffer: self.buffer,
            first,
            range,
            mapper: self.mapper,
            _borrow: PhantomData,
        }
    }
}

/// One work group's window of a [`MappedMut`]: a box of the buffer that
/// no other group's window shares, read and written by position in the
/// whole buffer (`window[[r, c]]`, `window[id]`, or `window[i]` in 1-D).
///
/// # Panics
/// Indexing outside the window panics, naming the position, the window
/// and the mapper.
pub struct MappedWindow<'a, T, const D: usize = 1> {
    base: *mut T,
    buffer: Range<D>,
    first: Id<D>,
    range: Range<D>,
    mapper: RangeMapper<D>,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a window is a unique borrow of its box of elements.
unsafe impl<T: Send, const D: usize> Send for MappedWindow<'_, T, D> {}
// SAFETY: shared access to a window only reads its elements.
unsafe impl<T: Sync, const D: usize> Sync for MappedWindow<'_, T, D> {}

impl<T, const D: usize> MappedWindow<'_, T, D> {
    /// Position of the window's first element in the buffer.
    #[must_use]
    pub fn first(&self) -> Id<D> {
        self.first
    }

    /// Extent of the window.
    #[must_use]
    pub fn range(&self) -> Range<D> {
        self.range
    }

    /// Range of the whole buffer.
    #[must_use]
    pub fn buffer_range(&self) -> Range<D> {
        self.buffer
    }

    /// Whether buffer position `position` lies in this window.
    #[inline(always)]
    #[must_use]
    pub fn contains(&self, position: Id<D>) -> bool {
        (0..D).all(|d| position[d].wrapping_sub(self.first[d]) < self.range[d])
    }

    #[inline(always)]
    #[track_caller]
    fn element(&self, position: Id<D>) -> *mut T {
        if !self.contains(position) {
            mapped_outside(position, self.first, self.range, self.mapper);
        }
        // SAFETY: `position` is in the window (checked), the window is in
        // the buffer and the buffer in the slice (both checked at launch).
        unsafe { self.base.add(self.buffer.linearize(position)) }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn mapped_outside<const D: usize>(
    position: Id<D>,
    first: Id<D>,
    range: Range<D>,
    mapper: RangeMapper<D>,
) -> ! {
    panic!(
        "position {position} is outside this work group's window of MappedMut (positions {}, \
         mapped {mapper:?})",
        region(first, range)
    )
}

impl<T, const D: usize> Index<Id<D>> for MappedWindow<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, position: Id<D>) -> &T {
        // SAFETY: the element is in this group's window, which no other
        // group reaches during the launch (disjointness checked at launch).
        unsafe { &*self.element(position) }
    }
}

impl<T, const D: usize> IndexMut<Id<D>> for MappedWindow<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, position: Id<D>) -> &mut T {
        // SAFETY: as in `index`; `&mut self` makes the access unique.
        unsafe { &mut *self.element(position) }
    }
}

impl<T, const D: usize> Index<[usize; D]> for MappedWindow<'_, T, D> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, position: [usize; D]) -> &T {
        &self[Id::new(position)]
    }
}

impl<T, const D: usize> IndexMut<[usize; D]> for MappedWindow<'_, T, D> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, position: [usize; D]) -> &mut T {
        &mut self[Id::new(position)]
    }
}

impl<T> Index<usize> for MappedWindow<'_, T, 1> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, position: usize) -> &T {
        &self[Id::new([position])]
    }
}

impl<T> IndexMut<usize> for MappedWindow<'_, T, 1> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, position: usize) -> &mut T {
        &mut self[Id::new([position])]
    }
}

impl<T, const D: usize> fmt::Debug for MappedWindow<'_, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedWindow")
            .field("first", &self.first)
            .field("range", &self.range)
            .field("mapper", &self.mapper)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape<const D: usize>(num_groups: [usize; D], group_size: [usize; D]) -> LaunchShape<D> {
        LaunchShape::new(Range::new(num_groups), Range::new(group_size)).unwrap()
    }

    #[test]
    fn windows_of_each_mapper() {
        let buffer = Range::new([6, 10]);
        let first = Id::new([2, 4]);
        let size = Range::new([2, 4]);
        let cases = [
            (RangeMapper::one_to_one(), [2, 4], [2, 4]),
            (RangeMapper::transposed(), [4, 2], [4, 2]),
            (RangeMapper::rows(), [2, 0], [2, 10]),
            (RangeMapper::columns(), [0, 4], [6, 4]),
            (RangeMapper::fixed([1, 1], [3, 3]), [1, 1], [3, 3]),
            (RangeMapper::all(), [0, 0], [6, 10]),
        ];
        for (mapper, want_first, want_range) in cases {
            let window = mapper.window(first, size, buffer);
            assert_eq!(
                window,
                (Id::new(want_first), Range::new(want_range)),
                "{mapper:?}"
            );
        }
    }

    #[test]
    fn only_mappings_that_ignore_a_group_coordinate_overlap() {
        let mut data = vec![0u8; 64];
        let launch = shape([2, 2], [4, 4]);
        let overlap = |mapper| MappedMut::new(&mut data.clone(), [8, 8], mapper).overlap(&launch);
        assert_eq!(overlap(RangeMapper::one_to_one()), None);
        assert_eq!(overlap(RangeMapper::transposed()), None);
        let rows = Some((Id::new([0, 0]), Id::new([0, 1])));
        assert_eq!(overlap(RangeMapper::rows()), rows);
        assert_eq!(overlap(RangeMapper::all()), rows);
        assert_eq!(overlap(RangeMapper::fixed([0, 0], [0, 3])), None, "empty");
        let one_column = shape([2, 1], [4, 8]);
        let view = MappedMut::new(&mut data, [8, 8], RangeMapper::rows());
        assert_eq!(view.overlap(&one_column), None);
    }

    #[test]
    fn check_refuses_a_slice_dimension_the_launch_lacks_and_windows_past_the_buffer() {
        let mut data = vec![0u8; 100];
        let launch = shape([2, 2], [4, 4]);
        let slice2 = MappedMut::new(&mut data, [8, 8], RangeMapper::slice(2));
        let err = slice2.__check(&launch, 1).unwrap_err().to_string();
        assert!(
            err.contains("dimension 2 is not below the launch's 2 dimensions"),
            "{err}"
        );
        let mut data = vec![0u8; 100];
        let small = MappedMut::new(&mut data, [8, 7], RangeMapper::transposed());
        let err = small.__check(&launch, 0).unwrap_err().to_string();
        assert!(
            err.contains("work group [1, 1] gets positions [4, 4] ..= [7, 7]"),
            "{err}"
        );
        assert!(err.contains("outside the buffer's range [8, 7]"), "{err}");
    }
}
