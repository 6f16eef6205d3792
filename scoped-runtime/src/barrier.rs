//! `group_barrier` (SYCL 2020 group functions, "group_barrier").

use std::sync::atomic::{fence, Ordering};

use crate::group::ScopedGroup;
use crate::memory_scope::MemoryScope;
use crate::rules::check_collective;

/// Synchronises the items of `group`: every effect of the group before the
/// barrier is visible to everything after it (SYCL 2020 `group_barrier(g)`),
/// with the group's own [`FENCE_SCOPE`](ScopedGroup::FENCE_SCOPE).
///
/// One thread runs a whole work group, in program order, so every item
/// already sees the effects of the items before it: a barrier of the
/// group's own scope needs no instruction, and the optimiser stays free
/// to keep staged values in registers across it.
///
/// A collective: call it outside `distribute_items!`, on the innermost group.
#[inline(always)]
#[track_caller]
pub fn group_barrier<G: ScopedGroup<D>, const D: usize>(group: G) {
    group_barrier_with_scope(group, G::FENCE_SCOPE);
}

/// [`group_barrier`] with an explicit fence scope (SYCL 2020
/// `group_barrier(g, fence_scope)`), which may be the group's own scope or
/// a wider one. `Device` and `System` scopes make the group's writes
/// visible to other threads with a sequentially consistent fence.
///
/// # Panics
/// If `fence_scope` is narrower than `G::FENCE_SCOPE` (SYCL allows only
/// widening it), naming both scopes.
#[inline(always)]
#[track_caller]
pub fn group_barrier_with_scope<G: ScopedGroup<D>, const D: usize>(
    group: G,
    fence_scope: MemoryScope,
) {
    check_collective(group.__nesting(), "group_barrier");
    if fence_scope < G::FENCE_SCOPE {
        narrower_scope(fence_scope, G::FENCE_SCOPE);
    }
    // The group's items all run on this thread: program order is the
    // ordering they need. Only wider scopes reach other threads.
    if matches!(fence_scope, MemoryScope::Device | MemoryScope::System) {
        fence(Ordering::SeqCst);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn narrower_scope(requested: MemoryScope, own: MemoryScope) -> ! {
    panic!(
        "group_barrier: fence scope {requested:?} is narrower than the group's own fence \
         scope {own:?}; pass {own:?} or a wider scope"
    )
}
