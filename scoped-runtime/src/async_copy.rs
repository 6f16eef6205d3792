//! `async_work_group_copy` and `wait_for` on work groups (SYCL 2020
//! `group::async_work_group_copy`, OpenCL `async_work_group_(strided_)copy`).
//!
//! One thread runs the whole group, so a copy is done when the call
//! returns; the returned [`DeviceEvent`] is already complete and `wait_for`
//! only orders memory like a barrier.

use crate::barrier::group_barrier;
use crate::group::{ScopedGroup, WorkGroup};
use crate::rules::check_collective;

/// Completion of an asynchronous group copy (SYCL `device_event`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use = "wait for the copy with `WorkGroup::wait_for` or `DeviceEvent::wait`"]
pub struct DeviceEvent(());

impl DeviceEvent {
    /// Waits until the copy is done (it already is on the CPU).
    #[inline(always)]
    pub fn wait(self) {}
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_short(which: &str, len: usize, needed: usize, num_elements: usize, stride: usize) -> ! {
    panic!(
        "async_work_group_copy: {which} has {len} elements, but copying {num_elements} \
         elements with stride {stride} needs {needed}"
    )
}

/// Elements a strided copy of `n` elements touches: `(n - 1) * stride + 1`.
#[track_caller]
fn span(num_elements: usize, stride: usize) -> usize {
    if num_elements == 0 {
        return 0;
    }
    (num_elements - 1)
        .checked_mul(stride)
        .and_then(|s| s.checked_add(1))
        .unwrap_or_else(|| panic!("async_work_group_copy: {num_elements} elements with stride {stride} overflow usize"))
}

impl<const D: usize, const S: usize> WorkGroup<D, S> {
    /// Copies `num_elements` elements from `src` to `dest` for the whole
    /// group: between global and local memory in either direction.
    ///
    /// A collective: call it outside `distribute_items!`.
    ///
    /// # Panics
    /// If `src` or `dest` has fewer than `num_elements` elements, naming
    /// the lengths.
    // Inlined: a call taking `&self` would make the group's fields reload
    // afterwards and hide its shape from the optimiser.
    #[inline(always)]
    #[track_caller]
    pub fn async_work_group_copy<T: Copy>(
        &self,
        dest: &mut [T],
        src: &[T],
        num_elements: usize,
    ) -> DeviceEvent {
        check_collective(self.__nesting(), "async_work_group_copy");
        if src.len() < num_elements {
            too_short("src", src.len(), num_elements, num_elements, 1);
        }
        if dest.len() < num_elements {
            too_short("dest", dest.len(), num_elements, num_elements, 1);
        }
        dest[..num_elements].copy_from_slice(&src[..num_elements]);
        DeviceEvent(())
    }

    /// Strided gather: `dest[i] = src[i * src_stride]` for
    /// `i < num_elements` (global to local memory, OpenCL
    /// `async_work_group_strided_copy`).
    ///
    /// # Panics
    /// If `src` has fewer than `(num_elements - 1) * src_stride + 1`
    /// elements or `dest` fewer than `num_elements`.
    // Inlined: a call taking `&self` would make the group's fields reload
    // afterwards and hide its shape from the optimiser.
    #[inline(always)]
    #[track_caller]
    pub fn async_work_group_copy_src_stride<T: Copy>(
        &self,
        dest: &mut [T],
        src: &[T],
        num_elements: usize,
        src_stride: usize,
    ) -> DeviceEvent {
        check_collective(self.__nesting(), "async_work_group_copy");
        let needed = span(num_elements, src_stride);
        if src.len() < needed {
            too_short("src", src.len(), needed, num_elements, src_stride);
        }
        if dest.len() < num_elements {
            too_short("dest", dest.len(), num_elements, num_elements, 1);
        }
        for (i, d) in dest[..num_elements].iter_mut().enumerate() {
            *d = src[i * src_stride];
        }
        DeviceEvent(())
    }

    /// Strided scatter: `dest[i * dest_stride] = src[i]` for
    /// `i < num_elements` (local to global memory).
    ///
    /// # Panics
    /// If `dest` has fewer than `(num_elements - 1) * dest_stride + 1`
    /// elements or `src` fewer than `num_elements`.
    // Inlined: a call taking `&self` would make the group's fields reload
    // afterwards and hide its shape from the optimiser.
    #[inline(always)]
    #[track_caller]
    pub fn async_work_group_copy_dest_stride<T: Copy>(
        &self,
        dest: &mut [T],
        src: &[T],
        num_elements: usize,
        dest_stride: usize,
    ) -> DeviceEvent {
        check_collective(self.__nesting(), "async_work_group_copy");
        let needed = span(num_elements, dest_stride);
        if dest.len() < needed {
            too_short("dest", dest.len(), needed, num_elements, dest_stride);
        }
        if src.len() < num_elements {
            too_short("src", src.len(), num_elements, num_elements, 1);
        }
        for (i, s) in src[..num_elements].iter().enumerate() {
            dest[i * dest_stride] = *s;
        }
        DeviceEvent(())
    }

    /// Waits for the given copies (SYCL `group::wait_for`), then orders
    /// memory like a barrier of the group.
    // Inlined: a call taking `&self` would make the group's fields reload
    // afterwards and hide its shape from the optimiser.
    #[inline(always)]
    #[track_caller]
    pub fn wait_for(&self, events: impl IntoIterator<Item = DeviceEvent>) {
        events.into_iter().for_each(DeviceEvent::wait);
        group_barrier(*self);
    }
}
