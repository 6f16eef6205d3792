//! The machine a run measured (CPU, huge-page setting, threads, compiler,
//! date) and each build it ran (flags, target features, the instruction-set
//! level launches ran at).

use time::OffsetDateTime;

/// What the report says about the machine.
pub(crate) struct Machine {
    /// The CPU from `/proc/cpuinfo`, if listed: its model name, then
    /// family, model and stepping (a virtual machine may show only a
    /// generic name), and whether it runs under a hypervisor.
    pub(crate) cpu: Option<String>,
    /// The transparent huge pages setting (`always`, `madvise`, `never`),
    /// if the kernel has one: with `madvise` or `never` the suite's
    /// arrays are in 4 KiB pages, where hardware prefetchers stop at
    /// every page's end.
    pub(crate) huge_pages: Option<String>,
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
            cpu: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|info| describe_cpu(&info)),
            huge_pages: std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .ok()
                .and_then(|setting| chosen_mode(&setting).map(String::from)),
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

/// The first CPU of a `/proc/cpuinfo` text: `model name (family F, model
/// M, stepping S[, under a hypervisor])`, the numbers as far as listed.
fn describe_cpu(info: &str) -> Option<String> {
    let first = info.split("\n\n").next()?;
    let field = |key: &str| {
        first.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            (name.trim() == key).then(|| value.trim())
        })
    };
    let name = field("model name")?;
    let mut details: Vec<String> = [
        ("cpu family", "family"),
        ("model", "model"),
        ("stepping", "stepping"),
    ]
    .into_iter()
    .filter_map(|(key, label)| Some(format!("{label} {}", field(key)?)))
    .collect();
    if field("flags").is_some_and(|flags| flags.split_whitespace().any(|f| f == "hypervisor")) {
        details.push("under a hypervisor".into());
    }
    Some(if details.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", details.join(", "))
    })
}

/// The selected mode of a kernel setting listed as `always [madvise]
/// never`.
fn chosen_mode(setting: &str) -> Option<&str> {
    let (_, rest) = setting.split_once('[')?;
    Some(rest.split_once(']')?.0)
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

#[cfg(test)]
mod tests {
    use super::*;

    const XEON: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n\
        model\t\t: 167\nmodel name\t: Intel(R) Xeon(R) Processor\nstepping\t: 1\n\
        flags\t\t: fpu sse2 hypervisor avx2\n\nprocessor\t: 1\nmodel name\t: other\n";

    #[test]
    fn the_cpu_is_named_with_its_numbers() {
        assert_eq!(
            describe_cpu(XEON).as_deref(),
            Some(
                "Intel(R) Xeon(R) Processor (family 6, model 167, stepping 1, under a hypervisor)"
            )
        );
        // Bare metal, numbers missing: the name alone.
        assert_eq!(
            describe_cpu("model name\t: AMD EPYC\nflags\t\t: fpu sse2\n").as_deref(),
            Some("AMD EPYC")
        );
        assert_eq!(describe_cpu("processor\t: 0\n"), None);
    }

    #[test]
    fn the_chosen_mode_is_the_bracketed_one() {
        assert_eq!(chosen_mode("always [madvise] never\n"), Some("madvise"));
        assert_eq!(chosen_mode("[always] madvise never"), Some("always"));
        assert_eq!(chosen_mode("always madvise never"), None);
    }
}
