//! Collective macros inside other macros' arguments are checked and
//! lowered too: here in `assert_eq!` and `format!`, in the group's scope.

use scoped::prelude::*;

#[kernel]
fn in_macros(group: WorkGroup<1>, mut out: ChunkWindow<'_, usize>) {
    assert_eq!(
        single_item!(group, || group.logical_local_linear_range()),
        4
    );
    let text = format!("{}", single_item!(group, || group.group_linear_id()));
    out[group.group_linear_id()] = text.parse().unwrap();
}

fn main() {
    let mut ids = vec![usize::MAX; 5];
    Queue::new()
        .parallel_with(5, 4, ChunksMut::new(&mut ids, 1), in_macros)
        .unwrap();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
}
