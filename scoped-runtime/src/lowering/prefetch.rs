//! Prefetches: hints that ask the CPU to fetch cache lines ahead of the
//! loads and stores that need them (the next group's windows, rows and
//! inputs, a grid-stride loop's next rounds). A prefetch reads nothing a
//! program can observe and never faults, so any address will do.

/// Asks the CPU to fetch every cache line of the `count` elements from
/// `first` on; reads nothing, whatever the address.
#[inline(always)]
pub(crate) fn elements<T>(first: *const T, count: usize) {
    let bytes = count * std::mem::size_of::<T>();
    let first = first.cast::<u8>();
    let mut offset = 0;
    while offset < bytes {
        line(first.wrapping_add(offset));
        offset += LINE;
    }
    if bytes > 0 {
        line(first.wrapping_add(bytes - 1));
    }
}

/// Bytes of the next group's elements [`next_group`] asks for.
const NEXT_GROUP_PREFETCH_BYTES: usize = 512;

/// Asks the CPU to fetch the elements of the next work group of a
/// one-dimensional launch (of `ItemsRef`'s windows, and of `ItemsMut`'s
/// where a staging copy reads them), which follow `group`'s `size`
/// elements in memory, where they fit in [`NEXT_GROUP_PREFETCH_BYTES`]. Such a
/// group's reads are a burst of a few lines, which the hardware
/// prefetchers did not run ahead of where the item loop is one run of
/// loads (the spec's reduction, 128 `i32`: the flat form 1.07–1.13× its
/// peer's time, a loop over the same memory, against 1.04–1.07× with the
/// fetch; Intel Xeon, v3 and v4, 1 thread). Larger groups are streams the
/// prefetchers follow (Black-Scholes' 1 KiB windows were 4% slower
/// fetched). The count is a constant, so the fetch is a few instructions
/// with no loop. Reads nothing; past the last group the addresses are
/// outside the input, where a prefetch does nothing.
#[inline(always)]
pub(crate) fn next_group<T>(group: *const T, size: usize) {
    let room = NEXT_GROUP_PREFETCH_BYTES / std::mem::size_of::<T>().max(1);
    if size <= room {
        elements(group.wrapping_add(size), room);
    }
}

/// Bytes of a cache line.
const LINE: usize = 64;

/// Asks for the cache line holding `at`.
#[inline(always)]
pub(crate) fn line(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it
    // reads no memory a program can observe and never faults, whatever
    // the address: it is never dereferenced.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
