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

/// Reads one element of every cache line of `items` in ascending order,
/// where `items` fits in [`NEXT_GROUP_PREFETCH_BYTES`]: the lines of a
/// small group's window are then requested in memory order, whatever
/// order the optimiser gives the loads that use them. A tree of adds over
/// a staged group (the spec's reduction, 128 `i32`) loads its lines out
/// of order at 512 bits (lines 0, 1, 2, 4, 6, 5, 3, 7), which took
/// 1.09–1.12× the time of loading them in order (Intel Xeon, one
/// thread); with the lines touched first, 0.77–0.82×.
#[inline(always)]
pub(crate) fn touch_lines<T: Copy>(items: &[T]) {
    let size = std::mem::size_of::<T>();
    if size == 0 || std::mem::size_of_val(items) > NEXT_GROUP_PREFETCH_BYTES {
        return;
    }
    for_line_heads(items.len(), size, |index| {
        // SAFETY: `for_line_heads` gives indices below `items.len()`, so
        // the pointer is to an initialised, aligned element of `items`;
        // `T: Copy`, so reading it by value duplicates nothing that needs
        // dropping, and a shared slice of `Copy` elements has no interior
        // mutability another thread could be writing through.
        unsafe { std::ptr::read_volatile(items.as_ptr().add(index)) };
    });
}

/// Calls `f` with ascending indices of `len` elements of `size` bytes,
/// from the first to the last, with less than a cache line of elements
/// between two: a read of each reaches every line the elements lie on,
/// wherever they start. A plain loop, which the optimiser unrolls for a
/// constant group size.
#[inline(always)]
fn for_line_heads(len: usize, size: usize, mut f: impl FnMut(usize)) {
    let step = (LINE - 1) / size.max(1) + 1;
    let mut index = 0;
    while index < len {
        f(index);
        index += step;
    }
    if len > 0 && !(len - 1).is_multiple_of(step) {
        f(len - 1);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_heads_reach_every_line_in_order_and_stay_in_the_slice() {
        for size in [1, 2, 4, 8, 12, 48, 64, 100] {
            for len in [0, 1, 2, 15, 16, 17, 128, 130] {
                let mut heads = Vec::new();
                for_line_heads(len, size, |index| heads.push(index));
                if len == 0 {
                    assert!(heads.is_empty());
                    continue;
                }
                assert_eq!((heads[0], heads[heads.len() - 1]), (0, len - 1));
                for pair in heads.windows(2) {
                    assert!(pair[0] < pair[1], "{size} {len}: {heads:?}");
                    let between = (pair[1] - pair[0] - 1) * size;
                    assert!(between < LINE, "{size} {len}: {heads:?}");
                }
            }
        }
    }

    #[test]
    fn touching_reads_small_slices_and_leaves_them_unchanged() {
        let small: Vec<i32> = (0..128).collect();
        touch_lines(&small);
        let odd: Vec<[u8; 3]> = (0..100u8).map(|v| [v, v, v]).collect();
        touch_lines(&odd[1..]);
        touch_lines(&[(); 8]);
        let large = vec![1.5f64; 1000];
        touch_lines(&large);
        assert_eq!(small, (0..128).collect::<Vec<_>>());
        assert_eq!(odd[99], [99; 3]);
    }
}
