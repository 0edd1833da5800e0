//! `sift serve <BUNDLE>`: a local static server for trying a bundle in the browser.
//!
//!   /_sift/…       the bundle (and its model/ folder, when built with vectors)
//!   /…             the web runtime and demo page (www/dist: sift.js, sift-search.js, wasm)
//!   /…             then each `--site` folder: files as they are; `page.html` requests
//!                  for Markdown sources are rendered from `page.md`, anchors included
//!
//! Loopback by default; only GET/HEAD; paths cannot leave their roots.

use crate::http::{self, Request, Response};
use anyhow::{anyhow, bail, Context as _, Result};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Bundle directory (from `sift build`), served at /_sift/.
    pub dir: PathBuf,
    /// Port (0 picks a free one; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Folders with the site's pages (HTML, or Markdown rendered on the fly), served at /.
    #[arg(long = "site")]
    pub sites: Vec<PathBuf>,
    /// The built web runtime (default: $SIFT_WWW, else the repository's www/dist).
    #[arg(long)]
    pub www: Option<PathBuf>,
    /// Stop after this many requests (tests and benchmarks; 0 = serve until killed).
    #[arg(long, default_value_t = 0, hide = true)]
    pub max_requests: u64,
}

fn www_dir(a: &ServeArgs) -> Result<PathBuf> {
    let candidates: Vec<PathBuf> = match (&a.www, std::env::var_os("SIFT_WWW")) {
        (Some(p), _) => vec![p.clone()],
        (None, Some(p)) => vec![PathBuf::from(p)],
        (None, None) => vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/dist")],
    };
    for c in &candidates {
        if c.join("sift.js").is_file() && c.join("sift_wasm_bg.wasm").is_file() {
            return c.canonicalize().with_context(|| format!("cannot resolve {}", c.display()));
        }
    }
    bail!(
        "the web runtime is not built (looked for sift.js and sift_wasm_bg.wasm in {}); run `bash scripts/build-wasm.sh` or pass --www",
        candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
    )
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "txt" | "md" | "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `root` joined with a URL path, or None when the path tries to leave the root.
fn safe_join(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path)?;
    let rel = Path::new(decoded.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    Some(root.join(rel))
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).ok()?;
    (!s.contains('\0')).then_some(s)
}

/// What a path resolves to (the HTTP layer's own `http::Body` carries the bytes).
enum Found {
    File(PathBuf),
    Rendered(String),
}

/// What `/path` serves, first match wins.
fn resolve(bundle: &Path, www: &Path, sites: &[PathBuf], path: &str) -> Option<Found> {
    if let Some(rest) = path.strip_prefix("/_sift/") {
        return safe_join(bundle, rest).filter(|p| p.is_file()).map(Found::File);
    }
    let path = if path == "/" { "/index.html" } else { path };
    if let Some(p) = safe_join(www, path).filter(|p| p.is_file()) {
        return Some(Found::File(p));
    }
    for site in sites {
        let p = safe_join(site, path)?;
        if p.is_file() {
            return Some(Found::File(p));
        }
        if p.is_dir() && p.join("index.html").is_file() {
            return Some(Found::File(p.join("index.html")));
        }
        if p.extension().is_some_and(|e| e == "html") {
            let md = p.with_extension("md");
            if let Ok(bytes) = fs::read(&md) {
                let rel = md.strip_prefix(site).unwrap_or(&md).to_string_lossy().replace('\\', "/");
                if let Ok(html) = sift_extract::markdown::render_page(&bytes, &rel) {
                    return Some(Found::Rendered(html));
                }
            }
        }
    }
    None
}

pub fn run(a: &ServeArgs) -> Result<()> {
    let bundle = a.dir.canonicalize().with_context(|| format!("no bundle directory at {}", a.dir.display()))?;
    if !bundle.join(sift_format::MANIFEST_FILE).is_file() {
        bail!(
            "{} is not a Sift bundle (no manifest.json); build one with `sift build <SOURCE> --out {}`",
            a.dir.display(),
            a.dir.display()
        );
    }
    let www = www_dir(a)?;
    let sites: Vec<PathBuf> = a
        .sites
        .iter()
        .map(|s| s.canonicalize().with_context(|| format!("--site {} does not exist", s.display())))
        .collect::<Result<_>>()?;
    let listener =
        std::net::TcpListener::bind((a.host.as_str(), a.port)).map_err(|e| anyhow!("cannot listen on {}:{}: {e}", a.host, a.port))?;
    let addr = listener.local_addr().context("the server has no address")?;
    println!("Serving {} at http://{addr}/ (bundle at /_sift/; Ctrl-C stops)", bundle.display());
    let max = a.max_requests;
    let served = AtomicU64::new(0);
    http::serve(
        listener,
        move |req: &Request| respond(req, &bundle, &www, &sites),
        move || {
            // Tests and benchmarks: stop after `--max-requests` answers.
            if served.fetch_add(1, Ordering::SeqCst) + 1 == max {
                std::process::exit(0);
            }
        },
    );
    Ok(())
}

/// Answer one request: a file of the bundle, the demo or a site; a rendered page; or 404/405.
fn respond(req: &Request, bundle: &Path, www: &Path, sites: &[PathBuf]) -> Response {
    if req.method != "GET" && req.method != "HEAD" {
        let mut r = Response::text(405, "method not allowed");
        r.headers.push(("Allow", "GET, HEAD".into()));
        return r;
    }
    let path = req.target.split(['?', '#']).next().unwrap_or("/");
    match resolve(bundle, www, sites, path) {
        Some(Found::File(p)) => match fs::File::open(&p).and_then(|f| Ok((f.metadata()?.len(), f))) {
            Ok((len, f)) => Response {
                status: 200,
                headers: vec![("Content-Type", content_type(&p).into()), ("Cache-Control", "no-cache".into())],
                body: http::Body::File(f, len),
            },
            Err(_) => Response::text(404, "not found"),
        },
        Some(Found::Rendered(html)) => Response {
            status: 200,
            headers: vec![("Content-Type", "text/html; charset=utf-8".into())],
            body: http::Body::Bytes(html.into_bytes()),
        },
        None => Response::text(404, format!("not found: {path}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_leave_their_root() {
        let root = Path::new("/srv/site");
        assert_eq!(safe_join(root, "/a/b.html"), Some(root.join("a/b.html")));
        assert_eq!(safe_join(root, "/a%20b.html"), Some(root.join("a b.html")));
        for bad in ["/../etc/passwd", "/a/../../x", "/%2e%2e/x", "/a/%00", "/%zz", "//etc/passwd/../.."] {
            assert_eq!(safe_join(root, bad), None, "{bad}");
        }
    }

    #[test]
    fn wasm_and_modules_get_types_browsers_accept() {
        assert_eq!(content_type(Path::new("x/sift_wasm_bg.wasm")), "application/wasm");
        assert!(content_type(Path::new("sift.js")).starts_with("text/javascript"));
        assert_eq!(content_type(Path::new("m-1.bin")), "application/octet-stream");
    }
}
