//! `#[kernel]` goes on functions only.

use scoped::prelude::*;

#[kernel]
struct NotAKernel {
    size: usize,
}

fn main() {
    let _ = NotAKernel { size: 1 }.size;
}
