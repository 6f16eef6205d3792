//! `AtomicRef::new(place, order, scope).fetch_add(v)` (and `fetch_sub`)
//! as one expression inside `distribute_items!`: relaxed updates of local
//! memory run as plain ones, others stay atomic; the counts are the serial
//! loop's either way.

use scoped::prelude::*;

const BINS: usize = 16;

/// A histogram written the GPU way: local counts updated atomically, then
/// added to the output; `relaxed` picks the order of the local updates.
#[kernel]
fn histogram(group: WorkGroup<1>, (input, relaxed): (&[u32], bool), bins: AtomicView<'_, i64>) {
    let order = if relaxed {
        MemoryOrder::Relaxed
    } else {
        MemoryOrder::SeqCst
    };
    memory_environment!(group, require_local_mem::<[i64; BINS]>(), |counts| {
        distribute_items_and_wait!(group, |idx| {
            let mut i = idx.global_linear_id();
            while i < input.len() {
                let b = input[i] as usize % BINS;
                AtomicRef::new(&mut counts[b], order, MemoryScope::WorkGroup).fetch_add(3);
                let local = &mut counts[(b + 1) % BINS];
                AtomicRef::new(local, order, MemoryScope::WorkGroup).fetch_sub(1);
                i += idx.global_linear_range();
            }
        });
        distribute_items!(group, |idx| {
            let b = idx.local_linear_id(&group);
            if b < BINS {
                bins.at(b).fetch_add(counts[b]);
            }
        });
    });
}

#[test]
fn local_atomic_counts_are_the_serial_ones() {
    let input: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let mut want = [0i64; BINS];
    for &x in &input {
        let b = x as usize % BINS;
        want[b] += 3;
        want[(b + 1) % BINS] -= 1;
    }
    for relaxed in [true, false] {
        let mut got = [0i64; BINS];
        let bins = AtomicView::new(&mut got, MemoryOrder::Relaxed, MemoryScope::Device);
        Queue::with_threads(2)
            .unwrap()
            .parallel(6, 20, |g| histogram(g, (&input, relaxed), bins))
            .unwrap();
        assert_eq!(got, want, "relaxed {relaxed}");
    }
}
