//! The shape of the house (issue 39), checked so it stays that way: no
//! library source file over 1,000 lines, and no import circle between the
//! source files of any crate of the workspace.
//!
//! "Imports" are every path a file names into its own crate (`use
//! crate::…`, `super::…`, `self::…`, and inline paths such as
//! `crate::view::nice_length(…)`), parsed with `syn`. A path is resolved
//! to the file that defines the module it names; a name a module only
//! re-exports (`pub use inner::Name`) is followed to the file that defines
//! it, so a facade's re-exports do not count as a dependency on the facade.
//! Unit tests (`#[cfg(test)]` items) may import anything and are left
//! out. A `mod` declaration is not an import: a folder's `mod.rs` may declare
//! its children, but the children must not then import the `mod.rs` back
//! (put what they share in a module of its own).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The library crates' source folders, from the workspace root.
const CRATES: [&str; 7] = [
    "src",
    "crates/cable-core/src",
    "crates/cable-systems/src",
    "crates/cable-debug/src",
    "crates/cable-cli/src",
    "crates/cable-bevy/src",
    "crates/cable-testkit/src",
];

/// Longest library source file allowed, in lines.
const MAX_LINES: usize = 1000;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file of the crate rooted at `src`:
/// `lib.rs`/`main.rs` → `[]`, `a/b.rs` and `a/b/mod.rs` → `["a", "b"]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("inside the crate");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return parts;
    }
    if stem != "mod" {
        parts.push(stem.to_owned());
    }
    parts
}

/// Every path a file names into its crate, made absolute (from the crate
/// root), and the names it re-exports (`pub use`) with their targets.
#[derive(Default)]
struct Refs {
    /// The file's module path.
    here: Vec<String>,
    /// Inline modules entered (`mod tests { … }`).
    inline: Vec<String>,
    paths: Vec<Target>,
    reexports: BTreeMap<String, Target>,
}

/// A path made absolute. `local` is the length of the module prefix when
/// the path began with a plain name (`a::B` in a file that declares `mod
/// a;`, as a 2018-edition `use` may say): it names this crate only if that
/// first name is a module file of it, which [`Crate::resolve`] checks.
#[derive(Clone, PartialEq)]
struct Target {
    path: Vec<String>,
    local: Option<usize>,
}

impl Refs {
    /// `segs` made absolute (a plain first name kept as a guess).
    fn absolute(&self, segs: &[String]) -> Option<Target> {
        let first = segs.first()?;
        let mut base: Vec<String> = self.here.iter().chain(&self.inline).cloned().collect();
        let fixed = |path| Some(Target { path, local: None });
        match first.as_str() {
            "crate" => fixed(segs[1..].to_vec()),
            "self" => {
                base.extend_from_slice(&segs[1..]);
                fixed(base)
            }
            "super" => {
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend_from_slice(rest);
                fixed(base)
            }
            _ => {
                let local = Some(base.len());
                base.extend_from_slice(segs);
                Some(Target { path: base, local })
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, public: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, public);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident.to_string(), None, public),
            syn::UseTree::Rename(r) => {
                let alias = r.rename.to_string();
                self.use_leaf(prefix, &r.ident.to_string(), Some(alias), public);
            }
            syn::UseTree::Glob(_) => {
                if let Some(abs) = self.absolute(prefix) {
                    self.paths.push(abs);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, public);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], name: &str, alias: Option<String>, public: bool) {
        let mut segs = prefix.to_vec();
        if name != "self" {
            segs.push(name.to_owned());
        }
        if let Some(abs) = self.absolute(&segs) {
            if public && self.inline.is_empty() {
                let key = alias.unwrap_or_else(|| segs.last().cloned().unwrap_or_default());
                let abs = abs.clone();
                self.reexports.insert(key, abs);
            }
            self.paths.push(abs);
        }
    }
}

/// Whether an item is `#[cfg(test)]`: unit tests may use anything.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for Refs {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(m) => &m.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if !test_only(attrs) {
            syn::visit::visit_item(self, i);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        let mut prefix = Vec::new();
        self.use_tree(&mut prefix, &u.tree, public);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.inline.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.inline.pop();
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1
            && let Some(abs) = self.absolute(&segs)
        {
            self.paths.push(abs);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Paths inside macro calls (`format!`, `assert!`) are tokens: read
        // the `crate::a::b` and `super::a` runs out of them.
        let text = m.tokens.to_string().replace(' ', "");
        for (i, _) in text
            .match_indices("crate::")
            .chain(text.match_indices("super::"))
        {
            let run: String = text[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segs: Vec<String> = run
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            if segs.len() > 1
                && let Some(abs) = self.absolute(&segs)
            {
                self.paths.push(abs);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Importer → imported → the first path that imports it.
type Edges = BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>;

/// One crate: its files by module path, and each file's references.
struct Crate {
    files: BTreeMap<Vec<String>, PathBuf>,
    refs: BTreeMap<Vec<String>, Refs>,
}

impl Crate {
    fn read(src: &Path) -> Self {
        let mut list = Vec::new();
        rust_files(src, &mut list);
        let mut files = BTreeMap::new();
        let mut refs = BTreeMap::new();
        for f in list {
            // A binary's own root beside a library's is a crate of its own.
            if f.file_name().is_some_and(|n| n == "main.rs") && src.join("lib.rs").exists() {
                continue;
            }
            if f.components().any(|c| c.as_os_str() == "bin") {
                continue;
            }
            let here = module_of(src, &f);
            let text = std::fs::read_to_string(&f).expect("readable");
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let mut r = Refs {
                here: here.clone(),
                ..Refs::default()
            };
            r.visit_file(&ast);
            files.insert(here.clone(), f);
            refs.insert(here, r);
        }
        Self { files, refs }
    }

    /// The file (module path) that defines what `path` names, following
    /// re-exports; `None` for a path into another crate or an unknown one.
    fn resolve(&self, t: &Target, depth: usize) -> Option<Vec<String>> {
        let path = t.path.as_slice();
        if let Some(n) = t.local
            && !path.get(..=n).is_some_and(|m| self.files.contains_key(m))
        {
            return None;
        }
        let module = (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| self.files.contains_key(m))?;
        if depth < 8
            && let Some(name) = path.get(module.len())
            && let Some(target) = self.refs[&module].reexports.get(name)
            && target.path.as_slice() != path
        {
            let mut next = target.clone();
            next.path.extend_from_slice(&path[module.len() + 1..]);
            return self.resolve(&next, depth + 1).or(Some(module));
        }
        Some(module)
    }

    /// File-level edges: who imports whom (self-edges left out), each
    /// with the first path that makes it.
    fn edges(&self) -> Edges {
        let mut out: Edges = BTreeMap::new();
        for (from, r) in &self.refs {
            let set = out.entry(from.clone()).or_default();
            for p in &r.paths {
                if let Some(to) = self.resolve(p, 0)
                    && &to != from
                {
                    set.entry(to).or_insert_with(|| p.path.join("::"));
                }
            }
        }
        out
    }
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_owned()
    } else {
        m.join("::")
    }
}

/// The import circles of a graph, each as the list of its modules (one
/// circle per strongly connected component of more than one file).
fn circles(edges: &Edges) -> Vec<Vec<String>> {
    // Tarjan's algorithm, recursive (the graphs have tens of nodes).
    struct T<'a> {
        edges: &'a Edges,
        index: BTreeMap<&'a [String], usize>,
        low: BTreeMap<&'a [String], usize>,
        stack: Vec<&'a [String]>,
        on: BTreeSet<&'a [String]>,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn go(&mut self, v: &'a [String]) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flat_map(BTreeMap::keys) {
                let w = w.as_slice();
                if !self.index.contains_key(w) {
                    self.go(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = self.stack.pop().expect("on the stack");
                    self.on.remove(w);
                    comp.push(name(w));
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_slice()) {
            t.go(v);
        }
    }
    t.out
}

#[test]
fn no_crate_of_the_workspace_has_an_import_circle() {
    let mut found = Vec::new();
    for dir in CRATES {
        let krate = Crate::read(&root().join(dir));
        let edges = krate.edges();
        for c in circles(&edges) {
            found.push(format!("{dir}: {}", c.join(" ⇄ ")));
            // The imports inside the circle, to say what to move.
            for (from, tos) in &edges {
                for (to, via) in tos {
                    if c.contains(&name(from)) && c.contains(&name(to)) {
                        found.push(format!("    {} → {} ({via})", name(from), name(to)));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// A module's file is where its name says (`a/b.rs` or `a/b/mod.rs`):
/// no `#[path]` attribute glues a file in from elsewhere.
#[test]
fn no_module_is_glued_in_by_a_path_attribute() {
    let mut glued = Vec::new();
    for dir in CRATES {
        let mut files = Vec::new();
        rust_files(&root().join(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable");
            for (i, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[path") {
                    glued.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(glued.is_empty(), "#[path] modules:\n{}", glued.join("\n"));
}

#[test]
fn no_library_source_file_is_over_1000_lines() {
    let mut long = Vec::new();
    for dir in CRATES {
        let mut files = Vec::new();
        rust_files(&root().join(dir), &mut files);
        for f in files {
            let lines = std::fs::read_to_string(&f)
                .expect("readable")
                .lines()
                .count();
            if lines > MAX_LINES {
                long.push(format!("{}: {lines} lines", f.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The checker finds a circle when there is one, through a re-export and
/// an inline path, and none where a facade re-exports a leaf.
#[test]
fn the_circle_check_finds_a_circle_and_ignores_facades() {
    let dir = std::env::temp_dir().join(format!("cable-arch-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("room")).expect("temp dir");
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).expect("write");
    write("lib.rs", "mod a; mod b; mod room; pub use a::A;\n");
    write("a.rs", "pub struct A; fn f() { let _ = crate::b::g(); }\n");
    write("b.rs", "use crate::A;\npub fn g() {}\n");
    write("room/mod.rs", "mod inner; pub use inner::I;\n");
    write(
        "room/inner.rs",
        "pub struct I; fn h() -> crate::room::I { I }\n",
    );
    let krate = Crate::read(&src);
    let found = circles(&krate.edges());
    assert_eq!(found, vec![vec!["a".to_owned(), "b".to_owned()]]);
    // Without the inline path, no circle: `b` uses `A` through the root's
    // re-export, and `room::inner` names itself through its parent's.
    write("a.rs", "pub struct A;\n");
    let krate = Crate::read(&src);
    assert!(circles(&krate.edges()).is_empty());
    std::fs::remove_dir_all(&dir).expect("clean up");
}
