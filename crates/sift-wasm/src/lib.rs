//! The engine core behind wasm-bindgen. Thin on purpose: requests and responses cross as
//! the JSON contract's text (the wrapper parses it), and every call that needs shards answers
//! `{need: [files]}` so the JS host fetches them (lazily, cached) and calls again. Errors are
//! `{code, message}` objects inside the same text; nothing here panics on input (the core
//! returns errors for bad requests and corrupt shards).

use sift_base::error::ErrorCode;
use sift_base::json::{Json, ToJson};
#[cfg(feature = "full")]
use sift_engine::{agent, MultiSearchRequest};
use sift_engine::{Context, Engine, SearchRequest, SiftError, Step};
use wasm_bindgen::prelude::*;

/// Every call that can fail answers JSON text (parsed by the host's `engineStep`):
/// `{"done": answer}`, `{"need": [files]}` or `{"error": {code, message}}`. The core's
/// writer keeps the contract's scores in their fixed-point form (0.7965), where a JS-object
/// bridge would widen them to f64 noise (0.796500027…); one JSON.parse is faster than
/// building objects field by field; and an error inside the text, not thrown as a JS value
/// (`Result<_, JsValue>`), spares the runtime wasm-bindgen's handling of thrown JS values
/// and its glue.
fn reply(r: Result<(&'static str, Json), SiftError>) -> String {
    let (key, value) = r.unwrap_or_else(|e| ("error", e.to_json()));
    Json::obj([(key, value)]).to_text()
}

fn answer<T: ToJson>(step: Result<Step<T>, SiftError>) -> String {
    reply(step.map(|s| match s {
        Step::Done(v) => ("done", v.to_json()),
        Step::Need(files) => ("need", Json::from(files)),
    }))
}

#[cfg(feature = "full")]
fn json_of(text: &str) -> Result<Json, SiftError> {
    sift_base::json::parse(text.as_bytes()).map_err(|e| SiftError::invalid(format!("not JSON: {e}")))
}

fn done(r: Result<Json, SiftError>) -> String {
    reply(r.map(|v| ("done", v)))
}

/// Bytes of the engine module's linear memory (wasm memory never shrinks: this is the peak).
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return (core::arch::wasm32::memory_size(0) * 65536) as f64;
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

// A stemmed language this runtime did not compile in (the keyword and lean engines carry
// English's stemmer only) is stemmed by the module `sift.js` loads for that language
// (`www/dist/stem/<code>.wasm.lzma`), reached through two globals `sift.js` defines.
#[cfg(not(feature = "languages"))]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = globalThis, js_name = __siftHasStemmer)]
    fn host_has_stemmer(language: &str) -> bool;
    #[wasm_bindgen(js_namespace = globalThis, js_name = __siftStem)]
    fn host_stem(language: &str, word: &str) -> Option<String>;
}

#[wasm_bindgen]
pub struct SiftEngine {
    engine: Engine,
}

#[wasm_bindgen]
impl SiftEngine {
    /// Open a bundle from its `manifest.json` bytes.
    ///
    /// A manifest that cannot be opened throws a JS `Error` whose message is the error's
    /// `{code, message}` JSON (the host's `asSiftError` reads it). Thrown from inside the
    /// call, which then never returns: the manifest's copy in wasm memory is not freed —
    /// once, for a bundle the page cannot use.
    #[wasm_bindgen(constructor)]
    pub fn new(manifest: &[u8]) -> SiftEngine {
        #[cfg(not(feature = "languages"))]
        sift_text::analyzer::set_host_stemmer(sift_text::analyzer::HostStemmer {
            has: |language| host_has_stemmer(language),
            stem: |language, word| host_stem(language, word),
        });
        match Engine::new(manifest) {
            Ok(engine) => SiftEngine { engine },
            Err(e) => wasm_bindgen::throw_str(&e.to_json().to_text()),
        }
    }

    /// What a host shows of the bundle and needs to know of it, as JSON text: `{doc_count,
    /// filter_fields, vectors?: {model, dim}, query_encoder?: true}` — `vectors` when the
    /// bundle has them, `query_encoder` when it embeds queries itself (its static encoder:
    /// semantic and hybrid search need no model then). One call, not one export each: every
    /// export is code in the engine and in its glue. (Not the whole manifest: writing it
    /// back would take the manifest writer into the runtime for fields no host reads.)
    pub fn facts(&self) -> String {
        let m = self.engine.manifest();
        let mut facts = Json::obj([("doc_count", Json::from(m.doc_count)), ("filter_fields", Json::from(&m.filter_fields[..]))]);
        if let Some(v) = &m.vectors {
            facts.set("vectors", Json::obj([("model", Json::from(&v.model)), ("dim", Json::from(v.dim))]));
        }
        if self.engine.has_query_encoder() {
            facts.set("query_encoder", Json::from(true));
        }
        facts.set("language", Json::from(&m.language));
        if !m.languages.is_empty() {
            facts.set("languages", Json::obj(m.languages.iter().map(|(code, folder)| (code.as_str(), Json::from(folder)))));
        }
        facts.to_text()
    }

    /// Every shard file of the bundle (for preloading or offline copies), one name a line
    /// (a file name has no line break: the manifest refuses one). One string, not an array:
    /// a `Vec<String>` crossing as JS strings one by one costs the engine more code.
    #[wasm_bindgen(js_name = allFiles)]
    pub fn all_files(&self) -> String {
        self.engine.all_files().join("\n")
    }

    #[wasm_bindgen(js_name = isLoaded)]
    pub fn is_loaded(&self, file: &str) -> bool {
        self.engine.is_loaded(file)
    }

    /// Hand the engine a shard file's bytes, and — for a deflated shard — its payload
    /// inflated by the host (this engine has no inflater: `host.js` uses the platform's
    /// `DecompressionStream`). Checked before use: the file against the manifest (size,
    /// CRC), its header (magic, version, kind), the payload against the header (length, CRC).
    /// Answers `{"done": null}`, or `{"error": …}` for a file that is not the shard expected.
    #[wasm_bindgen(js_name = addShard)]
    pub fn add_shard(&mut self, file: &str, bytes: &[u8], payload: Option<Vec<u8>>) -> String {
        done(self.engine.add_shard_inflated(file, bytes, payload).map(|()| Json::Null))
    }

    /// The dictionary `host.js` inflates the shard `file` with, if it is a doc shard
    /// compressed after one (codec 2): its store's (a delta's doc shards have their own),
    /// once that store's startup shard is added.
    #[wasm_bindgen(js_name = docDictionary)]
    pub fn doc_dictionary(&self, file: &str) -> Option<Vec<u8>> {
        self.engine.doc_dictionary_for(file).map(<[u8]>::to_vec)
    }

    /// `{"done": text}`: the text a request means, for a host that embeds queries with the
    /// model. (The keyword engine has nothing to embed: an error, not an empty text.)
    #[wasm_bindgen(js_name = semanticText)]
    pub fn semantic_text(&self, req: &str) -> String {
        if !cfg!(feature = "semantic") {
            let why = "semantic search is not built into this runtime (the keyword engine): there is no query text to embed";
            return done(Err(SiftError::new(ErrorCode::InvalidRequest, why)));
        }
        done(SearchRequest::from_json(req.as_bytes()).map(|req| Json::from(self.engine.semantic_text(&req))))
    }

    /// `req` is the request as JSON text (the same decoder as the CLI and the worker, so
    /// unknown fields are rejected everywhere alike). Answers `{done: response}` or
    /// `{need: [files]}`. `now_days`: days since 1970-01-01 (the core has no clock);
    /// `query_vector`: the embedded query for semantic modes.
    pub fn search(&self, req: &str, now_days: f64, query_vector: Option<Vec<f32>>) -> String {
        let ctx = Context { now_days: now_days as i64 };
        answer(SearchRequest::from_json(req.as_bytes()).and_then(|req| self.engine.search_with(&req, &ctx, query_vector.as_deref())))
    }
}

/// What only the full runtime has (see the `full` feature).
#[cfg(feature = "full")]
#[wasm_bindgen]
impl SiftEngine {
    /// `{done: document | null}` or `{need: [files]}`. (Document viewers ask for it, not a
    /// search box, whose runtime leaves it out.)
    #[wasm_bindgen(js_name = getDocument)]
    pub fn get_document(&self, id: &str) -> String {
        answer(self.engine.get_document(id))
    }

    /// Pages like the page `id`: `{done: [results]}` or `{need: [files]}`. (A search box
    /// does not ask for it; a page that does loads the full runtime then.)
    pub fn related(&self, id: &str, limit: Option<f64>, now_days: f64) -> String {
        let limit = limit.map(|l| if l.is_finite() { l as i64 } else { -1 });
        answer(self.engine.related(id, limit, &Context { now_days: now_days as i64 }))
    }

    /// A result (the contract's JSON, from any bundle) compacted for an agent's context:
    /// `{done: result}` (`sift_engine::agent`, one shaping for both MCP servers).
    #[wasm_bindgen(js_name = agentResult)]
    pub fn agent_result(&self, result: &str, include_content: bool, snippet_chars: usize, content_preview_chars: usize) -> String {
        let sizes = agent::AgentSizes { snippet_chars, content_preview_chars };
        done(json_of(result).map(|r| agent::compact_result(&r, include_content, sizes)))
    }

    /// Part of a document (as `getDocument` answers it) for an agent:
    /// `{done: {structured, text}}`.
    #[wasm_bindgen(js_name = agentDocument)]
    pub fn agent_document(&self, doc: &str, offset: usize, max_chars: usize) -> String {
        done(json_of(doc).map(|d| {
            let (structured, text) = agent::document_part(&d, offset, max_chars);
            Json::obj([("structured", structured), ("text", Json::Str(text))])
        }))
    }

    /// `vectors`: the host's embedding of each query, when it embeds queries with the
    /// model (else the bundle's encoder does): the queries' vectors one after the other,
    /// `dim` numbers each, all zero for a query it made none for.
    #[wasm_bindgen(js_name = multiSearch)]
    pub fn multi_search(&self, req: &str, now_days: f64, vectors: Option<Vec<f32>>, dim: usize) -> String {
        let vectors = vectors
            .map(|v| v.chunks(dim.max(1)).map(|q| q.iter().any(|x| *x != 0.0).then(|| q.to_vec())).collect::<Vec<Option<Vec<f32>>>>());
        answer(
            MultiSearchRequest::from_json(req.as_bytes())
                .and_then(|req| self.engine.multi_search_with(&req, &Context { now_days: now_days as i64 }, vectors.as_deref())),
        )
    }
}

/// The allocator: talc instead of std's dlmalloc, because every byte of the engine is
/// downloaded and talc's code is smaller. Its in-place realloc is kept: turning it off
/// saves little, for a copy on every growing Vec.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
