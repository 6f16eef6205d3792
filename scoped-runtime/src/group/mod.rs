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

use crate::id::{Id, Range};
use crate::item::SItem;
use crate::lowering::GroupLoops;
use crate::memory_scope::MemoryScope;

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

    /// [`group_id`](Self::group_id) in `dimension` (also `group[dimension]`).
    #[inline(always)]
    fn group_id_dim(&self, dimension: usize) -> usize {
        self.group_id()[dimension]
    }

    /// Row-major linear id of this group in its parent.
    #[inline(always)]
    fn group_linear_id(&self) -> usize {
        self.group_range().linearize(self.group_id())
    }

    /// [`group_range`](Self::group_range) in `dimension`.
    #[inline(always)]
    fn group_range_dim(&self, dimension: usize) -> usize {
        self.group_range()[dimension]
    }

    /// Number of groups in the parent group.
    #[inline(always)]
    fn group_linear_range(&self) -> usize {
        self.group_range().size()
    }

    /// Id of `item` relative to this group. `item` must belong to the group
    /// (it does whenever it comes from `distribute_items!` on this group or
    /// on one of its subgroups).
    #[inline(always)]
    fn logical_local_id(&self, item: &SItem<D>) -> Id<D> {
        item.global_id() - self.__global_offset()
    }

    /// [`logical_local_id`](Self::logical_local_id) in `dimension`.
    #[inline(always)]
    fn logical_local_id_dim(&self, item: &SItem<D>, dimension: usize) -> usize {
        item.global_id()[dimension] - self.__global_offset()[dimension]
    }

    /// Row-major linear id of `item` relative to this group.
    #[inline(always)]
    fn logical_local_linear_id(&self, item: &SItem<D>) -> usize {
        self.logical_local_range()
            .linearize(self.logical_local_id(item))
    }

    /// Same as [`logical_local_id`](Self::logical_local_id).
    #[inline(always)]
    fn local_id(&self, item: &SItem<D>) -> Id<D> {
        self.logical_local_id(item)
    }

    /// Same as [`logical_local_id_dim`](Self::logical_local_id_dim).
    #[inline(always)]
    fn local_id_dim(&self, item: &SItem<D>, dimension: usize) -> usize {
        self.logical_local_id_dim(item, dimension)
    }

    /// Same as [`logical_local_linear_id`](Self::logical_local_linear_id).
    #[inline(always)]
    fn local_linear_id(&self, item: &SItem<D>) -> usize {
        self.logical_local_linear_id(item)
    }

    /// [`logical_local_range`](Self::logical_local_range) in `dimension`.
    ///
    /// Performance tip: a kernel written for a fixed group shape (local
    /// arrays sized for it) can state it once at entry, one dimension at a
    /// time, `assert_eq!(group.logical_local_range_dim(0), 16);`; the item
    /// loops then have constant trip counts and its local arrays lose their
    /// bounds checks.
    #[inline(always)]
    fn logical_local_range_dim(&self, dimension: usize) -> usize {
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
    fn physical_local_id_dim(&self, dimension: usize) -> usize {
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
    fn physical_local_range_dim(&self, dimension: usize) -> usize {
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
            fn index(&self, dimension: usize) -> &usize {
                &self.group_id[dimension]
            }
        }
    };
}
pub(crate) use group_boilerplate;
