//! The values a group's items hold in a private memory wrapper.
//!
//! An algorithm over private memory reads "the value of every item of the
//! group": the wrapper must have been made on that group, or on a group
//! that contains it (a sub-group reading its items from its work group's
//! memory). Either way the group's items are one contiguous run of the
//! wrapper, in increasing local linear id: row-major order keeps a
//! sub-group's items (a run along the fastest dimension) together.

use std::ops::Range as Span;

use crate::group::ScopedGroup;
use crate::id::{Id, Range};
use crate::memory::PrivateMem;

/// The values of `group`'s items in `memory`, in increasing local linear id.
///
/// # Panics
/// If `memory` does not hold every item of `group` (see the module docs),
/// naming `what`, the group's items and the memory's.
#[inline(always)]
#[track_caller]
pub(crate) fn group_values<'m, G, T, const D: usize>(
    what: &str,
    group: &G,
    memory: &'m PrivateMem<'_, T, D>,
) -> &'m [T]
where
    G: ScopedGroup<D>,
    T: Copy,
{
    let span = span(what, group, memory.offset(), memory.range());
    &memory.as_slice()[span]
}

/// [`group_values`], mutably.
#[inline(always)]
#[track_caller]
pub(crate) fn group_values_mut<'m, G, T, const D: usize>(
    what: &str,
    group: &G,
    memory: &'m mut PrivateMem<'_, T, D>,
) -> &'m mut [T]
where
    G: ScopedGroup<D>,
    T: Copy,
{
    let span = span(what, group, memory.offset(), memory.range());
    &mut memory.as_mut_slice()[span]
}

/// Position of `group`'s items in memory that starts at global id
/// `offset` and covers `range`.
#[inline]
#[track_caller]
fn span<G: ScopedGroup<D>, const D: usize>(
    what: &str,
    group: &G,
    offset: Id<D>,
    range: Range<D>,
) -> Span<usize> {
    let first = group.__global_offset();
    let extent = group.logical_local_range();
    if first == offset && extent == range {
        return 0..range.size();
    }
    let mut local = Id::zero();
    // Contiguous if, after the slowest dimension in which the group has
    // more than one item, it spans the memory's full extent.
    let mut wide_seen = false;
    for d in 0..D {
        local[d] = first[d].wrapping_sub(offset[d]);
        let inside = local[d] < range[d] && extent[d] <= range[d] - local[d];
        if !inside || (wide_seen && extent[d] != range[d]) {
            not_the_groups_memory(what, first, extent, offset, range);
        }
        wide_seen |= extent[d] > 1;
    }
    let start = range.linearize(local);
    start..start + extent.size()
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_the_groups_memory<const D: usize>(
    what: &str,
    first: Id<D>,
    extent: Range<D>,
    offset: Id<D>,
    range: Range<D>,
) -> ! {
    panic!(
        "{what}: the private memory holds the items from global id {offset} with range {range}, \
         not the items of this group (from global id {first} with range {extent}); pass private \
         memory made by memory_environment! on this group or on a group that contains it"
    )
}
