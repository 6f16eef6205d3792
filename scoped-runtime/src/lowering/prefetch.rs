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
