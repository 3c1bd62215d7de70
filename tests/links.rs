//! A newcomer follows the README: every relative link and image in
//! `README.md` and in the pages under `docs/` (the guide's chapters in
//! `docs/guide/` included) must lead to a file of the repository, and to a
//! heading of it when the link names one (`page.md#heading`); every
//! repository path the text names in backticks (`examples/…`, `docs/…`,
//! `crates/…`) must exist; the scene files its benchmark commands run must
//! load and run. The README stays a front door (at most 300 lines, no dated
//! measurement: those live in `docs/performance-history.md`), the guide
//! carries no dates either, every page with Rust code is compiled as a
//! doctest, and no page names a tool only the project's own machine has.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

/// The repository root (this package's manifest directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The longest the README may be: a front door, not the manual.
const README_MAX_LINES: usize = 300;

/// Markdown files under `dir`, recursively, skipping build output
/// (`target/`) and hidden directories.
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{} is not readable: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                out.extend(markdown_under(&path));
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Markdown files a reader sees: the README and every page under `docs/`,
/// the guide's chapters included.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    pages.extend(markdown_under(&root().join("docs")));
    pages
}

/// The guide's chapters (`docs/guide/*.md`).
fn guide_chapters() -> Vec<PathBuf> {
    markdown_under(&root().join("docs/guide"))
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
    const TOP: [&str; 9] = [
        "benches/",
        "crates/",
        "docs/",
        "examples/",
        "scenes/",
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
/// repository checkout: a web address or a mail address.
fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// The anchor GitHub gives a heading: lower case, spaces as hyphens, every
/// character but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// The anchors of a page's headings (outside code blocks); a repeated
/// heading gets `-1`, `-2`, ... as on GitHub.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(heading) = line[hashes..].strip_prefix(' ') else {
            continue;
        };
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
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
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        if file.is_empty() && anchor.is_none_or(str::is_empty) {
            broken.push(format!("{name}:{n}: empty link target `{target}`"));
            continue;
        }
        let path = if file.is_empty() {
            page.to_path_buf()
        } else {
            normalise(&dir.join(file))
        };
        if !path.starts_with(&root) {
            broken.push(format!(
                "{name}:{n}: `{target}` leads outside the repository"
            ));
            continue;
        } else if !path.exists() {
            broken.push(format!("{name}:{n}: `{target}` does not exist"));
            continue;
        }
        // A heading named in a markdown page must be one of its headings.
        if let Some(anchor) = anchor.filter(|_| path.extension().is_some_and(|e| e == "md")) {
            let target_text = if file.is_empty() {
                text.to_string()
            } else {
                std::fs::read_to_string(&path).unwrap_or_default()
            };
            if !anchors(&target_text).contains(anchor) {
                broken.push(format!(
                    "{name}:{n}: `{target}`: no heading with the anchor `#{anchor}`"
                ));
            }
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
    let text = "# Top\n\
                See [it](docs/missing.md), ![x](../outside.png), [ok](Cargo.toml),\n\
                [web](https://example.invalid/a), [anchor](#top) and `examples/nope.rs`.\n\
                ```\n[in code](not/checked.md)\n```\n";
    let broken = broken_links(&page, text);
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].contains("docs/missing.md") && broken[0].contains("does not exist"));
    assert!(broken[1].contains("outside the repository"));
    assert!(broken[2].contains("examples/nope.rs"));
}

#[test]
fn the_checker_finds_a_missing_heading() {
    let page = root().join("README.md");
    let text = "# A heading: with `code` (and more)\n\n## Twice\n\n## Twice\n\n\
                [good](#a-heading-with-code-and-more), [second](#twice-1),\n\
                [here](#nowhere), [there](README.md#the-guide),\n\
                [missing](README.md#no-such-heading), [image](docs/demo.png#x).\n";
    let broken = broken_links(&page, text);
    assert_eq!(broken.len(), 2, "{broken:#?}");
    assert!(broken[0].contains("#nowhere") && broken[0].contains("no heading"));
    assert!(broken[1].contains("#no-such-heading"));
}

/// Why `text`, the README, is not a front door: too long, or carrying a
/// dated measurement (a `YYYY-MM-DD` date or a `UTC` time of day).
fn front_door_faults(text: &str) -> Vec<String> {
    let mut faults = Vec::new();
    let lines = text.lines().count();
    if lines > README_MAX_LINES {
        faults.push(format!(
            "{lines} lines, more than {README_MAX_LINES}: move the detail into docs/guide/"
        ));
    }
    faults.extend(dated_lines(text));
    faults
}

/// Lines of `text` that date something: a `YYYY-MM-DD` date or a time of
/// day in UTC. Dated figures belong in `docs/performance-history.md`.
fn dated_lines(text: &str) -> Vec<String> {
    let is_date = |w: &[u8]| {
        w.len() == 10
            && w.iter().enumerate().all(|(i, &b)| match i {
                4 | 7 => b == b'-',
                _ => b.is_ascii_digit(),
            })
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let date = bytes.windows(10).any(is_date);
        if date || line.contains(" UTC") {
            out.push(format!("line {}: a dated measurement: {line}", i + 1));
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_door() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README is readable");
    let faults = front_door_faults(&text);
    assert!(faults.is_empty(), "README.md:\n{}", faults.join("\n"));
}

#[test]
fn the_guide_states_what_holds_now_without_dates() {
    let chapters = guide_chapters();
    assert!(chapters.len() >= 10, "only {} chapters", chapters.len());
    let mut faults = Vec::new();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).expect("chapter is readable");
        for fault in dated_lines(&text) {
            faults.push(format!("{}: {fault}", chapter.display()));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_front_door_check_finds_a_long_or_dated_readme() {
    let short = "# cable\n\nA library.\n";
    assert!(front_door_faults(short).is_empty());
    let long = "line\n".repeat(README_MAX_LINES + 1);
    let faults = front_door_faults(&long);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].contains("301 lines"));
    let dated = "Measured on 2026-11-27: 3.91 × 10⁹.\nAt 01:36 UTC, 29.8×.\nversion 1.0-2.0\n";
    let faults = front_door_faults(dated);
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert!(faults[0].starts_with("line 1") && faults[1].starts_with("line 2"));
}

/// Tools a reader cannot install: the project's own machine had them.
const MACHINE_ONLY_TOOLS: [&str; 1] = ["farm-bench"];

/// The machine-only tools `text` names.
fn machine_only_tools(text: &str) -> Vec<&'static str> {
    MACHINE_ONLY_TOOLS
        .into_iter()
        .filter(|tool| text.contains(tool))
        .collect()
}

#[test]
fn no_page_names_a_tool_of_the_projects_machine() {
    let mut faults = Vec::new();
    for page in markdown_under(&root()) {
        let text = std::fs::read_to_string(&page).expect("page is readable");
        for tool in machine_only_tools(&text) {
            faults.push(format!(
                "{} names `{tool}`: cite what a user can install (hyperfine, `cable bench`)",
                page.display()
            ));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    assert_eq!(
        machine_only_tools("timed with `farm-bench -n 10 --vs old -- new`"),
        ["farm-bench"]
    );
    assert!(machine_only_tools("timed with `hyperfine --runs 10 old new`").is_empty());
}

/// Whether the library's `src/lib.rs` compiles `page` (a path relative to
/// the repository root) as a doctest: `#[doc = include_str!("../<page>")]`.
fn is_doctested(lib_rs: &str, page: &str) -> bool {
    let include = format!("include_str!(\"../{page}\")");
    lib_rs
        .lines()
        .any(|line| line.contains("#[doc = ") && line.contains(&include))
}

#[test]
fn every_page_with_rust_code_is_a_doctest() {
    let lib_rs = std::fs::read_to_string(root().join("src/lib.rs")).expect("src/lib.rs");
    let mut pages = vec![root().join("README.md")];
    pages.extend(guide_chapters());
    let mut missing = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("page is readable");
        let rel = page
            .strip_prefix(root())
            .expect("a page of the repository")
            .to_string_lossy()
            .replace('\\', "/");
        if text.contains("```rust") && !is_doctested(&lib_rs, &rel) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "pages with Rust code that src/lib.rs does not compile as doctests \
         (add `#[cfg(doctest)] #[doc = include_str!(\"../PAGE\")] mod NAME {{}}`): {missing:?}"
    );
    assert!(!is_doctested("#![doc = \"x\"]", "README.md"));
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
