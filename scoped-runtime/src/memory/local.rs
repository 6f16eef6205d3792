//! Local memory requests: `require_local_mem::<T>()` and `(init)`.

use bytemuck::Zeroable;

use crate::lowering::const_checks::local_mem_size;

/// Largest local memory request, in bytes: 64 KiB, the local memory of a
/// typical GPU work group. A larger `require_local_mem::<T>` fails to
/// compile. Local memory lives on the stack of the thread that runs the
/// group, so nested environments add up: see [`LOCAL_MEM_NESTING`].
pub const MAX_LOCAL_MEM_BYTES: usize = 64 * 1024;

/// Stack size of the threads of the pools that queues build (16 MiB):
/// room for [`LOCAL_MEM_NESTING`] nested local memory requests.
pub const WORKER_STACK_BYTES: usize = 16 << 20;

/// The stack budget of a kernel: how many local memory requests of
/// [`MAX_LOCAL_MEM_BYTES`] may be live at once in one work group (nested
/// environments, or environments of nested or recursive group functions)
/// on the threads of a queue, in debug and release builds: 128, half of
/// [`WORKER_STACK_BYTES`], the other half left for the kernel's frames
/// (250 nested requests fit, 300 overflow). Past the budget a thread may
/// overflow its stack, which aborts the process. A launch with
/// [`Queue::new`](crate::Queue::new) from a thread of a rayon pool that
/// `scoped` did not build runs on that pool, whose stacks (2 MiB by
/// default) hold about 30.
pub const LOCAL_MEM_NESTING: usize = WORKER_STACK_BYTES / 2 / MAX_LOCAL_MEM_BYTES;

/// How a value of type `Self` initialises local memory of type `T`
/// (`require_local_mem::<T>(x)`).
///
/// As the spec asks, an array `T` of up to three dimensions (`[S; N]`,
/// `[[S; M]; N]`, `[[[S; K]; M]; N]`) is filled element-wise from a scalar
/// `x: S`; any `T` can also be initialised wholly from `x: T`.
pub trait LocalInit<T> {
    /// Builds the initial value.
    fn build(self) -> T;
}

impl<T> LocalInit<T> for T {
    #[inline(always)]
    fn build(self) -> T {
        self
    }
}

impl<S: Copy, const N: usize> LocalInit<[S; N]> for S {
    #[inline(always)]
    fn build(self) -> [S; N] {
        [self; N]
    }
}

impl<S: Copy, const N: usize, const M: usize> LocalInit<[[S; M]; N]> for S {
    #[inline(always)]
    fn build(self) -> [[S; M]; N] {
        [[self; M]; N]
    }
}

impl<S: Copy, const N: usize, const M: usize, const K: usize> LocalInit<[[[S; K]; M]; N]> for S {
    #[inline(always)]
    fn build(self) -> [[[S; K]; M]; N] {
        [[[self; K]; M]; N]
    }
}

/// A local memory request's value on the stack, aligned to a cache line
/// (64 bytes) whatever `T`'s own alignment: vector loads from a tile then
/// never straddle two lines, and the frame that holds it is realigned, so
/// the kernel's vector spills are aligned too (without it the tiled matmul
/// took 20% more time at AVX2).
#[doc(hidden)]
#[derive(Zeroable)]
#[repr(C, align(64))]
pub struct LocalStorage<T>(pub T);

/// `require_local_mem::<T>()`: local memory without an initial value.
///
/// Rust cannot hand out uninitialised memory safely, so it is zero-filled;
/// `T` must be [`Zeroable`] (numbers, `bool`, arrays of them, or a
/// `#[derive(Zeroable)]` struct).
#[inline(always)]
#[must_use]
pub fn local_mem_zeroed<T: Zeroable>() -> LocalStorage<T> {
    const { local_mem_size::<T>() };
    // Zeroed whole: wrapping a zeroed `T` would hold two copies in an
    // unoptimised frame, halving the nesting budget.
    LocalStorage::zeroed()
}

/// `require_local_mem::<T>(init)`: local memory initialised from `init`
/// (see [`LocalInit`]).
///
/// Not `inline(always)`: in an unoptimised build the built value and its
/// wrapper then stay in this function's frame, not in the kernel's, where
/// nested environments would hold both.
#[inline]
#[must_use]
pub fn local_mem_filled<T, I: LocalInit<T>>(init: I) -> LocalStorage<T> {
    const { local_mem_size::<T>() };
    LocalStorage(init.build())
}
