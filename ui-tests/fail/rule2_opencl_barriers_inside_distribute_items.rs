//! The OpenCL C++ barriers are collectives (nesting rule 2): none of them
//! may be called inside `distribute_items!`, nor a named barrier made or
//! waited on there, nor run-time-sized local memory requested there.

use scoped::prelude::*;

#[kernel]
fn not_okay(group: WorkGroup<1>, n: usize) {
    let named = work_group_named_barrier(group, 1);
    distribute_items!(group, |_idx| {
        work_group_barrier(group, MemFence::LOCAL);
        work_group_barrier_with_scope(group, MemFence::GLOBAL, MemoryScope::Device);
        let _ = work_group_named_barrier(group, 1);
        named.wait(MemFence::LOCAL);
        named.wait_with_scope(MemFence::GLOBAL, MemoryScope::Device);
        memory_environment!(group, require_local_mem_slice::<f32>(n), |_tile| {});
    });
    distribute_groups!(group, |sg| {
        distribute_items!(sg, |_idx| sub_group_barrier(sg, MemFence::LOCAL));
    });
}

fn main() {}
