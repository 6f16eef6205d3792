//! Control flow that is the same for every physical item may guard
//! collectives: loops on constants and kernel arguments around the
//! `_and_wait` forms, conditions and `match` on kernel arguments, early
//! returns and breaks on them, and reads of outer variables inside
//! `distribute_items!`.

use scoped::prelude::*;

const SIZE: usize = 16;

/// Sums each group's 16 inputs by halving, three ways; `mode` picks one.
#[kernel]
fn halving(group: WorkGroup<1>, input: &[u32], mode: u8, mut sums: ChunkWindow<'_, u32>) {
    if mode > 2 {
        return;
    }
    local_memory_environment!(group, [u32; SIZE], |scratch| {
        distribute_items_and_wait!(group, |idx| {
            scratch[idx.local_linear_id(&group)] = input[idx.global_linear_id()];
        });
        match mode {
            0 => {
                let mut stride = SIZE / 2;
                while stride > 0 {
                    distribute_items_and_wait!(group, |idx| {
                        let lid = idx.local_linear_id(&group);
                        if lid < stride {
                            scratch[lid] += scratch[lid + stride];
                        }
                    });
                    stride /= 2;
                }
            }
            1 => {
                for level in (0..SIZE.trailing_zeros()).rev() {
                    let stride = 1 << level;
                    distribute_items_and_wait!(group, |idx| {
                        let lid = idx.local_linear_id(&group);
                        if lid < stride {
                            scratch[lid] += scratch[lid + stride];
                        }
                    });
                }
            }
            _ => {
                let mut stride = SIZE;
                loop {
                    stride /= 2;
                    if stride == 0 {
                        break;
                    }
                    distribute_groups_and_wait!(group, |subgroup| {
                        distribute_items!(subgroup, |idx| {
                            let lid = idx.local_linear_id(&group);
                            if lid < stride {
                                scratch[lid] += scratch[lid + stride];
                            }
                        });
                    });
                }
            }
        }
        single_item!(group, || {
            sums[group.group_linear_id()] = scratch[0];
        });
    });
}

fn main() {
    let input: Vec<u32> = (0..64).map(|i| i * 7 % 11).collect();
    let expected: Vec<u32> = input.chunks(SIZE).map(|c| c.iter().sum()).collect();
    for mode in 0..3 {
        let mut sums = vec![0u32; 4];
        Queue::new()
            .parallel_with(4, SIZE, ChunksMut::new(&mut sums, 1), |g, window| {
                halving(g, &input, mode, window)
            })
            .unwrap();
        assert_eq!(sums, expected, "mode {mode}");
    }
    let mut untouched = vec![0u32; 4];
    Queue::new()
        .parallel_with(4, SIZE, ChunksMut::new(&mut untouched, 1), |g, window| {
            halving(g, &input, 3, window)
        })
        .unwrap();
    assert_eq!(untouched, [0; 4]);
}
