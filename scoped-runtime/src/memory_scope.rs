//! `MemoryScope`: SYCL 2020 `memory_scope`, the reach of a fence.

/// How far the effects ordered by a fence or barrier must become visible
/// (SYCL 2020 `sycl::memory_scope`, section 3.8.3.2).
///
/// Scoped groups name their own scope in [`ScopedGroup::FENCE_SCOPE`]:
/// `WorkGroup` for work groups, `SubGroup` for sub-groups, `WorkItem` for
/// scalar groups.
///
/// [`ScopedGroup::FENCE_SCOPE`]: crate::ScopedGroup::FENCE_SCOPE
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryScope {
    /// One work item.
    WorkItem,
    /// The items of one sub-group.
    SubGroup,
    /// The items of one work group.
    WorkGroup,
    /// Every item of the launch.
    Device,
    /// Every item of every device and the host.
    System,
}
