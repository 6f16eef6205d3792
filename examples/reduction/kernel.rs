//! The reduction kernel of the scoped-parallelism spec (scoped
//! parallelism v2, "Example code"): each work group of `GROUP_SIZE` items
//! loads its items into local memory, halves the active range with
//! `distribute_items_and_wait!` until one value is left, and writes that
//! sum over its first element, as the spec's kernel does with its
//! read-write buffer. The other elements are left unchanged.
//!
//! The one copy of the kernel: `examples/reduction.rs` runs it and
//! `tests/test_spec_reduction.rs` tests it.

use scoped::prelude::*;

/// Items per work group; the kernel panics for any other group size.
pub(crate) const GROUP_SIZE: usize = 128;

/// Leaves the sum of each group's items in the group's first element.
#[kernel]
pub(crate) fn reduce(grp: WorkGroup<1>, mut data: ItemsWindow<'_, i32>) {
    // The local scratch holds one value per item: the kernel needs groups
    // of exactly GROUP_SIZE items. Stating it also lets the compiler see
    // constant trip counts in the item loops.
    assert_eq!(grp.logical_local_range_dim(0), GROUP_SIZE);
    memory_environment!(
        grp,
        require_local_mem::<[i32; GROUP_SIZE]>(),
        // Requested only to show private memory, as in the spec.
        require_private_mem::<i32>(),
        |scratch, private_mem| {
            distribute_items!(grp, |idx| {
                scratch[idx.local_id_dim(&grp, 0)] = data[idx.global_id_dim(0)];
                private_mem[idx] = scratch[idx.local_id_dim(&grp, 0)];
            });
            // Instead of an explicit group_barrier, distribute_items_and_wait! would do.
            group_barrier(grp);

            // Code for a single item of each sub-group:
            distribute_groups!(grp, |subgroup| {
                single_item!(subgroup, || {});
            });

            // `i` lives in the physical item's private memory: read, not
            // written, inside distribute_items!.
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
