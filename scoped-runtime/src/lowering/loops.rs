//! [`GroupLoops`]: the loops over a group's items and subgroups that the
//! lowered collectives run. Each group type implements it next to its
//! fields (`group/*.rs`).

use super::interchange::ItemChunk;
use crate::group::{ScopedGroup, Sealed};
use crate::item::SItem;

/// The loops of a group of `D` dimensions. A supertrait of
/// [`ScopedGroup`] (each names the other), sealed and hidden: generated code calls it through
/// `scoped::__private`; kernels use the collective macros.
pub trait GroupLoops<const D: usize>: Sealed {
    /// The group type that `distribute_groups!` hands out for this group.
    type Subgroup: ScopedGroup<D>;

    /// Items in the one run along the fastest dimension that
    /// [`__for_each_item_chunk`](Self::__for_each_item_chunk) takes its
    /// chunks from, when the group is whole: a sub-group's `S`; 0 where a
    /// group has runs of any length (a work group's rows).
    const __WHOLE_RUN: usize = 0;

    /// Runs `f` for every logical item, in increasing linear id.
    fn __for_each_item(&self, f: impl FnMut(SItem<D>));

    /// Runs `f` for the logical items whose innermost local id is below
    /// `bound`, in increasing linear id: in `dimension` for
    /// `Some(dimension)`, as a linear id for `None`. `f` may be called for
    /// more items than that (this default calls it for all), never for
    /// fewer; callers keep their own test of the bound.
    #[inline(always)]
    fn __for_each_item_below(
        &self,
        dimension: Option<usize>,
        bound: usize,
        f: impl FnMut(SItem<D>),
    ) {
        let _ = (dimension, bound);
        self.__for_each_item(f);
    }

    /// Runs `f` once for every logical item: runs of `W` items
    /// consecutive along the fastest dimension as one
    /// [`ItemChunk::Chunk`] (in increasing linear id), the others as
    /// [`ItemChunk::Item`]. This default hands out every item alone, in
    /// increasing linear id.
    #[inline(always)]
    fn __for_each_item_chunk<const W: usize>(&self, mut f: impl FnMut(ItemChunk<W, D>)) {
        self.__for_each_item(
            #[inline(always)]
            |item| f(ItemChunk::Item(item)),
        );
    }

    /// [`__for_each_item_chunk`](Self::__for_each_item_chunk), with the
    /// chunks of a row of 2 or 4 chunks (rows of 32 or 64 items) written
    /// out rather than looped, where the group has rows (a work group).
    /// Written out, what is the same in every row (a column's boundary
    /// test in a stencil, `j == 0`) is computed once per group, not once
    /// per row and chunk: the GPU-form Jacobi (rows of 64 items,
    /// stored a row at a time) ran in 0.86× the time at v3 (AMD EPYC,
    /// 4096², one thread). Longer rows stay a loop: each copy adds code
    /// and compile time.
    #[inline(always)]
    fn __for_each_row_chunk<const W: usize>(&self, f: impl FnMut(ItemChunk<W, D>)) {
        self.__for_each_item_chunk(f);
    }

    /// [`__for_each_item_chunk`](Self::__for_each_item_chunk) for the
    /// logical items whose local id in `dimension` is `value` (an edge of
    /// the group), in increasing linear id. `f` may be called for more
    /// items than that (this default calls it for all), never for fewer;
    /// callers keep their own test of the id.
    #[inline(always)]
    fn __for_each_item_chunk_on<const W: usize>(
        &self,
        dimension: usize,
        value: usize,
        f: impl FnMut(ItemChunk<W, D>),
    ) {
        let _ = (dimension, value);
        self.__for_each_item_chunk(f);
    }

    /// Runs `f` for every subgroup, in increasing group linear id.
    fn __for_each_group(&self, f: impl FnMut(Self::Subgroup));

    /// Runs `f` for every logical item with the subgroup that holds it:
    /// `distribute_groups!` around a lone `distribute_items!` on the
    /// subgroup, as one loop over this group's items (same order).
    fn __for_each_group_item(&self, f: impl FnMut(Self::Subgroup, SItem<D>));

    /// Runs `f` for every logical item with the subgroup that holds it,
    /// subgroup by subgroup and each subgroup's items in increasing linear
    /// id: the order of `distribute_groups!` around a lone
    /// `distribute_items!` on the subgroup whose body uses its lanes. This
    /// default runs exactly that nest.
    #[inline(always)]
    fn __for_each_group_lanes(&self, mut f: impl FnMut(Self::Subgroup, SItem<D>)) {
        self.__for_each_group(
            #[inline(always)]
            |subgroup| {
                subgroup.__for_each_item(
                    #[inline(always)]
                    |item| f(subgroup, item),
                )
            },
        );
    }

    /// `distribute_groups!` whose subgroups each run `for j in iter() {
    /// distribute_items!(subgroup, |item| f(subgroup, j, item)) }`: every
    /// item meets every `j` in increasing order, once. `enter` is called
    /// for each `distribute_items!` the loop stands for (the nesting
    /// rules' check), and its value kept while that loop runs. This
    /// default runs exactly that nest.
    #[inline(always)]
    fn __for_each_group_looped<I, E>(
        &self,
        iter: impl Fn() -> I,
        enter: impl Fn() -> E,
        mut f: impl FnMut(Self::Subgroup, I::Item, SItem<D>),
    ) where
        I: IntoIterator,
        I::Item: Copy,
    {
        self.__for_each_group(
            #[inline(always)]
            |subgroup| {
                for j in iter() {
                    let _entered = enter();
                    subgroup.__for_each_item(
                        #[inline(always)]
                        |item| f(subgroup, j, item),
                    );
                }
            },
        );
    }
}
