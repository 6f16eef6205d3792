//! The comparison runner's reading of the last-level cache
//! (`benches/compare/cache.rs`), which decides which kernels' rates count
//! as memory bandwidth.

#[path = "../benches/compare/cache.rs"]
mod cache;

use cache::{last_level_cache, parse_size};

#[test]
fn sizes_read_as_sysfs_writes_them() {
    assert_eq!(parse_size("32768K"), Some(32 << 20));
    assert_eq!(parse_size("1M"), Some(1 << 20));
    assert_eq!(parse_size("2G"), Some(2 << 30));
    assert_eq!(parse_size("512"), Some(512));
}

#[test]
fn malformed_sizes_are_refused() {
    for bad in ["", "K", "12X", "1.5M", "-1K", "99999999999999999999G"] {
        assert_eq!(parse_size(bad), None, "{bad:?}");
    }
}

#[test]
fn the_last_level_is_the_deepest_data_cache_sysfs_lists() {
    // Checked against the first CPU's own listing: the deepest data or
    // unified cache, of which the sum over instances holds at least one.
    let Ok(indices) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") else {
        assert!(last_level_cache().is_none());
        return;
    };
    let deepest = indices
        .flatten()
        .filter_map(|i| {
            let read = |f: &str| std::fs::read_to_string(i.path().join(f)).ok();
            (read("type")?.trim() != "Instruction").then_some(())?;
            let level = read("level")?.trim().parse::<u32>().ok()?;
            Some((level, parse_size(read("size")?.trim())?))
        })
        .max();
    let cache = last_level_cache().map(|c| (c.level, c.bytes));
    match (cache, deepest) {
        (Some((level, bytes)), Some((deepest_level, one))) => {
            assert_eq!(level, deepest_level);
            assert!(bytes >= one, "{bytes} bytes in all, {one} in cpu0's");
        }
        (cache, deepest) => assert_eq!(cache, deepest),
    }
}
