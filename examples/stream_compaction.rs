//! Stream compaction with group algorithms: keep the inputs above a
//! threshold, in their original order.
//!
//! One kernel does the work of each group with several group algorithms:
//! `any_of_group_by` skips groups with nothing to keep,
//! `exclusive_scan_over_group` over the items' keep flags gives each kept
//! value its place in the group's output, `reduce_over_group` counts them
//! and finds the group's largest value, and two launch reductions sum the
//! counts and take the maximum over all groups. A second launch, one work
//! group, turns the group counts into output offsets with
//! `joint_exclusive_scan`. Everything is checked against a serial run.
//!
//! `cargo run --release --example stream_compaction [-- --size N --group G --threshold T]`

use std::process::ExitCode;
use std::time::Instant;

use scoped::prelude::*;

/// Compacts the group's values above `threshold` into the front of its
/// chunk of `kept`, and records how many there are in `counts`.
#[kernel]
fn compact(
    group: WorkGroup<1>,
    input: &[f32],
    threshold: f32,
    mut kept: ChunkWindow<'_, f32>,
    mut counts: ChunkWindow<'_, u32>,
    mut total: Reducer<'_, u32, Plus>,
    mut largest: Reducer<'_, f32, Maximum>,
) {
    memory_environment!(
        group,
        require_private_mem::<f32>(),
        require_private_mem::<u32>(),
        require_private_mem::<u32>(),
        |x, keep, place| {
            distribute_items!(group, |idx| {
                x[idx] = input[idx.global_linear_id()];
                keep[idx] = u32::from(x[idx] > threshold);
            });
            // The condition is the same for every item of the group, so
            // the collectives inside it are reached by all or none.
            let count = if any_of_group_by(group, x, |&v| v > threshold) {
                exclusive_scan_over_group(group, keep, place, plus());
                let start = kept.start();
                distribute_items!(group, |idx| {
                    if keep[idx] == 1 {
                        kept[start + place[idx] as usize] = x[idx];
                    }
                });
                reduce_over_group(group, keep, plus())
            } else {
                0
            };
            let group_id = group.group_linear_id();
            single_item!(group, || counts[group_id] = count);
            total += count;
            largest.combine(reduce_over_group(group, x, maximum()));
        }
    );
}

/// Offsets of each group's kept values in the final output.
#[kernel]
fn offsets(group: WorkGroup<1>, counts: &[u32], mut offsets: ChunkWindow<'_, u32>) {
    joint_exclusive_scan(group, counts, offsets.as_mut_slice(), plus());
}

/// Deterministic inputs in [-1, 1).
fn input(size: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

struct Options {
    size: usize,
    group: usize,
    threshold: f32,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        size: 1 << 22,
        group: 256,
        threshold: 0.9,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |what: &str| format!("{flag}: `{value}` is not {what}");
        match flag.as_str() {
            "--size" => options.size = value.parse().map_err(|_| bad("a positive integer"))?,
            "--group" => options.group = value.parse().map_err(|_| bad("a positive integer"))?,
            "--threshold" => options.threshold = value.parse().map_err(|_| bad("a number"))?,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (expected --size, --group, --threshold)"
                ))
            }
        }
    }
    // `checked_rem` is `None` for a group of 0.
    if options.size == 0 || options.size.checked_rem(options.group) != Some(0) {
        return Err(format!(
            "--size {} must be a positive multiple of --group {} (which must be positive)",
            options.size, options.group
        ));
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("stream_compaction: {e}");
            return ExitCode::from(2);
        }
    };
    let (size, group, threshold) = (options.size, options.group, options.threshold);
    let groups = size / group;
    let input = input(size);
    let queue = Queue::new();

    let start = Instant::now();
    let mut kept = vec![0.0f32; size];
    let mut counts = vec![0u32; groups];
    let (mut total, mut largest) = (0u32, f32::NEG_INFINITY);
    let compacted = queue.parallel_with(
        groups,
        group,
        (
            ChunksMut::new(&mut kept, group),
            ChunksMut::new(&mut counts, 1),
            reduction(&mut total, plus()),
            reduction(&mut largest, maximum()),
        ),
        |g, (k, c, t, l)| compact(g, &input, threshold, k, c, t, l),
    );
    let mut starts = vec![0u32; groups];
    let scanned = queue.parallel_with(1, 1, ChunksMut::new(&mut starts, groups), |g, o| {
        offsets(g, &counts, o)
    });
    if let Err(e) = compacted.and(scanned) {
        eprintln!("stream_compaction: {e}");
        return ExitCode::FAILURE;
    }
    let mut output = vec![0.0f32; total as usize];
    for (g, (&offset, &count)) in starts.iter().zip(&counts).enumerate() {
        let (offset, count) = (offset as usize, count as usize);
        output[offset..offset + count].copy_from_slice(&kept[g * group..g * group + count]);
    }
    let elapsed = start.elapsed();

    let serial: Vec<f32> = input.iter().copied().filter(|&v| v > threshold).collect();
    let serial_max = input.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    println!(
        "stream_compaction: kept {} of {size} values above {threshold} in {groups} groups of \
         {group}, {:.3} ms; largest {largest}",
        output.len(),
        elapsed.as_secs_f64() * 1e3,
    );
    let mut failed = false;
    if output != serial {
        eprintln!(
            "stream_compaction: FAILED, the compacted values differ from the serial run \
             ({} vs {} values)",
            output.len(),
            serial.len()
        );
        failed = true;
    }
    if total as usize != serial.len() || largest != serial_max {
        eprintln!(
            "stream_compaction: FAILED, reductions give {total} values and maximum {largest}, \
             the serial run {} and {serial_max}",
            serial.len()
        );
        failed = true;
    }
    if failed {
        return ExitCode::FAILURE;
    }
    println!("stream_compaction: output, count and maximum match the serial run");
    ExitCode::SUCCESS
}
