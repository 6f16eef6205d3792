//! Launch arguments come in tuples of up to twelve; a thirteenth needs a
//! nested tuple, and the error says so.

use scoped::prelude::*;

fn main() {
    let mut v: Vec<Vec<u8>> = (0..13).map(|_| vec![0; 4]).collect();
    let mut it = v.iter_mut().map(|v| ItemsMut::new(v));
    let mut n = || it.next().unwrap();
    let args = (n(), n(), n(), n(), n(), n(), n(), n(), n(), n(), n(), n(), n());
    Queue::new()
        .parallel_with(1, 4, args, |_g: WorkGroup<1>, _| {})
        .unwrap();
}
