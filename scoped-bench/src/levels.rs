//! The instruction-set levels a run measures, and the flags each level's
//! build is compiled with.

use scoped::Isa;

/// The levels `--isa` names (`all`, or a comma-separated list of
/// `baseline`, `v3`, `v4`), lowest first; `None` (no `--isa`) is `all`,
/// every level the CPU supports. `missing` gives the CPU features a level
/// lacks (`Isa::missing_features` but in tests). The error names the
/// unknown or unsupported level.
pub(crate) fn select(
    text: Option<&str>,
    missing: impl Fn(Isa) -> Vec<&'static str>,
) -> Result<Vec<Isa>, String> {
    let text = text.unwrap_or("all");
    if text == "all" {
        return Ok(Isa::ALL
            .into_iter()
            .filter(|&isa| missing(isa).is_empty())
            .collect());
    }
    let mut levels = Vec::new();
    for name in text.split(',') {
        let isa = Isa::ALL
            .into_iter()
            .find(|isa| isa.name() == name)
            .ok_or_else(|| {
                format!("--isa: unknown level `{name}` (levels: baseline, v3, v4, or all)")
            })?;
        let lacks = missing(isa);
        if !lacks.is_empty() {
            return Err(format!(
                "--isa: this CPU cannot run level {isa}: it lacks {}",
                lacks.join(", ")
            ));
        }
        levels.push(isa);
    }
    levels.sort_unstable();
    levels.dedup();
    Ok(levels)
}

/// The rustflags of the build measured at `isa`: the level's target CPU, as
/// a performance engineer compiles hand-written code for the machine.
pub(crate) fn rustflags(isa: Isa) -> String {
    if !cfg!(target_arch = "x86_64") {
        return String::new();
    }
    let cpu = match isa {
        Isa::Baseline => "x86-64",
        Isa::V3 => "x86-64-v3",
        Isa::V4 => "x86-64-v4",
    };
    format!("-C target-cpu={cpu}")
}

/// The rustflags of the build for the native CPU.
pub(crate) const NATIVE: &str = "-C target-cpu=native";

/// `flags` as a key that equal builds share: rustc's default target CPU
/// on x86-64 is `x86-64`, so naming it is the same build as no flags.
pub(crate) fn normalized(flags: &str) -> &str {
    let flags = flags.trim();
    if flags == "-C target-cpu=x86-64" {
        ""
    } else {
        flags
    }
}

#[cfg(test)]
mod tests {
    use scoped::Isa;

    use super::{normalized, select};

    /// A CPU with v3 but not v4.
    fn v3_cpu(isa: Isa) -> Vec<&'static str> {
        match isa {
            Isa::V4 => vec!["avx512f"],
            _ => Vec::new(),
        }
    }

    #[test]
    fn all_and_no_option_are_every_supported_level() {
        assert_eq!(select(None, v3_cpu), Ok(vec![Isa::Baseline, Isa::V3]));
        assert_eq!(
            select(Some("all"), v3_cpu),
            Ok(vec![Isa::Baseline, Isa::V3])
        );
        assert_eq!(
            select(None, |_| Vec::new()),
            Ok(vec![Isa::Baseline, Isa::V3, Isa::V4])
        );
    }

    #[test]
    fn lists_are_sorted_and_deduplicated() {
        assert_eq!(
            select(Some("v3,baseline,v3"), v3_cpu),
            Ok(vec![Isa::Baseline, Isa::V3])
        );
        assert_eq!(select(Some("v3"), v3_cpu), Ok(vec![Isa::V3]));
    }

    #[test]
    fn errors_name_the_level() {
        let e = select(Some("baseline,v4"), v3_cpu).unwrap_err();
        assert!(e.contains("level v4") && e.contains("avx512f"), "{e}");
        let e = select(Some("v5"), v3_cpu).unwrap_err();
        assert!(e.contains("`v5`"), "{e}");
        let e = select(Some(""), v3_cpu).unwrap_err();
        assert!(e.contains("unknown level ``"), "{e}");
    }

    #[test]
    fn the_default_target_cpu_is_no_flags() {
        assert_eq!(normalized("-C target-cpu=x86-64"), "");
        assert_eq!(normalized(""), "");
        assert_eq!(
            normalized("-C target-cpu=x86-64-v3"),
            "-C target-cpu=x86-64-v3"
        );
    }
}
