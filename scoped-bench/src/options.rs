//! The runner's command line.

use crate::kernels::{self, Scale};

/// What the command line asks for.
pub(crate) struct Options {
    pub(crate) scale: Scale,
    pub(crate) threads: Vec<usize>,
    pub(crate) kernels: Vec<String>,
    pub(crate) runs: usize,
    pub(crate) write: bool,
    pub(crate) launch: bool,
    /// Sub-group sizes to compare instead of the comparison with the
    /// peers (`--sub-group-sizes`); empty for the comparison.
    pub(crate) sub_group_sizes: Vec<usize>,
}

const USAGE: &str = "usage: cargo run --release -p scoped-bench -- [--quick] \
                     [--threads N[,N...]] [--kernel NAME]... [--runs N] [--no-write] [--no-launch] \
                     [--sub-group-sizes all|S[,S...]]";

/// Reads the command line; the error is the message to print.
pub(crate) fn options() -> Result<Options, String> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1, all];
    threads.dedup();
    let mut o = Options {
        scale: Scale::Full,
        threads,
        kernels: Vec::new(),
        runs: 0,
        write: true,
        launch: true,
        sub_group_sizes: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--quick" => o.scale = Scale::Quick,
            "--no-write" => o.write = false,
            "--no-launch" => o.launch = false,
            "--threads" => {
                let text = value("--threads")?;
                o.threads = text
                    .split(',')
                    .map(|t| match t.parse::<usize>() {
                        Ok(n) if n > 0 => Ok(n),
                        _ => Err(format!("--threads: `{t}` is not a positive integer")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--kernel" => o.kernels.push(value("--kernel")?),
            "--sub-group-sizes" => {
                let text = value("--sub-group-sizes")?;
                o.sub_group_sizes = if text == "all" {
                    kernels::SIZES.to_vec()
                } else {
                    text.split(',')
                        .map(|t| match t.parse::<usize>() {
                            Ok(n) if kernels::SIZES.contains(&n) => Ok(n),
                            _ => Err(format!(
                                "--sub-group-sizes: `{t}` is not one of {:?}",
                                kernels::SIZES
                            )),
                        })
                        .collect::<Result<_, _>>()?
                };
            }
            "--runs" => {
                let text = value("--runs")?;
                o.runs = match text.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--runs: `{text}` is not a positive integer")),
                };
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if o.runs == 0 {
        o.runs = match o.scale {
            Scale::Full => 31,
            Scale::Quick | Scale::Test => 5,
        };
    }
    let names: Vec<&str> = kernels::all().iter().map(|e| e.name).collect();
    for k in &o.kernels {
        if !names.contains(&k.as_str()) {
            return Err(format!(
                "--kernel: no kernel named `{k}` (kernels: {})",
                names.join(", ")
            ));
        }
    }
    Ok(o)
}
