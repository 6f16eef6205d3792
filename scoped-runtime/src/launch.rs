//! Launch parameters, their validation, and the per-group arguments a
//! launch hands out.

use std::error::Error;
use std::fmt;

use crate::id::{Id, Range};
use crate::isa::IsaError;
use crate::tag::GroupTag;

/// The validated shape of a launch: `num_groups` work groups of
/// `group_size` logical items each, `global_range` items in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape<const D: usize> {
    /// Number of work groups per dimension.
    pub num_groups: Range<D>,
    /// Logical items per work group, per dimension.
    pub group_size: Range<D>,
    /// `num_groups * group_size`, per dimension.
    pub global_range: Range<D>,
}

impl<const D: usize> LaunchShape<D> {
    /// Checks a launch of `num_groups` groups of `group_size` items: no
    /// dimension may be zero, and neither the global range nor any item
    /// count may overflow `usize`.
    ///
    /// # Errors
    /// [`LaunchError::ZeroRange`] or [`LaunchError::Overflow`], naming the
    /// offending range.
    pub fn new(num_groups: Range<D>, group_size: Range<D>) -> Result<Self, LaunchError> {
        for (name, range) in [("num_groups", num_groups), ("group_size", group_size)] {
            if (0..D).any(|d| range[d] == 0) {
                return Err(LaunchError::ZeroRange {
                    name,
                    range: range.to_string(),
                });
            }
        }
        let overflow = || LaunchError::Overflow {
            num_groups: num_groups.to_string(),
            group_size: group_size.to_string(),
        };
        let mut global = [0; D];
        for (d, g) in global.iter_mut().enumerate() {
            *g = num_groups[d]
                .checked_mul(group_size[d])
                .ok_or_else(overflow)?;
        }
        let global_range = Range::new(global);
        global_range.checked_size().ok_or_else(overflow)?;
        Ok(Self {
            num_groups,
            group_size,
            global_range,
        })
    }
}

/// Why a launch was refused. Nothing has run when a launch returns one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaunchError {
    /// `num_groups` or `group_size` has a zero dimension.
    ZeroRange {
        /// Which parameter: `"num_groups"` or `"group_size"`.
        name: &'static str,
        /// The range as given.
        range: String,
    },
    /// The number of logical items overflows `usize`.
    Overflow {
        /// The number of groups as given.
        num_groups: String,
        /// The group size as given.
        group_size: String,
    },
    /// An output view is shorter than the launch covers.
    OutputTooShort {
        /// Position of the view among the launch arguments (0 for a
        /// single argument).
        position: usize,
        /// Kind of view, e.g. `"ItemsMut"`.
        view: &'static str,
        /// Elements the view has.
        len: usize,
        /// Elements the launch needs.
        needed: usize,
        /// What the needed elements are for.
        covers: String,
    },
    /// A [`ChunksMut`](crate::ChunksMut) with `per_group == 0`.
    EmptyChunks {
        /// Position of the view among the launch arguments.
        position: usize,
    },
    /// The instruction-set level of the launch cannot be used: `SCOPED_ISA`
    /// names no level or one the CPU lacks (see [`Isa`](crate::Isa)).
    Isa(IsaError),
    /// Memory the launch needs for an argument could not be allocated:
    /// a [`reduction`](crate::reduction) keeps one result per work group.
    OutOfMemory {
        /// Position of the argument among the launch arguments.
        position: usize,
        /// What the memory is for.
        what: String,
        /// Bytes asked for; `None` if the count overflows `usize`.
        bytes: Option<usize>,
    },
    /// More work groups than the process has group tags left for (2^64
    /// over its lifetime); every work group of a launch gets its own.
    TooManyGroups {
        /// The number of work groups of the launch.
        groups: usize,
    },
    /// The kernel requires another group size
    /// (`#[kernel(group_size = ...)]`, SYCL's `reqd_work_group_size`). No
    /// kernel body ran: every group checks before its body, and the
    /// launch starts no more groups once one has refused.
    GroupSize {
        /// The range the kernel requires.
        required: String,
        /// The group size of the launch.
        group_size: String,
    },
    /// A [`MappedMut`](crate::MappedMut) whose mapper does not fit the
    /// launch (a window outside the buffer, a dimension the launch lacks).
    BadMapping {
        /// Position of the view among the launch arguments.
        position: usize,
        /// The mapper, e.g. `"transposed"`.
        mapper: String,
        /// What does not fit, with the values.
        reason: String,
    },
    /// A [`MappedMut`](crate::MappedMut) whose mapper gives two work
    /// groups overlapping windows.
    OverlappingWindows {
        /// Position of the view among the launch arguments.
        position: usize,
        /// The mapper, e.g. `"rows"`.
        mapper: String,
        /// The group ids of two groups whose windows overlap.
        groups: (String, String),
        /// Buffer positions both would write.
        region: String,
    },
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::ZeroRange { name, range } => {
                write!(f, "launch refused: {name} = {range} has a zero dimension")
            }
            LaunchError::Overflow {
                num_groups,
                group_size,
            } => write!(
                f,
                "launch refused: num_groups = {num_groups} times group_size = {group_size} \
                 overflows usize"
            ),
            LaunchError::OutputTooShort {
                position,
                view,
                len,
                needed,
                covers,
            } => write!(
                f,
                "launch refused: argument {position} ({view}) has {len} elements, but the \
                 launch needs {needed} ({covers})"
            ),
            LaunchError::OutOfMemory {
                position,
                what,
                bytes: Some(bytes),
            } => write!(
                f,
                "launch refused: argument {position} needs {bytes} bytes ({what}), which could \
                 not be allocated"
            ),
            LaunchError::OutOfMemory {
                position,
                what,
                bytes: None,
            } => write!(
                f,
                "launch refused: argument {position} needs more than usize::MAX bytes ({what})"
            ),
            LaunchError::TooManyGroups { groups } => write!(
                f,
                "launch refused: {groups} work groups are more than the process has group tags \
                 left for"
            ),
            LaunchError::GroupSize {
                required,
                group_size,
            } => write!(
                f,
                "launch refused: the kernel requires group_size = {required} \
                 (#[kernel(group_size = ...)]), the launch has group_size = {group_size}"
            ),
            LaunchError::EmptyChunks { position } => {
                write!(
                    f,
                    "launch refused: argument {position} (ChunksMut) has per_group = 0"
                )
            }
            LaunchError::Isa(error) => write!(f, "launch refused: {error}"),
            LaunchError::BadMapping {
                position,
                mapper,
                reason,
            } => write!(
                f,
                "launch refused: argument {position} (MappedMut, mapped {mapper}): {reason}"
            ),
            LaunchError::OverlappingWindows {
                position,
                mapper,
                groups: (a, b),
                region,
            } => write!(
                f,
                "launch refused: argument {position} (MappedMut, mapped {mapper}) gives work \
                 groups {a} and {b} overlapping windows: both would write positions {region}"
            ),
        }
    }
}

impl Error for LaunchError {}

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// Arguments of a launch that hand every work group a part of their own:
/// output views ([`ItemsMut`](crate::ItemsMut),
/// [`ChunksMut`](crate::ChunksMut), [`MappedMut`](crate::MappedMut)),
/// inputs ([`ItemsRef`](crate::ItemsRef)), launch reductions
/// ([`reduction`](crate::reduction),
/// [`reduction_span`](crate::reduction_span)), `()` for none, and tuples
/// of up to twelve of them (nest tuples for more). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a launch argument",
    label = "not an output view, input view, reduction or tuple of up to 12 of them",
    note = "launch arguments are `ItemsMut`, `ChunksMut`, `MappedMut`, `ItemsRef`, \
            `reduction(..)`, `reduction_span(..)`, `()`, or tuples of up to 12 of them (nest a \
            tuple for more); slices and other shared data need no argument: the kernel closure \
            borrows them"
)]
pub trait LaunchArgs<const D: usize>: Sync + Sealed {
    /// What one work group receives: its window(s).
    type PerGroup;

    /// Checks the arguments against the launch before anything runs.
    #[doc(hidden)]
    fn __check(&self, shape: &LaunchShape<D>, position: usize) -> Result<(), LaunchError>;

    /// The part of the arguments that belongs to group `group_id`, whose
    /// tag is `tag`.
    ///
    /// # Safety
    /// `__check` succeeded for `shape`, `group_id` is inside
    /// `shape.num_groups`, and no other live `PerGroup` of these arguments
    /// was made for the same `group_id`.
    #[doc(hidden)]
    unsafe fn __for_group(
        &self,
        group_id: Id<D>,
        shape: &LaunchShape<D>,
        tag: GroupTag,
    ) -> Self::PerGroup;

    /// Runs once after every group has finished without panicking (where
    /// reductions combine their partial results into their targets).
    #[doc(hidden)]
    fn __finish(self)
    where
        Self: Sized,
    {
    }
}

impl Sealed for () {}

impl<const D: usize> LaunchArgs<D> for () {
    type PerGroup = ();

    fn __check(&self, _: &LaunchShape<D>, _: usize) -> Result<(), LaunchError> {
        Ok(())
    }

    #[inline(always)]
    unsafe fn __for_group(&self, _: Id<D>, _: &LaunchShape<D>, _: GroupTag) {}
}

macro_rules! tuple_args {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Sealed),+> Sealed for ($($name,)+) {}

        impl<const D: usize, $($name: LaunchArgs<D>),+> LaunchArgs<D> for ($($name,)+) {
            type PerGroup = ($($name::PerGroup,)+);

            fn __check(&self, shape: &LaunchShape<D>, _: usize) -> Result<(), LaunchError> {
                $(self.$index.__check(shape, $index)?;)+
                Ok(())
            }

            #[inline(always)]
            unsafe fn __for_group(
                &self,
                group_id: Id<D>,
                shape: &LaunchShape<D>,
                tag: GroupTag,
            ) -> Self::PerGroup {
                // SAFETY: the caller's contract holds for every element.
                unsafe { ($(self.$index.__for_group(group_id, shape, tag),)+) }
            }

            fn __finish(self) {
                $(self.$index.__finish();)+
            }
        }
    };
}

tuple_args!(A0 0);
tuple_args!(A0 0, A1 1);
tuple_args!(A0 0, A1 1, A2 2);
tuple_args!(A0 0, A1 1, A2 2, A3 3);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10);
tuple_args!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11);
