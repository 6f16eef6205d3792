//! `#[kernel]` and `#[group_function]`: find the function's group, walk
//! its body (checking the nesting rules and lowering every collective
//! macro), and report every error of the function in one compile.

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Error, FnArg, GenericParam, Item};

use crate::check::{BindingKind, Context};
use crate::group_size;
use crate::lower;
use crate::signature::{self, Flavor};
use crate::walk::Walker;

/// Expands the attribute `flavor` with arguments `attr` on `item`.
pub(crate) fn expand(flavor: Flavor, attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Vec::new();
    let mut size = None;
    match flavor {
        Flavor::Kernel => match group_size::parse(attr) {
            Ok(parsed) => size = parsed,
            Err(error) => errors.push(error),
        },
        Flavor::GroupFunction if !attr.is_empty() => errors.push(Error::new_spanned(
            attr,
            format!("{} takes no arguments", flavor.attribute()),
        )),
        Flavor::GroupFunction => {}
    }
    let mut function = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        Ok(other) => {
            errors.push(signature::not_a_function(flavor, &other));
            return with_errors(item, errors);
        }
        // rustc reports the item's own syntax errors.
        Err(_) => return with_errors(item, errors),
    };

    let group = signature::group_parameter(flavor, &function);
    let mut ctx = Context::function(group.name.clone());
    ctx.generics = function
        .sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(t) => Some(t.ident.clone()),
            GenericParam::Const(c) => Some(c.ident.clone()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let shape = group_type(&function, group.name.as_ref())
        .and_then(|ty| lower::group_shape(ty, &ctx.generics));
    if let Some(error) = group.error {
        errors.push(error);
        ctx.poisoned = true;
    } else if let Some(size) = &size {
        errors.extend(group_size::check(size, &function, group.name.as_ref()));
    }
    for (index, arg) in function.sig.inputs.iter().enumerate() {
        if let FnArg::Typed(param) = arg {
            let is_group = index == 0 && group.name.is_some();
            let named_group = group
                .name
                .as_ref()
                .is_some_and(|g| crate::check::pat_ident(&param.pat).as_ref() == Some(g));
            if !is_group && !named_group {
                // A reducer is shared reduction memory: `sum += x` inside
                // `distribute_items!` is how SYCL code combines into it.
                let kind = if is_reducer(&param.ty) {
                    BindingKind::Memory
                } else {
                    BindingKind::Param
                };
                ctx.bind_pat(&param.pat, &kind, None);
            }
        }
    }

    let mut walker = Walker::new(ctx);
    walker.slice_params = typed_params(&function, crate::lower::group_slice::slice_param);
    walker.window_params = typed_params(&function, crate::lower::lane_check::window_param);
    walker.item_window_params = typed_params(&function, crate::lower::global_id::window_param);
    // The prologue that makes the range a constant is added only then.
    walker.required_size = size.is_some() && errors.is_empty();
    walker.visit_block_mut(&mut function.block);
    errors.extend(walker.errors);
    if let (Some(size), Some(name), true) = (&size, &group.name, errors.is_empty()) {
        // After the walk: the early return is the check's, not the user's,
        // and no rule applies to it. Inside each level's copy of the body,
        // which may be compiled out of line: there the range it binds is
        // the constant the item loops need (rows of 16 at AVX-512 ran
        // scalar when their length was read from the group).
        function
            .block
            .stmts
            .insert(0, group_size::prologue(size, name));
    }
    if let (Flavor::Kernel, Some(name)) = (flavor, &group.name) {
        at_launch_level(&mut function, name);
    }
    // Outside the body's closure, at the top of the function.
    if let Some(shape) = shape {
        function.block.stmts.insert(0, syn::parse_quote!(#shape));
    }
    // Once, outside the copies: an extent of 0 is reported once.
    if let (Some(size), true) = (&size, errors.is_empty()) {
        if let Some(checks) = group_size::constant_checks(size) {
            function.block.stmts.insert(0, checks);
        }
    }
    if !function.attrs.iter().any(|a| a.path().is_ident("inline")) {
        // Inlined into the launch's per-group closure, the kernel shares one
        // function with its group and windows, where the optimiser can see
        // that each item lies inside its window; and it is compiled inside
        // the launch's group loop for the instruction-set level chosen at
        // run time (AVX2/FMA, AVX-512), which a call would leave at the
        // baseline. Always, so that a kernel launched from several places
        // is not left out of line.
        function.attrs.push(syn::parse_quote!(#[inline(always)]));
    }
    if !errors.is_empty() {
        // The errors are the user's to fix; the placeholders that replace
        // what could not be lowered would add only lint noise.
        function.attrs.push(syn::parse_quote!(#[allow(unused)]));
    }
    with_errors(quote!(#function), errors)
}

/// What `pick` finds among `function`'s typed parameters.
fn typed_params<T>(function: &syn::ItemFn, pick: fn(&syn::PatType) -> Option<T>) -> Vec<T> {
    function
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(param) => pick(param),
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Makes the body of `function` closures that the runtime runs at the
/// instruction-set level of the launch that made `group` (`levels.rs`):
/// always inlined, so that each level's copy compiles the whole body for
/// its CPU features. The closure's return type is the
/// function's, so that `?` and `return` keep their meaning.
fn at_launch_level(function: &mut syn::ItemFn, group: &syn::Ident) {
    let output = match &function.sig.output {
        syn::ReturnType::Default => quote!(-> ()),
        syn::ReturnType::Type(arrow, ty) if !contains_impl(ty) => quote!(#arrow #ty),
        syn::ReturnType::Type(..) => TokenStream::new(),
    };
    let body = crate::levels::at_launch_level(group, quote!(move), output, &function.block);
    function.block = syn::parse_quote!({ #body });
}

/// Whether `ty` mentions `impl Trait`, which a closure cannot name as its
/// return type.
fn contains_impl(ty: &syn::Type) -> bool {
    quote!(#ty)
        .to_string()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| word == "impl")
}

/// The type of the parameter named `group`.
fn group_type<'f>(function: &'f syn::ItemFn, group: Option<&syn::Ident>) -> Option<&'f syn::Type> {
    function.sig.inputs.iter().find_map(|arg| match arg {
        FnArg::Typed(param) if crate::check::pat_ident(&param.pat).as_ref() == group => {
            Some(&*param.ty)
        }
        _ => None,
    })
}

/// Whether `ty` is a launch reduction's `Reducer` or `SpanReducer` (by
/// name, possibly behind a reference).
pub(crate) fn is_reducer(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Reducer" || s.ident == "SpanReducer"),
        syn::Type::Reference(reference) => is_reducer(&reference.elem),
        syn::Type::Paren(paren) => is_reducer(&paren.elem),
        _ => false,
    }
}

fn with_errors(item: TokenStream, errors: Vec<Error>) -> TokenStream {
    let errors = errors.into_iter().map(|e| e.to_compile_error());
    quote! { #item #(#errors)* }
}

#[cfg(test)]
mod tests {
    use proc_macro2::{TokenStream, TokenTree};
    use quote::quote;

    use super::expand;
    use crate::signature::Flavor;

    /// `body` as `#[kernel]` runs it at the launch's level.
    fn at_level(body: TokenStream) -> TokenStream {
        let group = proc_macro2::Ident::new("group", proc_macro2::Span::call_site());
        crate::levels::at_launch_level(&group, quote!(move), quote!(-> ()), &body)
    }

    /// Every identifier in `tokens`, at any depth.
    fn identifiers(tokens: TokenStream, out: &mut Vec<String>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => out.push(ident.to_string()),
                TokenTree::Group(group) => identifiers(group.stream(), out),
                _ => {}
            }
        }
    }

    fn assert_no_allocation(tokens: &TokenStream) {
        let mut names = Vec::new();
        identifiers(tokens.clone(), &mut names);
        for banned in ["Box", "dyn", "Vec", "vec", "alloc", "Rc", "Arc"] {
            assert!(
                !names.iter().any(|n| n == banned),
                "`{banned}` in the lowering: {tokens}"
            );
        }
    }

    #[test]
    fn lowering_is_plain_runtime_loop_calls() {
        let kernel = quote! {
            fn add_one(group: WorkGroup<1>, data: &mut [i32]) {
                distribute_groups!(group, |sub_group| {
                    distribute_items!(sub_group, |idx| {
                        data[idx.global_linear_id()] += 1;
                    });
                    single_item!(sub_group, || {});
                });
                // A lone distribute_items! in distribute_groups! is one loop.
                distribute_groups!(group, |sub_group| {
                    distribute_items!(sub_group, |idx| {
                        data[idx.global_linear_id()] += 1;
                    });
                });
                single_item_and_wait!(group, || {});
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel);
        let body = at_level(quote! {{
            ::scoped::__private::distribute_groups(&group, #[inline(always)] |sub_group| {
                ::scoped::__private::distribute_items(&sub_group, #[inline(always)] |idx| {
                    data[idx.global_linear_id()] += 1;
                });
                ::scoped::__private::single_item(&sub_group, #[inline(always)] || {});
            });
            ::scoped::__private::distribute_groups_items(&group, #[inline(always)] |sub_group, idx| {
                let _ = &sub_group;
                {
                    data[idx.global_linear_id()] += 1;
                }
            });
            {
                let __scoped_result = ::scoped::__private::single_item(&group, #[inline(always)] || {});
                ::scoped::__private::and_wait(&group);
                __scoped_result
            };
        }});
        let expected = quote! {
            #[inline(always)]
            fn add_one(group: WorkGroup<1>, data: &mut [i32]) {
                const _: () = ::scoped::__private::group_shape::<{ 1 }, { ::scoped::DEFAULT_SUB_GROUP_SIZE }>();
                #body
            }
        };
        // Compared as syntax trees (spans and token spacing aside).
        let lowered_fn: syn::ItemFn = syn::parse2(lowered.clone()).unwrap();
        let expected_fn: syn::ItemFn = syn::parse2(expected).unwrap();
        assert!(
            lowered_fn == expected_fn,
            "lowered to: {}\nexpected: {}",
            quote!(#lowered_fn),
            quote!(#expected_fn)
        );
        assert_no_allocation(&lowered);
    }

    /// Whether `kernel` lowers a `distribute_groups!` to the looped
    /// sub-group loop.
    fn looped(kernel: TokenStream) -> bool {
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel).to_string();
        lowered.contains("distribute_groups_looped")
    }

    #[test]
    fn a_loop_of_lone_item_loops_in_sub_groups_becomes_one_looped_call() {
        let kernel = quote! {
            fn tile(group: WorkGroup<1>, t: &[f32], mut acc: PrivateMem<'_, f32, 1>) {
                distribute_groups!(group, |sub_group| {
                    for j in 0..t.len() {
                        distribute_items!(sub_group, |idx| acc[idx] += t[j]);
                    }
                });
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel);
        let looped = quote! {
            ::scoped::__private::distribute_groups_looped(
                &group,
                #[inline(always)]
                || 0..t.len(),
                #[inline(always)]
                |sub_group, j, idx| {
                    let _ = &sub_group;
                    acc[idx] += t[j]
                },
            )
        };
        let body = at_level(quote! {{
            #looped;
        }});
        let expected = quote! {
            #[inline(always)]
            fn tile(group: WorkGroup<1>, t: &[f32], mut acc: PrivateMem<'_, f32, 1>) {
                const _: () = ::scoped::__private::group_shape::<{ 1 }, { ::scoped::DEFAULT_SUB_GROUP_SIZE }>();
                #body
            }
        };
        let lowered_fn: syn::ItemFn = syn::parse2(lowered.clone()).unwrap();
        let expected_fn: syn::ItemFn = syn::parse2(expected).unwrap();
        assert!(lowered_fn == expected_fn, "lowered to: {lowered}");
    }

    #[test]
    fn other_loops_in_sub_groups_keep_the_nested_form() {
        let cases = [
            // The iterations depend on the sub-group.
            quote! { for j in 0..sub_group.group_linear_id() { distribute_items!(sub_group, |idx| acc[idx] += t[j]); } },
            // Another statement in the loop.
            quote! { for j in 0..4 { distribute_items!(sub_group, |idx| acc[idx] += t[j]); group_barrier(sub_group); } },
            // A statement beside the loop.
            quote! { let k = 1; for j in 0..4 { distribute_items!(sub_group, |idx| acc[idx] += t[j] * k); } },
            // Lanes named by the body.
            quote! { for j in 0..4 { distribute_items!(sub_group, |idx| acc[idx] += t[idx.innermost_local_id_dim(0)]); } },
            // A `move` item closure.
            quote! { for j in 0..4 { distribute_items!(sub_group, move |idx| acc[idx] += t[j]); } },
            // An iterator with effects.
            quote! { for j in make() { distribute_items!(sub_group, |idx| acc[idx] += t[j]); } },
            // A labelled loop.
            quote! { 'tiles: for j in 0..4 { distribute_items!(sub_group, |idx| acc[idx] += t[j]); } },
            // The body writes what the iterations read.
            quote! { for j in 0..n[0] { distribute_items!(sub_group, |idx| n[0] = j); } },
        ];
        for case in cases {
            let kernel = quote! {
                fn tile(group: WorkGroup<1>, t: &[f32], n: &mut [usize], mut acc: PrivateMem<'_, f32, 1>) {
                    distribute_groups!(group, |sub_group| { #case });
                }
            };
            assert!(!looped(kernel), "lowered looped: {case}");
        }
    }

    #[test]
    fn a_lone_item_loop_using_its_lanes_runs_sub_group_by_sub_group_in_one_call() {
        let lowers_to = |items: TokenStream| {
            let kernel = quote! {
                fn lanes(group: WorkGroup<1>, lanes: &mut [i32]) {
                    distribute_groups!(group, |sub_group| { distribute_items!(sub_group, #items); });
                }
            };
            expand(Flavor::Kernel, TokenStream::new(), kernel).to_string()
        };
        // Lanes named by the body, through an `innermost_*` id or the
        // sub-group: the lanes call.
        for items in [
            quote! { |idx| lanes[idx.innermost_local_id_dim(0)] += 1 },
            quote! { |idx| lanes[sub_group.group_linear_id()] += 1 },
        ] {
            let lowered = lowers_to(items.clone());
            assert!(
                lowered.contains("distribute_groups_lanes"),
                "{items}: {lowered}"
            );
            assert!(
                !lowered.contains("distribute_groups_items"),
                "{items}: {lowered}"
            );
        }
        // A `move` item closure keeps the nested form.
        let items = quote! { move |idx| lanes[idx.innermost_local_id_dim(0)] += 1 };
        let lowered = lowers_to(items);
        assert!(!lowered.contains("distribute_groups_lanes"), "{lowered}");
        assert!(
            lowered.contains(":: distribute_groups (& group"),
            "{lowered}"
        );
    }

    #[test]
    fn memory_environment_allocates_through_the_runtime_only() {
        let kernel = quote! {
            fn scratch(group: WorkGroup<1>) {
                memory_environment!(
                    group,
                    require_local_mem::<[i32; 4]>(),
                    require_private_mem::<u8>(7),
                    |local, private| {
                        distribute_items!(group, |idx| {
                            local[0] += i32::from(private[idx]);
                        });
                    }
                );
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel).to_string();
        for part in [
            ":: scoped :: __private :: local_mem_zeroed :: < [i32 ; 4] > ()",
            "let mut __scoped_room_1 = :: scoped :: __private :: PrivateStorage :: new () ;",
            ":: scoped :: __private :: private_mem_filled :: < u8 , _ , _ > (__scoped_group , & mut __scoped_room_1 , 7)",
            "let local = & mut __scoped_memory_0 . 0 ;",
            "let private = & mut __scoped_memory_1 ;",
            ":: scoped :: __private :: distribute_items (& group , # [inline (always)] | idx |",
        ] {
            assert!(lowered.contains(part), "missing `{part}` in {lowered}");
        }
        assert!(!lowered.contains("compile_error"), "{lowered}");
        assert_no_allocation(&lowered.parse().unwrap());
    }

    #[test]
    fn every_violation_is_reported_and_nothing_is_lowered_wrongly() {
        let kernel = quote! {
            fn many(group: WorkGroup<1>) {
                let mut count = 0;
                distribute_items!(group, |_idx| {
                    count += 1;
                    group_barrier(group);
                });
                distribute_groups!(group, |subgroup| {
                    single_item!(group, || {});
                    if subgroup.leader() {
                        group_barrier(subgroup);
                    }
                });
                distribute_items!(count, |_idx| {});
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel).to_string();
        let errors: Vec<&str> = lowered.split("compile_error").skip(1).collect();
        assert_eq!(errors.len(), 5, "{lowered}");
        for (error, starts) in errors.iter().zip([
            "! { \"rule 4: `count`",
            "! { \"rule 2: `group_barrier`",
            "! { \"rule 1: use the innermost group `subgroup`",
            "! { \"rule 3: `group_barrier`",
            "! { \"`count` is not a group",
        ]) {
            assert!(error.trim_start().starts_with(starts), "{error}");
        }
        // The call on a non-group is replaced, so that rustc adds no type
        // error; the function keeps quiet about the placeholder.
        assert!(lowered.contains(":: core :: unreachable ! ()"), "{lowered}");
        assert!(
            lowered.starts_with("# [inline (always)] # [allow (unused)]"),
            "{lowered}"
        );
    }

    #[test]
    fn slice_parameters_read_at_the_global_id_go_through_group_slices() {
        let kernel = quote! {
            fn k(group: WorkGroup<1>, a: &[f32], n: usize, mut out: ItemsWindow<'_, f32>) {
                distribute_items!(group, |idx| {
                    let gid = idx.global_linear_id();
                    if gid < n {
                        out[idx] = a[gid].sqrt();
                    }
                });
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel).to_string();
        assert!(
            lowered.contains("GroupSlice :: new (a , & group)"),
            "{lowered}"
        );
        assert!(lowered.contains("distribute_items_sliced"), "{lowered}");
        assert!(!lowered.contains("compile_error"), "{lowered}");
    }

    #[test]
    fn sub_slices_and_chunk_windows_are_checked_ahead_in_interchanged_loops() {
        let kernel = quote! {
            fn k(group: WorkGroup<2, 16>, a: &[f32], g: &[f32], mut out: ChunkWindow<'_, f32>) {
                let n = g.len();
                distribute_groups!(group, |sg| {
                    let row = sg.group_id_dim(0);
                    let x = &a[row * n..][..n];
                    distribute_items!(sg, |idx| {
                        let lane = idx.innermost_local_id_dim(1);
                        let mut sum = 0.0f32;
                        for k in 0..n / 16 {
                            let c = k * 16 + lane;
                            sum += x[c] * g[c];
                            out[row * n + c] = sum;
                        }
                    });
                });
            }
        };
        let lowered = expand(Flavor::Kernel, TokenStream::new(), kernel).to_string();
        assert!(!lowered.contains("compile_error"), "{lowered}");
        // Per level and step width (one value carried: steps of 8 and
        // 16 lanes): the slices `x` (local) and `g`, and the window `out`.
        assert_eq!(
            lowered.matches("__scoped_fits_2 &=").count(),
            6,
            "{lowered}"
        );
        assert_eq!(
            lowered.matches("< < [_] > :: len (x)").count(),
            6,
            "{lowered}"
        );
        assert_eq!(
            lowered.matches("< < [_] > :: len (g)").count(),
            6,
            "{lowered}"
        );
        assert_eq!(
            lowered.matches("out . __index_fits").count(),
            6,
            "{lowered}"
        );
        // Each read through a window in the steps that take them, and the
        // loop's windows checked once (their indices step by 16 a step),
        // its iterations then taking them with no check of their own.
        assert_eq!(
            lowered.matches("__scoped_plan . next_step").count(),
            6,
            "{lowered}"
        );
        assert_eq!(lowered.matches("with_windows_3").count(), 12, "{lowered}");
    }

    #[test]
    fn group_size_starts_every_copy_of_the_body_with_its_check() {
        let kernel = quote! {
            fn k(group: WorkGroup<2>) {
                distribute_items!(group, |_idx| {});
            }
        };
        let lowered = expand(Flavor::Kernel, quote!(group_size = [16, 8]), kernel).to_string();
        let check = "move | | -> () { # [allow (unused_variables)] let group = match :: scoped :: \
                     __private :: require_group_size (group , [16usize , 8usize])";
        // Once per level: the range is a constant wherever the body runs.
        assert_eq!(lowered.matches(check).count(), 3, "{lowered}");
        assert_eq!(
            lowered.matches("require_group_size").count(),
            3,
            "{lowered}"
        );
        assert!(!lowered.contains("group_size_extent"), "{lowered}");
    }

    #[test]
    fn constant_extents_are_evaluated_as_constants_and_checked_once() {
        let kernel = quote! {
            fn k<const W: usize>(group: WorkGroup<2>) {
                distribute_items!(group, |_idx| {});
            }
        };
        let lowered = expand(Flavor::Kernel, quote!(group_size = [(W), 4]), kernel).to_string();
        // The check of 0, once, before the copies per level.
        let check = "const { { let extent : usize = W ; :: scoped :: __private :: \
                     group_size_extent (extent) ; } }";
        assert!(
            lowered.starts_with(
                "# [inline (always)] fn k < const W : usize > (group : \
                                     WorkGroup < 2 >) { const {"
            ),
            "{lowered}"
        );
        assert_eq!(lowered.matches(check).count(), 1, "{lowered}");
        // Each copy's range: the constant, the parentheses peeled.
        let range =
            "require_group_size (group , [const { let extent : usize = W ; extent } , 4usize])";
        assert_eq!(lowered.matches(range).count(), 3, "{lowered}");
    }
}
