//! Which runtime loop runs the chunks (narrow steps, or wide steps and
//! pairs of them where the loop carries at most one value per item), and
//! the trip count below which the plain loop runs instead.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::shape::Shape;
use crate::lower::lane_check::Indexed;
use crate::parse::Invocation;

impl Shape<'_> {
    pub(super) fn lower(
        &self,
        inv: &Invocation,
        group: &Expr,
        indexed: &[Indexed],
    ) -> Option<TokenStream> {
        let span = inv.name.span();
        let mixed = Span::mixed_site();
        let chunk = format_ident!("__scoped_chunk", span = mixed);
        let handle = format_ident!("__scoped_chunk_lanes", span = mixed);
        let narrow = quote!(::scoped::__private::INTERCHANGE_LANES);
        let narrow_arm = self.chunk_arm(inv, indexed, &narrow, None)?;
        let item = self.item;
        let plain = &inv.closure.body;
        let plain_call = crate::lower::closure::call(inv, group);
        let expr = &self.looped.expr;
        // Wide steps where the loop carries at most one value per item
        // (`INTERCHANGE_WIDE_LANES`); more carried values are chains
        // enough. Values only read are loaded as whole vectors
        // (`held_lanes`), however many.
        let carried = self.in_loop.iter().filter(|(_, mutable)| *mutable).count();
        let call = if carried <= 1 {
            let wide = quote!(::scoped::__private::INTERCHANGE_WIDE_LANES);
            let wide_arm = self.chunk_arm(inv, indexed, &wide, None)?;
            // Two wide steps together, unless the lanes' reads are checked
            // (the checks fold the lanes of one step).
            let pair = quote!({ 2 * ::scoped::__private::INTERCHANGE_WIDE_LANES });
            let pair_arm = self.chunk_arm(inv, indexed, &pair, Some(&wide));
            let pairs = pair_arm.is_some();
            let pair_arm = match pair_arm {
                Some(arm) => quote!(::scoped::__private::WideItemChunk::Pair(#handle) => #arm),
                None => {
                    quote!(::scoped::__private::WideItemChunk::Pair(_) => ::core::unreachable!(),)
                }
            };
            let function = format_ident!("distribute_items_interchanged_wide", span = span);
            quote_spanned! {span=>
                ::scoped::__private::#function::<{ #narrow }, { #wide }, #pairs, _, _>(
                    &#group,
                    #[inline(always)]
                    |#chunk| match #chunk {
                        #pair_arm
                        ::scoped::__private::WideItemChunk::Wide(#handle) => #wide_arm
                        ::scoped::__private::WideItemChunk::Chunk(#handle) => #narrow_arm
                        ::scoped::__private::WideItemChunk::Item(#item) => #plain,
                    },
                )
            }
        } else {
            let function = format_ident!("distribute_items_interchanged", span = span);
            quote_spanned! {span=>
                ::scoped::__private::#function::<{ #narrow }, _, _>(
                    &#group,
                    #[inline(always)]
                    |#chunk| match #chunk {
                        ::scoped::__private::ItemChunk::Chunk(#handle) => #narrow_arm
                        ::scoped::__private::ItemChunk::Item(#item) => #plain,
                    },
                )
            }
        };
        let trips = |expr: &Expr| {
            quote! {
                ::core::iter::Iterator::size_hint(&::core::iter::IntoIterator::into_iter(#expr)).0
            }
        };
        if inv.required_size {
            // The range a constant, every lane's ids are below constants:
            // tile reads need no check per lane, and even a short loop
            // runs faster with the lanes innermost (GPU-form matmul's 16
            // steps; interchanged with its range read at run time, the
            // same kernel ran 2.7-2.9x its peer).
            return Some(call);
        }
        let mut trips_outer = trips(expr);
        if let Some(inner) = self.inner_iter() {
            let trips_inner = trips(inner);
            trips_outer = quote!(#trips_outer.saturating_mul(#trips_inner));
        }
        Some(quote_spanned! {span=>
            // A short loop (its iterations and those of a loop that is its
            // whole body) is unrolled in the item and the item loop
            // vectorised as it is: the plain lowering.
            if #trips_outer <= ::scoped::__private::INTERCHANGE_MAX_PLAIN_TRIPS {
                #plain_call
            } else {
                #call
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::super::{distribute_items, lowered};

    #[test]
    fn the_gpu_gems_body_becomes_the_loop_over_lanes_inside_the_j_loop() {
        let closure = "|idx| {
            let i = idx.global_linear_id();
            let (xi, yi) = (x[i], y[i]);
            let (mut ax, mut ay) = (0.0f32, 0.0f32);
            for j in 0..TILE {
                let dx = tx[j] - xi;
                ax += dx * yi;
                ay += dx * xi;
            }
            out[i] = ax + ay;
        }";
        let expected = quote! {
            if ::core::iter::Iterator::size_hint(&::core::iter::IntoIterator::into_iter(0..TILE)).0
                <= ::scoped::__private::INTERCHANGE_MAX_PLAIN_TRIPS
            {
                ::scoped::__private::distribute_items(&g, #[inline(always)] |idx| {
                    let i = idx.global_linear_id();
                    let (xi, yi) = (x[i], y[i]);
                    let (mut ax, mut ay) = (0.0f32, 0.0f32);
                    for j in 0..TILE {
                        let dx = tx[j] - xi;
                        ax += dx * yi;
                        ay += dx * xi;
                    }
                    out[i] = ax + ay;
                })
            } else {
            ::scoped::__private::distribute_items_interchanged::<{ ::scoped::__private::INTERCHANGE_LANES }, _, _>(
                &g,
                #[inline(always)]
                |__scoped_chunk| match __scoped_chunk {
                    ::scoped::__private::ItemChunk::Chunk(__scoped_chunk_lanes) => {
                        __scoped_chunk_lanes.assume_inside();
                        #[allow(unused_mut, unused_variables)]
                        let (mut __scoped_lanes_xi, mut __scoped_lanes_yi, mut __scoped_lanes_ax, mut __scoped_lanes_ay,) =
                            ::scoped::__private::Unzip::__unzip(
                                ::scoped::__private::lane_array::<_, { ::scoped::__private::INTERCHANGE_LANES }>(
                                    #[inline(always)]
                                    |__scoped_lane| {
                                        let idx = __scoped_chunk_lanes.item(__scoped_lane);
                                        let i = idx.global_linear_id();
                                        let (xi, yi) = (x[i], y[i]);
                                        let (mut ax, mut ay) = (0.0f32, 0.0f32);
                                        (xi, yi, ax, ay,)
                                    },
                                )
                            );
                        let __scoped_lanes_xi = ::scoped::__private::held_lanes(__scoped_lanes_xi);
                        let __scoped_lanes_yi = ::scoped::__private::held_lanes(__scoped_lanes_yi);
                        for j in 0..TILE {
                            #[allow(clippy::needless_range_loop)]
                            for __scoped_lane in 0..(::scoped::__private::INTERCHANGE_LANES) {
                                let xi = &__scoped_lanes_xi[__scoped_lane];
                                let yi = &__scoped_lanes_yi[__scoped_lane];
                                let ax = &mut __scoped_lanes_ax[__scoped_lane];
                                let ay = &mut __scoped_lanes_ay[__scoped_lane];
                                let dx = tx[j] - (*xi);
                                (*ax) += dx * (*yi);
                                (*ay) += dx * (*xi);
                            }
                        }
                        let __scoped_lanes_ax = ::scoped::__private::held_lanes(__scoped_lanes_ax);
                        let __scoped_lanes_ay = ::scoped::__private::held_lanes(__scoped_lanes_ay);
                        let __scoped_values = ::scoped::__private::Rezip::__rezip((
                            __scoped_lanes_xi, __scoped_lanes_yi, __scoped_lanes_ax, __scoped_lanes_ay,
                        ));
                        for (__scoped_lane, __scoped_values) in ::core::iter::Iterator::enumerate(
                            ::core::iter::IntoIterator::into_iter(__scoped_values),
                        ) {
                            let idx = __scoped_chunk_lanes.item(__scoped_lane);
                            #[allow(unused_mut)]
                            let (_, _, mut ax, mut ay,) = __scoped_values;
                            #[allow(unused_variables)]
                            let i = idx.global_linear_id();
                            out[i] = ax + ay;
                        }
                    }
                    ::scoped::__private::ItemChunk::Item(idx) => {
                        let i = idx.global_linear_id();
                        let (xi, yi) = (x[i], y[i]);
                        let (mut ax, mut ay) = (0.0f32, 0.0f32);
                        for j in 0..TILE {
                            let dx = tx[j] - xi;
                            ax += dx * yi;
                            ay += dx * xi;
                        }
                        out[i] = ax + ay;
                    },
                },
            )
            }
        };
        assert_eq!(lowered(closure).unwrap(), expected.to_string());
    }

    #[test]
    fn loops_carrying_at_most_one_value_pair_chunks_into_wide_steps() {
        let wide = "distribute_items_interchanged_wide";
        for (closure, paired) in [
            ("|idx| { let mut a = 0; for k in 0..n { a += k; } o[idx] = a; }", true),
            ("|idx| { let v = x[idx]; for k in 0..n { o[idx] += v * k; } }", true),
            ("|idx| { for t in tile.iter() { s[idx] += *t; } }", true),
            ("|idx| { let (mut a, mut b) = (0, 1); for k in 0..n { a += k; b *= k; } o[idx] = a + b; }", false),
            // Two values per item only read in the loop (held in memory).
            ("|idx| { let (u, v) = (x[idx], y[idx]); for k in 0..n { o[idx] += u * v * k; } }", true),
        ] {
            let out = lowered(closure).unwrap_or_else(|| panic!("not interchanged: {closure}"));
            assert_eq!(out.contains(wide), paired, "{out}");
            if paired {
                // Steps of 16 lanes, and of 8 for a chunk without a neighbour.
                assert!(out.contains("WideItemChunk :: Wide"), "{out}");
                assert!(out.contains("WideItemChunk :: Chunk"), "{out}");
                assert!(out.contains("INTERCHANGE_WIDE_LANES"), "{out}");
            }
        }
    }

    #[test]
    fn on_a_group_of_a_required_size_short_loops_are_interchanged_too() {
        let closure = "|idx| { let mut s = acc[idx]; for k in 0..16 { s += t[k]; } acc[idx] = s; }";
        let plain = lowered(closure).expect("interchanged");
        assert!(plain.contains("INTERCHANGE_MAX_PLAIN_TRIPS"), "{plain}");
        let (mut inv, group) = crate::lower::distribute_items_on_g(closure);
        inv.required_size = true;
        let required = distribute_items(&inv, &group, &[])
            .expect("interchanged")
            .to_string();
        assert!(
            !required.contains("INTERCHANGE_MAX_PLAIN_TRIPS"),
            "{required}"
        );
        assert!(
            required.contains("distribute_items_interchanged_wide"),
            "{required}"
        );
    }
}
