// Hybrid search at the edge: the worker (the engine alone, no model) over a bundle built
// with vectors answers semantic and hybrid queries with the bundle's static query encoder —
// REST and MCP — within Cloudflare's memory limits.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TARGET, sift, skipUnlessCI } from "../support.mjs";
import { ROOT, startWorker, haveWrangler } from "./harness.mjs";

const modelDir = process.env.SIFT_MODEL_DIR ?? path.join(os.homedir(), ".cache/sift/models/all-minilm-l6-v2");
const skip = skipUnlessCI(!haveWrangler() ? "worker/node_modules is missing (scripts/setup-web.sh installs it)"
  : !fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm")) ? "www/dist is not built (scripts/build-wasm.sh)"
  : !fs.existsSync(path.join(modelDir, "model-f32.onnx")) ? `no embedding model in ${modelDir} (sift model fetch)` : false);

const bundle = path.join(TARGET, "worker-tests/semantic/_sift");
let w;

before(async () => {
  if (skip) return;
  sift(["build", path.join(ROOT, "tests/corpus"), "--out", bundle, "--base-url", "/", "-q"]);
  w = await startWorker({ bundle });
});

after(() => w?.stop());

test("REST: a paraphrase is answered by meaning, hybrid by default, within the memory limit", { skip }, async () => {
  const res = await (await fetch(`${w.url}/search?q=${encodeURIComponent("push my web app to the cloud")}`)).json();
  assert.equal(res.results[0].id, "guides/deploy.md", JSON.stringify(res.results.map((r) => r.id)));
  assert.equal(res.search_type, "semantic");
  assert.equal(res.fallback?.to, "semantic", "no keyword matched: the answer says it is by meaning");
  const hybrid = await (await fetch(`${w.url}/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "keeping answers in memory", mode: "hybrid" }) })).json();
  assert.equal(hybrid.search_type, "hybrid", JSON.stringify(hybrid).slice(0, 300));
  assert.match(hybrid.results[0].id, /cache|memo/);
  const multi = await (await fetch(`${w.url}/multi_search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ queries: [{ query: "ship it to the live servers" }, { query: "remember earlier calls" }] }) })).json();
  assert.notEqual(multi.search_type, "lexical", "multi_search embeds each query");
  const health = await (await fetch(`${w.url}/health`)).json();
  assert.equal(health.semantic, "static");
  assert.ok(health.wasm_memory_bytes <= 32 * 1024 * 1024, `wasm memory ${health.wasm_memory_bytes}`);
  console.log(`# hybrid worker wasm memory ${(health.wasm_memory_bytes / 1048576).toFixed(1)} MB`);
});

test("MCP: the search tool answers a paraphrase by meaning", { skip }, async () => {
  const rpc = async (body) => (await fetch(`${w.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) })).json();
  const r = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: { query: "push my web app to the cloud" } } });
  assert.ok(!r.result.isError, JSON.stringify(r));
  assert.equal(r.result.structuredContent.results[0].id, "guides/deploy.md", JSON.stringify(r.result.structuredContent));
  assert.notEqual(r.result.structuredContent.search_type, "lexical");
});
