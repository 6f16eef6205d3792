//! The order the runner's variants run in within a round.

/// `0..n` in an order fixed by `seed`: a Fisher-Yates shuffle driven by a
/// 64-bit LCG, so every run of the runner uses the same orders.
pub(crate) fn shuffled(n: usize, seed: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in (1..n).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The high bits: an LCG's low bits repeat with short periods.
        let j = ((state >> 33) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}
