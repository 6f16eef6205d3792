//! Interchanged loops whose windows are checked once for the whole loop
//! (`WindowPlan`): a range, or one with `.rev()`, `.step_by(n)`,
//! `.skip(n)`, `.take(n)`, each window's index the loop's value times a
//! factor plus a term. Every kernel here checks its results against a
//! serial loop running the same operations per item, bit for bit: where
//! the windows just fit (the plan covers every iteration), where one just
//! does not (a read behind a branch not taken: every iteration runs its
//! own checks), and the loops the plan is not made for (an index of
//! degree 2 in the loop's value, a factor depending on the item).

use scoped::__private::INTERCHANGE_LANES as W;
use scoped::prelude::*;

/// Iterations of every loop: more than `INTERCHANGE_MAX_PLAIN_TRIPS`.
const STEPS: usize = 20;

/// Each item `c` of a group of `cols` items runs loop `form` over
/// `STEPS` iterations, reading `x` at an index of the iteration and `c`
/// and writing its running sum into the group's `STEPS * cols` outputs;
/// form 0 reads only in its first `reads` iterations.
#[kernel]
fn planned_loops(
    group: WorkGroup<1>,
    x: &[f32],
    (form, cols, reads): (usize, usize, usize),
    mut out: ChunkWindow<'_, f32>,
) {
    let base = group.group_linear_id() * STEPS * cols;
    if form == 0 {
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            for k in 0..STEPS {
                if k < reads {
                    s = x[k * cols + c].mul_add(0.5, s);
                }
                out[base + k * cols + c] = s;
            }
        });
    } else if form == 1 {
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            for k in (0..STEPS).rev() {
                s = x[k * cols + c].mul_add(0.5, s);
                out[base + k * cols + c] = s;
            }
        });
    } else if form == 2 {
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            // Reads 3 rows apart; one output window throughout (a step of 0).
            for k in (1..=3 * STEPS).step_by(3) {
                s = x[(k - 1) * cols + c].mul_add(0.5, s);
                out[base + c] = s;
            }
        });
    } else if form == 3 {
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            for k in (0..STEPS).skip(1).take(STEPS - 2) {
                s = x[k * cols + c].mul_add(0.5, s);
                out[base + k * cols + c] = s;
            }
        });
    } else if form == 4 {
        // Degree 2 in `k`: each iteration's own checks.
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            for k in 0..STEPS {
                s = x[k * k + c].mul_add(0.5, s);
                out[base + k * cols + c] = s;
            }
        });
    } else if form == 5 {
        // The factor of `k` depends on the item: each iteration's checks.
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            let mut s = 0.0f32;
            for k in 0..STEPS {
                s = x[k * c + c].mul_add(0.5, s);
                out[base + k * cols + c] = s;
            }
        });
    } else {
        // One output window for every iteration (a step of 0).
        distribute_items!(group, |idx| {
            let c = idx.local_linear_id(&group);
            for k in 0..STEPS {
                out[base + c] += x[k * cols + c];
            }
        });
    }
}

/// Form `form` of [`planned_loops`], one item after the other.
fn reference(x: &[f32], form: usize, cols: usize, reads: usize, groups: usize) -> Vec<f32> {
    let unwritten = if form == 6 { 0.0 } else { f32::NAN };
    let mut out = vec![unwritten; groups * STEPS * cols];
    for g in 0..groups {
        let o = &mut out[g * STEPS * cols..][..STEPS * cols];
        for c in 0..cols {
            let mut s = 0.0f32;
            let mut step = |k: usize, read: usize, o: &mut [f32]| {
                s = x[read].mul_add(0.5, s);
                o[k * cols + c] = s;
            };
            match form {
                0 => {
                    for k in 0..STEPS {
                        if k < reads {
                            s = x[k * cols + c].mul_add(0.5, s);
                        }
                        o[k * cols + c] = s;
                    }
                }
                1 => (0..STEPS).rev().for_each(|k| step(k, k * cols + c, o)),
                2 => (1..=3 * STEPS)
                    .step_by(3)
                    .for_each(|k| step(0, (k - 1) * cols + c, o)),
                3 => (0..STEPS)
                    .skip(1)
                    .take(STEPS - 2)
                    .for_each(|k| step(k, k * cols + c, o)),
                4 => (0..STEPS).for_each(|k| step(k, k * k + c, o)),
                5 => (0..STEPS).for_each(|k| step(k, k * c + c, o)),
                _ => {
                    o[c] = 0.0;
                    for k in 0..STEPS {
                        o[c] += x[k * cols + c];
                    }
                }
            }
        }
    }
    out
}

/// Runs form `form` on two groups of `cols` items over `x` of `len`
/// values, and compares with [`reference`] bit for bit (made after the
/// launch, which panics first where a read lies past the end).
fn check(form: usize, cols: usize, reads: usize, len: usize) {
    let x: Vec<f32> = (0..len)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
        .collect();
    let mut out = vec![if form == 6 { 0.0 } else { f32::NAN }; 2 * STEPS * cols];
    Queue::with_threads(2)
        .unwrap()
        .parallel_with(2, cols, ChunksMut::new(&mut out, STEPS * cols), |g, out| {
            planned_loops(g, &x, (form, cols, reads), out)
        })
        .expect("launch");
    let want = reference(&x, form, cols, reads, 2);
    for (i, (got, want)) in out.iter().zip(&want).enumerate() {
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "form {form}, cols {cols}, reads {reads}, element {i}: {got} vs {want}"
        );
    }
}

#[test]
fn windows_that_just_fit_are_bit_for_bit_the_serial_loop() {
    // Wide steps alone, and wide, narrow and single items.
    for cols in [2 * W, 3 * W + 5] {
        // The last iteration's window ends at the slice's end.
        check(0, cols, STEPS, STEPS * cols);
        for form in [1, 3, 6] {
            check(form, cols, STEPS, STEPS * cols);
        }
        check(2, cols, STEPS, (3 * STEPS - 2) * cols);
    }
}

#[test]
fn windows_that_just_do_not_fit_run_each_iteration_checked() {
    for cols in [2 * W, 3 * W + 5] {
        // The last iteration's window lies past the end, behind a branch
        // that iteration does not take.
        check(0, cols, STEPS - 1, (STEPS - 1) * cols);
    }
}

#[test]
fn loops_the_plan_is_not_made_for_are_bit_for_bit_the_serial_loop() {
    for cols in [2 * W, 3 * W + 5] {
        let len = (STEPS * STEPS).max(STEPS * cols) + STEPS * cols;
        check(4, cols, STEPS, len);
        check(5, cols, STEPS, len);
    }
}

#[test]
fn a_read_past_the_end_panics_where_the_plain_loop_does() {
    // One element short: the last lane of the last iteration reads past
    // the end, as in the plain loop.
    let cols = 2 * W;
    let len = STEPS * cols - 1;
    let panic = std::panic::catch_unwind(|| check(1, cols, STEPS, len)).expect_err("panics");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains(&format!("the len is {len} but the index is {len}")),
        "{message}"
    );
}
