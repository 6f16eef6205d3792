//! The scoped group concept: work groups, sub-groups and scalar groups.
//!
//! Every group type implements [`ScopedGroup`] (scoped parallelism v2,
//! "New Scoped group concept") and the marker [`IsGroup`] (SYCL 2020
//! `is_group`). The hierarchy on the CPU:
//!
//! | type | `FENCE_SCOPE` | logical range | subdivides into |
//! | --- | --- | --- | --- |
//! | [`WorkGroup<D, S>`] | `WorkGroup` | the launch's group size | `SubGroup<D, S>` |
//! | [`SubGroup<D, S>`] | `SubGroup` | `(1, …, 1, n)`, `n ≤ S` | `ScalarGroup<D>` |
//! | [`ScalarGroup<D>`] | `WorkItem` | `(1, …, 1)` | `ScalarGroup<D>` |
//!
//! One thread runs a whole work group, so every group has a physical range
//! of 1 and its only physical item is the leader.

mod scalar_group;
mod sub_group;
mod work_group;

pub use scalar_group::ScalarGroup;
pub use sub_group::{SubGroup, DEFAULT_SUB_GROUP_SIZE, SUB_GROUP_SIZES};
pub use work_group::WorkGroup;

use crate::id::{check_dimension, Id, Range};
use crate::item::{ItemName, SItem};
use crate::lowering::GroupLoops;
use crate::memory_scope::MemoryScope;
use crate::rules::Nesting;
use crate::tag::GroupTag;

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// Marks the group types that group functions accept (SYCL 2020
/// `sycl::is_group`). Implemented by [`WorkGroup`], [`SubGroup`] and
/// [`ScalarGroup`]; sealed.
pub trait IsGroup: Sealed {}

/// Whether `T` is a group type, like SYCL's `is_group_v<T>`.
///
/// ```
/// use scoped_runtime::{is_group, WorkGroup, ScalarGroup};
/// assert!(is_group::<WorkGroup<1>>());
/// assert!(is_group::<ScalarGroup<3>>());
/// ```
#[must_use]
pub const fn is_group<T: IsGroup>() -> bool {
    true
}

/// The queries every scoped group answers (scoped parallelism v2, "New
/// Scoped group concept"), for a group of `D` dimensions.
///
/// "Logical" refers to the items the user's `distribute_items!` visits,
/// "physical" to the threads that execute the group: on the CPU one thread
/// runs a whole work group, so the physical range is 1 in every dimension
/// and [`leader`](Self::leader) is always true.
///
/// The type `distribute_groups!` hands out is `G::Subgroup`, from the
/// hidden supertrait that holds the groups' loops.
///
/// Ids are row-major (see [`Id`]). SYCL's `get_` prefixes are dropped;
/// per-dimension forms end in `_dim` and panic if `dimension >= D`.
pub trait ScopedGroup<const D: usize>: IsGroup + GroupLoops<D> + Copy {
    /// Number of dimensions of the group (`dimensions`).
    const DIMENSIONS: usize = D;
    /// Memory scope of the group's barriers (`fence_scope`): `WorkGroup`,
    /// `SubGroup` or `WorkItem`.
    const FENCE_SCOPE: MemoryScope;

    /// `id_type`: always `Id<D>`.
    type IdType;
    /// `range_type`: always `Range<D>`.
    type RangeType;
    /// `linear_id_type`: always `usize`.
    type LinearIdType;
    /// Id of this group in its parent group; for a work group, the work
    /// group id in the launch.
    fn group_id(&self) -> Id<D>;

    /// Number of groups in the parent group; for a work group, the number
    /// of work groups of the launch.
    fn group_range(&self) -> Range<D>;

    /// Range of the logical items of this group.
    fn logical_local_range(&self) -> Range<D>;

    /// Global id of the group's first logical item.
    #[doc(hidden)]
    fn __global_offset(&self) -> Id<D>;

    /// Range of all logical items of the launch.
    #[doc(hidden)]
    fn __global_range(&self) -> Range<D>;

    /// Id of the group's first logical item relative to its work group.
    #[doc(hidden)]
    fn __work_group_local_offset(&self) -> Id<D>;

    /// The work group, of its launch, this group belongs to.
    #[doc(hidden)]
    fn __tag(&self) -> GroupTag;

    /// The nesting counts of the thread that runs the group, which every
    /// collective checks.
    #[doc(hidden)]
    fn __nesting(&self) -> Nesting;

    /// [`group_id`](Self::group_id) in `dimension` (also `group[dimension]`).
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the group.
    #[inline(always)]
    #[track_caller]
    fn group_id_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "group_id_dim", name(self));
        self.group_id()[dimension]
    }

    /// Row-major linear id of this group in its parent.
    #[inline(always)]
    fn group_linear_id(&self) -> usize {
        self.group_range().linearize(self.group_id())
    }

    /// [`group_range`](Self::group_range) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D`, naming it and the group.
    #[inline(always)]
    #[track_caller]
    fn group_range_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "group_range_dim", name(self));
        self.group_range()[dimension]
    }

    /// Number of groups in the parent group.
    #[inline(always)]
    fn group_linear_range(&self) -> usize {
        self.group_range().size()
    }

    /// Id of `item` relative to this group.
    ///
    /// # Panics
    /// If `item` is not one of this group's logical items (of this
    /// launch), naming the item and the group. Items from
    /// `distribute_items!` on this group or on one of its subgroups are.
    #[inline(always)]
    #[track_caller]
    fn logical_local_id(&self, item: &SItem<D>) -> Id<D> {
        let (first, range) = (self.__global_offset(), self.logical_local_range());
        let global = item.global_id();
        let mut local = Id::zero();
        for d in 0..D {
            local[d] = global[d].wrapping_sub(first[d]);
        }
        if item.tag() != self.__tag() || !range.contains(local) {
            not_in_group(item.global_id(), name(self));
        }
        local
    }

    /// [`logical_local_id`](Self::logical_local_id) in `dimension`.
    ///
    /// # Panics
    /// If `dimension >= D` or `item` is not one of this group's items,
    /// naming them and the group.
    #[inline(always)]
    #[track_caller]
    fn logical_local_id_dim(&self, item: &SItem<D>, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "logical_local_id_dim", name(self));
        self.logical_local_id(item)[dimension]
    }

    /// Row-major linear id of `item` relative to this group.
    ///
    /// # Panics
    /// As [`logical_local_id`](Self::logical_local_id).
    #[inline(always)]
    #[track_caller]
    fn logical_local_linear_id(&self, item: &SItem<D>) -> usize {
        self.logical_local_range()
            .linearize(self.logical_local_id(item))
    }

    /// Same as [`logical_local_id`](Self::logical_local_id).
    #[inline(always)]
    #[track_caller]
    fn local_id(&self, item: &SItem<D>) -> Id<D> {
        self.logical_local_id(item)
    }

    /// Same as [`logical_local_id_dim`](Self::logical_local_id_dim).
    #[inline(always)]
    #[track_caller]
    fn local_id_dim(&self, item: &SItem<D>, dimension: usize) -> usize {
        self.logical_local_id_dim(item, dimension)
    }

    /// Same as [`logical_local_linear_id`](Self::logical_local_linear_id).
    #[inline(always)]
    #[track_caller]
    fn local_linear_id(&self, item: &SItem<D>) -> usize {
        self.logical_local_linear_id(item)
    }

    /// [`logical_local_range`](Self::logical_local_range) in `dimension`.
    ///
    /// Performance tip: a kernel written for a fixed group shape (local
    /// arrays sized for it) should require it, `#[kernel(group_size = 16)]`
    /// (or state it at entry, one dimension at a time,
    /// `assert_eq!(group.logical_local_range_dim(0), 16);`); the item loops
    /// then have constant trip counts and its local arrays lose their
    /// bounds checks.
    #[inline(always)]
    #[track_caller]
    fn logical_local_range_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "logical_local_range_dim", name(self));
        self.logical_local_range()[dimension]
    }

    /// Number of logical items of this group.
    #[inline(always)]
    fn logical_local_linear_range(&self) -> usize {
        self.logical_local_range().size()
    }

    /// Id of the calling physical item in this group: always zero.
    #[inline(always)]
    fn physical_local_id(&self) -> Id<D> {
        Id::zero()
    }

    /// [`physical_local_id`](Self::physical_local_id) in `dimension`: 0.
    #[inline(always)]
    #[track_caller]
    fn physical_local_id_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "physical_local_id_dim", name(self));
        self.physical_local_id()[dimension]
    }

    /// Linear id of the calling physical item: always 0.
    #[inline(always)]
    fn physical_local_linear_id(&self) -> usize {
        0
    }

    /// Range of the physical items that run this group: 1 in every
    /// dimension, since one thread runs it.
    #[inline(always)]
    fn physical_local_range(&self) -> Range<D> {
        Range::splat(1)
    }

    /// [`physical_local_range`](Self::physical_local_range) in `dimension`.
    #[inline(always)]
    #[track_caller]
    fn physical_local_range_dim(&self, dimension: usize) -> usize {
        check_dimension::<D, _>(dimension, "physical_local_range_dim", name(self));
        self.physical_local_range()[dimension]
    }

    /// Number of physical items that run this group: 1.
    #[inline(always)]
    fn physical_local_linear_range(&self) -> usize {
        1
    }

    /// Whether the calling physical item leads the group: always true, as
    /// the one thread that runs a group is its leader. Not to be called
    /// inside `distribute_items!`.
    #[inline(always)]
    fn leader(&self) -> bool {
        true
    }
}

/// Implements the sealing, `IsGroup` and `group[dimension]` for a group type.
macro_rules! group_boilerplate {
    ($ty:ident < $($gen:tt),* >) => {
        impl<$(const $gen: usize),*> crate::group::Sealed for $ty<$($gen),*> {}
        impl<$(const $gen: usize),*> crate::group::IsGroup for $ty<$($gen),*> {}
        impl<$(const $gen: usize),*> core::ops::Index<usize> for $ty<$($gen),*> {
            type Output = usize;
            /// Same as `group_id_dim(dimension)` (SYCL `operator[]`).
            #[inline(always)]
            #[track_caller]
            fn index(&self, dimension: usize) -> &usize {
                crate::id::check_dimension::<D, _>(
                    dimension,
                    "group[dimension]",
                    crate::group::name(self),
                );
                &self.group_id[dimension]
            }
        }
    };
}
pub(crate) use group_boilerplate;

/// A group as panic messages name it: its kind, its id and its items,
/// `sub-group [0, 1] (global ids [4, 8] ..= [4, 15])`. A value, made from
/// the group's fields: see `check_dimension`.
#[derive(Clone, Copy)]
pub(crate) struct GroupName<const D: usize> {
    kind: MemoryScope,
    group_id: Id<D>,
    first: Id<D>,
    range: Range<D>,
}

#[inline(always)]
pub(crate) fn name<G: ScopedGroup<D>, const D: usize>(group: &G) -> GroupName<D> {
    GroupName {
        kind: G::FENCE_SCOPE,
        group_id: group.group_id(),
        first: group.__global_offset(),
        range: group.logical_local_range(),
    }
}

impl<const D: usize> std::fmt::Debug for GroupName<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            MemoryScope::WorkGroup => "work group",
            MemoryScope::SubGroup => "sub-group",
            _ => "scalar group",
        };
        let mut last = self.first;
        for d in 0..D {
            last[d] = last[d].saturating_add(self.range[d].saturating_sub(1));
        }
        write!(
            f,
            "{kind} {} (global ids {} ..= {last})",
            self.group_id, self.first
        )
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn not_in_group<const D: usize>(global_id: Id<D>, group: GroupName<D>) -> ! {
    panic!(
        "{:?} is not one of the items of {group:?}: only items of distribute_items! on this \
         group or its subgroups, in this launch, are",
        ItemName(global_id)
    )
}
