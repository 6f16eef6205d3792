//! The nesting rules recognise collectives by name, from one list in the
//! macros crate. This test reads this crate's source and ties that list to
//! what the runtime defines: every public function whose first parameter
//! is a group taken by value (`G: ScopedGroup<D>` or `IsGroup`,
//! `WorkGroup`, `SubGroup`, `ScalarGroup`), including those a
//! `macro_rules!` writes, is in the list of functions; every public method
//! of a group type defined outside `group/` (where the queries live) is in
//! the list of methods; and every listed name is one of them. The loops
//! the macros lower to (`lowering/`) are the macros' own.

use std::collections::BTreeSet;
use std::path::Path;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::{FnArg, GenericParam, Generics, ImplItem, Item, Signature, Type, TypeParamBound};

const GROUP_TYPES: [&str; 3] = ["WorkGroup", "SubGroup", "ScalarGroup"];
const GROUP_TRAITS: [&str; 2] = ["ScopedGroup", "IsGroup"];
/// Objects a group synchronises through; their `wait*` methods are
/// collectives.
const SYNC_TYPES: [&str; 2] = ["WorkGroupNamedBarrier", "DeviceEvent"];

#[derive(Default)]
struct Found {
    functions: BTreeSet<String>,
    methods: BTreeSet<String>,
}

/// A `macro_rules!`: its name, its fragments in order, and the functions
/// its body writes (`$name` and the first parameter's type tokens).
struct Macro {
    name: String,
    fragments: Vec<String>,
    functions: Vec<(String, Vec<String>)>,
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether `name` is a type parameter of `generics` bounded by a group
/// trait, inline or in the `where` clause.
fn bounded_by_group(name: &str, generics: &Generics) -> bool {
    let is_group = |bound: &TypeParamBound| match bound {
        TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| GROUP_TRAITS.iter().any(|g| s.ident == g)),
        _ => false,
    };
    let inline = generics.params.iter().any(|param| match param {
        GenericParam::Type(t) => t.ident == name && t.bounds.iter().any(is_group),
        _ => false,
    });
    let clause = generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .any(|p| match p {
            syn::WherePredicate::Type(t) => {
                last_segment(&t.bounded_ty).as_deref() == Some(name)
                    && t.bounds.iter().any(is_group)
            }
            _ => false,
        });
    inline || clause
}

/// Whether the first parameter of `sig` is a group taken by value.
fn takes_group(sig: &Signature) -> bool {
    let Some(FnArg::Typed(first)) = sig.inputs.first() else {
        return false;
    };
    last_segment(&first.ty).is_some_and(|name| {
        GROUP_TYPES.contains(&name.as_str()) || bounded_by_group(&name, &sig.generics)
    })
}

/// Every `pub fn $name(...)` in a `macro_rules!` body, with the tokens of
/// its first parameter's type.
fn macro_functions(tokens: TokenStream, found: &mut Vec<(String, Vec<String>)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(group) = tree {
            macro_functions(group.stream(), found);
        }
        let text = |k: usize| {
            trees
                .get(i + k)
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        if text(0) == "pub" && text(1) == "fn" && text(2) == "$" {
            let params = trees[i + 4..].iter().find_map(|t| match t {
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => Some(g.stream()),
                _ => None,
            });
            let first_type: Vec<String> = params
                .into_iter()
                .flatten()
                .map(|t| t.to_string())
                .skip_while(|t| t != ":")
                .skip(1)
                .take_while(|t| t != ",")
                .collect();
            found.push((text(3), first_type));
        }
    }
}

fn macro_rules(m: &syn::ItemMacro) -> Option<Macro> {
    let trees: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
    // `(matcher) => {body}`: one rule.
    let (Some(TokenTree::Group(matcher)), Some(TokenTree::Group(body))) =
        (trees.first(), trees.get(3))
    else {
        return None;
    };
    let words: Vec<String> = matcher
        .stream()
        .into_iter()
        .map(|t| t.to_string())
        .collect();
    let fragments = words
        .windows(2)
        .filter(|w| w[0] == "$")
        .map(|w| w[1].clone())
        .collect();
    let mut functions = Vec::new();
    macro_functions(body.stream(), &mut functions);
    Some(Macro {
        name: m.ident.as_ref()?.to_string(),
        fragments,
        functions,
    })
}

fn scan_file(path: &Path, under_group: bool, found: &mut Found) {
    let source = std::fs::read_to_string(path).unwrap();
    let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let public = |vis: &syn::Visibility| matches!(vis, syn::Visibility::Public(_));
    let mut macros = Vec::new();
    for item in &file.items {
        match item {
            Item::Fn(f) if public(&f.vis) && takes_group(&f.sig) => {
                found.functions.insert(f.sig.ident.to_string());
            }
            Item::Impl(imp) if !under_group && imp.trait_.is_none() => {
                let self_ty = last_segment(&imp.self_ty).unwrap_or_default();
                let on_group = GROUP_TYPES.contains(&self_ty.as_str());
                let on_sync = SYNC_TYPES.contains(&self_ty.as_str());
                for item in &imp.items {
                    if let ImplItem::Fn(m) = item {
                        let wait = m.sig.ident.to_string().starts_with("wait");
                        if (on_group || on_sync && wait) && public(&m.vis) {
                            found.methods.insert(m.sig.ident.to_string());
                        }
                    }
                }
            }
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => macros.extend(macro_rules(m)),
            _ => {}
        }
    }
    // Each invocation of such a macro: its arguments by fragment position.
    for item in &file.items {
        let Item::Macro(m) = item else { continue };
        let Some(mac) = macros.iter().find(|mac| m.mac.path.is_ident(&mac.name)) else {
            continue;
        };
        let args: Vec<String> = m
            .mac
            .tokens
            .to_string()
            .split(',')
            .map(|a| a.trim().to_string())
            .collect();
        let value = |fragment: &str| {
            let k = mac.fragments.iter().position(|f| f == fragment).unwrap();
            args[k].clone()
        };
        for (name, first_type) in &mac.functions {
            let ty = match first_type.as_slice() {
                [dollar, var, ..] if dollar == "$" => value(var),
                [ty, ..] => ty.clone(),
                [] => continue,
            };
            if GROUP_TYPES.contains(&ty.as_str()) {
                found.functions.insert(value(name));
            }
        }
    }
}

fn scan_dir(dir: &Path, found: &mut Found) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "lowering" {
                scan_dir(&path, found);
            }
        } else if name.ends_with(".rs") {
            let under_group = path.parent().is_some_and(|p| p.ends_with("group"));
            scan_file(&path, under_group, found);
        }
    }
}

#[test]
fn every_collective_of_the_runtime_is_known_to_the_nesting_rules() {
    let (functions, methods): (&[&str], &[&str]) = scoped_macros::__collective_names!();
    let mut found = Found::default();
    scan_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    let listed: BTreeSet<String> = functions.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        found.functions, listed,
        "group functions of the runtime (left) and the checker's list (right)"
    );
    let listed: BTreeSet<String> = methods.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        found.methods, listed,
        "collective methods of the group types (left) and the checker's list (right)"
    );
    // The scan finds each kind of definition.
    for name in [
        "group_barrier",
        "reduce_over_group",
        "sub_group_reduce",
        "work_group_all",
    ] {
        assert!(found.functions.contains(name), "{name}");
    }
}
