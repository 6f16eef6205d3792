//! Kernel 8, Black-Scholes: the call and put prices of 2^22 European
//! options, `f32`, in SYCL-Bench's form (one item per option; the stock
//! price, strike and time to expiry as inputs read at the item's global
//! id; the rate and volatility as scalars).
//!
//! * `scoped`, slices: the accessors ported as plain `&[f32]` parameters
//!   read at `idx.global_linear_id()`; the lowering checks each slice once
//!   per item loop, so the loop vectorises;
//! * `scoped`, `ItemsRef`: the inputs as `ItemsRef`, checked at launch;
//! * peer: `par_chunks_mut` over both outputs, zipped with the inputs'
//!   chunks, a plain loop per chunk.
//!
//! `exp` and `ln` are the same branch-free polynomials on every side: the
//! standard library's call `libm` one element at a time, which no side
//! could vectorise. Every side computes the same operations, so the
//! results are bit-identical to the serial reference.

use rayon::prelude::*;
use scoped::prelude::*;

use super::{check_equal, floats, Kernel, Scale, Work};

pub(crate) const NAME: &str = "black-scholes";
const GROUP_SIZE: usize = 256;
const RATE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;
/// Floating-point operations per option, counted in [`prices`] (`exp`
/// and `ln` as their polynomials, a division or square root as one).
const FLOPS_PER_OPTION: f64 = 130.0;

/// `e^x` for `x` in about `[-87, 88]`: `2^n · p(r)` with `x = n ln 2 + r`.
#[inline(always)]
fn exp(x: f32) -> f32 {
    // 1.5 · 2^23: adding it rounds to an integer held in the low bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    // ln 2 in two parts, so that `r` keeps its low bits.
    let r = x - n * 0.693_145_75 - n * 1.428_606_8e-6;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (0.166_666_67
                    + r * (0.041_666_668 + r * (0.008_333_334 + r * 0.001_388_889)))));
    // `n` from the bits rather than by `as i32`, whose saturation stays
    // scalar.
    let n = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    p * f32::from_bits(n.wrapping_add(127) << 23)
}

/// `ln x` for positive, normal `x`: `e ln 2 + 2 atanh(s)` with
/// `x = 2^e m`, `m` in `[√½, √2)` and `s = (m - 1) / (m + 1)`.
#[inline(always)]
fn ln(x: f32) -> f32 {
    let bits = x.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 127;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    let big = m > std::f32::consts::SQRT_2;
    m = if big { m * 0.5 } else { m };
    e += i32::from(big);
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let atanh = s * (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0)))));
    e as f32 * std::f32::consts::LN_2 + 2.0 * atanh
}

/// The cumulative normal distribution (Abramowitz and Stegun 26.2.17).
#[inline(always)]
fn cnd(d: f32) -> f32 {
    const A: [f32; 5] = [
        0.319_381_54,
        -0.356_563_78,
        1.781_477_9,
        -1.821_256,
        1.330_274_5,
    ];
    const RSQRT_2PI: f32 = 0.398_942_3;
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let poly = k * (A[0] + k * (A[1] + k * (A[2] + k * (A[3] + k * A[4]))));
    let cnd = RSQRT_2PI * exp(-0.5 * d * d) * poly;
    if d > 0.0 {
        1.0 - cnd
    } else {
        cnd
    }
}

/// The call and put prices of one option.
#[inline(always)]
fn prices(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f32, f32) {
    let sqrt_t = t.sqrt();
    let d1 = (ln(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (cnd1, cnd2) = (cnd(d1), cnd(d2));
    let discounted = x * exp(-r * t);
    (
        s * cnd1 - discounted * cnd2,
        discounted * (1.0 - cnd2) - s * (1.0 - cnd1),
    )
}

/// Both outputs, one element per item.
type Outputs<'a> = (ItemsWindow<'a, f32>, ItemsWindow<'a, f32>);

#[kernel]
#[allow(clippy::too_many_arguments)]
fn black_scholes_slices(
    group: WorkGroup<1>,
    stock: &[f32],
    strike: &[f32],
    years: &[f32],
    rate: f32,
    volatility: f32,
    (mut call, mut put): Outputs<'_>,
) {
    distribute_items!(group, |idx| {
        let gid = idx.global_linear_id();
        let (c, p) = prices(stock[gid], strike[gid], years[gid], rate, volatility);
        call[idx] = c;
        put[idx] = p;
    });
}

/// The inputs, one element per item.
type Inputs<'a> = (
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
    ItemsRefWindow<'a, f32>,
);

#[kernel]
fn black_scholes_items_ref(
    group: WorkGroup<1>,
    (stock, strike, years): Inputs<'_>,
    rate: f32,
    volatility: f32,
    (mut call, mut put): Outputs<'_>,
) {
    distribute_items!(group, |idx| {
        let (c, p) = prices(stock[idx], strike[idx], years[idx], rate, volatility);
        call[idx] = c;
        put[idx] = p;
    });
}

/// The hand-written peer.
fn black_scholes_peer(call: &mut [f32], put: &mut [f32], inputs: [&[f32]; 3]) {
    let [stock, strike, years] = inputs;
    call.par_chunks_mut(GROUP_SIZE)
        .zip(put.par_chunks_mut(GROUP_SIZE))
        .zip(stock.par_chunks(GROUP_SIZE))
        .zip(strike.par_chunks(GROUP_SIZE))
        .zip(years.par_chunks(GROUP_SIZE))
        .for_each(|((((call, put), stock), strike), years)| {
            for ((((c, p), &s), &x), &t) in
                call.iter_mut().zip(put).zip(stock).zip(strike).zip(years)
            {
                (*c, *p) = prices(s, x, t, RATE, VOLATILITY);
            }
        });
}

pub(crate) struct BlackScholes {
    stock: Vec<f32>,
    strike: Vec<f32>,
    years: Vec<f32>,
    /// Written by every version (see [`Kernel`]).
    call: Vec<f32>,
    put: Vec<f32>,
    reference: (Vec<f32>, Vec<f32>),
}

impl BlackScholes {
    pub(crate) fn new(scale: Scale) -> Self {
        let n = match scale {
            Scale::Full => 1 << 22,
            Scale::Quick => 1 << 20,
            Scale::Test => 1 << 12,
        };
        let stock = floats(n, 5.0, 30.0, 11);
        let strike = floats(n, 1.0, 100.0, 12);
        let years = floats(n, 0.25, 10.0, 13);
        let reference = stock
            .iter()
            .zip(&strike)
            .zip(&years)
            .map(|((&s, &x), &t)| prices(s, x, t, RATE, VOLATILITY))
            .unzip();
        Self {
            call: vec![0.0; n],
            put: vec![0.0; n],
            stock,
            strike,
            years,
            reference,
        }
    }

    /// Number of options.
    pub(crate) fn len(&self) -> usize {
        self.stock.len()
    }
}

impl Kernel for BlackScholes {
    fn name(&self) -> &'static str {
        NAME
    }

    fn size(&self) -> String {
        format!("2^{} options", self.len().ilog2())
    }

    fn work(&self) -> Work {
        Work::Flops(FLOPS_PER_OPTION * self.len() as f64)
    }

    fn variants(&self) -> &'static [&'static str] {
        &["slices", "ItemsRef"]
    }

    fn run_scoped(&mut self, queue: &Queue, variant: usize) {
        let groups = self.len() / GROUP_SIZE;
        let outputs = (ItemsMut::new(&mut self.call), ItemsMut::new(&mut self.put));
        let (stock, strike, years) = (&self.stock[..], &self.strike[..], &self.years[..]);
        let launched = match variant {
            0 => queue.parallel_with(groups, GROUP_SIZE, outputs, |g, out| {
                black_scholes_slices(g, stock, strike, years, RATE, VOLATILITY, out)
            }),
            _ => {
                let inputs = (
                    ItemsRef::new(stock),
                    ItemsRef::new(strike),
                    ItemsRef::new(years),
                );
                queue.parallel_with(groups, GROUP_SIZE, (inputs, outputs), |g, (i, o)| {
                    black_scholes_items_ref(g, i, RATE, VOLATILITY, o)
                })
            }
        };
        launched.expect("black-scholes launch");
    }

    fn run_peer(&mut self) {
        black_scholes_peer(
            &mut self.call,
            &mut self.put,
            [&self.stock, &self.strike, &self.years],
        );
    }

    fn clear(&mut self) {
        // NaN never equals a result.
        self.call.fill(f32::NAN);
        self.put.fill(f32::NAN);
    }

    fn check(&self) -> Result<(), String> {
        check_equal("call", &self.call, &self.reference.0)?;
        check_equal("put", &self.put, &self.reference.1)
    }
}

#[cfg(test)]
mod tests {
    use super::{exp, ln, prices};

    #[test]
    fn exp_and_ln_match_the_standard_library() {
        for i in -400..400 {
            let x = i as f32 * 0.21;
            let (got, want) = (exp(x), x.exp());
            assert!(
                (got - want).abs() <= 4e-7 * want,
                "exp({x}) = {got}, std {want}"
            );
        }
        for i in 1..2000 {
            let x = i as f32 * 0.173;
            let (got, want) = (ln(x), x.ln());
            assert!(
                (got - want).abs() <= 4e-7 * want.abs().max(1.0),
                "ln({x}) = {got}, std {want}"
            );
        }
    }

    #[test]
    fn prices_match_a_worked_example() {
        // Hull, Options, Futures and Other Derivatives, example 15.6:
        // S = 42, K = 40, r = 10%, σ = 20%, T = 0.5: c = 4.76, p = 0.81.
        let (call, put) = prices(42.0, 40.0, 0.5, 0.1, 0.2);
        assert!((call - 4.76).abs() < 5e-3, "call {call}");
        assert!((put - 0.81).abs() < 5e-3, "put {put}");
    }
}
