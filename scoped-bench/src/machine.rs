//! The machine a run measured (CPU model, threads, compiler, date) and
//! each build it ran (flags, target features, the instruction-set level
//! launches ran at).

use time::OffsetDateTime;

/// What the report says about the machine.
pub(crate) struct Machine {
    /// The CPU's model name from `/proc/cpuinfo`, if listed.
    pub(crate) cpu: Option<String>,
    /// The highest instruction-set level the CPU supports.
    pub(crate) detected: scoped::Isa,
    /// Threads available to the process.
    pub(crate) threads: usize,
    /// `rustc --version` of the compiler `$RUSTC` names (else `rustc`).
    pub(crate) compiler: Option<String>,
    /// When the report was made, in UTC.
    pub(crate) date: OffsetDateTime,
}

impl Machine {
    /// Reads the machine this process runs on.
    pub(crate) fn detect() -> Self {
        Self {
            cpu: cpu_model(),
            detected: scoped::Isa::detected(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            compiler: compiler(),
            date: OffsetDateTime::now_utc(),
        }
    }
}

/// One build of the runner, as the process running it reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Build {
    /// The rustflags it was compiled with (empty: none).
    pub(crate) rustflags: String,
    /// The SIMD features it was compiled for, widest first.
    pub(crate) target_features: Vec<String>,
    /// The instruction-set level its launches ran at, or why none can.
    pub(crate) isa: String,
    pub(crate) sub_group_size: usize,
}

impl Build {
    /// This process's build.
    pub(crate) fn own() -> Self {
        Self {
            rustflags: env!("SCOPED_BENCH_RUSTFLAGS").to_string(),
            target_features: target_features().into_iter().map(String::from).collect(),
            isa: scoped::Isa::selected().map_or_else(|e| e.to_string(), |isa| isa.to_string()),
            sub_group_size: scoped::DEFAULT_SUB_GROUP_SIZE,
        }
    }

    /// The flags as the report prints them.
    pub(crate) fn flags(&self) -> String {
        if self.rustflags.is_empty() {
            "none".to_string()
        } else {
            format!("`{}`", self.rustflags)
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
