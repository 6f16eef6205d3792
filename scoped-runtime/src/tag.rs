//! Group tags: which work group of which launch a group, an item, a window
//! or private memory belongs to.
//!
//! Items and groups are `Copy`, so one can outlive its loop, its work group
//! or its launch. Every launch reserves one process-unique tag per work
//! group; the group and everything made from it carry that tag, and
//! indexing by item compares the item's tag with the window's or the
//! memory's. In a `distribute_items!` loop both tags are the same value,
//! known before the loop, so the compare is done once or folded away.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::launch::{LaunchError, LaunchShape};

/// The tag of one work group of one launch. Not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GroupTag(u64);

impl std::fmt::Debug for GroupTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Tags handed out so far; 0 is never a launch's.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The tags of one launch: `first + linear id` for each work group.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaunchTags {
    first: u64,
}

impl LaunchTags {
    /// Reserves `groups` tags, or `None` if the process has fewer left
    /// (2^64 work groups over its lifetime).
    pub(crate) fn reserve(groups: usize) -> Option<Self> {
        let groups = u64::try_from(groups).ok()?;
        NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
            next.checked_add(groups)
        })
        .ok()
        .map(|first| Self { first })
    }

    /// The tags of a launch of `shape`.
    ///
    /// # Errors
    /// [`LaunchError::TooManyGroups`] if the process has too few left.
    pub(crate) fn for_launch<const D: usize>(shape: &LaunchShape<D>) -> Result<Self, LaunchError> {
        let groups = shape.num_groups.size();
        Self::reserve(groups).ok_or(LaunchError::TooManyGroups { groups })
    }

    /// Tag of the work group of linear id `linear` (below the reserved count).
    #[inline(always)]
    pub(crate) fn group(self, linear: usize) -> GroupTag {
        GroupTag(self.first + linear as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_get_disjoint_tags() {
        let (a, b) = (
            LaunchTags::reserve(10).unwrap(),
            LaunchTags::reserve(3).unwrap(),
        );
        let tags: Vec<GroupTag> = (0..10)
            .map(|g| a.group(g))
            .chain((0..3).map(|g| b.group(g)))
            .collect();
        for (i, x) in tags.iter().enumerate() {
            assert!(tags[i + 1..].iter().all(|y| y != x), "{x:?} repeats");
        }
    }

    #[test]
    fn an_impossible_count_is_refused() {
        assert!(LaunchTags::reserve(usize::MAX).is_none());
        assert!(LaunchTags::reserve(1).is_some());
    }
}
