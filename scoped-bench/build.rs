//! Records the flags this build was compiled with, for the report.

fn main() {
    // Cargo hands build scripts the final rustflags, separated by 0x1f.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').filter(|f| !f.is_empty()).collect();
    println!("cargo:rustc-env=SCOPED_BENCH_RUSTFLAGS={}", flags.join(" "));
    println!("cargo:rerun-if-changed=build.rs");
}
