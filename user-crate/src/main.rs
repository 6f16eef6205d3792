//! All-pairs n-body accelerations written GPU-style with `scoped`, built
//! with default flags: the launch picks the CPU's instruction-set level at
//! run time (AVX2 and FMA at x86-64-v3, AVX-512 at v4).
//!
//! Each logical item is one body `i`. Every sub-group of 8 items walks all
//! bodies `j`, one `distribute_items!` per `j`, adding into private memory:
//! the item loop of a full sub-group is one vector instruction per
//! operation, body `j` broadcast to the lanes. Written with `mul_add`, so
//! that each multiply-add is one FMA instruction where the CPU has it.
//!
//! `cargo run --release [-- --bodies N --runs R --all-levels]` prints the
//! median time of a launch, its GFLOP/s (20 flops per interaction) and the
//! level it ran at; `--all-levels` times every level the CPU has.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use scoped::prelude::*;
use scoped::Isa;

const GROUP_SIZE: usize = 256;
const SUB_GROUP: usize = 8;
const SOFTENING_SQUARED: f32 = 1e-6;

/// The contribution of a body at `(xj, yj, zj)` of mass `mj` to the
/// acceleration `a` of a body at `(xi, yi, zi)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn interact(
    a: [f32; 3],
    xi: f32,
    yi: f32,
    zi: f32,
    xj: f32,
    yj: f32,
    zj: f32,
    mj: f32,
) -> [f32; 3] {
    let (dx, dy, dz) = (xj - xi, yj - yi, zj - zi);
    let d2 = dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, SOFTENING_SQUARED)));
    let inv = 1.0 / d2.sqrt();
    let s = mj * (inv * inv * inv);
    [
        dx.mul_add(s, a[0]),
        dy.mul_add(s, a[1]),
        dz.mul_add(s, a[2]),
    ]
}

type Bodies<'a> = (
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
);
type Accelerations<'a> = (
    ItemsWindow<'a, f32>,
    ItemsWindow<'a, f32>,
    ItemsWindow<'a, f32>,
);

#[kernel]
fn nbody(
    group: WorkGroup<1, SUB_GROUP>,
    ((x, y, z, m), (mut ax, mut ay, mut az)): (Bodies<'_>, Accelerations<'_>),
) {
    let (xs, ys, zs, ms) = (x.as_slice(), y.as_slice(), z.as_slice(), m.as_slice());
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        require_private_mem::<f32>(),
        |sx, sy, sz| {
            distribute_groups!(group, |sub_group| {
                for j in 0..xs.len() {
                    let (xj, yj, zj, mj) = (xs[j], ys[j], zs[j], ms[j]);
                    distribute_items!(sub_group, |idx| {
                        [sx[idx], sy[idx], sz[idx]] = interact(
                            [sx[idx], sy[idx], sz[idx]],
                            x[idx],
                            y[idx],
                            z[idx],
                            xj,
                            yj,
                            zj,
                            mj,
                        );
                    });
                }
            });
            distribute_items!(group, |idx| {
                [ax[idx], ay[idx], az[idx]] = [sx[idx], sy[idx], sz[idx]];
            });
        }
    );
}

/// Deterministic values in `lo..hi`.
fn values(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9e37_79b9) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            lo + (hi - lo) * (state >> 8) as f32 / (1u32 << 24) as f32
        })
        .collect()
}

struct Options {
    bodies: usize,
    runs: usize,
    all_levels: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        bodies: 8192,
        runs: 9,
        all_levels: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            let text = args.next().ok_or_else(|| format!("{name} needs a value"))?;
            text.parse()
                .map_err(|_| format!("{name}: `{text}` is not a non-negative integer"))
        };
        match flag.as_str() {
            "--bodies" => o.bodies = value("--bodies")?,
            "--runs" => o.runs = value("--runs")?.max(1),
            "--all-levels" => o.all_levels = true,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (expected --bodies, --runs, --all-levels)"
                ))
            }
        }
    }
    if o.bodies == 0 || !o.bodies.is_multiple_of(GROUP_SIZE) {
        return Err(format!(
            "--bodies {} must be a positive multiple of {GROUP_SIZE}",
            o.bodies
        ));
    }
    Ok(o)
}

/// Runs the kernel `runs` times on `queue` after a warm-up; returns the
/// median time and the accelerations.
fn time(queue: &Queue, body: &[Vec<f32>; 4], runs: usize) -> (Duration, [Vec<f32>; 3]) {
    let n = body[0].len();
    let mut acc = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
    let mut times = Vec::new();
    for _ in 0..=runs {
        let [ax, ay, az] = &mut acc;
        let args = (
            (
                ItemsRef::new(&body[0]),
                ItemsRef::new(&body[1]),
                ItemsRef::new(&body[2]),
                ItemsRef::new(&body[3]),
            ),
            (ItemsMut::new(ax), ItemsMut::new(ay), ItemsMut::new(az)),
        );
        let start = Instant::now();
        queue
            .parallel_with(n / GROUP_SIZE, GROUP_SIZE, args, nbody)
            .expect("n-body launch");
        times.push(start.elapsed());
    }
    times.remove(0);
    times.sort();
    (times[times.len() / 2], acc)
}

/// Checks every 97th body against a serial loop of the same operations
/// in the same order: the results are identical.
fn check(body: &[Vec<f32>; 4], acc: &[Vec<f32>; 3]) -> Result<(), String> {
    let [x, y, z, m] = body;
    for i in (0..x.len()).step_by(97) {
        let mut a = [0.0f32; 3];
        for j in 0..x.len() {
            a = interact(a, x[i], y[i], z[i], x[j], y[j], z[j], m[j]);
        }
        let got = [acc[0][i], acc[1][i], acc[2][i]];
        if got != a {
            return Err(format!("body {i}: got {got:?}, expected {a:?}"));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let n = o.bodies;
    let body = [
        values(n, 1, -1.0, 1.0),
        values(n, 2, -1.0, 1.0),
        values(n, 3, -1.0, 1.0),
        values(n, 4, 0.5, 1.0),
    ];
    let queue = Queue::new();
    let levels = if o.all_levels {
        Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
    } else {
        match queue.isa() {
            Ok(isa) => vec![isa],
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let flops = 20.0 * (n as f64).powi(2);
    for isa in levels {
        let queue = queue.clone().with_isa(isa).expect("a supported level");
        let (median, acc) = time(&queue, &body, o.runs);
        if let Err(e) = check(&body, &acc) {
            eprintln!("level {isa}: wrong result: {e}");
            return ExitCode::FAILURE;
        }
        println!(
            "n-body, {n} bodies, {} threads, level {isa}: {:.3} ms (median of {}), {:.1} GFLOP/s",
            queue.num_threads(),
            median.as_secs_f64() * 1e3,
            o.runs,
            flops / median.as_secs_f64() / 1e9,
        );
    }
    ExitCode::SUCCESS
}
