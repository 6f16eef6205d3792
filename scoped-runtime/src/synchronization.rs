//! The OpenCL C++ synchronization functions (OpenCL C++ 1.0, "Synchronization
//! Functions", header `<opencl_synchronization>`): `work_group_barrier`,
//! `sub_group_barrier`, the `mem_fence` flags and `work_group_named_barrier`.
//!
//! | OpenCL C++ | here |
//! | --- | --- |
//! | `work_group_barrier(flags)` | [`work_group_barrier`]`(group, flags)` |
//! | `work_group_barrier(flags, scope)` | [`work_group_barrier_with_scope`]`(group, flags, scope)` |
//! | `sub_group_barrier(flags)` | [`sub_group_barrier`]`(sub_group, flags)` |
//! | `sub_group_barrier(flags, scope)` | [`sub_group_barrier_with_scope`]`(sub_group, flags, scope)` |
//! | `mem_fence::local \| mem_fence::global` | [`MemFence::LOCAL`]` \| `[`MemFence::GLOBAL`] |
//! | `work_group_named_barrier b(n)` | `let b = `[`work_group_named_barrier`]`(group, n)` |
//! | `b.wait(flags)`, `b.wait(flags, scope)` | [`b.wait(flags)`](WorkGroupNamedBarrier::wait), [`b.wait_with_scope(flags, scope)`](WorkGroupNamedBarrier::wait_with_scope) |
//! | `memory_scope_work_group`, `_device`, `_all_svm_devices` | [`MemoryScope::WorkGroup`], `Device`, `System` |
//!
//! **On the CPU** one thread runs a work group, its sub-groups one after
//! another and each group's items in program order, so a barrier is a loop
//! boundary: what the items wrote in the `distribute_items!` or
//! `distribute_groups!` loop before the call is done and visible to every
//! loop after it. Local memory is only ever reached by that thread, so
//! [`MemFence::LOCAL`] needs no instruction; [`MemFence::GLOBAL`] and
//! [`MemFence::IMAGE`] with [`MemoryScope::Device`] or `System` make the
//! group's writes visible to other threads with a sequentially consistent
//! fence, as [`group_barrier_with_scope`](crate::group_barrier_with_scope)
//! does. With the default scope, `WorkGroup`, a barrier emits nothing.
//!
//! These are collectives: `#[kernel]` rejects them inside
//! `distribute_items!` and under divergent control flow, as it does
//! `group_barrier`.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};
use std::sync::atomic::{fence, Ordering};

use crate::group::{ScopedGroup, SubGroup, WorkGroup};
use crate::memory_scope::MemoryScope;
use crate::rules::{check_collective, check_work_group_scope, Nesting};

/// The address spaces a barrier orders (OpenCL C++ `mem_fence`), a bit
/// set: combine flags with `|`; [`MemFence::NONE`] (OpenCL's `0`) orders
/// none and is an execution barrier only.
///
/// ```
/// use scoped::MemFence;
///
/// let flags = MemFence::LOCAL | MemFence::GLOBAL;
/// assert!(flags.contains(MemFence::GLOBAL) && !flags.contains(MemFence::IMAGE));
/// assert_eq!(format!("{flags:?}"), "MemFence(LOCAL | GLOBAL)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MemFence(u8);

impl MemFence {
    /// No address space (OpenCL's `0`).
    pub const NONE: MemFence = MemFence(0);
    /// Local memory (`mem_fence::local`): always work-group scope.
    pub const LOCAL: MemFence = MemFence(1);
    /// Global memory (`mem_fence::global`), to the barrier's scope.
    pub const GLOBAL: MemFence = MemFence(2);
    /// Image memory (`mem_fence::image`); not combinable with the others.
    /// There are no images here: it orders like `GLOBAL`.
    pub const IMAGE: MemFence = MemFence(4);

    /// Whether every flag of `other` is set in `self`.
    #[must_use]
    pub const fn contains(self, other: MemFence) -> bool {
        self.0 & other.0 == other.0
    }

    /// The flags as OpenCL's bits: local 1, global 2, image 4.
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }
}

impl BitOr for MemFence {
    type Output = MemFence;
    fn bitor(self, other: MemFence) -> MemFence {
        MemFence(self.0 | other.0)
    }
}

impl BitOrAssign for MemFence {
    fn bitor_assign(&mut self, other: MemFence) {
        self.0 |= other.0;
    }
}

impl fmt::Debug for MemFence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (MemFence::LOCAL, "LOCAL"),
            (MemFence::GLOBAL, "GLOBAL"),
            (MemFence::IMAGE, "IMAGE"),
        ];
        let set: Vec<&str> = names
            .iter()
            .filter(|(flag, _)| self.contains(*flag))
            .map(|(_, name)| *name)
            .collect();
        if set.is_empty() {
            write!(f, "MemFence(NONE)")
        } else {
            write!(f, "MemFence({})", set.join(" | "))
        }
    }
}

/// The barrier behind every function here: checks `flags` and `scope`
/// against the spec's constraints, naming them, and fences when the
/// ordered writes must reach other threads.
#[inline(always)]
#[track_caller]
fn barrier(
    nesting: Nesting,
    what: &str,
    own: MemoryScope,
    flags: MemFence,
    scope: MemoryScope,
    image: bool,
) {
    check_collective(nesting, what);
    if own == MemoryScope::WorkGroup {
        check_work_group_scope(what);
    }
    if flags.contains(MemFence::IMAGE) {
        if !image {
            invalid(what, flags, scope, "`MemFence::IMAGE` cannot be used here");
        }
        if flags != MemFence::IMAGE {
            invalid(
                what,
                flags,
                scope,
                "`MemFence::IMAGE` cannot be combined with `LOCAL` or `GLOBAL`",
            );
        }
        if !matches!(scope, MemoryScope::WorkGroup | MemoryScope::Device) {
            invalid(
                what,
                flags,
                scope,
                "with `MemFence::IMAGE` the scope must be `WorkGroup` or `Device`",
            );
        }
    }
    if scope < own {
        narrower(what, flags, scope, own);
    }
    // Local memory is the group's thread's alone: its scope is always the
    // work group and needs no instruction. Only global (and image) memory
    // ordered for a wider scope reaches other threads.
    let reaches_memory = flags.contains(MemFence::GLOBAL) || flags.contains(MemFence::IMAGE);
    if reaches_memory && matches!(scope, MemoryScope::Device | MemoryScope::System) {
        fence(Ordering::SeqCst);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn invalid(what: &str, flags: MemFence, scope: MemoryScope, why: &str) -> ! {
    panic!("{what}: flags {flags:?} with scope {scope:?}: {why}")
}

#[cold]
#[inline(never)]
#[track_caller]
fn narrower(what: &str, flags: MemFence, scope: MemoryScope, own: MemoryScope) -> ! {
    panic!(
        "{what}: flags {flags:?} with scope {scope:?}: the scope is narrower than the \
         barrier's group, {own:?}; pass {own:?} or a wider scope"
    )
}

/// OpenCL C++ `work_group_barrier(flags)` (section "work_group_barrier"),
/// with the default scope `memory_scope_work_group`: every item of `group`
/// reaches the barrier before any goes on, and the accesses to the memory
/// `flags` names are visible to the whole work group.
///
/// On the CPU it is the boundary between the loops before and after it,
/// where all of them are done: no instruction; with
/// [`work_group_barrier_with_scope`] and a `Device` or `System` scope,
/// global memory is fenced. Call it in the work group's scope, between
/// `distribute_items!` or `distribute_groups!` calls.
///
/// # Panics
/// If `flags` combines [`MemFence::IMAGE`] with another flag, naming them.
///
/// # Examples
/// ```
/// use scoped::prelude::*;
/// use scoped::{work_group_barrier, MemFence};
///
/// /// Reverses each group's items through local memory.
/// #[kernel]
/// fn reverse(group: WorkGroup<1>, input: &[u32], mut out: ItemsWindow<'_, u32>) {
///     memory_environment!(group, require_local_mem::<[u32; 16]>(), |tile| {
///         distribute_items!(group, |idx| {
///             tile[idx.innermost_local_linear_id()] = input[idx.global_linear_id()];
///         });
///         work_group_barrier(group, MemFence::LOCAL);
///         distribute_items!(group, |idx| out[idx] = tile[15 - idx.innermost_local_linear_id()]);
///     });
/// }
///
/// let input: Vec<u32> = (0..32).collect();
/// let mut out = vec![0; 32];
/// Queue::new()
///     .parallel_with(2, 16, ItemsMut::new(&mut out), |g, w| reverse(g, &input, w))
///     .unwrap();
/// assert_eq!(out[0], 15);
/// assert_eq!(out[16], 31);
/// ```
#[inline(always)]
#[track_caller]
pub fn work_group_barrier<const D: usize, const S: usize>(group: WorkGroup<D, S>, flags: MemFence) {
    work_group_barrier_with_scope(group, flags, MemoryScope::WorkGroup);
}

/// OpenCL C++ `work_group_barrier(flags, scope)`: [`work_group_barrier`]
/// making the accesses to global (or image) memory visible to `scope`;
/// local memory is always ordered for the work group, whatever `scope`.
/// `Device` and `System` (`memory_scope_all_svm_devices`) fence.
///
/// # Panics
/// If `scope` is narrower than `WorkGroup`, or `flags` combines
/// [`MemFence::IMAGE`] with another flag, or `IMAGE` comes with a scope
/// other than `WorkGroup` or `Device`, naming `flags` and `scope`.
#[inline(always)]
#[track_caller]
pub fn work_group_barrier_with_scope<const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    flags: MemFence,
    scope: MemoryScope,
) {
    barrier(
        group.__nesting(),
        "work_group_barrier",
        MemoryScope::WorkGroup,
        flags,
        scope,
        true,
    );
}

/// OpenCL C++ `sub_group_barrier(flags)` (section "sub_group_barrier"),
/// with the spec's default scope `memory_scope_work_group`: every item of
/// `sub_group` reaches the barrier before any goes on, and the accesses to
/// the memory `flags` names are ordered.
///
/// On the CPU a sub-group's items run in program order on one thread, so
/// it is the boundary between the sub-group's `distribute_items!` loops
/// before and after it: no instruction. Call it inside
/// `distribute_groups!`, on the sub-group.
///
/// # Panics
/// As [`work_group_barrier`].
#[inline(always)]
#[track_caller]
pub fn sub_group_barrier<const D: usize, const S: usize>(
    sub_group: SubGroup<D, S>,
    flags: MemFence,
) {
    sub_group_barrier_with_scope(sub_group, flags, MemoryScope::WorkGroup);
}

/// OpenCL C++ `sub_group_barrier(flags, scope)`: [`sub_group_barrier`]
/// making global (or image) accesses visible to `scope`, which may be
/// `SubGroup` or wider; `Device` and `System` fence.
///
/// # Panics
/// If `scope` is `WorkItem`, or the `IMAGE` rules of
/// [`work_group_barrier_with_scope`] are broken, naming `flags` and `scope`.
#[inline(always)]
#[track_caller]
pub fn sub_group_barrier_with_scope<const D: usize, const S: usize>(
    sub_group: SubGroup<D, S>,
    flags: MemFence,
    scope: MemoryScope,
) {
    barrier(
        sub_group.__nesting(),
        "sub_group_barrier",
        MemoryScope::SubGroup,
        flags,
        scope,
        true,
    );
}

/// A barrier for `sub_group_count` sub-groups of a work group (OpenCL C++
/// `work_group_named_barrier`, extension `cl_khr_sub_group_named_barrier`,
/// section "Named barriers"), made by [`work_group_named_barrier`].
///
/// On a GPU the sub-groups that call [`wait`](Self::wait) block until
/// `sub_group_count` of them have arrived. Here one thread runs the
/// sub-groups of a work group one after another, each `distribute_groups!`
/// to the end, so sub-groups can only meet between two
/// `distribute_groups!` calls: call `wait` in the work group's scope, where
/// it orders everything every sub-group did before it against everything
/// after it, which includes what the `sub_group_count` participants need.
/// (Inside `distribute_groups!` it could not hold back the sub-group that
/// runs first until the others arrive; debug builds panic there.) There is
/// no limit on the number of named barriers (the spec asks for at least 8
/// per work group).
#[derive(Clone, Copy, Debug)]
pub struct WorkGroupNamedBarrier<const D: usize, const S: usize> {
    /// The work group, which keeps the barrier on its thread and carries
    /// the counts `wait` checks.
    group: WorkGroup<D, S>,
    sub_group_count: usize,
}

/// Makes a named barrier for `sub_group_count` sub-groups of `group`
/// (OpenCL C++ `work_group_named_barrier(uint sub_group_count)`). As the
/// spec says, construction is a work-group operation: a collective, called
/// in the work group's scope.
///
/// # Panics
/// If `sub_group_count` is 0 or larger than the number of sub-groups of
/// `group` (its size along the last dimension divided by `S`, rounded up,
/// times its other dimensions), naming both.
///
/// # Examples
/// ```
/// use scoped::prelude::*;
/// use scoped::{work_group_named_barrier, MemFence};
///
/// /// Sub-groups 0 and 1 write their lanes' squares, then every sub-group
/// /// reads the value its mirror lane in sub-group 1 - (id % 2) wrote.
/// #[kernel]
/// fn exchange(group: WorkGroup<1, 4>, mut out: ItemsWindow<'_, u32>) {
///     let pair = work_group_named_barrier(group, 2);
///     memory_environment!(group, require_local_mem::<[u32; 8]>(), |shared| {
///         distribute_groups!(group, |sg| {
///             if sg.group_linear_id() < 2 {
///                 distribute_items!(sg, |idx| {
///                     let lid = idx.global_linear_id() % 16;
///                     shared[lid] = (lid * lid) as u32;
///                 });
///             }
///         });
///         pair.wait(MemFence::LOCAL);
///         distribute_groups!(group, |sg| {
///             let other = 1 - sg.group_linear_id() % 2;
///             distribute_items!(sg, |idx| {
///                 out[idx] = shared[other * 4 + idx.innermost_local_linear_id()];
///             });
///         });
///     });
/// }
///
/// let mut out = vec![0; 16];
/// Queue::new()
///     .parallel_with(1, 16, ItemsMut::new(&mut out), |g, w| exchange(g, w))
///     .unwrap();
/// assert_eq!(&out[..8], &[16, 25, 36, 49, 0, 1, 4, 9]);
/// ```
#[inline]
#[track_caller]
pub fn work_group_named_barrier<const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    sub_group_count: usize,
) -> WorkGroupNamedBarrier<D, S> {
    check_collective(group.__nesting(), "work_group_named_barrier");
    check_work_group_scope("work_group_named_barrier");
    let sub_groups = group.sub_group_range().size();
    if sub_group_count == 0 || sub_group_count > sub_groups {
        bad_count(sub_group_count, sub_groups, S);
    }
    WorkGroupNamedBarrier {
        group,
        sub_group_count,
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn bad_count(count: usize, sub_groups: usize, size: usize) -> ! {
    panic!(
        "work_group_named_barrier: sub_group_count is {count}, but it must be between 1 and \
         the {sub_groups} sub-groups of the work group (sub-group size {size})"
    )
}

impl<const D: usize, const S: usize> WorkGroupNamedBarrier<D, S> {
    /// The number of sub-groups the barrier was made for.
    #[must_use]
    pub fn sub_group_count(&self) -> usize {
        self.sub_group_count
    }

    /// OpenCL C++ `wait(flags)` (section "wait"), with the default scope
    /// `memory_scope_work_group`: the participating sub-groups' accesses
    /// to the memory `flags` names are visible to each other afterwards.
    /// Call it in the work group's scope (see the type's docs); on the CPU
    /// it is a loop boundary and emits nothing.
    ///
    /// # Panics
    /// If `flags` contains [`MemFence::IMAGE`], which the spec rules out
    /// here, naming the flags.
    #[inline(always)]
    #[track_caller]
    pub fn wait(&self, flags: MemFence) {
        self.wait_with_scope(flags, MemoryScope::WorkGroup);
    }

    /// OpenCL C++ `wait(flags, scope)`: [`wait`](Self::wait) with global
    /// accesses made visible to `scope`; `Device` and `System` fence.
    ///
    /// # Panics
    /// If `flags` contains [`MemFence::IMAGE`] or `scope` is narrower than
    /// `WorkGroup`, naming both.
    #[inline(always)]
    #[track_caller]
    pub fn wait_with_scope(&self, flags: MemFence, scope: MemoryScope) {
        barrier(
            self.group.__nesting(),
            "work_group_named_barrier::wait",
            MemoryScope::WorkGroup,
            flags,
            scope,
            false,
        );
    }
}
