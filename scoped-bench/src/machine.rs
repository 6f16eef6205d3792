//! The machine and the build a run measured: CPU model, threads, the
//! last-level cache, the compiler, the flags and target features, the
//! instruction-set level of launches, and the date.

use time::OffsetDateTime;

use crate::cache::{last_level_cache, LastLevelCache};

/// What the report says about the machine.
pub(crate) struct Machine {
    /// The CPU's model name from `/proc/cpuinfo`, if listed.
    pub(crate) cpu: Option<String>,
    /// Threads available to the process.
    pub(crate) threads: usize,
    /// The last-level cache, if sysfs lists it: it decides which kernels'
    /// rates count as memory bandwidth.
    pub(crate) cache: Option<LastLevelCache>,
    /// `rustc --version` of the compiler `$RUSTC` names (else `rustc`).
    pub(crate) compiler: Option<String>,
    /// The rustflags this build was compiled with (empty: none).
    pub(crate) rustflags: &'static str,
    /// The SIMD features this build was compiled for, widest first.
    pub(crate) target_features: Vec<&'static str>,
    /// The instruction-set level launches run at, or why none can.
    pub(crate) isa: String,
    pub(crate) sub_group_size: usize,
    /// When the report was made, in UTC.
    pub(crate) date: OffsetDateTime,
}

impl Machine {
    /// Reads the machine this process runs on.
    pub(crate) fn detect() -> Self {
        Self {
            cpu: cpu_model(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cache: last_level_cache(),
            compiler: compiler(),
            rustflags: env!("SCOPED_BENCH_RUSTFLAGS"),
            target_features: target_features(),
            isa: scoped::Isa::selected().map_or_else(|e| e.to_string(), |isa| isa.to_string()),
            sub_group_size: scoped::DEFAULT_SUB_GROUP_SIZE,
            date: OffsetDateTime::now_utc(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split(':').nth(1)?.trim().to_string())
}

fn compiler() -> Option<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (!version.is_empty()).then_some(version)
}

fn target_features() -> Vec<&'static str> {
    [
        ("avx512f", cfg!(target_feature = "avx512f")),
        ("avx2", cfg!(target_feature = "avx2")),
        ("fma", cfg!(target_feature = "fma")),
        ("sse4.2", cfg!(target_feature = "sse4.2")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect()
}
