//! Sizes a process cannot serve are refused with an error or a panic that
//! names them, never an abort: a reduction's per-group results that
//! cannot be allocated, private memory that cannot be allocated, a queue
//! with more threads than rayon runs. Kernels that nest local memory up
//! to the stack budget, `LOCAL_MEM_NESTING`, run on `Queue::new()`. Run
//! these in both profiles (`cargo test --release --test
//! test_launch_limits`).

use std::hint::black_box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use scoped::prelude::*;
use scoped::{LaunchError, LOCAL_MEM_NESTING, MAX_LOCAL_MEM_BYTES};

#[test]
fn a_reduction_over_more_groups_than_memory_holds_is_refused() {
    let mut sum = 0i32;
    let result = Queue::new().parallel_with(
        1usize << 50,
        1,
        reduction(&mut sum, plus()),
        |_g: WorkGroup<1>, _r| unreachable!("nothing runs"),
    );
    let error = result.expect_err("2^50 results of 5 bytes do not fit in memory");
    assert_eq!(
        error,
        LaunchError::OutOfMemory {
            position: 0,
            what: "a reduction's results of 1125899906842624 work groups, 5 bytes each".into(),
            bytes: Some(5 << 50),
        }
    );
    assert_eq!(
        error.to_string(),
        "launch refused: argument 0 needs 5629499534213120 bytes (a reduction's results of \
         1125899906842624 work groups, 5 bytes each), which could not be allocated"
    );
    assert_eq!(sum, 0);
}

#[test]
fn a_span_reduction_over_more_groups_than_memory_holds_is_refused() {
    let mut bins = [7u32; 256];
    let result = Queue::new().parallel_with(
        1usize << 40,
        1,
        reduction_span(&mut bins, plus()),
        |_g: WorkGroup<1>, _r| unreachable!("nothing runs"),
    );
    let error = result.expect_err("2^40 arrays of 256 values do not fit in memory");
    assert_eq!(
        error,
        LaunchError::OutOfMemory {
            position: 0,
            what: "a span reduction's results of 1099511627776 work groups, 256 values each".into(),
            bytes: Some(1025 << 40),
        }
    );
    let result = Queue::new().parallel_with(
        usize::MAX,
        1,
        reduction_span(&mut bins, plus()),
        |_g: WorkGroup<1>, _r| unreachable!("nothing runs"),
    );
    assert!(
        matches!(
            result,
            Err(LaunchError::OutOfMemory {
                position: 0,
                bytes: None,
                ..
            })
        ),
        "{result:?}"
    );
    assert_eq!(bins, [7; 256], "nothing is combined into the target");
}

#[test]
fn a_reduction_over_usize_max_groups_is_refused() {
    let (mut sum, mut out) = (0u64, vec![0u8; 4]);
    let result = Queue::new().parallel_with(
        usize::MAX,
        1,
        (ItemsMut::new(&mut out[..0]), reduction(&mut sum, plus())),
        |_g: WorkGroup<1>, _| unreachable!("nothing runs"),
    );
    // The output is checked first and is too short; without it, the
    // reduction's memory is what fails.
    assert!(matches!(
        result,
        Err(LaunchError::OutputTooShort { position: 0, .. })
    ));
    let result = Queue::new().parallel_with(
        usize::MAX,
        1,
        reduction(&mut sum, plus()),
        |_g: WorkGroup<1>, _r| unreachable!("nothing runs"),
    );
    let error = result.expect_err("usize::MAX results do not fit in memory");
    assert!(
        matches!(
            error,
            LaunchError::OutOfMemory {
                position: 0,
                bytes: None,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "launch refused: argument 0 needs more than usize::MAX bytes (a reduction's results \
             of {} work groups, 9 bytes each)",
            usize::MAX
        )
    );
}

#[kernel]
fn private_values(group: WorkGroup<1>, touched: &AtomicUsize) {
    memory_environment!(group, require_private_mem::<f32>(), |x| {
        // Used, so that the optimiser keeps the allocation.
        touched.fetch_add(black_box(x.as_slice()).len(), Ordering::Relaxed);
    });
}

#[test]
fn private_memory_that_cannot_be_allocated_panics_naming_its_size() {
    // 2^36 items of 4 bytes: 256 GiB, more than the machine gives.
    let touched = AtomicUsize::new(0);
    let payload = catch_unwind(AssertUnwindSafe(|| {
        let _ = Queue::new().parallel(1, 1usize << 36, |g| private_values(g, &touched));
    }))
    .expect_err("the allocation must fail");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        message,
        "private memory of 274877906944 bytes could not be allocated"
    );
    assert_eq!(touched.load(Ordering::Relaxed), 0);
    // The queue still works.
    Queue::new()
        .parallel(2, 8, |g| private_values(g, &touched))
        .unwrap();
    assert_eq!(touched.into_inner(), 16);
}

#[test]
fn a_queue_with_more_threads_than_rayon_runs_is_refused() {
    let error = Queue::with_threads(100_000).expect_err("rayon runs at most 65 535 threads");
    assert_eq!(
        error.to_string(),
        "cannot make a queue with 100000 threads: a queue has 1 ..= 65535 threads (rayon's limit)"
    );
    let error = Queue::with_threads(0).expect_err("a queue needs a thread");
    assert_eq!(
        error.to_string(),
        "cannot make a queue with 0 threads: a queue has 1 ..= 65535 threads (rayon's limit)"
    );
}

/// Opens `depth` nested environments of `MAX_LOCAL_MEM_BYTES` of local
/// memory, each written and read after the inner ones end; returns the
/// sum of the bytes read back.
#[group_function]
fn nested_local_memory(group: WorkGroup<1>, depth: usize) -> usize {
    memory_environment!(
        group,
        require_local_mem::<[u8; MAX_LOCAL_MEM_BYTES]>(),
        |local| {
            local[depth * 997 % MAX_LOCAL_MEM_BYTES] = (depth % 251) as u8;
            black_box(&mut *local);
            let inner = if depth > 1 {
                nested_local_memory(group, depth - 1)
            } else {
                0
            };
            inner + local[depth * 997 % MAX_LOCAL_MEM_BYTES] as usize
        }
    )
}

fn run_nested(queue: &Queue, depth: usize) -> usize {
    let total = AtomicUsize::new(0);
    queue
        .parallel(4, 1, |g: WorkGroup<1>| {
            total.fetch_add(nested_local_memory(g, depth), Ordering::Relaxed);
        })
        .unwrap();
    total.into_inner()
}

#[test]
fn nested_local_memory_within_the_budget_runs_on_a_new_queue() {
    let expected = |depth: usize| 4 * (1..=depth).map(|d| d % 251).sum::<usize>();
    // 48 nested environments: 3 MiB, more than rayon's own 2 MiB stacks.
    assert_eq!(run_nested(&Queue::new(), 48), expected(48));
    assert_eq!(
        run_nested(&Queue::new(), LOCAL_MEM_NESTING),
        expected(LOCAL_MEM_NESTING)
    );
    let queue = Queue::with_threads(2).unwrap();
    assert_eq!(
        run_nested(&queue, LOCAL_MEM_NESTING),
        expected(LOCAL_MEM_NESTING)
    );
}
