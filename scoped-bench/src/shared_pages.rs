//! Arrays in shared pages, for the pairs of children of two builds: with
//! [`ENV`] set to a path prefix, every allocation of at least
//! [`THRESHOLD`] bytes is a mapping of the file `<prefix>-<k>`, `k`
//! counting such allocations from 0, so that the `k`-th array of every
//! child (the same kernels allocate the same arrays in the same order)
//! lies in the same physical memory. Between two processes, where the OS
//! placed a memory-bound kernel's arrays moved its time by up to 30% (KVM
//! Intel Xeon: layer norm's rows over 5 children of one build, 19.9–26.9
//! ms, while scoped/peer in each stayed within 0.94–1.03), more than the
//! differences the pairs are there to measure.
//!
//! Every other allocation, and every one when the file cannot be mapped,
//! goes to the system allocator. The files outlive their mappings (the
//! next child maps them again) until the runner removes them after the
//! pairs, so a child's large allocations, freed or not, all take memory
//! until then.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::CString;
use std::path::Path;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The environment variable with the files' path prefix.
pub(crate) const ENV: &str = "SCOPED_BENCH_SHARED_PAGES";

/// Allocations from this size on are mapped from the files.
pub(crate) const THRESHOLD: usize = 1 << 20;

/// Where files of shared memory live, if the system has such a place.
pub(crate) const SHM_DIR: &str = "/dev/shm";

/// The files' mappings: `k`-th mapping from `<prefix>-<k>`, each live one
/// recorded by its address so that freeing it unmaps it.
pub(crate) struct Pages {
    prefix: String,
    next: AtomicUsize,
    live: [AtomicUsize; SLOTS],
}

/// Live mappings at most: a child holds a few dozen arrays at once.
const SLOTS: usize = 1024;

impl Pages {
    pub(crate) fn new(prefix: String) -> Self {
        Self {
            prefix,
            next: AtomicUsize::new(0),
            live: [const { AtomicUsize::new(0) }; SLOTS],
        }
    }

    /// The next file mapped over `layout.size()` bytes (its contents as
    /// another process left them), or null if that failed.
    fn map(&self, layout: Layout) -> *mut u8 {
        if layout.align() > page_size() {
            return ptr::null_mut();
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let Ok(path) = CString::new(format!("{}-{k}", self.prefix)) else {
            return ptr::null_mut();
        };
        let size = layout.size();
        // SAFETY: `path` is a NUL-terminated string that outlives the
        // call; the flags and mode are plain integers.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_CLOEXEC,
                0o600,
            )
        };
        if fd < 0 {
            return ptr::null_mut();
        }
        let p = if grow_to(fd, size) {
            // SAFETY: a fresh shared mapping of `size` bytes of an open
            // file at least that long: it aliases no memory of this
            // process, and stays valid once the file is closed.
            unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    size,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            }
        } else {
            libc::MAP_FAILED
        };
        // SAFETY: `fd` is open and owned here.
        unsafe { libc::close(fd) };
        if p == libc::MAP_FAILED {
            ptr::null_mut()
        } else if self.record(p as usize) {
            p.cast()
        } else {
            // SAFETY: `p` is the mapping of `size` bytes just made, never
            // handed out.
            unsafe { libc::munmap(p, size) };
            ptr::null_mut()
        }
    }

    /// Records a live mapping at `address`; false if every slot is taken.
    fn record(&self, address: usize) -> bool {
        self.live.iter().any(|slot| {
            slot.compare_exchange(0, address, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Whether `ptr` is a live mapping; if so, forgets it.
    fn forget(&self, ptr: *mut u8) -> bool {
        let address = ptr as usize;
        self.live.iter().any(|slot| {
            slot.compare_exchange(address, 0, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// `layout.size()` bytes from the next file, else from the system.
    ///
    /// # Safety
    /// As for [`GlobalAlloc::alloc`].
    pub(crate) unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = if layout.size() >= THRESHOLD {
            self.map(layout)
        } else {
            ptr::null_mut()
        };
        if p.is_null() {
            // SAFETY: the caller's layout, as `GlobalAlloc::alloc` takes it.
            unsafe { System.alloc(layout) }
        } else {
            p
        }
    }

    /// Frees `ptr`: unmaps it if it is a mapping, else hands it back to
    /// the system.
    ///
    /// # Safety
    /// As for [`GlobalAlloc::dealloc`], with `ptr` from [`Pages::alloc`].
    pub(crate) unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= THRESHOLD && self.forget(ptr) {
            // SAFETY: `ptr` was a live mapping of `layout.size()` bytes
            // (`map` recorded it), now forgotten, so unmapped once.
            unsafe { libc::munmap(ptr.cast(), layout.size()) };
        } else {
            // SAFETY: not a mapping, so the system allocated it with
            // `layout` (the caller's contract).
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    /// Removes the files `<prefix>-<k>`, from the prefix's directory.
    pub(crate) fn remove_files(prefix: &str) {
        let path = Path::new(prefix);
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return;
        };
        let name = format!("{}-", name.to_string_lossy());
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Makes the file `fd` at least `size` bytes long with every byte of
/// them given memory (new bytes read as zero); whether that succeeded.
/// Reserved up front, a file system out of space refuses here, and the
/// allocation goes to the system, rather than stopping the child with a
/// bus error at the first touch of a page it cannot have (a container's
/// `/dev/shm` is often 64 MiB).
fn grow_to(fd: libc::c_int, size: usize) -> bool {
    let Ok(size) = libc::off_t::try_from(size) else {
        return false;
    };
    // SAFETY: `fd` is open for writing; reserving only adds zeros past
    // the end and leaves existing bytes as they are.
    unsafe { libc::posix_fallocate(fd, 0, size) == 0 }
}

fn page_size() -> usize {
    // SAFETY: `sysconf` only reads a system constant.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

/// The process's allocator: [`Pages`] once [`enable_from_env`] found
/// [`ENV`], the system allocator before and otherwise.
pub(crate) struct SharedPages;

static PAGES: OnceLock<Pages> = OnceLock::new();
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Maps the large arrays allocated from now on from the files [`ENV`]
/// names, if it is set. Call before allocating them.
pub(crate) fn enable_from_env() {
    if let Ok(prefix) = std::env::var(ENV) {
        if PAGES.set(Pages::new(prefix)).is_ok() {
            ENABLED.store(true, Ordering::Release);
        }
    }
}

fn pages() -> Option<&'static Pages> {
    ENABLED
        .load(Ordering::Acquire)
        .then(|| PAGES.get())
        .flatten()
}

// SAFETY: every block comes from `System` or from a fresh mapping of at
// least the layout's size and alignment (page-aligned, alignments above a
// page go to `System`), and each is freed the way it was allocated:
// `Pages::dealloc` unmaps only the addresses `Pages::map` recorded, and
// `ENABLED` never goes back to false, so a block from `System` is never
// taken for a mapping (mappings are recorded only once it is true).
unsafe impl GlobalAlloc for SharedPages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match pages() {
            // SAFETY: the caller's contract, passed on.
            Some(pages) => unsafe { pages.alloc(layout) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match pages() {
            Some(pages) => {
                // SAFETY: the caller's contract, passed on.
                let p = unsafe { pages.alloc(layout) };
                if !p.is_null() {
                    // SAFETY: `p` holds `layout.size()` writable bytes
                    // (a file may hold another child's values).
                    unsafe { ptr::write_bytes(p, 0, layout.size()) };
                }
                p
            }
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match pages() {
            // SAFETY: the caller's contract; blocks allocated before
            // `ENABLED` are not recorded, so they go back to `System`.
            Some(pages) => unsafe { pages.dealloc(ptr, layout) },
            // SAFETY: the caller's contract, passed on.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(test: &str) -> String {
        format!(
            "{}/scoped-bench-test-{}-{test}",
            std::env::temp_dir().display(),
            std::process::id()
        )
    }

    #[test]
    fn the_kth_allocation_of_two_processes_shares_its_file() {
        let prefix = prefix("share");
        let layout = Layout::array::<u32>(THRESHOLD / 4 + 7).unwrap();
        let n = layout.size() / 4;
        // One process: a small array from the system, then two mapped.
        let first = Pages::new(prefix.clone());
        // SAFETY: a valid layout; every block is freed with it below.
        let (small, a, b) = unsafe {
            (
                first.alloc(Layout::new::<u64>()),
                first.alloc(layout).cast::<u32>(),
                first.alloc(layout).cast::<u32>(),
            )
        };
        assert!(!small.is_null() && !a.is_null() && !b.is_null());
        assert_eq!(a as usize % page_size(), 0, "a mapping is page-aligned");
        for i in 0..n {
            // SAFETY: `a` and `b` hold `n` `u32`s each.
            unsafe {
                a.add(i).write(i as u32);
                b.add(i).write(!(i as u32));
            }
        }
        // SAFETY: each block freed once, with its layout.
        unsafe {
            first.dealloc(small, Layout::new::<u64>());
            first.dealloc(a.cast(), layout);
            first.dealloc(b.cast(), layout);
        }
        assert!(first.live.iter().all(|s| s.load(Ordering::Relaxed) == 0));
        // A second process maps the same files in the same order: it sees
        // the first one's values, the memory being the same.
        let second = Pages::new(prefix.clone());
        // SAFETY: as above.
        let (a, b) = unsafe {
            (
                second.alloc(layout).cast::<u32>(),
                second.alloc(layout).cast::<u32>(),
            )
        };
        // SAFETY: `a` and `b` hold `n` initialised `u32`s (the files').
        let (a_values, b_values) = unsafe {
            (
                std::slice::from_raw_parts(a, n),
                std::slice::from_raw_parts(b, n),
            )
        };
        assert!(a_values.iter().enumerate().all(|(i, &v)| v == i as u32));
        assert!(b_values.iter().enumerate().all(|(i, &v)| v == !(i as u32)));
        // SAFETY: each block freed once, with its layout.
        unsafe {
            second.dealloc(a.cast(), layout);
            second.dealloc(b.cast(), layout);
        }
        Pages::remove_files(&prefix);
        assert!(!Path::new(&format!("{prefix}-0")).exists());
        assert!(!Path::new(&format!("{prefix}-1")).exists());
    }

    #[test]
    fn an_unmappable_file_falls_back_to_the_system() {
        let pages = Pages::new("/nonexistent-directory/scoped-bench".into());
        let layout = Layout::array::<u8>(THRESHOLD).unwrap();
        // SAFETY: a valid layout, freed with it below.
        let p = unsafe { pages.alloc(layout) };
        assert!(!p.is_null());
        assert!(pages.live.iter().all(|s| s.load(Ordering::Relaxed) == 0));
        // SAFETY: `p` holds `layout.size()` bytes; freed once.
        unsafe {
            p.write_bytes(7, layout.size());
            pages.dealloc(p, layout);
        }
    }
}
