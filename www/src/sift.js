// Sift in the browser (and in workers and extensions): a thin host around the wasm engine.
// The engine is pure; this file fetches what it asks for. A search that needs shards it
// has not seen gets `{need: [files]}` back; they are fetched once, cached, handed to the
// engine, and the call is repeated. Errors are rejected promises carrying a SiftError
// ({code, message}); a trap inside the wasm (which would be a bug) is reported the same way
// and the engine is rebuilt on the next call, so one bad moment never freezes a search box.

import { initSync as initCore, SiftEngine, memoryBytes as coreMemoryBytes } from "./sift_wasm.js";
import { SiftError, asSiftError, markedParts, plainText, bundleBase, fetchOk, fetchBytes, drive, addShards, engineStep, primaryLanguage } from "./host.js";
import { LIMITS } from "./contract.js";
import { lzmaDecoder } from "./lzma.js";

// What a page needs comes from here (one module: the built sift.js is one file). The error
// table and HTTP statuses (ERRORS, statusOf, isClientError) are for HTTP surfaces (the
// worker): they import contract.js, so a page does not download them.
export { SiftError, asSiftError, markedParts, plainText, bundleBase, fetchOk, primaryLanguage, LIMITS };

// Three builds of the engine, one wasm-bindgen glue each: the keyword engine (a page with
// semantic search off: no semantic half, 20 kB of gzip fewer), the lean one (what a search
// box needs, hybrid with the bundle's static encoder) and the full one (also per-result
// `explain`, `multiSearch`, `related`, `getDocument`, paragraph-like queries and the
// request options a search box does not send: include_content and the dates), which
// workers load at once and pages only the first time they ask for one of them. The keyword
// and lean engines export the same API, so their glue is the same code
// (scripts/build-wasm.sh checks it): the copy bundled into this file serves whichever of
// the two a page loads first, and a page that loads the other one too imports that one's
// own copy (one glue module, one wasm instance).
const bundledGlue = { initSync: initCore, SiftEngine, memoryBytes: coreMemoryBytes };
let bundledGlueKind = null;
const runtimes = new Map(); // kind + wasm URL (or "default") → Promise<glue>: one instance per page

function glueOf(kind) {
  if (kind === "full") return import("./sift_wasm_full.js");
  if (bundledGlueKind === null || bundledGlueKind === kind) {
    bundledGlueKind = kind;
    return Promise.resolve(bundledGlue);
  }
  // Not a literal: the bundler must leave this import to run time.
  const glue = kind === "keyword" ? "./sift_wasm_keyword.js" : "./sift_wasm.js";
  return import(new URL(glue, import.meta.url).href);
}

// Each engine's file beside this one: shipped packed as LZMA (scripts/build-wasm.sh), so what
// a page downloads does not depend on how the host compresses (many static hosts send .wasm
// uncompressed), and is 11-12% below an optimal deflate.
const ENGINE_FILES = { keyword: "sift_wasm_keyword_bg.wasm.lzma", lean: "sift_wasm_bg.wasm.lzma", full: "sift_wasm_full_bg.wasm.lzma" };

/**
 * The engine's wasm, compiled. A file whose name ends in `.lzma` is decoded (lzma.js, its
 * decoder compiled while the file downloads); one ending in `.deflate` is inflated on the
 * way in (the platform's DecompressionStream, as for shards) and compiled while it
 * downloads; any other is the wasm (compiled while it downloads when served as
 * application/wasm). Compiled here and instantiated by the glue's `initSync` (fast for a
 * compiled module, and allowed on the main thread below 8 MB), so the glue's own fetching
 * and streaming paths stay out of sift.js: 0.23 kB of gzip.
 */
async function engineModule(url, fetchImpl) {
  const name = new URL(url, "file:///").pathname;
  const unpack = name.endsWith(".lzma") ? lzmaDecoder() : null;
  unpack?.catch(() => {}); // a failed fetch is the error to report
  let res = await fetchOk(fetchImpl, url, "the engine");
  if (unpack) return WebAssembly.compile((await unpack)(new Uint8Array(await res.arrayBuffer())));
  if (name.endsWith(".deflate")) {
    const body = res.body.pipeThrough(new DecompressionStream("deflate-raw"));
    res = new Response(body, { headers: { "content-type": "application/wasm" } });
  }
  const wasmType = (res.headers.get("content-type") ?? "").startsWith("application/wasm");
  return wasmType ? WebAssembly.compileStreaming(res) : WebAssembly.compile(await res.arrayBuffer());
}

function runtime(kind, wasmUrl, fetchImpl) {
  const key = `${kind}|${wasmUrl ? String(wasmUrl) : "default"}`;
  if (!runtimes.has(key)) {
    // A caller's wasmUrl comes through the caller's fetch; the file beside this one
    // through the platform's (a worker's fetch may serve the bundle's assets only).
    // Started now, beside the glue's import.
    const module =
      wasmUrl instanceof WebAssembly.Module
        ? Promise.resolve(wasmUrl)
        : wasmUrl
          ? engineModule(String(wasmUrl), fetchImpl)
          : engineModule(new URL(ENGINE_FILES[kind], import.meta.url).href, globalThis.fetch.bind(globalThis));
    module.catch(() => {}); // reported below, not as an unhandled rejection
    const p = glueOf(kind).then(async (g) => {
      g.initSync({ module: await module });
      return g;
    }).catch((e) => {
      runtimes.delete(key);
      const what = kind === "full" ? "the full Sift runtime" : "the Sift runtime";
      throw new SiftError("runtime_unavailable", `${what} (wasm) could not be loaded: ${e && e.message ? e.message : e}`, e);
    });
    runtimes.set(key, p);
  }
  return runtimes.get(key);
}

// One stemmer module per language (stem/<code>.wasm.lzma beside this file, loaded by
// sift-stem.js): the keyword and lean engines carry English's stemmer only, and ask the page
// for another language's through these globals (defined before any engine is made: an
// engine calls them when it opens a bundle).
globalThis.__siftStemmers ??= new Map(); // code → (word) → stem | null
globalThis.__siftHasStemmer ??= (code) => globalThis.__siftStemmers.has(code);
globalThis.__siftStem ??= (code, word) => globalThis.__siftStemmers.get(code)?.(word) ?? null;

const today = () => Math.floor(Date.now() / 86400000);

// What a manifest says of its languages, read before any engine is made: `language`, the
// one its text was analysed as (which stemmer to load), and `languages`, the folders of the
// others' bundles (which bundle to open). An engine's facts say the same after; a broken
// manifest reads as neither, and the engine reports it.
function manifestLanguages(manifestBytes) {
  try {
    const m = JSON.parse(new TextDecoder().decode(manifestBytes));
    const languages = m.languages && typeof m.languages === "object" ? m.languages : {};
    return { language: primaryLanguage(m.language), languages };
  } catch {
    return { language: "", languages: {} };
  }
}

/**
 * A loaded bundle. `Sift.load(base, options)`:
 *   base      — URL of the bundle folder (default "/_sift/")
 *   options.fetch      — fetch implementation (workers pass their assets binding)
 *   options.runtime    — "lean" (default: what a search box needs; the full runtime is loaded
 *                        the first time a call asks for `explain`, `multiSearch`, `related`,
 *                        `getDocument`, a query of 8 or more terms, `include_content` or a
 *                        date option: `since`, `sort: "date"`, `boost_recent`),
 *                        "keyword" (the default with semantic: false: the lean engine without
 *                        its semantic half) or "full" (workers and APIs: everything in one engine)
 *   options.wasmUrl    — where the runtime's wasm is (sift_wasm_bg.wasm; sift_wasm_keyword_bg.wasm
 *                        or sift_wasm_full_bg.wasm for those runtimes; default: the packed
 *                        copy beside this file, <name>.wasm.lzma — a URL ending in .lzma is
 *                        decoded, one ending in .deflate inflated), or a WebAssembly.Module
 *   options.fullWasmUrl — where sift_wasm_full_bg.wasm(.lzma) is for a lean page's first
 *                        call that needs it (default: beside this file), or a WebAssembly.Module
 *   options.semantic   — false turns semantic search off; default on when the bundle has vectors
 *   options.embedder   — who embeds queries: the bundle's static encoder by default (nothing
 *                        to download); "model" for the full model (tract in wasm, the model
 *                        from modelUrl), or a custom (text) => Float32Array of the model's space
 *   options.modelUrl   — folder with model.onnx + tokenizer.json (default base + "model/")
 *   options.modelMemory — "small" keeps the model's int8 weights int8 (23 MB instead of 90 MB
 *                        of wasm memory, slower queries): for workers' 128 MB isolates
 *   options.embedWasmUrl — where sift_embed_wasm_bg.wasm is (default: beside this file)
 *   options.language   — the page's language (`de`, `pt-BR`): a bundle built from pages in
 *                        several languages lists the others' bundles, and the one in this
 *                        language is opened instead (default: the bundle at base). A bundle in
 *                        a stemmed language other than English loads that language's stemmer
 *                        (the keyword and lean engines carry English's only), else the full
 *                        runtime, which has them all
 *   options.stemmerUrl — the folder of the stemmer modules (<code>.wasm.lzma; default: stem/
 *                        beside this file); null: never load one (the full runtime stems)
 */
export class Sift {
  #base;
  #fetch;
  #opts;
  #manifestBytes;
  #main; // {glue, engine}: the runtime every call uses
  #full = null; // Promise<{glue, engine}>: a lean page's full runtime, once asked for
  #fullMemory = () => 0; // its wasm memory, once loaded
  #shards = new Map(); // file → Promise<Uint8Array> (bytes kept so a rebuilt engine reloads fast)
  #embedder = null; // Promise<(text) => Float32Array> once started
  #embedMemory = () => 0;
  #embedState = "off"; // off | static (the bundle's encoder) | idle | loading | ready | failed (the model)
  #embedError = null;
  #listeners = new Set();
  #facts; // from the manifest, which never changes: read once
  stats = { shardsFetched: 0, bytesFetched: 0 };

  constructor(base, fetchImpl, opts, manifestBytes, glue = bundledGlue) {
    this.#base = base;
    this.#fetch = fetchImpl;
    this.#opts = opts;
    this.#manifestBytes = manifestBytes;
    this.#main = { glue, engine: new glue.SiftEngine(manifestBytes) };
    const m = JSON.parse(this.#engine.facts());
    this.#facts = {
      documents: m.doc_count,
      filterFields: m.filter_fields ?? [],
      vectors: m.vectors ? { model: m.vectors.model, dim: m.vectors.dim } : null,
      language: m.language,
      languages: m.languages ?? {},
    };
    const wantsSemantic = opts.semantic !== false && opts.runtime !== "keyword" && this.#facts.vectors !== null;
    // The bundle's static encoder embeds queries (no download) unless the page asks for the
    // model, or the bundle has vectors but no encoder (built with --no-encoder).
    const useModel = opts.embedder === "model" || typeof opts.embedder === "function" || !m.query_encoder;
    this.#embedState = !wantsSemantic ? "off" : useModel ? "idle" : "static";
  }

  static async load(base = "/_sift/", options = {}) {
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    let url = bundleBase(base);
    if (options.runtime !== undefined && !["keyword", "lean", "full"].includes(options.runtime)) {
      throw new SiftError("invalid_request", `options.runtime is "keyword", "lean" or "full", not ${JSON.stringify(options.runtime)}`);
    }
    if (options.runtime === "keyword" && options.semantic === true) {
      throw new SiftError("invalid_request", 'options.runtime "keyword" has no semantic search; leave semantic unset (or false), or use the "lean" runtime');
    }
    if (options.language !== undefined && typeof options.language !== "string") {
      throw new SiftError("invalid_request", "options.language is a language tag such as \"de\" or \"pt-BR\"");
    }
    const kind = options.runtime ?? (options.semantic === false ? "keyword" : "lean");
    // The runtime and the manifest at once: one round trip fewer on a slow link.
    let manifestBytes = fetchBytes(fetchImpl, url + "manifest.json", "the bundle manifest");
    manifestBytes.catch(() => {}); // reported below, after the runtime's own error if both fail
    const glue = await runtime(kind, options.wasmUrl, fetchImpl);
    let manifest = await manifestBytes;
    const code = primaryLanguage(options.language);
    const folder = code && manifestLanguages(manifest).languages[code];
    if (folder) {
      url = bundleBase(url + folder);
      manifest = await fetchBytes(fetchImpl, url + "manifest.json", `the ${code} bundle's manifest`);
    }
    try {
      return new Sift(url, fetchImpl, options, manifest, glue);
    } catch (e) {
      const err = asSiftError(e);
      if (err.code !== "full_runtime_required" || kind === "full") throw err;
    }
    // A language whose stemmer this engine lacks: its stemmer module, else the full runtime
    // (which has every stemmer) when the module cannot be loaded.
    const { language } = manifestLanguages(manifest);
    if (language && options.stemmerUrl !== null) {
      try {
        const { loadStemmer } = await import("./sift-stem.js");
        const folderUrl = options.stemmerUrl ? bundleBase(options.stemmerUrl) : undefined;
        await loadStemmer(language, folderUrl, fetchImpl, engineModule);
        return new Sift(url, fetchImpl, options, manifest, glue);
      } catch {
        // the full runtime below answers instead
      }
    }
    const full = await runtime("full", options.fullWasmUrl, fetchImpl);
    try {
      return new Sift(url, fetchImpl, { ...options, runtime: "full" }, manifest, full);
    } catch (e) {
      throw asSiftError(e);
    }
  }

  /** The site's languages: code → the folder of that language's bundle (none: one language). */
  get languages() {
    return { ...this.#facts.languages };
  }

  /** The language this bundle's text was analysed as (`en`, `de`, `ja`). */
  get language() {
    return this.#facts.language;
  }

  /** Bundle facts: documents, filter fields, whether it has vectors, its model. */
  get info() {
    return { ...this.#facts, semantic: this.#embedState, base: this.#base };
  }

  /** Bytes of wasm linear memory in use (engine + embedder; wasm memory only grows). */
  get wasmMemoryBytes() {
    return this.#main.glue.memoryBytes() + this.#fullMemory() + this.#embedMemory();
  }

  // The engine of the runtime every call uses.
  get #engine() {
    return this.#main.engine;
  }

  /** The full runtime (explain, multiSearch, related): this one, or a second engine loaded once. */
  #fullSlot() {
    if (this.#opts.runtime === "full") return Promise.resolve(this.#main);
    if (!this.#full) {
      this.#full = runtime("full", this.#opts.fullWasmUrl, this.#fetch).then((glue) => {
        let engine;
        try {
          engine = new glue.SiftEngine(this.#manifestBytes);
        } catch (e) {
          throw asSiftError(e);
        }
        this.#fullMemory = () => glue.memoryBytes();
        return { glue, engine };
      });
      this.#full.catch(() => (this.#full = null)); // the next call tries again
    }
    return this.#full;
  }

  /** "off" | "static" (ready: the bundle embeds queries) | "idle" | "loading" | "ready" | "failed" (the model) */
  get semanticState() {
    return this.#embedState;
  }

  /** Called with the new state whenever semantic search changes state. Returns an unsubscribe. */
  onSemanticState(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #setEmbedState(s) {
    this.#embedState = s;
    for (const fn of this.#listeners) {
      try {
        fn(s);
      } catch (_) {
        /* a listener's bug is not ours to surface */
      }
    }
  }

  /** Start loading the query embedder (a no-op when semantic search is off or loading). */
  loadSemantic() {
    if (this.#embedState === "off") return Promise.resolve(false);
    if (this.#embedState === "static") return Promise.resolve(true);
    if (!this.#embedder) {
      this.#setEmbedState("loading");
      this.#embedder = this.#makeEmbedder().then(
        (fn) => {
          this.#setEmbedState("ready");
          return fn;
        },
        (e) => {
          this.#embedError = asSiftError(e);
          this.#setEmbedState("failed");
          return null;
        },
      );
    }
    return this.#embedder.then((fn) => fn !== null);
  }

  get semanticError() {
    return this.#embedError;
  }

  async #makeEmbedder() {
    if (typeof this.#opts.embedder === "function") return this.#opts.embedder;
    // Both at once: the glue does not wait for this file's round trip.
    const [{ modelEmbedder }, mod] = await Promise.all([import("./model-embedder.js"), import("./sift_embed_wasm.js")]);
    const embedder = await modelEmbedder(mod, {
      opts: this.#opts,
      modelBase: bundleBase(this.#opts.modelUrl ?? this.#base + "model/"),
      modelName: this.#facts.vectors?.model ?? "model",
      fetch: this.#fetch,
      stats: this.stats,
      host: { asSiftError, fetchBytes },
    });
    this.#embedMemory = embedder.memoryBytes;
    return embedder.embed;
  }

  #call(fn, slot = this.#main) {
    try {
      return fn();
    } catch (e) {
      const err = asSiftError(e);
      if (err.code === "internal") this.#rebuild(slot);
      throw err;
    }
  }

  // The text a request means, for the model to embed (it reads no shard: the host loop
  // returns at once).
  #meaningOf(body) {
    return this.#drive((e) => e.semanticText(body));
  }

  // After a trap the wasm instance's state cannot be trusted: a fresh engine over the same
  // manifest, fed the shards already downloaded.
  #rebuild(slot) {
    try {
      slot.engine = new slot.glue.SiftEngine(this.#manifestBytes);
    } catch (_) {
      /* reported by the next call */
    }
  }

  #shard(file) {
    if (!this.#shards.has(file)) {
      const p = fetchBytes(this.#fetch, this.#base + file, `bundle shard ${file}`).then((bytes) => {
        this.stats.shardsFetched += 1;
        this.stats.bytesFetched += bytes.length;
        return bytes;
      });
      p.catch(() => this.#shards.delete(file)); // a failed fetch is retried next time
      this.#shards.set(file, p);
    }
    return this.#shards.get(file);
  }

  // `call(engine)` until it is done, fetching what it needs; on `slot`'s engine (the main one
  // unless given). What the main engine hands on (`full_runtime_required`: a browser engine
  // built without what the call needs) the full runtime is asked.
  async #drive(call, slot = this.#main) {
    try {
      return await drive(() => this.#call(() => call(slot.engine), slot), { shardBytes: (f) => this.#shard(f), ...this.#adder(slot) });
    } catch (err) {
      if (slot !== this.#main || err?.code !== "full_runtime_required") throw err;
      return this.#drive(call, await this.#fullSlot());
    }
  }

  // How the host loop adds shards to `slot`'s engine.
  #adder(slot) {
    return {
      isLoaded: (f) => slot.engine.isLoaded(f),
      addShard: (f, bytes, payload) => this.#call(() => engineStep(slot.engine.addShard(f, bytes, payload)), slot),
      dictionary: (file) => slot.engine.docDictionary(file),
    };
  }

  /**
   * The shard files known now (besides manifest.json): the manifest's, and the children of
   * the semantic index shards once those are loaded. `preload()` loads them all.
   */
  get files() {
    return this.#call(() => this.#engine.allFiles().split("\n"));
  }

  /**
   * Fetch every shard now (offline copies, warm benchmarks): the manifest's shards, then
   * the files their index shards list, until nothing new appears. Returns the file count.
   */
  async preload() {
    for (;;) {
      const files = this.files.filter((f) => !this.#engine.isLoaded(f));
      if (files.length === 0) return this.files.length;
      // Fetched at once, added in the engine's order (the startup shard first).
      await addShards(files, files.map((f) => this.#shard(f)), this.#adder(this.#main));
    }
  }

  /**
   * Search with the JSON contract (a string is `{query}`). The bundle's static encoder embeds
   * the query in the engine (no download, `semantic: "static"`). With the model as embedder,
   * semantic modes embed with it once it is ready; until then the encoder answers (or, in a
   * bundle without one, `auto` answers lexically) and the response says `semantic: "loading"`
   * — call again when `onSemanticState` reports "ready".
   */
  async search(request) {
    const req = typeof request === "string" ? { query: request } : request;
    if (req === null || typeof req !== "object" || Array.isArray(req)) {
      throw new SiftError("invalid_request", "search takes a request object ({query, …}) or a query string");
    }
    if (this.#embedState === "off" && this.#facts.vectors !== null && (req.mode === "semantic" || req.mode === "hybrid")) {
      throw new SiftError("embedder_required", `${req.mode} search is off on this page (semantic: false); use mode lexical or auto`);
    }
    // Semantic search off on a bundle that embeds its own queries: keywords only.
    const body = requestJson(this.#embedState === "off" && (req.mode === undefined || req.mode === "auto") ? { ...req, mode: "lexical" } : req);
    const t0 = performance.now();
    let vector;
    let semantic = this.#embedState;
    const modelEmbeds = !["off", "static"].includes(this.#embedState) && req.mode !== "lexical";
    if (modelEmbeds) {
      const explicit = req.mode === "semantic" || req.mode === "hybrid";
      if (this.#embedState === "idle") this.loadSemantic();
      if (this.#embedState === "ready" || explicit) {
        const ok = await this.loadSemantic();
        if (ok) {
          const embed = await this.#embedder;
          const te = performance.now();
          vector = embed(await this.#meaningOf(body));
          semantic = "ready";
          this._lastEmbedMs = performance.now() - te;
        } else if (explicit) {
          throw this.#embedError ?? new SiftError("embedder_unavailable", "the embedding model could not be loaded");
        }
      } else {
        semantic = this.#embedState;
      }
    }
    const now = today();
    // Per-result scoring details, paragraph-like queries (8+ terms: relevance feedback),
    // include_content and the date options (since, sort by date, boost_recent) are in the
    // full runtime only: a browser engine answers full_runtime_required before fetching
    // anything, and the full runtime, asked the same by `#drive`, gives the answer.
    const res = await this.#drive((e) => e.search(body, now, vector));
    res.timings_ms = { ...(res.timings_ms ?? {}), total: round2(performance.now() - t0) };
    if (vector && this._lastEmbedMs !== undefined) res.timings_ms.embed = round2(this._lastEmbedMs);
    if (this.#embedState !== "off") res.semantic = semantic;
    return res;
  }

  /**
   * Several queries, rank-fused and de-duplicated ({queries: [...], limit, offset}). Each is
   * embedded like a single search: by the bundle's encoder, or by the model when it is the
   * page's choice and ready.
   */
  async multiSearch(request) {
    if (request === null || typeof request !== "object" || Array.isArray(request)) {
      throw new SiftError("invalid_request", "multiSearch takes {queries: [...], limit?, offset?}");
    }
    const body = requestJson(request);
    const now = today();
    // The model's vector of each query, one after the other (zeros: none), for the engine.
    let vectors, dim = 0;
    if (this.#embedState === "ready" && Array.isArray(request.queries)) {
      const embed = await this.#embedder;
      const texts = await Promise.all(request.queries.map((q) => (q && q.mode !== "lexical" ? this.#meaningOf(requestJson(q)) : null)));
      const each = texts.map((t) => (t === null ? null : embed(t)));
      dim = each.find((v) => v)?.length ?? 0;
      vectors = new Float32Array(dim * each.length);
      each.forEach((v, i) => v && vectors.set(v, i * dim));
    }
    return this.#drive((e) => e.multiSearch(body, now, vectors, dim), await this.#fullSlot());
  }

  /** The stored document (title, url, metadata, sections), or null. */
  async getDocument(id) {
    if (typeof id !== "string" || id === "") throw new SiftError("invalid_request", "getDocument takes a document id string");
    // In the full runtime only: document viewers ask for it, not a search box.
    return (await this.#drive((e) => e.getDocument(id), await this.#fullSlot())) ?? null;
  }

  /**
   * Results (of this Sift or a group's) compacted for an agent's context, and part of a
   * document (`getDocument`'s) from `offset`: the MCP tools' shapes, made by the engine
   * (`sift_engine::agent`) so the worker and `sift mcp` answer alike. `sizes`:
   * `{snippet_chars, content_preview_chars}` (worker/src/mcp-tools.json).
   */
  async agentResults(results, includeContent, sizes) {
    const slot = await this.#fullSlot();
    const one = (r) => engineStep(slot.engine.agentResult(JSON.stringify(r), !!includeContent, sizes.snippet_chars, sizes.content_preview_chars)).done;
    return results.map((r) => this.#call(() => one(r), slot));
  }

  /** `{structured, text}`: the part of `doc` from `offset`, at most `maxChars` characters. */
  async agentDocument(doc, offset, maxChars) {
    const slot = await this.#fullSlot();
    return this.#call(() => engineStep(slot.engine.agentDocument(JSON.stringify(doc), offset, maxChars)).done, slot);
  }

  /** Pages like the page `id` (by meaning when the bundle has vectors), without it. */
  async related(id, { limit } = {}) {
    if (typeof id !== "string" || id === "") throw new SiftError("invalid_request", "related takes a document id string");
    const now = today();
    // In the full runtime only: a search box never asks for it.
    return this.#drive((e) => e.related(id, limit ?? undefined, now), await this.#fullSlot());
  }
}

/** The request as JSON text for the engine's decoder (one decoder for every surface). */
function requestJson(req) {
  try {
    return JSON.stringify(req);
  } catch (e) {
    throw new SiftError("invalid_request", `the request cannot be encoded as JSON: ${e.message}`);
  }
}

function round2(x) {
  return Math.round(x * 100) / 100;
}

export default Sift;
