//! Required group sizes: `#[kernel(group_size = 128)]`, SYCL 2020's
//! `reqd_work_group_size` (section 5.8.1, kernel attributes).
//!
//! The launch cannot see which kernel its closure calls, so the kernel
//! checks: its first statement is [`require_group_size`], which compares
//! the group's range with the required one. On a mismatch it records a
//! [`LaunchError::GroupSize`] for the launch and returns `None`, and the
//! kernel returns before its body. Every group of a launch has the same
//! range, so no group runs its kernel's body; the launch starts no more
//! groups once one has refused, skips the reductions' final combine, and
//! returns the error. Past the check the kernel's group is rebuilt with
//! the required range, a constant to the optimiser, so the item loops have
//! constant trip counts (compared in place, the run-time range stayed the
//! loops' bound).

use std::cell::Cell;
use std::sync::OnceLock;

use crate::group::{ScopedGroup, WorkGroup};
use crate::id::Range;
use crate::launch::LaunchError;

/// What this thread is running: no launch's group, a group whose kernels
/// accepted its range so far, or one whose kernel refused it (the error
/// then waits in `REFUSAL`). One byte, so that watching a group costs two
/// plain thread-local accesses; the error is touched only on a refusal.
const OUTSIDE: u8 = 0;
const RUNNING: u8 = 1;
const REFUSED: u8 = 2;

thread_local! {
    static STATE: Cell<u8> = const { Cell::new(OUTSIDE) };
    static REFUSAL: Cell<Option<LaunchError>> = const { Cell::new(None) };
    /// The refusals of enclosing groups, while a launch nested in them runs
    /// a group on this thread (innermost last).
    static OUTER_REFUSALS: Cell<Vec<Option<LaunchError>>> = const { Cell::new(Vec::new()) };
}

/// One launch's record of a refused group range.
#[derive(Default)]
pub(crate) struct GroupSizeCheck {
    refused: OnceLock<LaunchError>,
}

impl GroupSizeCheck {
    /// Watches the work groups run on this thread until the watch drops;
    /// `None` once a kernel of the launch has refused (start no more
    /// groups). Two byte-sized thread-local accesses per group; the
    /// error itself is moved only on a refusal, out of line.
    #[inline(always)]
    pub(crate) fn watch(&self) -> Option<Watch<'_>> {
        if self.refused.get().is_some() {
            return None;
        }
        let outer = STATE.replace(RUNNING);
        if outer == REFUSED {
            save_outer_refusal();
        }
        Some(Watch { check: self, outer })
    }

    /// The launch's result once every group has ended.
    pub(crate) fn finish(self) -> Result<(), LaunchError> {
        match self.refused.into_inner() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// A group of an enclosing launch whose kernel refused, and which then
/// launched this one: its error waits until this group ends.
#[cold]
#[inline(never)]
fn save_outer_refusal() {
    let refusal = REFUSAL.take();
    let mut saved = OUTER_REFUSALS.take();
    saved.push(refusal);
    OUTER_REFUSALS.set(saved);
}

/// A work group running under a [`GroupSizeCheck`]; restores what the
/// thread was doing before (a group of an enclosing launch) when dropped.
/// Two words, no drop glue of its own: the common end is one
/// thread-local byte written back.
pub(crate) struct Watch<'a> {
    check: &'a GroupSizeCheck,
    outer: u8,
}

impl Drop for Watch<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        let state = STATE.replace(self.outer);
        if state == REFUSED || self.outer == REFUSED {
            self.end_after_refusal(state);
        }
    }
}

impl Watch<'_> {
    /// Whether a kernel refused on this thread since the watch began:
    /// the launch starts no more groups then.
    #[inline(always)]
    pub(crate) fn refused(&self) -> bool {
        STATE.get() == REFUSED
    }

    /// The group (`state`) or an enclosing one refused: records this
    /// launch's first refusal and gives the enclosing group its error back.
    #[cold]
    #[inline(never)]
    fn end_after_refusal(&self, state: u8) {
        if state == REFUSED {
            if let Some(error) = REFUSAL.take() {
                // The first refusal of the launch is the one reported.
                let _ = self.check.refused.set(error);
            }
        }
        if self.outer == REFUSED {
            let mut saved = OUTER_REFUSALS.take();
            let refusal = saved.pop().flatten();
            OUTER_REFUSALS.set(saved);
            REFUSAL.set(refusal);
        }
    }
}

/// An extent of `#[kernel(group_size = ...)]` written as a constant
/// expression (`GROUP_SIZE`, a const generic `W`), evaluated in a `const`
/// block: `n`, or an error when the kernel compiles if it is 0.
///
/// # Panics
/// In constant evaluation (a compile error) if `n` is 0.
#[inline(always)]
pub const fn group_size_extent(n: usize) -> usize {
    assert!(
        n > 0,
        "group_size extent 0: a group has at least one item in every dimension"
    );
    n
}

/// The check `#[kernel(group_size = ...)]` starts the kernel with:
/// `group` again if its range is `required`, with the range as the
/// constant `required` (the item loops get constant trip counts). If not,
/// `None`: the kernel returns at once, and the launch returns
/// [`LaunchError::GroupSize`] naming both ranges.
///
/// # Panics
/// On a mismatch outside a launch's work group (which a `WorkGroup` cannot
/// be), with the same message.
#[inline(always)]
#[track_caller]
pub fn require_group_size<const D: usize, const S: usize>(
    group: WorkGroup<D, S>,
    required: [usize; D],
) -> Option<WorkGroup<D, S>> {
    let range = group.logical_local_range();
    for (d, &extent) in required.iter().enumerate() {
        if range[d] != extent {
            refuse(range, Range::new(required), d);
            return None;
        }
    }
    Some(group.with_local_range(Range::new(required)))
}

#[cold]
#[inline(never)]
#[track_caller]
fn refuse<const D: usize>(range: Range<D>, required: Range<D>, dimension: usize) {
    let error = LaunchError::GroupSize {
        required: required.to_string(),
        group_size: range.to_string(),
    };
    match STATE.get() {
        OUTSIDE => panic!("{error} (dimension {dimension} differs)"),
        RUNNING => {
            STATE.set(REFUSED);
            REFUSAL.set(Some(error));
        }
        // A second kernel that refuses in the same group: the first counts.
        _ => {}
    }
}
