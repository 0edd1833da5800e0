//! `sift mcp BUNDLE`: a Model Context Protocol server over stdio, for agents that run MCP
//! servers as local processes (editors, desktop assistants).
//!
//! Transport: newline-delimited JSON-RPC 2.0 on stdin and stdout; logs go to stderr.
//! Tools: the worker's (`search`, `multi_search`, `get_document`, `related`: one list,
//! `worker/src/mcp-tools.json`, read by both servers) answered by the native engine in the
//! same shapes, and `status`. The bundle is reopened when its manifest changes, so a
//! rebuild (`sift build`, `sift watch`, or `--watch` here) is served from the next call on,
//! without a restart. Bad messages get JSON-RPC errors; a tool's bad arguments get a tool
//! result with `isError` and the contract's error code; nothing ends the server but the end
//! of its input.

use crate::bundle_io::DiskBundle;
use crate::watch::{self, Shared};
use crate::{BuildArgs, QueryEmbedder};
use anyhow::Result;
use serde_json::{json, Map, Value};
use sift_base::error::ErrorCode;
use sift_base::json::{Json, ToJson};
use sift_engine::agent::{self, AgentSizes};
use sift_engine::{Context, MultiSearchRequest, SearchRequest, SiftError};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const SPEC_TEXT: &str = include_str!("../../worker/src/mcp-tools.json");

#[derive(clap::Args)]
pub struct McpArgs {
    /// Bundle directory (from `sift build`); with --watch, where the sources are built.
    pub dir: PathBuf,
    /// Build the bundle from these folders or files, and again whenever they change.
    #[arg(long, num_args = 1..)]
    pub watch: Vec<PathBuf>,
    /// With --watch: prefix of every page URL (e.g. `/docs/`).
    #[arg(long, default_value = "", requires = "watch")]
    pub base_url: String,
    /// With --watch: CSS selector of the main content of HTML pages.
    #[arg(long, requires = "watch")]
    pub selector: Option<String>,
    /// With --watch: build keyword-only bundles (no vectors).
    #[arg(long, requires = "watch")]
    pub no_embedder: bool,
}

/// A JSON-RPC error (the protocol's codes), as opposed to a tool's error result.
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

fn rpc(code: i64, message: impl Into<String>) -> RpcError {
    RpcError { code, message: message.into(), data: None }
}

/// When the manifest was last written, and its size: a rebuilt bundle has a new one.
type Stamp = (Option<SystemTime>, u64);

fn manifest_stamp(dir: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(dir.join(sift_format::MANIFEST_FILE)).ok()?;
    Some((m.modified().ok(), m.len()))
}

struct Server {
    spec: Value,
    dir: PathBuf,
    bundle: Option<(DiskBundle, Option<Stamp>)>,
    /// The other languages' bundles opened so far (folder → bundle), reopened when rebuilt.
    languages: std::collections::HashMap<String, (DiskBundle, Option<Stamp>)>,
    watch: Option<Shared>,
}

impl Server {
    fn new(dir: PathBuf, watch: Option<Shared>) -> Server {
        let spec: Value = serde_json::from_str(SPEC_TEXT).expect("mcp-tools.json is valid JSON");
        Server { spec, dir, bundle: None, languages: Default::default(), watch }
    }

    fn size(&self, key: &str) -> usize {
        self.spec[key].as_u64().expect("mcp-tools.json has the answer sizes") as usize
    }

    /// The bundle, reopened when it was rebuilt since the last call. While a rebuild swaps
    /// it in (the manifest is briefly absent) the open one is kept.
    fn bundle(&mut self) -> Result<&mut DiskBundle, SiftError> {
        let stamp = manifest_stamp(&self.dir);
        let stale = match &self.bundle {
            None => true,
            Some((_, seen)) => stamp.is_some() && stamp != *seen,
        };
        if stale {
            let reopened = self.bundle.is_some();
            let b = DiskBundle::open(&self.dir)?;
            if reopened {
                eprintln!("sift mcp: the bundle was rebuilt; serving the new one ({} pages)", b.engine.manifest().doc_count);
            }
            self.bundle = Some((b, stamp));
        }
        Ok(&mut self.bundle.as_mut().expect("opened above").0)
    }

    /// Run `call` on the bundle; when a shard is missing because the bundle was replaced
    /// under the call, once more on the new bundle.
    fn with_bundle<T>(&mut self, mut call: impl FnMut(&mut DiskBundle) -> Result<T, SiftError>) -> Result<T, SiftError> {
        let r = call(self.bundle()?);
        match r {
            Err(e) if matches!(e.code, ErrorCode::BundleCorrupt | ErrorCode::BundleMissing) => {
                for _ in 0..20 {
                    if manifest_stamp(&self.dir).is_some_and(|s| Some(s) != self.bundle.as_ref().and_then(|b| b.1)) {
                        self.bundle = None;
                        return call(self.bundle()?);
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e)
            }
            r => r,
        }
    }

    fn handle_line(&mut self, line: &str) -> Option<Value> {
        let msg: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Some(error_answer(Value::Null, rpc(-32700, format!("Parse error: {e}")))),
        };
        match msg {
            Value::Array(batch) if batch.is_empty() => Some(error_answer(Value::Null, rpc(-32600, "Invalid Request: empty batch"))),
            Value::Array(batch) => {
                let answers: Vec<Value> = batch.into_iter().filter_map(|m| self.one(m)).collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            m => self.one(m),
        }
    }

    /// One message's answer (None for a notification).
    fn one(&mut self, msg: Value) -> Option<Value> {
        let id = msg.get("id").cloned();
        let is_notification = msg.is_object() && id.is_none() && msg.get("method").is_some_and(Value::is_string);
        if is_notification {
            return match msg.get("jsonrpc") {
                Some(v) if v == "2.0" => None, // notifications/initialized, cancelled, …: nothing to answer
                _ => Some(error_answer(Value::Null, rpc(-32600, "Invalid Request: jsonrpc must be \"2.0\""))),
            };
        }
        let id = id.unwrap_or(Value::Null);
        match self.dispatch(&msg) {
            Ok(result) => Some(json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Err(e) => Some(error_answer(id, e)),
        }
    }

    fn dispatch(&mut self, msg: &Value) -> Result<Value, RpcError> {
        let Some(obj) = msg.as_object() else { return Err(rpc(-32600, "Invalid Request: a JSON-RPC message is an object")) };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(rpc(
                -32600,
                format!("Invalid Request: jsonrpc must be \"2.0\", got {}", obj.get("jsonrpc").unwrap_or(&Value::Null)),
            ));
        }
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            return Err(rpc(-32600, "Invalid Request: method must be a string"));
        };
        let params = obj.get("params").cloned().unwrap_or(Value::Object(Map::new()));
        match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => {
                let mut tools = self.spec["tools"].as_array().cloned().unwrap_or_default();
                tools.extend(self.spec["stdio_tools"].as_array().cloned().unwrap_or_default());
                Ok(json!({ "tools": tools }))
            }
            "tools/call" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return Err(rpc(-32602, "tools/call needs params {name, arguments}"));
                };
                self.call_tool(name, params.get("arguments"))
            }
            "resources/list" => Ok(json!({ "resources": [] })),
            "prompts/list" => Ok(json!({ "prompts": [] })),
            other => Err(rpc(-32601, format!("Method not found: {other}"))),
        }
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let versions = self.spec["protocol_versions"].as_array().cloned().unwrap_or_default();
        let asked = params.get("protocolVersion").cloned().unwrap_or(Value::Null);
        let version = if versions.contains(&asked) { asked } else { versions[0].clone() };
        let server_info = self.spec["server_info"].clone();
        // A bundle that cannot be opened yet (a first build under way, a wrong path) does not
        // stop the session: the instructions and every tool call say why.
        let instructions = match self.bundle() {
            Ok(b) => {
                let m = b.engine.manifest();
                let fields = if m.filter_fields.is_empty() { "none".to_string() } else { m.filter_fields.join(", ") };
                format!(
                    "Search {} documentation pages. Start with the search tool; read a page with get_document (paged by offset); find neighbours with related; status says what is indexed. Filterable fields: {fields}.",
                    m.doc_count
                )
            }
            Err(e) => format!("The bundle at {} cannot be opened yet ({}); the status tool says more.", self.dir.display(), e.message),
        };
        json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": server_info,
            "instructions": instructions,
        })
    }

    fn call_tool(&mut self, name: &str, args: Option<&Value>) -> Result<Value, RpcError> {
        let names: Vec<String> = ["tools", "stdio_tools"]
            .iter()
            .flat_map(|k| self.spec[*k].as_array().cloned().unwrap_or_default())
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect();
        if !names.iter().any(|n| n == name) {
            return Err(rpc(-32602, format!("Unknown tool {}; the tools are {}", Value::from(name), names.join(", "))));
        }
        let args = match args {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(rpc(-32602, format!("{name}: arguments must be an object"))),
        };
        let r = only_keys(&args, &self.schema_keys(name), name).and_then(|()| one_bundle(&args)).and_then(|()| match name {
            "search" => self.search(&args),
            "multi_search" => self.multi_search(&args),
            "get_document" => self.get_document(&args),
            "related" => self.related(&args),
            _ => self.status(),
        });
        Ok(r.unwrap_or_else(
            |e| json!({ "content": [{ "type": "text", "text": format!("Error {}: {}", e.code.as_str(), e.message) }], "isError": true }),
        ))
    }

    fn search(&mut self, args: &Map<String, Value>) -> Result<Value, SiftError> {
        let include_content = args.get("include_content").and_then(Value::as_bool).unwrap_or(false);
        // `lang` (a site built in several languages) picks the bundle; the rest is the search.
        let mut args = args.clone();
        let lang = match args.remove("lang") {
            None => None,
            Some(Value::String(l)) => Some(l),
            Some(_) => return Err(SiftError::invalid("lang is a language code such as \"de\"")),
        };
        let req = SearchRequest::from_json(&with_default_limit(&args))?;
        let ctx = Context { now_days: crate::now_days() };
        let run = |b: &mut DiskBundle| {
            let qv = crate::query_vector(b, &req, QueryEmbedder::Static)?;
            b.drive(|e| e.search_with(&req, &ctx, qv.as_deref()))
        };
        let res = match self.language_folder(lang.as_deref())? {
            None => self.with_bundle(run)?,
            Some(folder) => {
                // Opened once (its shards stay loaded), again when a rebuild changed it.
                let dir = self.dir.join(&folder);
                let stamp = manifest_stamp(&dir);
                if self.languages.get(&folder).is_none_or(|(_, seen)| stamp.is_some() && stamp != *seen) {
                    self.languages.insert(folder.clone(), (DiskBundle::open(&dir)?, stamp));
                }
                run(&mut self.languages.get_mut(&folder).expect("just opened").0)?
            }
        };
        let res = res.to_json();
        let results = self.compact_all(&res, include_content);
        let res = to_value(&res);
        let mut s = Map::new();
        for k in ["total", "has_more", "offset", "search_type"] {
            s.insert(k.into(), res[k].clone());
        }
        s.insert("results".into(), Value::Array(results.clone()));
        if !res["fallback"].is_null() {
            s.insert("fallback".into(), res["fallback"].clone());
        }
        if !list(&res["suggestions"]).is_empty() {
            s.insert("suggestions".into(), res["suggestions"].clone());
        }
        if res["has_more"] == true {
            let next = res["offset"].as_u64().unwrap_or(0) + results.len() as u64;
            s.insert("next".into(), json!(format!("more results: call search again with offset {next}")));
        }
        let total = res["total"].as_u64().unwrap_or(0);
        let mut head = vec![format!(
            "{total} result{} for {} ({})",
            if total == 1 { "" } else { "s" },
            res["query"],
            res["search_type"].as_str().unwrap_or("")
        )];
        if let Some(reason) = res["fallback"]["reason"].as_str() {
            head.push(format!("Note: {reason}"));
        }
        let suggestions: Vec<&str> = list(&res["suggestions"]).iter().filter_map(Value::as_str).collect();
        if !suggestions.is_empty() {
            head.push(format!("Did you mean: {}?", suggestions.join(", ")));
        }
        Ok(tool_result(Value::Object(s), &head.join("\n")))
    }

    /// The folder of `lang`'s bundle inside the main one; None: the main bundle answers (no
    /// lang, or the main bundle's own). A language the site lacks is an error naming those
    /// it has.
    fn language_folder(&mut self, lang: Option<&str>) -> Result<Option<String>, SiftError> {
        let Some(lang) = lang else { return Ok(None) };
        let m = self.bundle()?.engine.manifest();
        let code = sift_text::analyzer::primary_subtag(lang).unwrap_or_default();
        if code == m.language {
            return Ok(None);
        }
        match m.languages.iter().find(|(c, _)| *c == code) {
            Some((_, folder)) => Ok(Some(folder.clone())),
            None => {
                let has: Vec<&str> = std::iter::once(m.language.as_str()).chain(m.languages.iter().map(|(c, _)| c.as_str())).collect();
                Err(SiftError::invalid(format!(
                    "lang {}: the site has no pages in that language; it has {}",
                    Value::from(lang),
                    has.join(", ")
                )))
            }
        }
    }

    fn multi_search(&mut self, args: &Map<String, Value>) -> Result<Value, SiftError> {
        let req = MultiSearchRequest::from_json(&with_default_limit(args))?;
        let ctx = Context { now_days: crate::now_days() };
        let res = self.with_bundle(|b| {
            let vectors: Vec<Option<Vec<f32>>> =
                req.queries.iter().map(|q| crate::query_vector(b, q, QueryEmbedder::Static)).collect::<Result<_, _>>()?;
            b.drive(|e| e.multi_search_with(&req, &ctx, Some(&vectors)))
        })?;
        let res = res.to_json();
        let results = self.compact_all(&res, false);
        let res = to_value(&res);
        let text = format!("{} results merged from {} queries", res["total"], list(&res["queries"]).len());
        Ok(tool_result(json!({ "total": res["total"], "has_more": res["has_more"], "queries": res["queries"], "results": results }), &text))
    }

    fn get_document(&mut self, args: &Map<String, Value>) -> Result<Value, SiftError> {
        let (default_chars, max) = (self.size("doc_default_chars"), self.size("doc_max_chars"));
        let id = match args.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => return Err(SiftError::invalid("get_document needs an id string (from search results)")),
        };
        let offset = match args.get("offset") {
            None => 0,
            Some(v) => v.as_u64().ok_or_else(|| SiftError::invalid("offset must be a non-negative integer"))? as usize,
        };
        let max_chars = match args.get("max_chars") {
            None => default_chars,
            Some(v) => match v.as_u64() {
                Some(n) if (200..=max as u64).contains(&n) => n as usize,
                _ => return Err(SiftError::invalid(format!("max_chars must be an integer from 200 to {max}"))),
            },
        };
        let doc = self.with_bundle(|b| b.drive(|e| e.get_document(&id)))?;
        let Some(doc) = doc else {
            return Err(SiftError::new(
                ErrorCode::NotFound,
                format!("no document with id {}; ids come from search results", Value::from(id)),
            ));
        };
        let (structured, text) = agent::document_part(&doc.to_json(), offset, max_chars);
        Ok(json!({ "content": [{ "type": "text", "text": text }], "structuredContent": to_value(&structured) }))
    }

    fn related(&mut self, args: &Map<String, Value>) -> Result<Value, SiftError> {
        let id = match args.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_string(),
            _ => return Err(SiftError::invalid("related needs an id string (from search results)")),
        };
        let limit = match args.get("limit") {
            None => 5,
            Some(v) => v.as_i64().ok_or_else(|| SiftError::new(ErrorCode::InvalidLimit, format!("limit must be an integer, got {v}")))?,
        };
        let ctx = Context { now_days: crate::now_days() };
        let res = self.with_bundle(|b| b.drive(|e| e.related(&id, Some(limit), &ctx)))?;
        let res = res.to_json();
        let results = self.compact_all(&res, false);
        let res = to_value(&res);
        Ok(tool_result(json!({ "total": res["total"], "results": results }), &format!("Pages related to {id}")))
    }

    fn status(&mut self) -> Result<Value, SiftError> {
        let dir = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let mut s = Map::new();
        s.insert("bundle".into(), json!(dir.display().to_string()));
        match self.bundle() {
            Ok(b) => {
                let m = b.engine.manifest();
                s.insert("pages".into(), json!(m.doc_count));
                s.insert("terms".into(), json!(m.term_count));
                s.insert("vectors".into(), json!(m.vectors.is_some()));
                s.insert("query_encoder".into(), json!(m.encoder.is_some()));
                s.insert("filter_fields".into(), json!(m.filter_fields));
                let languages: Vec<&str> =
                    std::iter::once(m.language.as_str()).chain(m.languages.iter().map(|(c, _)| c.as_str())).collect();
                s.insert("languages".into(), json!(languages));
                s.insert("generator".into(), json!(m.generator));
            }
            Err(e) => {
                s.insert("error".into(), json!({ "code": e.code.as_str(), "message": e.message }));
            }
        }
        let built = manifest_stamp(&self.dir).and_then(|(t, _)| t).map(iso_time);
        s.insert("built".into(), json!(built));
        if let Some(w) = &self.watch {
            let w = w.lock().expect("watch state").clone();
            s.insert(
                "watch".into(),
                json!({
                    "sources": w.sources, "builds": w.builds, "building": w.building,
                    "last_build": w.last_ok.map(|(docs, secs, at)| json!({ "pages": docs, "seconds": (secs * 100.0).round() / 100.0, "at": iso_time(SystemTime::UNIX_EPOCH + Duration::from_secs(at)) })),
                    "last_error": w.last_error,
                }),
            );
        }
        let text = match (s.get("pages"), s.get("error")) {
            (Some(p), _) => format!("{p} pages in {}{}", dir.display(), built.map(|b| format!(", built {b}")).unwrap_or_default()),
            (None, e) => {
                format!("The bundle at {} cannot be opened: {}", dir.display(), e.map(|e| e["message"].to_string()).unwrap_or_default())
            }
        };
        Ok(tool_result(Value::Object(s), &text))
    }

    /// A response's results (the engine's JSON) as an agent's context wants them
    /// (`sift_engine::agent`).
    fn compact_all(&self, res: &Json, include_content: bool) -> Vec<Value> {
        let sizes = AgentSizes { snippet_chars: self.size("snippet_chars"), content_preview_chars: self.size("content_preview_chars") };
        let results: &[Json] = match res.get("results") {
            Some(Json::Arr(r)) => r,
            _ => &[],
        };
        results.iter().map(|r| to_value(&agent::compact_result(r, include_content, sizes))).collect()
    }

    /// The arguments `tool` takes (its schema's properties).
    fn schema_keys(&self, tool: &str) -> Vec<String> {
        ["tools", "stdio_tools"]
            .iter()
            .filter_map(|k| self.spec[*k].as_array())
            .flatten()
            .find(|t| t["name"] == tool)
            .and_then(|t| t["inputSchema"]["properties"].as_object())
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// A tool's arguments as a contract request body, with the tools' default of 5 results.
fn with_default_limit(args: &Map<String, Value>) -> Vec<u8> {
    let mut body = Map::new();
    body.insert("limit".into(), json!(5));
    body.extend(args.clone());
    Value::Object(body).to_string().into_bytes()
}

fn error_answer(id: Value, e: RpcError) -> Value {
    let mut error = json!({ "code": e.code, "message": e.message });
    if let Some(d) = e.data {
        error["data"] = d;
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": error })
}

fn only_keys<S: AsRef<str>>(args: &Map<String, Value>, allowed: &[S], tool: &str) -> Result<(), SiftError> {
    for k in args.keys() {
        if !allowed.iter().any(|a| a.as_ref() == k) {
            let mut names: Vec<&str> = allowed.iter().map(AsRef::as_ref).collect();
            names.sort_unstable(); // as the worker lists them
            let takes = if names.is_empty() { "no arguments".to_string() } else { names.join(", ") };
            return Err(SiftError::new(
                ErrorCode::InvalidRequest,
                format!("{tool} takes {takes}; unknown argument {}", Value::from(k.as_str())),
            ));
        }
    }
    Ok(())
}

/// The tools are the worker's, which can search several bundles as one; this server has one.
fn one_bundle(args: &Map<String, Value>) -> Result<(), SiftError> {
    match args.contains_key("bundles") || args.contains_key("bundle") {
        true => {
            Err(SiftError::invalid("this server searches one bundle; SIFT_BUNDLES (a worker's wrangler.toml) lists several to choose from"))
        }
        false => Ok(()),
    }
}

fn to_value(j: &Json) -> Value {
    serde_json::from_str(&j.to_text()).expect("the engine writes valid JSON")
}

fn list(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

fn tool_result(structured: Value, text: &str) -> Value {
    let pretty = {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b" "));
        serde::Serialize::serialize(&structured, &mut ser).expect("serialising a JSON value");
        String::from_utf8(out).expect("JSON is UTF-8")
    };
    json!({ "content": [{ "type": "text", "text": format!("{text}\n{pretty}") }], "structuredContent": structured })
}

/// Seconds since the epoch as an ISO date-time (UTC).
fn iso_time(t: SystemTime) -> String {
    let secs = t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (y, m, d) = sift_base::date::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", s / 3600, s % 3600 / 60, s % 60)
}

/// Answer messages from stdin until it ends.
fn serve(mut server: Server) -> Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        // A line that is not UTF-8 is a parse error like any other, not the end.
        let mut raw = Vec::new();
        if input.read_until(b'\n', &mut raw)? == 0 {
            return Ok(());
        }
        line.push_str(&String::from_utf8_lossy(&raw));
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = server.handle_line(line.trim()) {
            writeln!(stdout, "{answer}")?;
            stdout.flush()?;
        }
    }
}

pub fn run(a: McpArgs) -> Result<()> {
    if a.watch.is_empty() {
        return serve(Server::new(a.dir, None));
    }
    let mut argv: Vec<std::ffi::OsString> = vec!["watch".into()];
    argv.extend(a.watch.iter().map(|p| p.as_os_str().to_owned()));
    argv.extend(["--out".into(), a.dir.as_os_str().to_owned(), "--base-url".into(), a.base_url.clone().into(), "--quiet".into()]);
    if let Some(s) = &a.selector {
        argv.extend(["--selector".into(), s.into()]);
    }
    if a.no_embedder {
        argv.push("--no-embedder".into());
    }
    #[derive(clap::Parser)]
    struct Watch {
        #[command(flatten)]
        build: BuildArgs,
    }
    let build = <Watch as clap::Parser>::try_parse_from(argv)?.build;
    let state = watch::new_state(&build);
    serve_watching(build, Duration::from_millis(250), state)
}

/// The MCP server with the watcher beside it: the first build before the first answer
/// when there is no bundle yet, else in the background while the old one is served.
pub fn serve_watching(build: BuildArgs, poll: Duration, state: Shared) -> Result<()> {
    let fresh = manifest_stamp(&build.out).is_none();
    let (b, s) = (build.clone(), state.clone());
    std::thread::spawn(move || watch::watch_loop(&b, poll, &s, true));
    // No bundle yet: wait for the first build to end (or fail: the tools then say why).
    while fresh && state.lock().expect("watch state").builds == 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
    serve(Server::new(build.out, Some(state)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sift_engine::contract::{MAX_LIMIT, MAX_MULTI_QUERIES, MAX_OFFSET, MAX_QUERY_BYTES};

    #[test]
    fn the_tool_schemas_state_the_contracts_limits() {
        let spec: Value = serde_json::from_str(SPEC_TEXT).unwrap();
        let search = &spec["tools"][0]["inputSchema"]["properties"];
        assert_eq!(search["query"]["maxLength"], MAX_QUERY_BYTES);
        assert_eq!(search["limit"]["maximum"], MAX_LIMIT);
        assert_eq!(search["offset"]["maximum"], MAX_OFFSET);
        assert_eq!(spec["tools"][1]["inputSchema"]["properties"]["queries"]["maxItems"], MAX_MULTI_QUERIES);
    }

    #[test]
    fn times_are_iso_dates_in_utc() {
        assert_eq!(iso_time(SystemTime::UNIX_EPOCH + Duration::from_secs(86_400 + 3_661)), "1970-01-02T01:01:01Z");
    }
}
