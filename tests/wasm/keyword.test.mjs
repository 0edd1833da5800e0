// The keyword engine (sift_wasm_keyword_bg.wasm: the lean engine without its semantic half,
// what a page with semantic search off loads), called directly through its glue: it answers
// by words on a bundle with vectors, refuses semantic modes with a clear error, and neither
// lists nor reads the semantic shards.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import init, { SiftEngine } from "../../www/dist/sift_wasm_keyword.js";
import { inflatedPayload } from "../../www/src/host.js";
import { ROOT } from "../support.mjs";

const BUNDLE = path.join(ROOT, "tests/frozen/v5/bundle"); // a bundle with vectors and an encoder
const read = (f) => new Uint8Array(fs.readFileSync(path.join(BUNDLE, f)));

async function engine() {
  await init({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))) });
  return new SiftEngine(read("manifest.json"));
}

/** A search through the host loop, shards read from disk. */
async function search(e, req) {
  for (let round = 0; round < 16; round++) {
    const step = JSON.parse(e.search(JSON.stringify(req), 20000, undefined));
    if (step.done) return step.done;
    for (const f of step.need) e.addShard(f, read(f), await inflatedPayload(read(f)));
  }
  throw new Error("too many rounds");
}

test("the keyword engine answers by words, semantic modes refused with a clear error", async () => {
  const e = await engine();
  assert.ok(e.hasVectors(), "the bundle has vectors");
  const r = await search(e, { query: "cache" });
  assert.equal(r.search_type, "lexical", "auto is lexical in the keyword engine");
  assert.equal(r.results[0].id, "reference/cache.md");
  for (const mode of ["hybrid", "semantic"]) {
    let err = null;
    try {
      await search(e, { query: "cache", mode });
    } catch (x) {
      err = JSON.parse(x);
    }
    assert.equal(err?.code, "invalid_request", mode);
    assert.match(err.message, /semantic search is not built into this runtime/);
  }
  // Nor is there a query text to embed for a model: a clear error, not an empty text.
  assert.throws(() => e.semanticText(JSON.stringify({ query: "cache" })), (x) => {
    const err = JSON.parse(x);
    return err.code === "invalid_request" && /no query text to embed/.test(err.message);
  });
});

test("the keyword engine lists only the shards it reads and refuses a semantic one", async () => {
  const e = await engine();
  const manifest = JSON.parse(fs.readFileSync(path.join(BUNDLE, "manifest.json"), "utf8"));
  const files = e.allFiles();
  assert.ok(files.some((f) => f.startsWith("t-")) && files.some((f) => f.startsWith("d-")));
  assert.ok(!files.includes(manifest.vectors.index.file) && !files.includes(manifest.encoder.index.file), "no semantic index shards");
  const vindex = manifest.vectors.index.file;
  assert.throws(() => e.addShard(vindex, read(vindex), undefined), (x) => {
    const err = JSON.parse(x);
    return err.code === "invalid_request" && /does not read/.test(err.message);
  });
});
