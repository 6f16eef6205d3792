//! Instruction-set levels: every kernel body is compiled once per x86-64
//! level, and each launch runs the best copy the CPU has.
//!
//! A crate built with no flags targets SSE2 only: `f32::mul_add` is a call
//! into libm and vectors are 128 bits wide. The launch's loop over a
//! thread's groups is compiled once per level inside `#[target_feature]`
//! functions (AVX2 and FMA at [`Isa::V3`], AVX-512 at [`Isa::V4`]): the
//! group loop makes each group and its windows, and the kernel is inlined
//! into it. The kernel's body is written once per level by `#[kernel]`
//! (see [`body_level`]) and each copy is inlined into its level's loop,
//! with the runtime's item loops inlined into it.
//! The level is detected once per process; the environment variable
//! `SCOPED_ISA=baseline|v3|v4` forces one, and
//! [`Queue::with_isa`](crate::Queue::with_isa) one queue's.

use std::error::Error;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::group::WorkGroup;
#[cfg(test)]
use crate::id::Id;

/// The environment variable that forces the level of every launch.
pub const ISA_ENV: &str = "SCOPED_ISA";

/// An instruction-set level that launches are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// What the crate itself is compiled for: SSE2 on a default x86-64
    /// build, and the only level on other architectures.
    Baseline,
    /// x86-64-v3: AVX, AVX2, FMA, BMI1, BMI2, F16C, LZCNT, MOVBE, POPCNT.
    V3,
    /// x86-64-v4: v3 and AVX-512 F, BW, CD, DQ, VL.
    V4,
}

/// CPU features of [`Isa::V3`]; the same list as the `target_feature`
/// attribute of `body_v3`.
const V3_FEATURES: &[&str] = &[
    "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe", "popcnt",
];
/// CPU features [`Isa::V4`] adds to [`Isa::V3`]; the same list as the
/// `target_feature` attribute of `body_v4`.
const V4_FEATURES: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

impl Isa {
    /// Every level, lowest first.
    pub const ALL: [Isa; 3] = [Isa::Baseline, Isa::V3, Isa::V4];

    /// The name `SCOPED_ISA` takes: `"baseline"`, `"v3"` or `"v4"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::V3 => "v3",
            Isa::V4 => "v4",
        }
    }

    /// The CPU features this level needs beyond [`Isa::Baseline`].
    #[must_use]
    pub fn features(self) -> Vec<&'static str> {
        match self {
            Isa::Baseline => Vec::new(),
            Isa::V3 => V3_FEATURES.to_vec(),
            Isa::V4 => [V3_FEATURES, V4_FEATURES].concat(),
        }
    }

    /// The features of this level that the running CPU lacks (all of
    /// them, beyond the baseline, off x86-64).
    #[must_use]
    pub fn missing_features(self) -> Vec<&'static str> {
        self.features()
            .into_iter()
            .filter(|f| !cpu_has(f))
            .collect()
    }

    /// Whether the running CPU has every feature of this level.
    #[must_use]
    pub fn is_supported(self) -> bool {
        self.missing_features().is_empty()
    }

    /// The highest level the running CPU supports, detected once per
    /// process.
    #[must_use]
    pub fn detected() -> Isa {
        static DETECTED: OnceLock<Isa> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            Isa::ALL
                .into_iter()
                .rev()
                .find(|isa| isa.is_supported())
                .unwrap_or(Isa::Baseline)
        })
    }

    /// The level launches use unless their queue forces one: the one
    /// named by `SCOPED_ISA` if it is set, otherwise [`Isa::detected`].
    /// Read once per process.
    ///
    /// # Errors
    /// If `SCOPED_ISA` names no level, or a level the CPU lacks (the
    /// error names the missing features). Every launch of a queue without
    /// a level of its own then returns this error.
    pub fn selected() -> Result<Isa, IsaError> {
        static SELECTED: OnceLock<Result<Isa, IsaError>> = OnceLock::new();
        SELECTED
            .get_or_init(|| match std::env::var(ISA_ENV) {
                Ok(value) => value.parse::<Isa>().and_then(Isa::require),
                Err(std::env::VarError::NotPresent) => Ok(Isa::detected()),
                Err(std::env::VarError::NotUnicode(value)) => Err(IsaError::Unknown {
                    value: value.to_string_lossy().into_owned(),
                }),
            })
            .clone()
    }

    /// This level if the running CPU supports it.
    ///
    /// # Errors
    /// [`IsaError::Unsupported`], naming the missing features.
    pub fn require(self) -> Result<Isa, IsaError> {
        check(self, &self.missing_features())
    }
}

/// `isa` if `missing` is empty, otherwise the error naming them.
fn check(isa: Isa, missing: &[&'static str]) -> Result<Isa, IsaError> {
    if missing.is_empty() {
        Ok(isa)
    } else {
        Err(IsaError::Unsupported {
            isa,
            missing: missing.to_vec(),
        })
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Isa {
    type Err = IsaError;

    /// Parses `baseline`, `v3` or `v4` (ASCII case ignored, surrounding
    /// spaces trimmed).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Isa::ALL
            .into_iter()
            .find(|isa| isa.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| IsaError::Unknown {
                value: s.to_string(),
            })
    }
}

/// Why a level cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IsaError {
    /// The name is not `baseline`, `v3` or `v4`.
    Unknown {
        /// The name as given.
        value: String,
    },
    /// The running CPU lacks features of the level.
    Unsupported {
        /// The level asked for.
        isa: Isa,
        /// The features it lacks.
        missing: Vec<&'static str>,
    },
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaError::Unknown { value } => write!(
                f,
                "unknown instruction-set level `{value}` (from {ISA_ENV} or Queue::with_isa): \
                 use baseline, v3 or v4"
            ),
            IsaError::Unsupported { isa, missing } => write!(
                f,
                "instruction-set level {isa} is not supported by this CPU: it lacks {}",
                missing.join(", ")
            ),
        }
    }
}

impl Error for IsaError {}

/// Whether the running CPU has `feature` (a name of [`Isa::features`]).
fn cpu_has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! detect {
            ($($name:tt)*) => {
                match feature {
                    $($name => std::arch::is_x86_feature_detected!($name),)*
                    _ => false,
                }
            };
        }
        detect!(
            "avx" "avx2" "bmi1" "bmi2" "f16c" "fma" "lzcnt" "movbe" "popcnt"
            "avx512f" "avx512bw" "avx512cd" "avx512dq" "avx512vl"
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}

/// The highest level the crate itself is compiled for (by `-C target-cpu`
/// or `-C target-feature`).
const COMPILED: Isa = if cfg!(all(
    target_feature = "avx2",
    target_feature = "fma",
    target_feature = "bmi1",
    target_feature = "bmi2",
    target_feature = "f16c",
    target_feature = "lzcnt",
    target_feature = "movbe",
    target_feature = "popcnt",
)) {
    if cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512cd",
        target_feature = "avx512dq",
        target_feature = "avx512vl",
    )) {
        Isa::V4
    } else {
        Isa::V3
    }
} else {
    Isa::Baseline
};

/// A level the running CPU was checked to support: the only kind of value
/// that selects a `#[target_feature]` copy of the group loop or of a
/// kernel body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SupportedIsa(Isa);

impl SupportedIsa {
    /// `isa`, checked against the running CPU.
    pub(crate) fn new(isa: Isa) -> Result<Self, IsaError> {
        isa.require().map(SupportedIsa)
    }

    /// The level.
    pub(crate) fn isa(self) -> Isa {
        self.0
    }

    /// The level whose copy of the code runs: this one in a build for the
    /// baseline (what a crate without flags gets), otherwise the level the
    /// crate itself is compiled for, a constant, so that such builds (`-C
    /// target-cpu=native`, `x86-64-v3`) keep one group loop. With two, a
    /// build for v3 inlined its v3 body copy into the kernel (the body
    /// shares the crate's features), and the kernel, now large and called
    /// from both loops, stayed out of line: every variant of the suite's
    /// reduction ran about 4× its v3 peer. Such a build does not run
    /// AVX-512 code: its flags chose v3.
    #[inline(always)]
    fn copy(self) -> Isa {
        match COMPILED {
            Isa::Baseline => self.0,
            compiled => compiled,
        }
    }

    /// Runs `run(group, level)` for each of `groups` in order, compiled
    /// for this level, `level` this level as a constant: `run` and
    /// everything inlined into it is compiled with the level's features.
    /// One dispatch per piece of groups, and one loop: at v3 and v4 the
    /// loop inlines the kernel (an empty kernel: 0.8 ns per group, 1.4
    /// with a call per group); at the baseline it inlines the kernel's
    /// choice of level, its body being a call of its own (`body_baseline`).
    /// A call per group around that call (as before) made the suite's
    /// reduction 1.12-1.20x its peer at the baseline, 1.07-1.15x without.
    #[inline(always)]
    pub(crate) fn run_groups<F: Fn(usize, SupportedIsa)>(self, groups: Range<usize>, run: &F) {
        match self.copy() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `SupportedIsa::new` checked that the CPU has every
            // feature of v4, which are those `groups_v4` is compiled with.
            Isa::V4 => unsafe { x86::groups_v4(groups, run) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for v4, with the features of v3.
            Isa::V3 => unsafe { x86::groups_v3(groups, run) },
            _ => groups_baseline(groups, run),
        }
    }
}

/// Groups `groups` at the baseline level, one call per piece, as
/// `groups_v3` at v3 (see [`SupportedIsa::run_groups`]).
#[inline(never)]
fn groups_baseline<F: Fn(usize, SupportedIsa)>(groups: Range<usize>, run: &F) {
    for group in groups {
        run(group, SupportedIsa(Isa::Baseline));
    }
}

/// Which copy of a kernel's body runs for `group`: the level of the
/// launch that made it. `#[kernel]` writes the body once per level, one
/// copy in each arm of a `match` on this value, so that each copy and
/// every generic function it calls are their own instances: called from
/// one place, the optimiser inlines them into the body as it does in a
/// build for one CPU. With one closure for all levels, its generic helpers
/// were called from three copies and stayed out of line, compiled for the
/// baseline (the suite's row-band Jacobi: 7.9 ms against 2.4 ms with a
/// copy per level).
///
/// Each copy is an `#[inline(always)]` closure with no target features of
/// its own: inlined into a level's group loop, it is compiled with that
/// loop's features. [`InLoop::run`] sees to it that each copy is inlined
/// into its own level's loop and no other.
#[doc(hidden)]
#[inline(always)]
pub fn body_level<const D: usize, const S: usize>(group: &WorkGroup<D, S>) -> BodyLevel {
    let in_loop = InLoop(group.inline_body);
    match group.isa.copy() {
        Isa::V4 => BodyLevel::V4(in_loop),
        Isa::V3 => BodyLevel::V3(in_loop),
        Isa::Baseline => BodyLevel::Baseline(in_loop),
    }
}

/// The level a kernel's body runs at: see [`body_level`].
#[doc(hidden)]
#[derive(Debug)]
pub enum BodyLevel {
    /// What the crate is compiled for.
    Baseline(InLoop),
    /// x86-64-v3.
    V3(InLoop),
    /// x86-64-v4.
    V4(InLoop),
}

/// Runs one level's copy of a kernel's body: see [`InLoop::run`].
#[doc(hidden)]
#[derive(Debug)]
pub struct InLoop(bool);

impl InLoop {
    /// `body()`, inlined into the group loop of its level.
    ///
    /// The body is called through a function pointer chosen by
    /// `inline_body`, a field of the group that is always true but read
    /// apart from the level: in the kernel alone the pointer is unknown,
    /// so the kernel stays three indirect calls, small enough to be inlined
    /// into each level's group loop; there the group is built with the
    /// field a constant, the pointer folds to a direct call of an
    /// `#[inline(always)]` function, and the body is inlined into that loop
    /// only. (Called directly, the bodies made the kernel too large to
    /// inline; called as `#[target_feature]` functions, which cannot be
    /// `#[inline(always)]`, they stayed calls: ARCHITECTURE.md.) Where a
    /// kernel is not inlined into its loop, the pointer is followed at run
    /// time and the body runs out of line, compiled for the baseline.
    #[inline(always)]
    pub fn run<R>(self, body: impl FnOnce() -> R) -> R {
        let call = if self.0 {
            call_inlined
        } else {
            call_out_of_line
        };
        call(body)
    }
}

/// Runs `body` at the level of the launch that made `group`: one closure
/// for every level, where the body cannot be written three times (it
/// declares an `impl` or a `static`). See [`body_level`].
#[doc(hidden)]
#[inline(always)]
pub fn run_kernel_body<const D: usize, const S: usize, R>(
    group: &WorkGroup<D, S>,
    body: impl FnOnce() -> R,
) -> R {
    match body_level(group) {
        BodyLevel::V4(at) | BodyLevel::V3(at) | BodyLevel::Baseline(at) => at.run(body),
    }
}

/// `body()`, the call [`InLoop::run`] folds to in a group loop.
#[inline(always)]
fn call_inlined<F: FnOnce() -> R, R>(body: F) -> R {
    body()
}

/// `body()`, the other choice of [`InLoop::run`], never taken: the two
/// must differ for the choice to stay unknown in the kernel alone.
#[inline(never)]
fn call_out_of_line<F: FnOnce() -> R, R>(body: F) -> R {
    body()
}

/// `f()`: where the macros run a closure once (`memory_environment!`'s
/// body), so that the closure can carry `#[inline(always)]`.
#[doc(hidden)]
#[inline(always)]
pub fn run_once<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// The `#[target_feature]` functions. Their attributes list the features
/// of `V3_FEATURES` (and `V4_FEATURES`): keep them the same.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::ops::Range;

    use super::{Isa, SupportedIsa};

    /// Groups `groups` at x86-64-v3, the kernel inlined into the loop.
    ///
    /// # Safety
    /// The CPU has every feature of [`Isa::V3`].
    #[target_feature(enable = "avx,avx2,bmi1,bmi2,f16c,fma,lzcnt,movbe,popcnt")]
    pub(super) unsafe fn groups_v3<F: Fn(usize, SupportedIsa)>(groups: Range<usize>, run: &F) {
        for group in groups {
            run(group, SupportedIsa(Isa::V3));
        }
    }

    /// Groups `groups` at x86-64-v4, the kernel inlined into the loop.
    ///
    /// # Safety
    /// The CPU has every feature of [`Isa::V4`].
    #[target_feature(enable = "avx,avx2,bmi1,bmi2,f16c,fma,lzcnt,movbe,popcnt,\
                  avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
    pub(super) unsafe fn groups_v4<F: Fn(usize, SupportedIsa)>(groups: Range<usize>, run: &F) {
        for group in groups {
            run(group, SupportedIsa(Isa::V4));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Range as Extent;

    #[test]
    fn a_body_runs_once_and_returns_its_value_by_either_call() {
        for in_loop in [true, false] {
            let mut runs = 0;
            let out = InLoop(in_loop).run(|| {
                runs += 1;
                runs * 10
            });
            assert_eq!((out, runs), (10, 1), "in_loop {in_loop}");
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for isa in Isa::ALL {
            assert_eq!(isa.name().parse::<Isa>(), Ok(isa));
            assert_eq!(isa.to_string(), isa.name());
        }
        assert_eq!(" V3 ".parse::<Isa>(), Ok(Isa::V3));
        let error = "avx2".parse::<Isa>().unwrap_err();
        assert_eq!(
            error,
            IsaError::Unknown {
                value: "avx2".into()
            }
        );
        assert!(error.to_string().contains("`avx2`"), "{error}");
    }

    #[test]
    fn levels_nest() {
        assert!(Isa::Baseline.features().is_empty());
        let v3 = Isa::V3.features();
        let v4 = Isa::V4.features();
        assert!(v3.iter().all(|f| v4.contains(f)));
        assert!(v4.contains(&"avx512f") && !v3.contains(&"avx512f"));
    }

    #[test]
    fn a_missing_feature_is_named() {
        let error = check(Isa::V4, &["avx512bw", "avx512vl"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "instruction-set level v4 is not supported by this CPU: it lacks avx512bw, avx512vl"
        );
        assert_eq!(check(Isa::V3, &[]), Ok(Isa::V3));
    }

    #[test]
    fn detection_matches_the_cpu() {
        let detected = Isa::detected();
        assert!(detected.is_supported());
        assert!(Isa::Baseline.is_supported());
        for isa in Isa::ALL {
            // Levels nest, so every level up to the detected one is
            // supported and none above.
            assert_eq!(isa.is_supported(), isa <= detected, "{isa}");
            assert_eq!(SupportedIsa::new(isa).is_ok(), isa <= detected, "{isa}");
        }
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            Isa::V3.is_supported(),
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        );
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(detected, Isa::Baseline);
    }

    #[test]
    fn builds_for_a_level_run_only_its_copy() {
        for isa in Isa::ALL {
            let copy = SupportedIsa(isa).copy();
            let expected = if COMPILED == Isa::Baseline {
                isa
            } else {
                COMPILED
            };
            assert_eq!(copy, expected, "{isa}");
        }
        // This crate's own build: no flags unless the workspace sets some.
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        assert_eq!(COMPILED, Isa::Baseline);
    }

    #[test]
    fn groups_and_kernel_bodies_run_at_their_level() {
        for isa in Isa::ALL.into_iter().filter(|i| i.is_supported()) {
            let seen = std::sync::Mutex::new(Vec::new());
            let level = SupportedIsa::new(isa).unwrap();
            let tags = crate::tag::LaunchTags::reserve(9).unwrap();
            level.run_groups(3..9, &|g, level| {
                let group = WorkGroup::<1>::new(
                    Id::new([g]),
                    Extent::new([9]),
                    Extent::new([2]),
                    Extent::new([18]),
                    tags.group(g),
                    crate::rules::Nesting::current(),
                    level,
                );
                // The group carries the level of the copy that made it.
                let ran_at = run_kernel_body(&group, || group.isa.isa());
                seen.lock().unwrap().push((g, ran_at));
            });
            let expected: Vec<_> = (3..9).map(|g| (g, isa)).collect();
            assert_eq!(seen.into_inner().unwrap(), expected, "{isa}");
        }
        assert_eq!(run_once(|| 7), 7);
    }
}
