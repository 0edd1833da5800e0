// The keyword engine (sift_wasm_keyword_bg.wasm: the lean engine without its semantic half,
// what a page with semantic search off loads), called directly through its glue: it answers
// by words on a bundle with vectors, refuses semantic modes with a clear error, and neither
// lists nor reads the semantic shards. What only the full runtime has (paragraph-like
// queries, getDocument, the request options a search box does not send) it hands on, and
// sift.js asks the full runtime.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import init, { SiftEngine } from "../../www/dist/sift_wasm_keyword.js";
import { asSiftError, engineStep, inflatedPayload } from "../../www/src/host.js";
import { ROOT, fileFetch } from "../support.mjs";

const BUNDLE = path.join(ROOT, "tests/frozen/v18/bundle"); // a bundle with vectors and an encoder
const read = (f) => new Uint8Array(fs.readFileSync(path.join(BUNDLE, f)));

// The runtimes by URL, so that the counting fetch sees them (a URL names one instance per
// process: `tag` makes another).
const runtimes = (tag) => ({
  wasmUrl: pathToFileURL(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm")).href + tag,
  fullWasmUrl: pathToFileURL(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm")).href + tag,
});

async function engine() {
  await init({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))) });
  return new SiftEngine(read("manifest.json"));
}

/** A search through the host loop, shards read from disk. */
async function search(e, req) {
  for (let round = 0; round < 16; round++) {
    const step = engineStep(e.search(JSON.stringify(req), 20000, undefined));
    if (step.done) return step.done;
    for (const f of step.need) engineStep(e.addShard(f, read(f), await inflatedPayload(read(f), e.docDictionary(f))));
  }
  throw new Error("too many rounds");
}

test("the keyword engine answers by words, semantic modes refused with a clear error", async () => {
  const e = await engine();
  const facts = JSON.parse(e.facts());
  assert.ok(facts.vectors && facts.query_encoder, "the bundle has vectors and its query encoder");
  const r = await search(e, { query: "cache" });
  assert.equal(r.search_type, "lexical", "auto is lexical in the keyword engine");
  assert.equal(r.results[0].id, "reference/cache.md");
  for (const mode of ["hybrid", "semantic"]) {
    let err = null;
    try {
      await search(e, { query: "cache", mode });
    } catch (x) {
      err = asSiftError(x);
    }
    // With its text: every engine carries its errors' texts (a page with semantic search
    // off refuses these modes itself, below).
    assert.equal(err?.code, "invalid_request", mode);
    assert.match(err.message, /semantic search is not built into this runtime/, mode);
  }
  // Nor is there a query text to embed for a model: an error, not an empty text.
  assert.throws(() => engineStep(e.semanticText(JSON.stringify({ query: "cache" }))), (x) => asSiftError(x).code === "invalid_request");
  const page = await Sift.load(pathToFileURL(BUNDLE + "/").href, { fetch: fileFetch(), semantic: false, ...runtimes("?modes") });
  await assert.rejects(page.search({ query: "cache", mode: "hybrid" }), (x) => x.code === "embedder_required" && /semantic: false/.test(x.message));
});

test("the keyword engine lists only the shards it reads and refuses a semantic one", async () => {
  const e = await engine();
  const manifest = JSON.parse(fs.readFileSync(path.join(BUNDLE, "manifest.json"), "utf8"));
  const files = e.allFiles().split("\n");
  assert.ok(files.every((f) => /^[a-z]-[0-9a-f]+(-\d+)?\.bin$/.test(f)), `one file name a line: ${files.join(" ")}`);
  assert.ok(files.some((f) => f.startsWith("t-")) && files.some((f) => f.startsWith("d-")));
  assert.ok(!files.includes(manifest.vectors.index.file), "no vector index");
  assert.ok(!files.some((f) => f.startsWith(manifest.encoder.groups) || f.startsWith(manifest.encoder.rows)), "no encoder shards");
  const vindex = manifest.vectors.index.file;
  assert.throws(() => engineStep(e.addShard(vindex, read(vindex), undefined)), (x) => asSiftError(x).code === "invalid_request");
});


const PARAGRAPH = "cache entries expire after their ttl; eviction frees memory for new pages quickly";

test("a query of 8 or more terms is the full runtime's: the browser engines hand it on, sift.js answers it there", async () => {
  // The engines themselves: a clear code, not a different answer.
  const e = await engine();
  let err = null;
  try {
    await search(e, { query: PARAGRAPH });
  } catch (x) {
    err = asSiftError(x);
  }
  assert.equal(err?.code, "full_runtime_required");
  assert.match(err.message, /8 or more terms/);
  const seven = await search(e, { query: "cache entries expire after their ttl eviction" });
  assert.ok(seven.results.length > 0, "a seven-term query is the keyword engine's own");
  const lean = await import("../../www/dist/sift_wasm.js?lean");
  await lean.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm"))) });
  await assert.rejects(search(new lean.SiftEngine(read("manifest.json")), { query: PARAGRAPH }), (x) => asSiftError(x).code === "full_runtime_required");

  // Through sift.js: a keyword page answers it with the full runtime, fetched once, exactly
  // as a page that loaded the full runtime at once answers it; the next short query stays
  // with the keyword engine.
  const base = pathToFileURL(BUNDLE + "/").href;
  const counts = {};
  const page = await Sift.load(base, { fetch: fileFetch(counts), semantic: false, ...runtimes("?a") });
  const short = await page.search({ query: "cache" });
  assert.equal(counts["sift_wasm_full_bg.wasm"] ?? 0, 0, "a short query does not load the full runtime");
  const got = await page.search({ query: PARAGRAPH });
  assert.equal(counts["sift_wasm_full_bg.wasm"], 1, "the paragraph loads it once");
  const full = await Sift.load(base, { fetch: fileFetch(), runtime: "full", semantic: false, wasmUrl: runtimes("?a").fullWasmUrl });
  const want = await full.search({ query: PARAGRAPH });
  const brief = (x) => ({ total: x.total, results: x.results.map((h) => [h.id, h.score, h.snippet]), fallback: x.fallback ?? null, type: x.search_type });
  assert.ok(got.results.length > 0);
  assert.deepEqual(brief(got), brief(want));
  assert.deepEqual(brief(await page.search({ query: "cache" })), brief(short));
  await page.search({ query: PARAGRAPH + " again" });
  assert.equal(counts["sift_wasm_full_bg.wasm"], 1, "and only once");
});

test("a bundle of an older format is refused by every engine and by sift.js, with a message to rebuild it", async () => {
  const older = path.join(ROOT, "tests/frozen/older-format");
  const manifest = new Uint8Array(fs.readFileSync(path.join(older, "manifest.json")));
  await engine();
  const lean = await import("../../www/dist/sift_wasm.js?older");
  await lean.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm"))) });
  const full = await import("../../www/dist/sift_wasm_full.js?older");
  await full.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm"))) });
  for (const Engine of [SiftEngine, lean.SiftEngine, full.SiftEngine]) {
    assert.throws(() => new Engine(manifest), (x) => {
      const err = asSiftError(x);
      return err.code === "bundle_version" && /format 13 .*rebuild it with `sift build`/.test(err.message);
    });
  }
  // Through sift.js: refused once, with the text, and no other runtime fetched for it.
  for (const semantic of [false, true]) {
    const counts = {};
    const err = await Sift.load(pathToFileURL(older + "/").href, { fetch: fileFetch(counts), semantic, ...runtimes(`?older-${semantic}`) }).catch((e) => e);
    assert.equal(err.code, "bundle_version");
    assert.match(err.message, /rebuild it with `sift build`/);
    assert.equal(counts["sift_wasm_full_bg.wasm"] ?? 0, 0, "no full runtime for an older bundle");
  }
  // A bad manifest is its own error, with its text, from the keyword engine itself.
  const seen = {};
  const garbled = async (url) => (String(url).endsWith("manifest.json") ? new Response('{"magic":"nope"}') : fileFetch(seen)(url));
  const bad = await Sift.load(pathToFileURL(older + "/").href, { fetch: garbled, semantic: false, ...runtimes("?garbled") }).catch((e) => e);
  assert.equal(bad.code, "bundle_corrupt");
  assert.match(bad.message, /not a Sift bundle manifest \(wrong magic\)/);
  assert.equal(seen["sift_wasm_full_bg.wasm"] ?? 0, 0);
});

// Request options a search box does not send: the browser engines leave their code out
// (sift-engine features `explain`, `whole-pages`, `dates`) and refuse them before reading.
const FULL_ONLY = [
  [{ query: "release", include_content: true }, /include_content/],
  [{ query: "release", since: "2023-01-01" }, /since/],
  [{ query: "release", sort: "date" }, /sort by date/],
  [{ query: "release", boost_recent: true }, /boost_recent/],
  [{ query: "cache", explain: true }, /explain/],
];

test("include_content, since, sort by date, boost_recent and explain are the full runtime's: refused before reading, answered through sift.js", async () => {
  const e = await engine();
  const lean = await import("../../www/dist/sift_wasm.js?options");
  await lean.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm"))) });
  const l = new lean.SiftEngine(read("manifest.json"));
  for (const [req, named] of FULL_ONLY) {
    for (const eng of [e, l]) {
      // The first call, before any shard: refused, not asked for files.
      assert.throws(() => engineStep(eng.search(JSON.stringify(req), 20000, undefined)), (x) => {
        const err = asSiftError(x);
        return err.code === "full_runtime_required" && named.test(err.message);
      }, JSON.stringify(req));
    }
  }
  // The options' bad values are still the caller's errors, from whichever engine answers.
  assert.throws(() => engineStep(e.search(JSON.stringify({ query: "release", sort: "newest" }), 20000, undefined)), (x) => asSiftError(x).code === "invalid_sort");

  // Through sift.js: the same answers as a page that loaded the full runtime at once; the
  // full runtime fetched once; a plain query stays with the keyword engine.
  const base = pathToFileURL(BUNDLE + "/").href;
  const counts = {};
  const page = await Sift.load(base, { fetch: fileFetch(counts), semantic: false, ...runtimes("?c") });
  await page.search({ query: "release" });
  assert.equal(counts["sift_wasm_full_bg.wasm"] ?? 0, 0);
  const full = await Sift.load(base, { fetch: fileFetch(), runtime: "full", semantic: false, wasmUrl: runtimes("?d").fullWasmUrl });
  const brief = (x) => ({ total: x.total, results: x.results.map((h) => [h.id, h.score, h.snippet, h.date ?? null, h.content ?? null, h.explain ?? null]), type: x.search_type });
  for (const [req] of FULL_ONLY) {
    const got = await page.search(req);
    assert.ok(got.results.length > 0, JSON.stringify(req));
    assert.deepEqual(brief(got), brief(await full.search(req)), JSON.stringify(req));
  }
  assert.ok(FULL_ONLY.slice(0, 3).every(([req]) => req.include_content || req.since || req.sort));
  const withContent = await page.search(FULL_ONLY[0][0]);
  assert.ok(withContent.results.every((h) => typeof h.content === "string" && h.content.length > 0), "include_content answered with the pages' text");
  assert.equal(counts["sift_wasm_full_bg.wasm"], 1, "loaded once");
  // A bad date: the full runtime's invalid_request, as a rejected promise.
  await assert.rejects(page.search({ query: "release", since: "last tuesdayish" }), (x) => x.code === "invalid_since" && /since/.test(x.message));
});

test("getDocument is the full runtime's: a keyword page reads documents through it", async () => {
  const base = pathToFileURL(BUNDLE + "/").href;
  const counts = {};
  const page = await Sift.load(base, { fetch: fileFetch(counts), semantic: false, ...runtimes("?b") });
  const e = await engine();
  assert.equal(typeof e.getDocument, "undefined", "not in the keyword engine");
  const doc = await page.getDocument("reference/cache.md");
  assert.equal(doc.title, "Caching");
  assert.equal(counts["sift_wasm_full_bg.wasm"], 1);
  assert.equal(await page.getDocument("no/such.md"), null);
});
