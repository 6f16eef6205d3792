//! `#[kernel(group_size = ...)]` takes one extent per dimension of the
//! kernel's `WorkGroup<D>`, each a constant `usize` of at least 1.

use scoped::prelude::*;

const NARROW: u32 = 64;

#[kernel(group_size = 0)]
fn zero(group: WorkGroup<1>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = [16, 0])]
fn zero_in_2d(group: WorkGroup<2>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = n)]
fn not_a_constant(group: WorkGroup<1>, n: usize) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = [16, NARROW])]
fn not_a_usize(group: WorkGroup<2>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = 128)]
fn one_extent_for_2d(group: WorkGroup<2>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = [16, 16])]
fn two_extents_for_1d(group: WorkGroup<1, 4>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = [2, 2, 2, 2])]
fn four_extents(group: WorkGroup<3>) {
    distribute_items!(group, |_idx| {});
}

#[kernel(group_size = 8)]
fn returns_a_value(group: WorkGroup<1>) -> usize {
    distribute_items!(group, |_idx| {});
    1
}

fn main() {}
