//! Finding and reading sources: folders of HTML or Markdown, JSONL files. Extraction runs
//! in parallel a batch of files at a time; documents come out sorted by source and path so
//! builds are deterministic, each handed to the build's pages as it comes (their text goes
//! to disk: a big site is never held whole).

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sift_base::SourceDoc;
use sift_build::Pages;
use sift_extract::{html, jsonl, markdown, ExtractError};
use std::fs;
use std::path::{Path, PathBuf};

pub struct SourceOptions {
    pub selector: Option<String>,
    pub base_url: String,
    /// Directories never read (the output bundle itself when it sits inside the site).
    pub exclude: Vec<PathBuf>,
    /// Files larger than this are skipped with a warning.
    pub max_file_bytes: u64,
    /// Index HTML pages marked noindex too (`html::HtmlOptions::index_noindex`).
    pub index_noindex: bool,
    pub progress: bool,
}

impl SourceOptions {
    /// What the HTML extractor is told of them.
    fn html(&self) -> html::HtmlOptions {
        html::HtmlOptions { selector: self.selector.clone(), base_url: self.base_url.clone(), index_noindex: self.index_noindex }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Markdown,
    Jsonl,
}

fn kind_of(p: &Path) -> Option<Kind> {
    match p.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "html" | "htm" => Some(Kind::Html),
        "md" | "markdown" | "mdx" => Some(Kind::Markdown),
        "jsonl" | "ndjson" => Some(Kind::Jsonl),
        _ => None,
    }
}

pub struct Collected {
    pub pages: Pages,
    pub warnings: Vec<String>,
    pub files: usize,
    /// HTML pages left out because they are marked noindex.
    pub noindex: usize,
}

impl Collected {
    /// Refuse an empty site, saying why it is empty.
    pub fn require_pages(&self, sources: &[PathBuf], what: &str) -> Result<()> {
        match (self.pages.is_empty(), self.noindex) {
            (false, _) => Ok(()),
            (true, 0) => Err(anyhow!("no documents found in {sources:?}; nothing to {what}")),
            (true, n) => Err(anyhow!(
                "every page found in {sources:?} ({n}) is marked <meta name=\"robots\" content=\"noindex\"> (a staging build?); nothing to {what}: pass --index-noindex to index them anyway"
            )),
        }
    }
}

/// Read every source. A malformed JSONL record is an error; an unreadable or binary page is
/// skipped with a warning.
pub fn collect(sources: &[PathBuf], opts: &SourceOptions) -> Result<Collected> {
    let excluded: Vec<PathBuf> = opts.exclude.iter().filter_map(|p| fs::canonicalize(p).ok()).collect();
    let mut jobs: Vec<(PathBuf, String, Kind)> = Vec::new();
    let mut warnings = Vec::new();
    for src in sources {
        let meta = fs::metadata(src).map_err(|e| anyhow!("source {} cannot be read: {e}", src.display()))?;
        if meta.is_file() {
            let kind = kind_of(src).ok_or_else(|| anyhow!("source {} is not a folder, .html, .md or .jsonl file", src.display()))?;
            jobs.push((src.clone(), id_within(src, src).unwrap_or_default(), kind));
            continue;
        }
        let mut found = 0usize;
        let walker = walkdir::WalkDir::new(src).follow_links(false).sort_by_file_name().into_iter();
        let mut it = walker.filter_entry(|e| {
            let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
            let excl = fs::canonicalize(e.path()).map(|c| excluded.iter().any(|x| c.starts_with(x))).unwrap_or(false);
            !hidden && !excl
        });
        loop {
            let entry = match it.next() {
                None => break,
                Some(Ok(e)) => e,
                Some(Err(e)) => {
                    warnings.push(format!("skipped: {e}"));
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            let Some(kind) = kind_of(entry.path()) else { continue };
            let rel = id_within(entry.path(), src).unwrap_or_else(|| entry.path().to_string_lossy().replace('\\', "/"));
            jobs.push((entry.path().to_path_buf(), rel, kind));
            found += 1;
        }
        if found == 0 {
            warnings.push(format!("{}: no .html, .md or .jsonl files found", src.display()));
        }
    }

    let bar = if opts.progress { ProgressBar::new(jobs.len() as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{spinner} extracting {pos}/{len} files {wide_bar} {elapsed}, {eta} to go")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let log = crate::steps::LogProgress::new(!opts.progress);
    log.step(&format!("extracting {} files", jobs.len()));
    let html_opts = opts.html();
    let mut pages = Pages::new()?;
    let mut noindex = 0usize;
    let mut rest = &jobs[..];
    while let Some((path, rel, kind)) = rest.first() {
        if *kind == Kind::Jsonl {
            // A JSONL corpus is read a line at a time, each record handed over as it is read.
            warnings.extend(extract_jsonl(path, rel, &mut pages)?);
            bar.inc(1);
            rest = &rest[1..];
            continue;
        }
        let n = rest.iter().take(FILES_AT_A_TIME).take_while(|j| j.2 != Kind::Jsonl).count();
        let results: Vec<Result<Extracted>> = rest[..n]
            .par_iter()
            .map(|(path, rel, kind)| {
                let r = extract_one(path, rel, *kind, &html_opts, opts);
                bar.inc(1);
                r
            })
            .collect();
        for r in results {
            match r? {
                Extracted::Page(d, w) => {
                    pages.push(d)?;
                    warnings.extend(w);
                }
                Extracted::Skipped(why) => warnings.push(why),
                Extracted::NoIndex => noindex += 1,
            }
        }
        rest = &rest[n..];
        log.progress((jobs.len() - rest.len()) as u64, jobs.len() as u64);
    }
    bar.finish_and_clear();
    if noindex > 0 {
        warnings.push(format!(
            "{noindex} HTML page(s) left out: marked <meta name=\"robots\" content=\"noindex\">, as search engines leave them (--index-noindex indexes them)"
        ));
    }
    let (pages, w) = apply_site_annotations(pages)?;
    warnings.extend(w);
    Ok(Collected { pages, warnings, files: jobs.len(), noindex })
}

/// A page's id as `collect` gives it: its path within the source folder that holds it (a
/// source given as a file: its name). None for a file no source holds, or no page file
/// (`.jsonl` corpora hold many pages: not one file's id).
pub fn page_id(path: &Path, sources: &[PathBuf]) -> Option<String> {
    if !matches!(kind_of(path)?, Kind::Html | Kind::Markdown) {
        return None;
    }
    sources.iter().find_map(|src| id_within(path, src))
}

/// The id of the page at `path` within the source `src`: its path there, `/`-separated (a
/// source given as a file: its name). None when `src` does not hold it.
fn id_within(path: &Path, src: &Path) -> Option<String> {
    if path == src {
        return Some(path.file_name()?.to_string_lossy().into_owned());
    }
    Some(path.strip_prefix(src).ok()?.to_string_lossy().replace('\\', "/"))
}

/// Whether a source is a JSONL corpus (its file, or a folder holding one).
pub fn is_corpus(path: &Path) -> bool {
    kind_of(path) == Some(Kind::Jsonl)
}

/// The pages of these HTML and Markdown files (`(path, id)`), extracted as `collect` does;
/// a file that cannot be read, is binary or is marked noindex is left out with a warning.
pub fn extract_files(files: &[(PathBuf, String)], opts: &SourceOptions) -> (Vec<SourceDoc>, Vec<String>) {
    let html_opts = opts.html();
    let mut docs = Vec::new();
    let mut warnings = Vec::new();
    for (path, rel) in files {
        let Some(kind) = kind_of(path) else { continue };
        match extract_one(path, rel, kind, &html_opts, opts) {
            Ok(Extracted::Page(d, w)) => {
                docs.push(d);
                warnings.extend(w);
            }
            Ok(Extracted::Skipped(why)) => warnings.push(why),
            Ok(Extracted::NoIndex) => warnings.push(format!("{rel}: marked noindex; left out")),
            Err(e) => warnings.push(format!("{rel}: {e:#}; skipped")),
        }
    }
    (docs, warnings)
}

/// Files extracted at a time (on every core) before their pages are handed over.
const FILES_AT_A_TIME: usize = 256;

/// The annotations that concern the whole site: once a page marks its body
/// (`data-sift-body`, `data-pagefind-body`), HTML pages without one are left out; sort keys
/// other than `date` are said once.
fn apply_site_annotations(mut pages: Pages) -> Result<(Pages, Vec<String>)> {
    let mut warnings = Vec::new();
    if pages.heads().any(|d| d.annotations.body == Some(true)) {
        let before = pages.len();
        pages = pages.retain(|d| d.annotations.body != Some(false))?;
        if pages.len() < before {
            warnings.push(format!(
                "{} HTML page(s) left out: some pages mark their indexed content (data-sift-body or data-pagefind-body) and these do not",
                before - pages.len()
            ));
        }
    }
    let sorts: std::collections::BTreeSet<String> = pages.heads().flat_map(|d| d.annotations.sorts).collect();
    if !sorts.is_empty() {
        warnings.push(format!(
            "sort keys {} are not used: results sort by relevance or by date (data-sift-sort=\"date\")",
            sorts.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok((pages, warnings))
}

/// A JSONL corpus's records into `pages`, a line at a time; the warnings.
fn extract_jsonl(path: &Path, rel: &str, pages: &mut Pages) -> Result<Vec<String>> {
    let f = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Ok(vec![format!("{rel}: cannot be read ({e}); skipped")]),
    };
    let input = std::io::BufReader::with_capacity(1 << 20, f);
    settled(jsonl::extract(input, &path.display().to_string(), |d| pages.push(d).map_err(|e| ExtractError::Invalid(e.message))), |w| {
        vec![w]
    })
}

/// An extractor's answer: a source it skipped is a warning (`skipped` makes the answer of
/// it; a page marked noindex is one where nothing counts them), an invalid one stops the
/// build.
fn settled<T>(r: std::result::Result<T, ExtractError>, skipped: impl FnOnce(String) -> T) -> Result<T> {
    match r {
        Ok(v) => Ok(v),
        Err(e @ (ExtractError::Skip(_) | ExtractError::NoIndex)) => Ok(skipped(e.to_string())),
        Err(ExtractError::Invalid(m)) => Err(anyhow!(m)),
    }
}

/// What became of one HTML or Markdown file. (Short-lived, one a file: the page's size is
/// no cost worth a box.)
#[allow(clippy::large_enum_variant)]
enum Extracted {
    /// Its page, and warnings about it.
    Page(SourceDoc, Vec<String>),
    /// Skipped, and why.
    Skipped(String),
    /// Marked noindex: left out, and counted in one warning.
    NoIndex,
}

/// An HTML or Markdown file's page, or why it has none.
fn extract_one(path: &Path, rel: &str, kind: Kind, html_opts: &html::HtmlOptions, opts: &SourceOptions) -> Result<Extracted> {
    let skipped = |why: String| Ok(Extracted::Skipped(why));
    let size = match fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) => return skipped(format!("{rel}: cannot be read ({e}); skipped")),
    };
    let limit = opts.max_file_bytes;
    if size > limit {
        return skipped(format!("{rel}: {size} bytes is over the {limit} byte limit; skipped"));
    }
    // The size was checked above, but the file may change before it is read (a site being
    // rebuilt under us): the read itself stops past the limit, so memory stays bounded.
    let bytes = match read_at_most(path, limit) {
        Ok(Some(b)) => b,
        Ok(None) => return skipped(format!("{rel}: grew past the {limit} byte limit while being read; skipped")),
        Err(e) => return skipped(format!("{rel}: cannot be read ({e}); skipped")),
    };
    let r = match kind {
        Kind::Html => html::extract(&bytes, rel, html_opts),
        _ => markdown::extract(&bytes, rel, &opts.base_url),
    };
    match r {
        Err(ExtractError::NoIndex) => Ok(Extracted::NoIndex),
        r => settled(r.map(|(d, w)| Extracted::Page(d, w)), Extracted::Skipped),
    }
}

/// The file's bytes, or None when it holds more than `limit` bytes.
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// An empty folder of this process's own for a test (`sift-NAME-PID` in the temp folder).
#[cfg(test)]
pub(crate) fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sift-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> SourceOptions {
        SourceOptions {
            selector: None,
            base_url: String::new(),
            exclude: Vec::new(),
            max_file_bytes: 1000,
            index_noindex: false,
            progress: false,
        }
    }

    #[test]
    fn a_file_that_vanished_after_the_walk_is_skipped_with_a_warning() {
        let d = scratch("vanished");
        match extract_one(&d.join("gone.md"), "gone.md", Kind::Markdown, &html::HtmlOptions::default(), &opts()).unwrap() {
            Extracted::Skipped(w) => assert!(w.starts_with("gone.md: cannot be read (") && w.ends_with("; skipped"), "{w}"),
            _ => panic!("expected a skip"),
        }
    }

    #[test]
    fn pages_marked_noindex_are_left_out_in_one_warning_and_an_all_noindex_site_says_so() {
        let d = scratch("noindex");
        let page = |robots: &str| format!("<html><head><meta name=\"robots\" content=\"{robots}\"></head><main><p>Text.</p></main></html>");
        fs::write(d.join("a.html"), page("index")).unwrap();
        fs::write(d.join("print.html"), page("noindex")).unwrap();
        fs::write(d.join("old.html"), page("noindex,follow")).unwrap();
        fs::write(d.join("notes.md"), "# Notes\n\nMarkdown has no robots tag.\n").unwrap();
        let c = collect(std::slice::from_ref(&d), &opts()).unwrap();
        assert_eq!(c.pages.heads().map(|p| p.id).collect::<Vec<_>>(), ["a.html", "notes.md"]);
        assert_eq!(c.noindex, 2);
        let said: Vec<_> = c.warnings.iter().filter(|w| w.contains("noindex")).collect();
        assert_eq!(said.len(), 1, "{:?}", c.warnings);
        assert!(said[0].starts_with("2 HTML page(s) left out") && said[0].contains("--index-noindex"), "{}", said[0]);
        c.require_pages(std::slice::from_ref(&d), "index").unwrap();

        let c = collect(std::slice::from_ref(&d), &SourceOptions { index_noindex: true, ..opts() }).unwrap();
        assert_eq!(c.pages.len(), 4);
        assert!(c.noindex == 0 && !c.warnings.iter().any(|w| w.contains("noindex")), "{:?}", c.warnings);

        // A staging build marks every page: the error says so, and how to index them anyway.
        for f in ["a.html", "notes.md"] {
            fs::remove_file(d.join(f)).unwrap();
        }
        let c = collect(std::slice::from_ref(&d), &opts()).unwrap();
        let e = c.require_pages(std::slice::from_ref(&d), "index").unwrap_err().to_string();
        assert!(e.contains("every page found") && e.contains("(2)") && e.contains("--index-noindex"), "{e}");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn once_a_page_marks_its_body_unmarked_html_pages_are_left_out_and_markdown_stays() {
        let doc = |id: &str, body: Option<bool>, sorts: &[&str]| SourceDoc {
            id: id.into(),
            annotations: sift_base::Annotations { body, sorts: sorts.iter().map(|s| s.to_string()).collect(), ..Default::default() },
            ..Default::default()
        };
        let docs = [doc("a.html", Some(true), &["priority"]), doc("b.html", Some(false), &[]), doc("c.md", None, &["priority"])];
        let (pages, w) = apply_site_annotations(Pages::of(docs).unwrap()).unwrap();
        assert_eq!(pages.heads().map(|d| d.id).collect::<Vec<_>>(), ["a.html", "c.md"]);
        assert!(w[0].starts_with("1 HTML page(s) left out"), "{w:?}");
        assert!(w[1].contains("sort keys priority are not used"), "{w:?}");
        // No page marks a body: every page stays, nothing is said.
        let (pages, w) = apply_site_annotations(Pages::of([doc("b.html", Some(false), &[]), doc("c.md", None, &[])]).unwrap()).unwrap();
        assert!(w.is_empty() && pages.len() == 2);
    }

    #[test]
    fn reads_stop_at_the_limit() {
        let d = scratch("limit");
        let p = d.join("page.html");
        fs::write(&p, vec![b'a'; 1001]).unwrap();
        assert_eq!(read_at_most(&p, 1000).unwrap(), None);
        assert_eq!(read_at_most(&p, 1001).unwrap().map(|b| b.len()), Some(1001));
        let _ = fs::remove_dir_all(&d);
    }
}
