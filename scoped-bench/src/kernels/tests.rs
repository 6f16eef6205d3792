//! The suite's kernels checked at their tiny test sizes
//! ([`Scale::Test`]): every `scoped` variant of every kernel on two threads
//! and on one, and the kernel's rayon peer on pools of the same sizes, each
//! compared with the kernel's serial reference by its `check`. The runner
//! checks the same way before timing; this keeps the kernels checked
//! between runs.
//!
//! The launch-overhead kernel is not here: it is an empty kernel with no
//! output to compare, only timed.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use scoped::Queue;

use super::{Kernel, Scale};
use crate::kernels;

/// Thread counts every run is made at: two, so that groups run
/// concurrently, and one, so that one thread runs group after group.
const THREADS: [usize; 2] = [2, 1];

/// The kernels the tests below cover, by name as the suite lists them.
const TESTED: [&str; 11] = [
    kernels::reduction::NAME,
    kernels::triad::NAME,
    kernels::matmul::NAME,
    kernels::nbody::NAME,
    kernels::jacobi::NAME,
    kernels::prefix_sum::NAME,
    kernels::histogram::NAME,
    kernels::black_scholes::NAME,
    kernels::transpose::NAME,
    kernels::conv5x5::NAME,
    kernels::layer_norm::NAME,
];

/// "1 thread", "2 threads".
fn thread_count(threads: usize) -> String {
    format!("{threads} thread{}", if threads == 1 { "" } else { "s" })
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)")
}

/// Clears `kernel`'s outputs, runs `run` on it, then `check`; returns
/// what went wrong, prefixed by `what`.
fn run_and_check(
    what: &str,
    kernel: &mut dyn Kernel,
    run: impl FnOnce(&mut dyn Kernel),
    check: fn(&dyn Kernel) -> Result<(), String>,
) -> Option<String> {
    kernel.clear();
    match catch_unwind(AssertUnwindSafe(|| run(&mut *kernel))) {
        Err(payload) => Some(format!("{what}: panicked: {}", panic_message(&*payload))),
        Ok(()) => check(kernel).err().map(|e| format!("{what}: {e}")),
    }
}

/// Sets up the suite's kernel `name` at test size and runs and checks
/// every `scoped` variant, its hand-written twin if it has one, and the
/// peer at every count of [`THREADS`],
/// clearing the outputs before each run so that a run that writes nothing
/// fails its check. Panics listing every failure.
fn check_kernel(name: &str) {
    let entry = kernels::all()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("the suite has no kernel named `{name}`"));
    let mut kernel = (entry.setup)(Scale::Test);
    let kernel: &mut dyn Kernel = &mut *kernel;

    // The checks below rely on `clear` leaving outputs that fail them.
    kernel.clear();
    assert!(
        kernel.check().is_err(),
        "{name}: the output passes its check right after clear()"
    );

    let mut failures = Vec::new();
    for threads in THREADS {
        let queue = Queue::with_threads(threads)
            .unwrap_or_else(|e| panic!("scoped queue of {threads} threads: {e}"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap_or_else(|e| panic!("rayon pool of {threads} threads: {e}"));
        for (v, variant) in kernel.variants().iter().enumerate() {
            failures.extend(run_and_check(
                &format!(
                    "{name}, scoped variant `{variant}`, {}",
                    thread_count(threads)
                ),
                kernel,
                |k| k.run_scoped(&queue, v),
                |k| k.check(),
            ));
            // A variant's hand-written twin, if it has one.
            let what = format!("{name}, twin of `{variant}`, {}", thread_count(threads));
            kernel.clear();
            match catch_unwind(AssertUnwindSafe(|| pool.install(|| kernel.run_twin(v)))) {
                Err(payload) => {
                    failures.push(format!("{what}: panicked: {}", panic_message(&*payload)));
                }
                Ok(true) => failures.extend(kernel.check().err().map(|e| format!("{what}: {e}"))),
                Ok(false) => {}
            }
        }
        failures.extend(run_and_check(
            &format!("{name}, peer, {}", thread_count(threads)),
            kernel,
            |k| pool.install(|| k.run_peer()),
            |k| k.check(),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_kernel_of_the_suite_is_tested() {
    let suite = kernels::names();
    assert_eq!(
        suite, TESTED,
        "kernels of the suite vs. kernels tested here"
    );
}

#[test]
fn reduction() {
    check_kernel(kernels::reduction::NAME);
}

#[test]
fn triad() {
    check_kernel(kernels::triad::NAME);
}

#[test]
fn matmul() {
    check_kernel(kernels::matmul::NAME);
}

#[test]
fn nbody() {
    check_kernel(kernels::nbody::NAME);
}

#[test]
fn jacobi() {
    check_kernel(kernels::jacobi::NAME);
}

#[test]
fn prefix_sum() {
    check_kernel(kernels::prefix_sum::NAME);
}

#[test]
fn histogram() {
    check_kernel(kernels::histogram::NAME);
}

#[test]
fn black_scholes() {
    check_kernel(kernels::black_scholes::NAME);
}

#[test]
fn transpose() {
    check_kernel(kernels::transpose::NAME);
}

#[test]
fn conv5x5() {
    check_kernel(kernels::conv5x5::NAME);
}

#[test]
fn layer_norm() {
    check_kernel(kernels::layer_norm::NAME);
}
