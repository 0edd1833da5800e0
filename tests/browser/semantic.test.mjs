// Semantic search in the browser: tract compiled to wasm embeds the query; lexical results
// come first and hybrid results replace them when the model is ready.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, OUT, sift, serve, browser, haveChromium, haveRuntime } from "./harness.mjs";

const modelDir = process.env.SIFT_MODEL_DIR ?? path.join(os.homedir(), ".cache/sift/models/all-minilm-l6-v2");
const skip = !haveChromium() ? "no /usr/bin/chromium (scripts/setup-web.sh installs it)"
  : !haveRuntime() ? "www/dist is not built (scripts/build-wasm.sh)"
  : !fs.existsSync(path.join(ROOT, "www/dist/sift_embed_wasm_bg.wasm")) ? "the embedder wasm is not built (scripts/build-wasm.sh)"
  : !fs.existsSync(path.join(modelDir, "model-f32.onnx")) ? `no embedding model in ${modelDir} (sift model fetch)` : false;

let server, chrome, page;
const bundle = path.join(OUT, "semantic/_sift");

before(async () => {
  if (skip) return;
  fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  sift(["build", path.join(ROOT, "tests/corpus"), "--out", bundle, "--base-url", "/", "-q"]);
  assert.ok(fs.existsSync(path.join(bundle, "model/model.onnx")), "the build copies the query model into the bundle");
  server = await serve(bundle, { sites: [path.join(ROOT, "tests/corpus")] });
  chrome = await browser();
  page = await chrome.ctx.newPage();
});

after(async () => {
  await chrome?.close();
  server?.stop();
});

test("the query is embedded in wasm and hybrid search finds a page by meaning", { skip }, async () => {
  await page.goto(server.url + "/");
  const r = await page.evaluate(async () => {
    const { Sift } = await import("/sift.js");
    const s = await Sift.load("/_sift/");
    const q = "ways to keep answers around between calls";
    const first = await s.search(q); // lexical now; starts loading the model
    const t0 = performance.now();
    await s.loadSemantic();
    const loadMs = performance.now() - t0;
    const second = await s.search(q);
    const timings = [];
    for (let i = 0; i < 5; i++) timings.push((await s.search(q)).timings_ms);
    const off = await Sift.load("/_sift/", { semantic: false });
    const offRes = await off.search(q);
    let explicitError = null;
    try {
      await off.search({ query: q, mode: "hybrid" });
    } catch (e) {
      explicitError = e.code;
    }
    const cachedModelFiles = (await (await caches.open("sift-model-v1")).keys()).map((r) => new URL(r.url).pathname);
    return {
      cachedModelFiles,
      first: { type: first.search_type, semantic: first.semantic },
      second: { type: second.search_type, semantic: second.semantic, ids: second.results.map((x) => x.id) },
      loadMs, timings, offType: offRes.search_type, offSemantic: offRes.semantic ?? null, explicitError,
    };
  });
  assert.deepEqual(r.cachedModelFiles.sort(), ["/_sift/model/model.onnx", "/_sift/model/tokenizer.json"], "the model is kept for the next visit");
  assert.equal(r.first.type, "lexical");
  assert.ok(["loading", "idle"].includes(r.first.semantic), JSON.stringify(r.first));
  assert.equal(r.second.semantic, "ready");
  assert.notEqual(r.second.type, "lexical", JSON.stringify(r.second));
  assert.ok(r.second.ids.slice(0, 3).some((id) => /cache|memo/.test(id)), JSON.stringify(r.second.ids));
  assert.ok(r.timings.every((t) => t.embed > 0), JSON.stringify(r.timings));
  assert.equal(r.offType, "lexical", "semantic: false keeps the site keyword-only");
  assert.equal(r.offSemantic, null);
  assert.equal(r.explicitError, "embedder_required", "asking for hybrid with semantic off is a clear error");
  console.log(`# model load ${r.loadMs.toFixed(0)} ms; warm hybrid query (embed ms / total ms): ${r.timings.map((t) => `${t.embed}/${t.total}`).join(", ")}`);
});

test("the search box shows keyword results at once, then hybrid ones", { skip }, async () => {
  await page.goto(server.url + "/");
  await page.keyboard.press("Control+K");
  const input = page.locator("sift-search input[role=combobox]");
  await input.pressSequentially("publish the site for visitors", { delay: 10 });
  await page.locator("sift-search [role=option]").first().waitFor();
  await page.waitForFunction(() => /hybrid|semantic/.test(document.querySelector("sift-search").shadowRoot.querySelector(".status").textContent), null, { timeout: 60000 });
  const first = await page.locator("sift-search [role=option]").first().getAttribute("data-url");
  assert.match(first, /deploy/, "the paraphrase finds the deploy guide");
  assert.match(await page.locator("sift-search .semantic").textContent(), /semantic search on/);
});
