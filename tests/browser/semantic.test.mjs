// Semantic search in the browser. A bundle built with vectors embeds queries itself (its
// static encoder, fitted to the corpus): hybrid results from the first keystroke, nothing
// to download but a few small shards. The full model (tract compiled to wasm) stays an
// option: `embedder: "model"` loads it, and the encoder answers until it is ready.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, OUT, sift, serve, browser, haveChromium, haveRuntime } from "./harness.mjs";
import { skipUnlessCI } from "../support.mjs";

const modelDir = process.env.SIFT_MODEL_DIR ?? path.join(os.homedir(), ".cache/sift/models/all-minilm-l6-v2");
const skip = skipUnlessCI(!haveChromium() ? "no /usr/bin/chromium (scripts/setup-web.sh installs it)"
  : !haveRuntime() ? "www/dist is not built (scripts/build-wasm.sh)"
  : !fs.existsSync(path.join(modelDir, "model-f32.onnx")) ? `no embedding model in ${modelDir} (sift model fetch)` : false);
const skipModel = skip || skipUnlessCI((!fs.existsSync(path.join(ROOT, "www/dist/sift_embed_wasm_bg.wasm")) ? "the query embedder wasm is not built (scripts/build-wasm.sh)" : false));

let server, chrome, page;
const bundle = path.join(OUT, "semantic/_sift");

before(async () => {
  if (skip) return;
  fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  // --copy-model only for the model-option test; the default path never fetches it.
  sift(["build", path.join(ROOT, "tests/corpus"), "--out", bundle, "--base-url", "/", "-q", "--copy-model"]);
  server = await serve(bundle, { sites: [path.join(ROOT, "tests/corpus")] });
  chrome = await browser();
  page = await chrome.ctx.newPage();
});

after(async () => {
  await chrome?.close();
  server?.stop();
});

test("the bundle embeds the query itself: hybrid from the first search, no model download", { skip }, async () => {
  await page.goto(server.url + "/");
  const requested = [];
  page.on("request", (r) => requested.push(new URL(r.url()).pathname));
  const r = await page.evaluate(async () => {
    const { Sift } = await import("/sift.js?static");
    const s = await Sift.load("/_sift/");
    const state = s.semanticState;
    const t0 = performance.now();
    const first = await s.search("keeping answers in memory");
    const firstMs = performance.now() - t0;
    const fallback = await s.search("push my web app to the cloud");
    const timings = [];
    for (let i = 0; i < 5; i++) timings.push((await s.search("keeping answers in memory")).timings_ms.total);
    const off = await Sift.load("/_sift/", { semantic: false });
    const offRes = await off.search("keeping answers in memory");
    let explicitError = null;
    try {
      await off.search({ query: "cache", mode: "hybrid" });
    } catch (e) {
      explicitError = e.code;
    }
    return {
      state, firstMs, timings, bytes: s.stats.bytesFetched,
      first: { type: first.search_type, semantic: first.semantic, ids: first.results.map((x) => x.id) },
      fallback: { type: fallback.search_type, ids: fallback.results.map((x) => x.id), from: fallback.fallback?.from },
      offType: offRes.search_type, explicitError,
    };
  });
  assert.equal(r.state, "static");
  assert.equal(r.first.semantic, "static");
  assert.notEqual(r.first.type, "lexical", JSON.stringify(r.first));
  assert.match(r.first.ids[0], /cache|memo/, JSON.stringify(r.first));
  assert.equal(r.fallback.ids[0], "guides/deploy.md", JSON.stringify(r.fallback));
  assert.equal(r.fallback.from, "lexical", "no keyword matches: answered by meaning, and said so");
  assert.ok(!requested.some((p) => p.includes("/model/") || p.includes("sift_embed_wasm")), `no model or embedder fetched: ${requested.join(" ")}`);
  assert.equal(r.offType, "lexical", "semantic: false keeps the site keyword-only");
  assert.equal(r.explicitError, "embedder_required", "asking for hybrid with semantic off is a clear error");
  console.log(`# first hybrid search ${r.firstMs.toFixed(0)} ms cold, ${r.bytes} bytes of shards; warm: ${r.timings.join(", ")} ms`);
});

test("the full model is an option: the encoder answers until it has loaded", { skip: skipModel }, async () => {
  await page.goto(server.url + "/");
  const r = await page.evaluate(async () => {
    const { Sift } = await import("/sift.js?model");
    const s = await Sift.load("/_sift/", { embedder: "model" });
    const first = await s.search("keeping answers in memory"); // the encoder answers; the model starts loading
    await s.loadSemantic();
    // An idiom a bag of static token vectors misreads; the model reads it in context.
    const second = await s.search({ query: "roll out a new version to the servers", mode: "semantic" });
    const cachedModelFiles = (await (await caches.open("sift-model-v1")).keys()).map((r) => new URL(r.url).pathname);
    return {
      cachedModelFiles,
      first: { type: first.search_type, semantic: first.semantic },
      second: { type: second.search_type, semantic: second.semantic, ids: second.results.map((x) => x.id), embed: second.timings_ms.embed },
    };
  });
  assert.notEqual(r.first.type, "lexical", "the static encoder answers while the model loads");
  assert.ok(["loading", "idle"].includes(r.first.semantic), JSON.stringify(r.first));
  assert.equal(r.second.semantic, "ready");
  assert.ok(r.second.embed > 0, JSON.stringify(r.second));
  assert.equal(r.second.ids[0], "guides/deploy.md", JSON.stringify(r.second));
  assert.deepEqual(r.cachedModelFiles.sort(), ["/_sift/model/model.onnx", "/_sift/model/tokenizer.json"], "the model is kept for the next visit");
});

test("the search box answers a paraphrase by meaning from the first keystrokes", { skip }, async () => {
  const fresh = await browser();
  try {
    const p = await fresh.ctx.newPage();
    const requested = [];
    p.on("request", (r) => requested.push(new URL(r.url()).pathname));
    await p.goto(server.url + "/");
    await p.keyboard.press("Control+K");
    const input = p.locator("sift-search input[role=combobox]");
    await input.pressSequentially("push my web app to the cloud", { delay: 10 });
    await p.waitForFunction(() => /cloud/.test(document.querySelector("sift-search").lastResponse?.query ?? ""), null, { timeout: 20000 });
    await p.locator("sift-search [role=option]").first().waitFor();
    const first = await p.locator("sift-search [role=option]").first().getAttribute("data-url");
    assert.match(first, /deploy/, "the paraphrase finds the deploy guide");
    assert.match(await p.locator("sift-search .semantic").textContent(), /semantic search on/);
    assert.ok(!requested.some((x) => x.includes("/model/") || x.includes("sift_embed_wasm")), `no model fetched: ${requested.join(" ")}`);
  } finally {
    await fresh.close();
  }
});
