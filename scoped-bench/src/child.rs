//! What a child run hands back to the runner that started it: its build
//! and its rows, as lines of tab-separated fields on its standard output.
//!
//! ```text
//! scoped-bench-child 1
//! build <rustflags> <target features, comma-separated> <level run> <sub-group size>
//! row <kernel> <variant> <size> <threads> <scoped ns> <peer ns> <work> <ratio> <twin ratio> <first variant> <ratio to it> <first again>
//! ```
//!
//! (fields separated by tabs).
//! `work` is `bytes:READ:WRITTEN:LARGEST` or `flops:N`; an absent value is
//! `-`. Numbers are written as Rust prints them, which reads back exactly.

use std::fmt::Write as _;
use std::time::Duration;

use crate::machine::Build;
use crate::results::{AgainstFirst, Row};
use crate::units::Work;

const MAGIC: &str = "scoped-bench-child 1";

/// A child's build and rows.
#[derive(Debug)]
pub(crate) struct ChildRun {
    pub(crate) build: Build,
    pub(crate) rows: Vec<Row>,
}

/// `build` and `rows` in the protocol.
pub(crate) fn format(build: &Build, rows: &[Row]) -> String {
    let mut s = format!("{MAGIC}\n");
    let _ = writeln!(
        s,
        "build\t{}\t{}\t{}\t{}",
        build.rustflags,
        build.target_features.join(","),
        build.isa,
        build.sub_group_size
    );
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
    for r in rows {
        let work = match r.work {
            Work::Bytes {
                read,
                written,
                largest_array,
            } => format!("bytes:{read}:{written}:{largest_array}"),
            Work::Flops(f) => format!("flops:{f}"),
        };
        let (first, first_ratio, first_again) = match r.against_first {
            Some(a) => (a.first, Some(a.ratio), a.first_again),
            None => ("-", None, None),
        };
        let _ = writeln!(
            s,
            "row\t{}\t{}\t{}\t{}\t{}\t{}\t{work}\t{}\t{}\t{first}\t{}\t{}",
            r.kernel,
            r.variant,
            r.size,
            r.threads,
            r.scoped.as_nanos(),
            r.peer.as_nanos(),
            r.ratio,
            opt(r.twin_ratio),
            opt(first_ratio),
            opt(first_again),
        );
    }
    s
}

/// Reads what [`format()`] wrote; the error names the line.
pub(crate) fn parse(text: &str) -> Result<ChildRun, String> {
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(format!("the child's output does not begin with `{MAGIC}`"));
    }
    let mut build = None;
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate() {
        let bad = |what: &str| format!("child output line {}: {what}: `{line}`", n + 2);
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["build", flags, features, isa, sub_group_size] => {
                build = Some(Build {
                    rustflags: flags.to_string(),
                    target_features: features
                        .split(',')
                        .filter(|f| !f.is_empty())
                        .map(String::from)
                        .collect(),
                    isa: isa.to_string(),
                    sub_group_size: sub_group_size.parse().map_err(|_| bad("sub-group size"))?,
                });
            }
            ["row", kernel, variant, size, threads, scoped, peer, work, ratio, twin, first, first_ratio, first_again] =>
            {
                let num = |text: &str, what: &str| text.parse::<f64>().map_err(|_| bad(what));
                let opt = |text: &str, what: &str| match text {
                    "-" => Ok(None),
                    t => num(t, what).map(Some),
                };
                let nanos = |text: &str, what: &str| {
                    text.parse::<u64>()
                        .map(Duration::from_nanos)
                        .map_err(|_| bad(what))
                };
                let work = match work.split(':').collect::<Vec<_>>().as_slice() {
                    ["bytes", read, written, largest] => Work::Bytes {
                        read: num(read, "work")?,
                        written: num(written, "work")?,
                        largest_array: num(largest, "work")?,
                    },
                    ["flops", f] => Work::Flops(num(f, "work")?),
                    _ => return Err(bad("work")),
                };
                let against_first = match (*first, opt(first_ratio, "first ratio")?) {
                    ("-", None) => None,
                    (first, Some(ratio)) => Some(AgainstFirst {
                        first: intern(first),
                        ratio,
                        first_again: opt(first_again, "first again")?,
                    }),
                    _ => return Err(bad("first variant")),
                };
                rows.push(Row {
                    kernel: intern(kernel),
                    variant: intern(variant),
                    size: size.to_string(),
                    threads: threads.parse().map_err(|_| bad("threads"))?,
                    scoped: nanos(scoped, "scoped time")?,
                    peer: nanos(peer, "peer time")?,
                    work,
                    ratio: num(ratio, "ratio")?,
                    twin_ratio: opt(twin, "twin ratio")?,
                    against_first,
                });
            }
            _ => return Err(bad("unknown line")),
        }
    }
    let build = build.ok_or("the child's output has no build line")?;
    Ok(ChildRun { build, rows })
}

/// A kernel's or a variant's name as rows hold them. Names are few (a
/// few dozen per run) and the report lives until the process ends, so
/// leaking them costs nothing.
fn intern(name: &str) -> &'static str {
    Box::leak(name.to_string().into_boxed_str())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{format, parse};
    use crate::machine::Build;
    use crate::results::{AgainstFirst, Row};
    use crate::units::Work;

    fn build() -> Build {
        Build {
            rustflags: "-C target-cpu=x86-64-v3".into(),
            target_features: vec!["avx2".into(), "fma".into()],
            isa: "v3".into(),
            sub_group_size: 8,
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            Row {
                kernel: "triad",
                variant: "flat",
                size: "2^25 f32".into(),
                threads: 2,
                scoped: Duration::from_nanos(15_020_123),
                peer: Duration::from_nanos(15_064_999),
                work: Work::Bytes {
                    read: 268_435_456.0,
                    written: 134_217_728.0,
                    largest_array: 134_217_728.0,
                },
                ratio: 0.1 + 0.2,
                twin_ratio: None,
                against_first: None,
            },
            Row {
                kernel: "n-body",
                variant: "sub-groups",
                size: "16384 bodies".into(),
                threads: 1,
                scoped: Duration::from_nanos(120_168_001),
                peer: Duration::from_nanos(115_331_000),
                work: Work::Flops(5.368_709_12e9),
                ratio: 1.044,
                twin_ratio: Some(1.0 / 3.0),
                against_first: Some(AgainstFirst {
                    first: "tiled",
                    ratio: 0.996,
                    first_again: Some(1.003),
                }),
            },
        ]
    }

    #[test]
    fn rows_and_build_read_back_exactly() {
        let run = parse(&format(&build(), &rows())).expect("well-formed");
        assert_eq!(run.build, build());
        assert_eq!(run.rows.len(), 2);
        for (got, want) in run.rows.iter().zip(&rows()) {
            assert_eq!((got.kernel, got.variant), (want.kernel, want.variant));
            assert_eq!((&got.size, got.threads), (&want.size, want.threads));
            assert_eq!((got.scoped, got.peer), (want.scoped, want.peer));
            assert_eq!(format!("{:?}", got.work), format!("{:?}", want.work));
            assert_eq!(got.ratio.to_bits(), want.ratio.to_bits());
            assert_eq!(got.twin_ratio, want.twin_ratio);
            let first = |r: &Row| r.against_first.map(|a| (a.first, a.ratio, a.first_again));
            assert_eq!(first(got), first(want));
        }
    }

    #[test]
    fn an_empty_run_has_its_build() {
        let mut b = build();
        b.rustflags.clear();
        b.target_features.clear();
        let run = parse(&format(&b, &[])).expect("well-formed");
        assert_eq!(run.build, b);
        assert!(run.rows.is_empty());
    }

    #[test]
    fn malformed_output_is_refused_naming_the_line() {
        assert!(parse("").is_err());
        assert!(parse("hello\n").unwrap_err().contains("does not begin"));
        let text = format(&build(), &rows());
        assert!(parse(text.lines().next().unwrap())
            .unwrap_err()
            .contains("no build line"));
        let broken = text.replace("flops:", "flop:");
        assert!(
            parse(&broken).unwrap_err().contains("line 4: work"),
            "{}",
            parse(&broken).unwrap_err()
        );
        let broken = text.replace("\t2\t", "\ttwo\t");
        assert!(parse(&broken).unwrap_err().contains("threads"));
    }
}
