//! The shapes and sizes checked while a kernel compiles. Generic code
//! checks them in `const` blocks, which rustc evaluates only when it
//! generates code (`cargo build`, not `cargo check`); the macros also
//! call them from `const _` items wherever the kernel names the types
//! without generic parameters, which `cargo check` evaluates too.

use crate::memory::MAX_LOCAL_MEM_BYTES;

/// A group or launch of `D` dimensions and sub-group size `S`: `D` is 1, 2
/// or 3 and `S` at least 1.
#[inline(always)]
pub const fn group_shape<const D: usize, const S: usize>() {
    assert!(
        D >= 1 && D <= 3,
        "scoped launches have 1, 2 or 3 dimensions"
    );
    assert!(S >= 1, "the sub-group size S must be at least 1");
}

/// A `require_local_mem::<T>` request fits in [`MAX_LOCAL_MEM_BYTES`].
#[inline(always)]
pub const fn local_mem_size<T>() {
    assert!(
        std::mem::size_of::<T>() <= MAX_LOCAL_MEM_BYTES,
        "a require_local_mem::<T> request is larger than scoped::MAX_LOCAL_MEM_BYTES (64 KiB)"
    );
}
