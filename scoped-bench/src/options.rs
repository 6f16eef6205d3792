//! The runner's command line.

use scoped::Isa;

use crate::kernels::{self, Scale};
use crate::levels;

/// What the command line asks for.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) scale: Scale,
    pub(crate) threads: Vec<usize>,
    pub(crate) kernels: Vec<String>,
    pub(crate) runs: usize,
    pub(crate) write: bool,
    pub(crate) launch: bool,
    /// The levels to measure, lowest first.
    pub(crate) isa: Vec<Isa>,
    /// Whether to compare a default build with a native one.
    pub(crate) native: bool,
    /// Whether this process is a child that measures its own build and
    /// hands its rows back (see `child`).
    pub(crate) child: bool,
    /// Whether each round runs the peer after the `scoped` runs rather
    /// than between them (`--peers-apart`, for the children that compare
    /// two builds of `scoped`; see `Measurement::round`).
    pub(crate) peers_apart: bool,
    /// Sub-group sizes to compare instead of the comparison with the
    /// peers (`--sub-group-sizes`); empty for the comparison.
    pub(crate) sub_group_sizes: Vec<usize>,
}

const USAGE: &str = "usage: cargo run --release -p scoped-bench -- [--quick] \
                     [--isa all|LEVEL[,LEVEL...]] [--threads N[,N...]] [--kernel NAME]... \
                     [--runs N] [--no-write] [--no-launch] [--no-native] \
                     [--sub-group-sizes all|S[,S...]]\n\
                     levels: baseline, v3, v4 (default: all, every level the CPU supports)";

/// Reads the command line; the error is the message to print.
pub(crate) fn options() -> Result<Options, String> {
    parse(std::env::args().skip(1), Isa::missing_features)
}

/// Reads `args`; `missing` gives the CPU features a level lacks.
fn parse(
    args: impl IntoIterator<Item = String>,
    missing: impl Fn(Isa) -> Vec<&'static str>,
) -> Result<Options, String> {
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
        isa: Vec::new(),
        native: true,
        child: false,
        peers_apart: false,
        sub_group_sizes: Vec::new(),
    };
    let mut isa = None;
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--quick" => o.scale = Scale::Quick,
            "--no-write" => o.write = false,
            "--no-launch" => o.launch = false,
            "--no-native" => o.native = false,
            "--child" => o.child = true,
            "--peers-apart" => o.peers_apart = true,
            "--isa" => isa = Some(value("--isa")?),
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
    o.isa = levels::select(isa.as_deref(), missing)?;
    if o.runs == 0 {
        o.runs = match o.scale {
            Scale::Full => 31,
            Scale::Quick | Scale::Test => 5,
        };
    }
    let names = kernels::names();
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

impl Options {
    /// The arguments of a child that measures the same kernels at the
    /// same sizes and thread counts over `runs` rounds.
    pub(crate) fn child_args(&self, runs: usize) -> Vec<String> {
        let mut args = self.child_args_but_kernels(runs);
        for k in &self.kernels {
            args.extend(["--kernel".to_string(), k.clone()]);
        }
        args
    }

    /// [`Options::child_args`] without the kernels: for children that
    /// each measure one kernel.
    pub(crate) fn child_args_but_kernels(&self, runs: usize) -> Vec<String> {
        let mut args = Vec::new();
        if self.scale == Scale::Quick {
            args.push("--quick".to_string());
        }
        let threads: Vec<String> = self.threads.iter().map(usize::to_string).collect();
        args.extend(["--threads".to_string(), threads.join(",")]);
        args.extend(["--runs".to_string(), runs.to_string()]);
        args
    }

    /// The names of the kernels to measure: those asked for, or all.
    pub(crate) fn measured_kernels(&self) -> Vec<&str> {
        if self.kernels.is_empty() {
            kernels::names()
        } else {
            self.kernels.iter().map(String::as_str).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use scoped::Isa;

    use super::parse;
    use crate::kernels::Scale;

    /// A CPU with v3 but not v4.
    fn v3_cpu(isa: Isa) -> Vec<&'static str> {
        if isa == Isa::V4 {
            vec!["avx512f"]
        } else {
            Vec::new()
        }
    }

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults_are_every_supported_level_and_the_native_comparison() {
        let o = parse(args(""), v3_cpu).expect("no arguments");
        assert_eq!(o.isa, [Isa::Baseline, Isa::V3]);
        assert!(o.native && o.write && o.launch && !o.child && !o.peers_apart);
        assert_eq!((o.scale, o.runs), (Scale::Full, 31));
    }

    #[test]
    fn every_option_is_read() {
        let o = parse(
            args("--quick --isa v3 --threads 2 --kernel triad --kernel n-body --runs 7 --no-write --no-launch --no-native --child --peers-apart"),
            v3_cpu,
        )
        .expect("valid");
        assert_eq!(
            (o.scale, o.runs, o.threads.as_slice()),
            (Scale::Quick, 7, &[2][..])
        );
        assert_eq!(o.isa, [Isa::V3]);
        assert_eq!(o.kernels, ["triad", "n-body"]);
        assert!(!o.write && !o.launch && !o.native && o.child && o.peers_apart);
    }

    #[test]
    fn a_child_gets_the_same_kernels_sizes_and_threads() {
        let o = parse(
            args("--quick --isa all --threads 1,2 --kernel triad --no-write"),
            v3_cpu,
        )
        .expect("valid");
        let child = o.child_args(3);
        assert_eq!(
            child.join(" "),
            "--quick --threads 1,2 --runs 3 --kernel triad"
        );
        let c = parse(child.into_iter().chain(["--child".into()]), v3_cpu).expect("valid");
        assert_eq!((c.scale, c.runs, &c.threads), (o.scale, 3, &o.threads));
        assert_eq!(c.kernels, o.kernels);
        assert_eq!(o.measured_kernels(), ["triad"]);
        assert_eq!(
            o.child_args_but_kernels(3).join(" "),
            "--quick --threads 1,2 --runs 3"
        );
    }

    #[test]
    fn without_kernels_asked_for_every_kernel_is_measured() {
        let o = parse(args("--quick"), v3_cpu).expect("valid");
        let every = crate::kernels::names();
        assert_eq!(o.measured_kernels(), every);
        assert!(every.contains(&"jacobi") && every.len() > 5);
    }

    #[test]
    fn bad_values_are_named() {
        let e = |text: &str| parse(args(text), v3_cpu).unwrap_err();
        assert!(e("--isa v4").contains("level v4"));
        assert!(e("--isa sse").contains("`sse`"));
        assert!(e("--isa").contains("--isa needs a value"));
        assert!(e("--threads 0").contains("`0`"));
        assert!(e("--kernel fft").contains("`fft`"));
        assert!(e("--bogus").contains("`--bogus`"));
    }
}
