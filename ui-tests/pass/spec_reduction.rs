//! Scoped parallelism v2, "Example code": the reduction kernel, with its
//! local and private memory, barrier, `distribute_groups!` and the halving
//! loop around `distribute_items_and_wait!`.

use scoped::prelude::*;

const GROUP_SIZE: usize = 128;

#[kernel]
fn reduce(grp: WorkGroup<1>, mut data: ItemsWindow<'_, i32>) {
    memory_environment!(
        grp,
        require_local_mem::<[i32; GROUP_SIZE]>(),
        require_private_mem::<i32>(),
        |scratch, private_mem| {
            distribute_items!(grp, |idx| {
                scratch[idx.local_id_dim(&grp, 0)] = data[idx.global_id_dim(0)];
                private_mem[idx] = scratch[idx.local_id_dim(&grp, 0)];
            });
            group_barrier(grp);
            distribute_groups!(grp, |subgroup| {
                single_item!(subgroup, || {});
            });
            let mut i = GROUP_SIZE / 2;
            while i > 0 {
                distribute_items_and_wait!(grp, |idx| {
                    let lid = idx.innermost_local_id_dim(0);
                    if lid < i {
                        scratch[lid] += scratch[lid + i];
                    }
                });
                i /= 2;
            }
            single_item!(grp, || {
                data[grp.group_id_dim(0) * GROUP_SIZE] = scratch[0];
            });
        }
    );
}

fn main() {
    let input: Vec<i32> = (0..1024).collect();
    let mut data = input.clone();
    Queue::new()
        .parallel_with(
            1024 / GROUP_SIZE,
            GROUP_SIZE,
            ItemsMut::new(&mut data),
            |g, window| reduce(g, window),
        )
        .unwrap();
    for (group, chunk) in input.chunks(GROUP_SIZE).enumerate() {
        assert_eq!(data[group * GROUP_SIZE], chunk.iter().sum::<i32>());
    }
}
