//! The builds a run measures and the child processes that run them: the
//! runner compiles itself once per set of rustflags, into a target
//! directory of its own, and runs each build as a child that hands its
//! rows back (see `child`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use scoped::Isa;

use crate::child::{self, ChildRun};
use crate::levels::normalized;
use crate::shared_pages;

/// The executables built so far, by their normalized flags.
#[derive(Default)]
pub(crate) struct Builds {
    built: Vec<(String, PathBuf)>,
}

impl Builds {
    /// The runner compiled with `rustflags`: this executable if it was
    /// compiled with the same flags, else a release build into
    /// `target/isa/<name>` (the cargo `$CARGO` names, so the toolchain of
    /// this run). Builds with the same flags are made once.
    pub(crate) fn executable(&mut self, name: &str, rustflags: &str) -> Result<PathBuf, String> {
        let key = normalized(rustflags).to_string();
        if let Some((_, exe)) = self.built.iter().find(|(k, _)| *k == key) {
            return Ok(exe.clone());
        }
        let exe = if normalized(env!("SCOPED_BENCH_RUSTFLAGS")) == key {
            std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?
        } else {
            build(name, rustflags)?
        };
        self.built.push((key, exe.clone()));
        Ok(exe)
    }
}

/// The workspace's root, where `BENCHMARKS.md` is.
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is in the workspace's root")
}

/// Builds the runner with `rustflags` into `<target>/isa/<name>`.
fn build(name: &str, rustflags: &str) -> Result<PathBuf, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join("isa")
        .join(name);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
    eprintln!(
        "compare: building the runner with RUSTFLAGS=\"{rustflags}\" into {}",
        target.display()
    );
    let started = Instant::now();
    let status = Command::new(&cargo)
        .current_dir(root())
        .args([
            "build",
            "--release",
            "-p",
            "scoped-bench",
            "--bin",
            "scoped-bench",
        ])
        .arg("--target-dir")
        .arg(&target)
        // `RUSTFLAGS`, even empty, overrides the flags of any config
        // file; the encoded form would override it.
        .env("RUSTFLAGS", rustflags)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building with RUSTFLAGS=\"{rustflags}\" failed ({status})"
        ));
    }
    eprintln!(
        "compare: built {name} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(target.join("release").join("scoped-bench"))
}

/// Runs `exe` as a child with `args`, at `isa` (`SCOPED_ISA`) or, for
/// `None`, at the level dispatch picks, its large arrays mapped from the
/// files `shared_pages` names if given (`shared_pages.rs`), and reads its
/// rows. Its progress goes to this process's standard error.
pub(crate) fn run_child(
    exe: &Path,
    isa: Option<Isa>,
    args: &[String],
    shared_pages: Option<&str>,
) -> Result<ChildRun, String> {
    let mut command = Command::new(exe);
    command
        .arg("--child")
        .args(args)
        .env_remove(scoped::ISA_ENV)
        .env_remove(shared_pages::ENV)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    if let Some(isa) = isa {
        command.env(scoped::ISA_ENV, isa.name());
    }
    if let Some(prefix) = shared_pages {
        command.env(shared_pages::ENV, prefix);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} ({}) failed ({})",
            exe.display(),
            isa.map_or("dispatch".to_string(), |i| format!(
                "{}={i}",
                scoped::ISA_ENV
            )),
            output.status
        ));
    }
    child::parse(&String::from_utf8_lossy(&output.stdout))
}
