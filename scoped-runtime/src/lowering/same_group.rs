//! Whether the per-item windows a `distribute_items!` body indexes with its
//! item belong to the distributed group (see the macros'
//! `lower/same_group.rs`), so that the item loop can run in a copy of
//! itself where the optimiser knows it.
//!
//! Indexing an [`ItemsWindow`] or an [`ItemsRefWindow`] by item compares
//! the item's tag with the window's: two values fixed before the loop.
//! Where the kernel is inlined into the launch's group loop, both are the
//! same value and the compare folds away. A body compiled for the baseline
//! level runs out of line (`isa.rs`), where the window is one of its
//! arguments: the compare stays in the loop, and once a store precedes it
//! (a second output) the optimiser can no longer move it out, so the loop
//! stays scalar (Black-Scholes at 3.5× its peer). Compared once before the
//! loop, [`same_group`] is a condition under which the optimiser folds
//! every compare of the loop copy it guards.
//!
//! Any other type is [`NotAWindow`]: it does not take part, and the
//! lowering never changes which programs compile.

use crate::group::ScopedGroup;
use crate::inputs::ItemsRefWindow;
use crate::outputs::ItemsWindow;
use crate::tag::GroupTag;

/// A value a body indexes with its item:
/// `(&GroupProbe(&name)).__window_tag()` is the window's tag through
/// [`WindowTag`], or `None` for anything else through [`NotAWindow`].
pub struct GroupProbe<'a, T: ?Sized>(pub &'a T);

/// Windows indexed by item, checked against the item's tag.
pub trait WindowTag {
    /// The tag of the work group the window belongs to.
    fn __window_tag(&self) -> Option<GroupTag>;
}

/// Windows as values and behind references (a group function's
/// `out: &mut ItemsWindow<..>`).
macro_rules! window_tags {
    ($($window:ty),*) => {$(
        impl<T, const D: usize> WindowTag for GroupProbe<'_, $window> {
            #[inline(always)]
            fn __window_tag(&self) -> Option<GroupTag> {
                Some(self.0.tag())
            }
        }
    )*};
}

window_tags!(
    ItemsWindow<'_, T, D>,
    &ItemsWindow<'_, T, D>,
    &mut ItemsWindow<'_, T, D>,
    ItemsRefWindow<'_, T, D>,
    &ItemsRefWindow<'_, T, D>,
    &mut ItemsRefWindow<'_, T, D>
);

/// Anything else, through one more auto-reference.
pub trait NotAWindow {
    /// `None`.
    fn __window_tag(&self) -> Option<GroupTag>;
}

impl<T: ?Sized> NotAWindow for &GroupProbe<'_, T> {
    #[inline(always)]
    fn __window_tag(&self) -> Option<GroupTag> {
        None
    }
}

/// Whether every window of `tags` belongs to `group`'s work group
/// (`None`s, not windows, do not count).
#[inline(always)]
pub fn same_group<G: ScopedGroup<D>, const D: usize, const N: usize>(
    group: &G,
    tags: [Option<GroupTag>; N],
) -> bool {
    let own = group.__tag();
    // `&` rather than `&&`: one condition, without a branch per window.
    tags.iter()
        .fold(true, |all, tag| all & tag.is_none_or(|t| t == own))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id, Range};
    use crate::launch::{LaunchArgs, LaunchShape};
    use crate::tag::LaunchTags;
    use crate::{ItemsMut, ItemsRef, WorkGroup};

    #[test]
    // The `&` of the generated code: it picks the trait.
    #[allow(clippy::needless_borrow)]
    fn windows_of_the_group_and_other_values() {
        let shape = LaunchShape::new(Range::new([2]), Range::new([4])).unwrap();
        let tags = LaunchTags::for_launch(&shape).unwrap();
        let group = |g: usize| {
            WorkGroup::<1>::new(
                Id::new([g]),
                shape.num_groups,
                shape.group_size,
                shape.global_range,
                tags.group(g),
                crate::rules::Nesting::current(),
                crate::isa::SupportedIsa::new(crate::Isa::Baseline).unwrap(),
            )
        };
        let mut data = [0.0_f32; 8];
        let read = [1_u8; 8];
        let (outputs, inputs) = (ItemsMut::new(&mut data), ItemsRef::new(&read));
        outputs.__check(&shape, 0).unwrap();
        inputs.__check(&shape, 1).unwrap();
        // SAFETY: both views were checked against `shape`, group 1 is one
        // of its groups, and only one window of each is made.
        let (window, input) = unsafe {
            (
                outputs.__for_group(Id::new([1]), &shape, tags.group(1)),
                inputs.__for_group(Id::new([1]), &shape, tags.group(1)),
            )
        };
        let other = vec![1, 2, 3];
        let (mut window, input_ref) = (window, &input);
        use super::{NotAWindow as _, WindowTag as _};
        let window_mut = &mut window;
        let probes = [
            (&GroupProbe(&window_mut)).__window_tag(),
            (&GroupProbe(&input)).__window_tag(),
            (&GroupProbe(&other)).__window_tag(),
        ];
        let by_reference = (&GroupProbe(&input_ref)).__window_tag();
        assert_eq!(probes, [Some(tags.group(1)), Some(tags.group(1)), None]);
        assert_eq!(by_reference, Some(tags.group(1)));
        assert!(same_group(&group(1), probes));
        assert!(!same_group(&group(0), probes));
        assert!(same_group(&group(0), [probes[2]]));
        assert!(same_group(&group(0), []));
    }
}
