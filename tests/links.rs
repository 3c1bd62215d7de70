//! A newcomer follows the README: every relative link and image in
//! `README.md` and `docs/*.md` must lead to a file of the repository, and
//! every repository path the text names in backticks (`examples/…`,
//! `docs/…`, `crates/…`) must exist, and the scene files its benchmark
//! commands run must load and run.

use std::path::{Component, Path, PathBuf};

/// The repository root (this package's manifest directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Markdown files a reader sees: the README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let docs = root().join("docs");
    let entries = std::fs::read_dir(&docs).expect("docs/ is readable");
    for entry in entries {
        let path = entry.expect("docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The text outside fenced code blocks, line by line (1-based numbers).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// Targets of inline links and images, `[text](target)` and
/// `![alt](target)`, and of `<img src="target">`, with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            // `[text](target "title")`: the target is the first word.
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n, target.to_string()));
            rest = &after[end..];
        }
        let mut rest = line;
        while let Some(i) = rest.find("src=\"") {
            let after = &rest[i + 5..];
            let Some(end) = after.find('"') else { break };
            out.push((n, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// Repository paths named in code spans: `` `examples/quickstart.rs` ``.
fn code_span_paths(text: &str) -> Vec<(usize, String)> {
    const TOP: [&str; 8] = [
        "benches/",
        "crates/",
        "docs/",
        "examples/",
        "scripts/",
        "src/",
        "tests/",
        ".ci/",
    ];
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        for (k, span) in line.split('`').enumerate() {
            let is_code = k % 2 == 1;
            let looks_like_file = span
                .rsplit('/')
                .next()
                .is_some_and(|name| name.contains('.') && !name.contains(' '));
            if is_code && TOP.iter().any(|t| span.starts_with(t)) && looks_like_file {
                out.push((n, span.to_string()));
            }
        }
    }
    out
}

/// Whether `target` (relative to `page`) names something outside the
/// repository checkout: a web address, a mail address or an anchor.
fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:") || target.starts_with('#')
}

/// The broken targets of `page`, as `page:line: target (reason)`.
fn broken_links(page: &Path, text: &str) -> Vec<String> {
    let dir = page.parent().unwrap_or(Path::new("."));
    let root = root();
    let mut broken = Vec::new();
    let name = page
        .strip_prefix(&root)
        .unwrap_or(page)
        .display()
        .to_string();
    for (n, target) in link_targets(text) {
        if is_external(&target) {
            continue;
        }
        let file = target.split('#').next().unwrap_or("");
        if file.is_empty() {
            broken.push(format!("{name}:{n}: empty link target `{target}`"));
            continue;
        }
        let path = normalise(&dir.join(file));
        if !path.starts_with(&root) {
            broken.push(format!(
                "{name}:{n}: `{target}` leads outside the repository"
            ));
        } else if !path.exists() {
            broken.push(format!("{name}:{n}: `{target}` does not exist"));
        }
    }
    for (n, span) in code_span_paths(text) {
        if !root.join(&span).exists() {
            broken.push(format!(
                "{name}:{n}: `{span}` is not a file of the repository"
            ));
        }
    }
    broken
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_link_and_named_path_of_the_readme_and_docs_exists() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page is readable");
        broken.extend(broken_links(&page, &text));
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_docs_do_not_send_readers_outside_the_repository() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page is readable");
        assert!(
            !text.contains("shared/"),
            "{} mentions `shared/`, which is not part of the repository",
            page.display()
        );
    }
}

#[test]
fn the_readme_links_the_scene_format_page() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README is readable");
    let targets: Vec<String> = link_targets(&text).into_iter().map(|(_, t)| t).collect();
    assert!(
        targets.iter().any(|t| t == "docs/scene-format.md"),
        "{targets:?}"
    );
}

#[test]
fn the_checker_finds_a_missing_file_an_escape_and_a_missing_code_path() {
    let page = root().join("README.md");
    let text = "See [it](docs/missing.md), ![x](../outside.png), [ok](Cargo.toml),\n\
                [web](https://example.invalid/a), [anchor](#top) and `examples/nope.rs`.\n\
                ```\n[in code](not/checked.md)\n```\n";
    let broken = broken_links(&page, text);
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].contains("docs/missing.md") && broken[0].contains("does not exist"));
    assert!(broken[1].contains("outside the repository"));
    assert!(broken[2].contains("examples/nope.rs"));
}

/// The scene files the README's benchmark commands run
/// (`benches/scenes/*.json`) load as scenes, build their pools, and step
/// a second (60 frames) with every particle finite: a command the README
/// gives does what it says rather than stopping at a parse error.
#[test]
fn the_bench_scenes_load_and_run() {
    use cable::Scene;
    use cable::systems::{Layout, Stepper};
    let dir = root().join("benches/scenes");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("benches/scenes is readable") {
        let path = entry.expect("benches/scenes entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a readable scene");
        let scene = Scene::from_json(&text)
            .unwrap_or_else(|e| panic!("{}: not a valid scene: {e}", path.display()));
        let (mut pool, _) = scene
            .build_pool()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut stepper = Stepper::with_layout(scene.params, Layout::Lanes8)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for _ in 0..60 {
            stepper
                .advance(&mut pool, 1.0 / 60.0)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        assert!(
            pool.all_positions().iter().all(|p| p.is_finite()),
            "{}: a particle is not finite after 1 s",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 3, "only {n} scenes found in {}", dir.display());
}
