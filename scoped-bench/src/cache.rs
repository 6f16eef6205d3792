//! The machine's last-level cache, which decides whether a kernel's
//! bytes per second measure the memory or partly the cache.

use std::collections::BTreeSet;
use std::fs;

/// The last-level cache: its level and the sum of its instances' sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LastLevelCache {
    pub(crate) level: u32,
    pub(crate) bytes: u64,
}

/// Read from Linux's `/sys/devices/system/cpu/cpu*/cache/index*`: the
/// highest level of data or unified cache, summed over its instances
/// (each counted once, however many CPUs share it). `None` where that
/// directory is missing or unreadable.
pub(crate) fn last_level_cache() -> Option<LastLevelCache> {
    // (level, the CPUs sharing the instance, bytes)
    let mut instances = BTreeSet::new();
    for cpu in fs::read_dir("/sys/devices/system/cpu").ok()?.flatten() {
        let name = cpu.file_name();
        let name = name.to_string_lossy();
        if name
            .strip_prefix("cpu")
            .is_none_or(|n| n.parse::<u32>().is_err())
        {
            continue;
        }
        let Ok(indices) = fs::read_dir(cpu.path().join("cache")) else {
            continue;
        };
        for index in indices.flatten() {
            let read = |file: &str| {
                fs::read_to_string(index.path().join(file)).map(|s| s.trim().to_string())
            };
            let (Ok(level), Ok(kind), Ok(size), Ok(shared)) = (
                read("level"),
                read("type"),
                read("size"),
                read("shared_cpu_list"),
            ) else {
                continue;
            };
            if kind == "Instruction" {
                continue;
            }
            if let (Ok(level), Some(bytes)) = (level.parse::<u32>(), parse_size(&size)) {
                instances.insert((level, shared, bytes));
            }
        }
    }
    let level = instances.iter().map(|&(level, _, _)| level).max()?;
    let bytes = instances
        .iter()
        .filter(|&&(l, _, _)| l == level)
        .map(|&(_, _, bytes)| bytes)
        .sum();
    Some(LastLevelCache { level, bytes })
}

/// Sizes as sysfs writes them: `32768K`, `1M`, or plain bytes.
pub(crate) fn parse_size(text: &str) -> Option<u64> {
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::{last_level_cache, parse_size};

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
}
