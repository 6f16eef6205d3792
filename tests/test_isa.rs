//! Instruction-set levels: the same kernels at every level this CPU has
//! (forced with `Queue::with_isa`, and with `SCOPED_ISA` in a child
//! process) give the same results as a serial reference, and a level that
//! cannot be used is refused with an error that names it.
//!
//! Results are bit-identical at every level, floats included: Rust never
//! fuses `a * b + c` by itself, `mul_add` is fused at every level (libm's
//! `fmaf` at the baseline, `vfmadd` at v3 and v4), and the group
//! algorithms' float lanes (`wide`) are fixed when the crate is compiled.
//! Integer reductions are loops vectorised at each level, exact in any
//! order.

use std::process::Command;

use scoped::prelude::*;
use scoped::{Isa, IsaError, LaunchError, ISA_ENV};

const GROUP: usize = 64;
const GROUPS: usize = 24;

/// The levels this CPU has, lowest first.
fn supported() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
}

fn mix(x: u32) -> u32 {
    let x = (x ^ (x >> 16)).wrapping_mul(0x7feb_352d);
    let x = (x ^ (x >> 15)).wrapping_mul(0x846c_a68b);
    (x ^ (x >> 16)).rotate_left(x & 31)
}

/// Per item: a hash of its input, its group's inclusive scan of the
/// hashes, the group's sum and xor-reduction, and the sum over its
/// sub-group (`S = 8`).
#[kernel]
fn integer_kernel(group: WorkGroup<1, 8>, input: &[u32], mut out: ItemsWindow<'_, [u32; 5]>) {
    memory_environment!(
        group,
        require_private_mem::<u32>(),
        require_private_mem::<u32>(),
        |h, scan| {
            distribute_items!(group, |idx| h[idx] = mix(input[idx.global_linear_id()]));
            inclusive_scan_over_group(group, h, scan, plus());
            let sum = reduce_over_group(group, h, plus());
            let xor = reduce_over_group(group, h, bit_xor());
            distribute_items!(group, |idx| {
                out[idx][..4].copy_from_slice(&[h[idx], scan[idx], sum, xor]);
            });
            distribute_groups!(group, |sub_group| {
                let total = reduce_over_group(sub_group, h, plus());
                distribute_items!(sub_group, |idx| out[idx][4] = total);
            });
        }
    );
}

fn integer_reference(input: &[u32]) -> Vec<[u32; 5]> {
    let mut out = Vec::new();
    for group in input.chunks(GROUP) {
        let h: Vec<u32> = group.iter().map(|&x| mix(x)).collect();
        let sum = h.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        let xor = h.iter().fold(0, |a, &b| a ^ b);
        let mut scan = 0u32;
        for (i, &hi) in h.iter().enumerate() {
            scan = scan.wrapping_add(hi);
            let sub = &h[i / 8 * 8..(i / 8 * 8 + 8).min(h.len())];
            let sub_sum = sub.iter().fold(0u32, |a, &b| a.wrapping_add(b));
            out.push([hi, scan, sum, xor, sub_sum]);
        }
    }
    out
}

/// Reductions of `REDUCED` values per group.
const REDUCED: usize = 8;

/// Integer reductions of every width, whose folds are plain loops the
/// compiler vectorises at the level the kernel runs at (128- to 512-bit
/// lanes): per group, in the order of `integer_widths_reference`.
#[kernel]
fn integer_widths(group: WorkGroup<1>, input: &[u32], mut out: ChunkWindow<'_, u64>) {
    memory_environment!(
        group,
        require_private_mem::<i8>(),
        require_private_mem::<u16>(),
        require_private_mem::<i32>(),
        require_private_mem::<i64>(),
        require_private_mem::<u64>(),
        |a, b, c, d, e| {
            distribute_items!(group, |idx| {
                (a[idx], b[idx], c[idx], d[idx], e[idx]) =
                    widths(mix(input[idx.global_linear_id()]));
            });
            let sums = [
                reduce_over_group(group, a, plus()) as u64,
                reduce_over_group(group, a, maximum()) as u64,
                reduce_over_group(group, b, multiplies()) as u64,
                reduce_over_group(group, c, minimum()) as u64,
                reduce_over_group(group, d, minimum()) as u64,
                reduce_over_group(group, d, plus()) as u64,
                reduce_over_group(group, e, maximum()),
                reduce_over_group(group, e, bit_or()),
            ];
            single_item!(group, || out.as_mut_slice().copy_from_slice(&sums));
        }
    );
}

fn integer_widths_reference(input: &[u32], group_size: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for group in input.chunks(group_size) {
        let w: Vec<_> = group.iter().map(|&x| widths(mix(x))).collect();
        let a = w.iter().map(|w| w.0);
        let d = w.iter().map(|w| w.3);
        let e = w.iter().map(|w| w.4);
        out.extend([
            a.clone().fold(0i8, i8::wrapping_add) as u64,
            a.max().unwrap() as u64,
            w.iter().map(|w| w.1).fold(1u16, u16::wrapping_mul) as u64,
            w.iter().map(|w| w.2).min().unwrap() as u64,
            d.clone().min().unwrap() as u64,
            d.fold(0i64, i64::wrapping_add) as u64,
            e.clone().max().unwrap(),
            e.fold(0, |x, y| x | y),
        ]);
    }
    out
}

/// An item's values of every width, from its hash `h`.
#[inline]
fn widths(h: u32) -> (i8, u16, i32, i64, u64) {
    (
        h as i8,
        (h >> 8) as u16 | 1,
        h as i32,
        (h as i64).wrapping_mul(0x1_0000_0003) - (1 << 40),
        ((h as u64) << 29) ^ u64::from(h),
    )
}

#[test]
fn integer_reductions_of_every_width_are_exact_at_every_level() {
    let (ints, _) = inputs();
    // Group sizes with and without a remainder past whole vectors.
    for group_size in [GROUP, 100, 7] {
        let groups = ints.len() / group_size;
        let input = &ints[..groups * group_size];
        let expected = integer_widths_reference(input, group_size);
        for isa in supported() {
            let mut out = vec![0u64; groups * REDUCED];
            Queue::new()
                .with_isa(isa)
                .unwrap()
                .parallel_with(
                    groups,
                    group_size,
                    ChunksMut::new(&mut out, REDUCED),
                    |g, w| integer_widths(g, input, w),
                )
                .unwrap();
            assert_eq!(out, expected, "level {isa}, groups of {group_size}");
        }
    }
}

/// The n-body interaction of body `i` with every body, written with
/// `mul_add` as the guide asks.
#[inline(always)]
fn acceleration(pos: &[[f32; 4]], i: usize) -> [f32; 3] {
    let [xi, yi, zi, _] = pos[i];
    let mut a = [0.0f32; 3];
    for &[xj, yj, zj, mj] in pos {
        let (dx, dy, dz) = (xj - xi, yj - yi, zj - zi);
        let d2 = dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, 1e-4)));
        let inv = 1.0 / d2.sqrt();
        let s = mj * inv * inv * inv;
        a = [
            dx.mul_add(s, a[0]),
            dy.mul_add(s, a[1]),
            dz.mul_add(s, a[2]),
        ];
    }
    a
}

/// Per item: its body's acceleration, and its group's sum of `x`
/// accelerations (`reduce_over_group` on `f32`, the `wide` path).
#[kernel]
fn float_kernel(group: WorkGroup<1, 8>, pos: &[[f32; 4]], mut out: ItemsWindow<'_, [f32; 4]>) {
    memory_environment!(group, require_private_mem::<f32>(), |ax| {
        distribute_groups!(group, |sub_group| {
            distribute_items!(sub_group, |idx| {
                let a = acceleration(pos, idx.global_linear_id());
                ax[idx] = a[0];
                out[idx][..3].copy_from_slice(&a);
            });
        });
        let sum = reduce_over_group(group, ax, plus());
        distribute_items!(group, |idx| out[idx][3] = sum);
    });
}

fn inputs() -> (Vec<u32>, Vec<[f32; 4]>) {
    let ints: Vec<u32> = (0..(GROUPS * GROUP) as u32).map(mix).collect();
    let unit = |x: u32| (x >> 8) as f32 / (1u32 << 24) as f32;
    let pos = ints
        .chunks(4)
        .cycle()
        .take(GROUPS * GROUP)
        .map(|c| {
            [
                unit(c[0]) * 2.0 - 1.0,
                unit(c[1]) * 2.0 - 1.0,
                unit(c[2]),
                0.5 + unit(c[3]),
            ]
        })
        .collect();
    (ints, pos)
}

fn run_integer(queue: &Queue, input: &[u32]) -> Vec<[u32; 5]> {
    let mut out = vec![[0u32; 5]; input.len()];
    queue
        .parallel_with(GROUPS, GROUP, ItemsMut::new(&mut out), |g, w| {
            integer_kernel(g, input, w)
        })
        .unwrap();
    out
}

fn run_float(queue: &Queue, pos: &[[f32; 4]]) -> Vec<[f32; 4]> {
    let mut out = vec![[f32::NAN; 4]; pos.len()];
    queue
        .parallel_with(GROUPS, GROUP, ItemsMut::new(&mut out), |g, w| {
            float_kernel(g, pos, w)
        })
        .unwrap();
    out
}

#[test]
fn integer_kernels_are_bit_exact_at_every_level() {
    let (ints, _) = inputs();
    let expected = integer_reference(&ints);
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        assert_eq!(queue.isa(), Ok(isa));
        assert_eq!(run_integer(&queue, &ints), expected, "level {isa}");
    }
}

#[test]
fn float_kernels_with_mul_add_are_bit_exact_at_every_level() {
    let (_, pos) = inputs();
    let per_item: Vec<[f32; 3]> = (0..pos.len()).map(|i| acceleration(&pos, i)).collect();
    let mut first: Option<Vec<[f32; 4]>> = None;
    for isa in supported() {
        let out = run_float(&Queue::new().with_isa(isa).unwrap(), &pos);
        for (i, (got, want)) in out.iter().zip(&per_item).enumerate() {
            let got = got[..3].iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            let want = want.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(got, want, "level {isa}, item {i}");
        }
        // The group sums combine in the `wide` order: within n·ε·Σ|x| of
        // the exact sum, and the same bits at every level.
        for (g, chunk) in per_item.chunks(GROUP).enumerate() {
            let exact: f64 = chunk.iter().map(|a| f64::from(a[0])).sum();
            let bound: f64 = chunk.iter().map(|a| f64::from(a[0]).abs()).sum::<f64>()
                * GROUP as f64
                * f64::from(f32::EPSILON);
            let got = f64::from(out[g * GROUP][3]);
            assert!(
                (got - exact).abs() <= bound,
                "level {isa}, group {g}: {got} vs {exact}"
            );
        }
        match &first {
            None => first = Some(out),
            Some(first) => {
                let bits =
                    |v: &[[f32; 4]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&out),
                    bits(first),
                    "level {isa} against {}",
                    supported()[0]
                );
            }
        }
    }
}

/// `kernel_closure!` bodies run at the launch's level as `#[kernel]`
/// bodies do, borrowing what the closure captures; a typed `_` group and
/// an early `return` keep working.
#[test]
fn kernel_closures_match_a_serial_loop_at_every_level() {
    let (ints, _) = inputs();
    let expected: Vec<u32> = ints.iter().map(|&x| mix(x)).collect();
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut out = vec![0u32; ints.len()];
        queue
            .parallel_with(
                GROUPS,
                GROUP,
                ItemsMut::new(&mut out),
                kernel_closure!(|group, mut out| {
                    distribute_items!(group, |idx| {
                        out[idx] = mix(ints[idx.global_linear_id()]);
                    });
                }),
            )
            .unwrap();
        assert_eq!(out, expected, "level {isa}");
        let hits: Vec<std::sync::atomic::AtomicUsize> =
            (0..GROUPS).map(|_| Default::default()).collect();
        queue
            .parallel(
                GROUPS,
                GROUP,
                kernel_closure!(|_: WorkGroup<1>| {
                    let before = hits[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if before >= GROUPS {
                        return;
                    }
                    hits[1].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }),
            )
            .unwrap();
        for hit in &hits[..2] {
            assert_eq!(
                hit.load(std::sync::atomic::Ordering::Relaxed),
                GROUPS,
                "level {isa}"
            );
        }
    }
}

/// A required group size, checked before the body switches level.
#[kernel(group_size = 64)]
fn hashes_64(group: WorkGroup<1>, input: &[u32], mut out: ItemsWindow<'_, u32>) {
    distribute_items!(group, |idx| out[idx] = mix(input[idx.global_linear_id()]));
}

/// A kernel with a required group size runs at every level, and is refused
/// at every level when launched with another size, no body run.
#[test]
fn required_group_sizes_hold_at_every_level() {
    assert_eq!(GROUP, 64);
    let (ints, _) = inputs();
    let expected: Vec<u32> = ints.iter().map(|&x| mix(x)).collect();
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut out = vec![0u32; ints.len()];
        queue
            .parallel_with(GROUPS, GROUP, ItemsMut::new(&mut out), |g, w| {
                hashes_64(g, &ints, w)
            })
            .unwrap();
        assert_eq!(out, expected, "level {isa}");
        let mut untouched = vec![0u32; ints.len()];
        let refused = queue
            .parallel_with(
                2 * GROUPS,
                GROUP / 2,
                ItemsMut::new(&mut untouched),
                |g, w| hashes_64(g, &ints, w),
            )
            .unwrap_err();
        assert_eq!(
            refused,
            LaunchError::GroupSize {
                required: "64".into(),
                group_size: "32".into()
            },
            "level {isa}"
        );
        assert!(untouched.iter().all(|&x| x == 0), "level {isa}");
    }
}

/// A body that declares a `static` and an `impl`: written once for all
/// levels, so every level counts in the same static.
#[kernel]
fn counted(group: WorkGroup<1>, mut out: ItemsWindow<'_, usize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static GROUPS_RUN: AtomicUsize = AtomicUsize::new(0);
    struct Marker;
    impl Marker {
        fn address() -> usize {
            &GROUPS_RUN as *const AtomicUsize as usize
        }
    }
    let before = GROUPS_RUN.fetch_add(1, Ordering::Relaxed);
    distribute_items!(
        group,
        |idx| out[idx] = if idx.local_linear_id(&group) == 0 {
            Marker::address()
        } else {
            before
        }
    );
}

/// Every level runs the same copy of a body that must exist once: the
/// address of its static is the same, and the count goes on across levels.
#[test]
fn statics_and_impls_in_a_body_exist_once_for_every_level() {
    let mut addresses = Vec::new();
    let mut runs = Vec::new();
    for isa in supported() {
        let queue = Queue::new().with_isa(isa).unwrap();
        let mut out = vec![0usize; GROUPS * GROUP];
        queue
            .parallel_with(GROUPS, GROUP, ItemsMut::new(&mut out), |g, w| counted(g, w))
            .unwrap();
        addresses.extend(out.chunks(GROUP).map(|c| c[0]));
        runs.extend(out.chunks(GROUP).map(|c| c[1]));
    }
    assert!(
        addresses.iter().all(|&a| a == addresses[0]),
        "{addresses:?}"
    );
    // Each group saw a different count before its own: one counter.
    runs.sort_unstable();
    let expected: Vec<usize> = (0..runs.len()).collect();
    assert_eq!(runs, expected);
}

#[test]
fn an_unsupported_level_is_refused_naming_what_it_lacks() {
    for isa in Isa::ALL {
        match Queue::new().with_isa(isa) {
            Ok(queue) => {
                assert!(isa.is_supported(), "{isa}");
                assert_eq!(queue.isa(), Ok(isa));
            }
            Err(error) => {
                let missing = isa.missing_features();
                assert!(!missing.is_empty(), "{isa}");
                assert_eq!(
                    error,
                    IsaError::Unsupported {
                        isa,
                        missing: missing.clone()
                    }
                );
                assert!(error.to_string().contains(missing[0]), "{error}");
            }
        }
    }
    assert!(Isa::Baseline.is_supported());
    assert!(Isa::detected().is_supported());
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        Isa::V3.is_supported(),
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    );
}

/// Run as a child process by the test below, with `SCOPED_ISA` set: prints
/// the level a launch uses, or the launch's error.
#[test]
fn child_reports_its_level() {
    let (ints, _) = inputs();
    let queue = Queue::new();
    let mut out = vec![[0u32; 5]; ints.len()];
    let launched = queue.parallel_with(GROUPS, GROUP, ItemsMut::new(&mut out), |g, w| {
        integer_kernel(g, &ints, w)
    });
    match (launched, Isa::selected()) {
        (Ok(()), Ok(isa)) => {
            assert_eq!(queue.isa(), Ok(isa));
            assert_eq!(out, integer_reference(&ints));
            println!("level={isa}");
        }
        (Err(LaunchError::Isa(error)), Err(selected)) => {
            assert_eq!(error, selected);
            println!("error={}", LaunchError::Isa(error));
        }
        (launched, selected) => panic!("launch {launched:?} with level {selected:?}"),
    }
}

/// Runs [`child_reports_its_level`] in a child process with `SCOPED_ISA`
/// set to `value`, and returns its line `level=…` or `error=…`.
fn child(value: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_reports_its_level",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ISA_ENV, value)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "SCOPED_ISA={value}: {stdout}");
    // The test harness may print the line after its own `test … ... `.
    stdout
        .lines()
        .find_map(|l| {
            ["level=", "error="]
                .iter()
                .find_map(|k| l.find(k).map(|at| &l[at..]))
        })
        .unwrap_or_else(|| panic!("SCOPED_ISA={value}: no report in {stdout}"))
        .to_string()
}

#[test]
fn scoped_isa_forces_the_level_of_every_launch() {
    for isa in Isa::ALL {
        let line = child(isa.name());
        if isa.is_supported() {
            assert_eq!(line, format!("level={isa}"));
        } else {
            assert!(
                line.starts_with(&format!(
                    "error=launch refused: instruction-set level {isa} is not supported by this \
                     CPU: it lacks "
                )),
                "{line}"
            );
        }
    }
    assert_eq!(child("V3").starts_with("level=v3"), Isa::V3.is_supported());
    assert_eq!(
        child("avx9"),
        "error=launch refused: unknown instruction-set level `avx9` (from SCOPED_ISA or \
         Queue::with_isa): use baseline, v3 or v4"
    );
}
