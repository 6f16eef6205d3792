//! Compile-time checks of the macros (trybuild): every case in
//! `ui-tests/fail/` must fail to compile with exactly the errors of its
//! `.stderr` snapshot, every case in `ui-tests/pass/` must compile and run.
//!
//! The snapshots hold rustc's rendering of our errors and follow the
//! toolchain; refresh them with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/fail/*.rs");
    cases.pass("ui-tests/pass/*.rs");
}
