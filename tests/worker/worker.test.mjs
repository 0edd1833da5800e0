// The Sift worker on the real local workerd: every REST route, the bad inputs, CORS, and an
// MCP session driven by the official MCP TypeScript SDK client.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { TARGET, SIFT, sift, skipUnlessCI } from "../support.mjs";
import { ROOT, startWorker, haveWrangler } from "./harness.mjs";

const skip = skipUnlessCI(!haveWrangler() ? "worker/node_modules is missing (scripts/setup-web.sh installs it)"
  : !fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm")) ? "www/dist is not built (scripts/build-wasm.sh)" : false);

const require = createRequire(path.join(ROOT, "worker/package.json"));
const bundle = path.join(TARGET, "worker-tests/_sift");
let w, secured, older;

before(async () => {
  if (skip) return;
  sift(["build", path.join(ROOT, "tests/corpus"), path.join(ROOT, "tests/browser/fixtures/docs"), path.join(ROOT, "tests/browser/fixtures/api"), "--out", bundle, "--base-url", "/", "-q", "--no-embedder"]);
  // A bundle of an older format: the manifest alone is what is refused.
  const olderBundle = path.join(TARGET, "worker-tests/older/_sift");
  fs.mkdirSync(olderBundle, { recursive: true });
  fs.copyFileSync(path.join(ROOT, "tests/frozen/older-format/manifest.json"), path.join(olderBundle, "manifest.json"));
  [w, secured, older] = await Promise.all([
    startWorker({ bundle }),
    startWorker({ bundle, vars: { MCP_TOKEN: "s3cret-token", CORS_ORIGINS: "https://docs.example.org" } }),
    startWorker({ bundle: olderBundle, ready: (status) => status > 0 }),
  ]);
});

after(() => {
  w?.stop();
  secured?.stop();
  older?.stop();
});

const get = (p, init) => fetch(w.url + p, init);
const post = (p, body, headers = {}) =>
  fetch(w.url + p, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
async function expectError(res, status, code) {
  assert.equal(res.status, status, `${res.url}: ${res.status}`);
  const body = await res.json();
  assert.equal(body.error?.code, code, JSON.stringify(body));
  assert.ok(body.error.message.length > 10, "the message explains");
}

test("GET /health describes the bundle", { skip }, async () => {
  const r = await get("/health");
  assert.equal(r.status, 200);
  const h = await r.json();
  assert.equal(h.status, "ok");
  assert.equal(h.documents, 11);
  assert.deepEqual(h.filter_fields, ["folder", "tags", "type"]);
});

test("GET /search answers the contract with cache headers; filters narrow", { skip }, async () => {
  const r = await get("/search?q=deploy&limit=3");
  assert.equal(r.status, 200);
  assert.match(r.headers.get("cache-control"), /public, max-age=\d+/);
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  const res = await r.json();
  assert.equal(res.results[0].id, "guides/deploy.md");
  assert.equal(res.limit, 3);
  assert.equal(typeof res.results[0].score, "number");
  assert.ok(String(res.results[0].score).length <= 6, `scores are rounded, not f32 noise: ${res.results[0].score}`);
  const f = await (await get("/search?q=cache&filter.type=reference")).json();
  assert.ok(f.results.length >= 1 && f.results.every((x) => x.type === "reference"), JSON.stringify(f.results.map((x) => x.type)));
  const typo = await (await get("/search?q=authentificate")).json();
  assert.equal(typo.results[0].id, "guides/authentication.md");
  assert.ok(typo.fallback || typo.suggestions?.length);
});

test("GET /search bad inputs are 400s with the contract's codes", { skip }, async () => {
  await expectError(await get("/search"), 400, "invalid_request");
  await expectError(await get("/search?q=deploy&limit=0"), 400, "invalid_limit");
  await expectError(await get("/search?q=deploy&limit=500"), 400, "invalid_limit");
  await expectError(await get("/search?q=deploy&limit=abc"), 400, "invalid_json");
  await expectError(await get("/search?q=deploy&colour=red"), 400, "invalid_request");
  await expectError(await get("/search?q=deploy&filter.nosuch=x"), 400, "unknown_filter");
  await expectError(await post("/search", { query: "a ".repeat(9000) }), 400, "query_too_long");
  await expectError(await get("/search?q="), 400, "empty_query");
  // A span whose unit is a multi-byte character once panicked the engine (a trap, a 500).
  await expectError(await get("/search?q=deploy&since=7%E8%AA%9E"), 400, "invalid_since");
  await expectError(await get("/search?q=deploy&since=soon"), 400, "invalid_since");
});

test("POST /search, /multi_search and their bad bodies", { skip }, async () => {
  const r = await post("/search", { query: "token refresh", limit: 2 });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("cache-control"), null, "POST answers are not cached");
  const res = await r.json();
  assert.equal(res.results[0].sub_results[0].url, "/guides/authentication.html#rotating");
  await expectError(await post("/search", "{not json"), 400, "invalid_json");
  await expectError(await post("/search", ""), 400, "invalid_json");
  await expectError(await post("/search", { query: "x", bogus: true }), 400, "invalid_json");
  await expectError(await post("/search", JSON.stringify({ query: "x".repeat(1 << 20) })), 413, "payload_too_large");
  await expectError(await post("/search", [1, 2]), 400, "invalid_request");
  // A pasted paragraph (over 64 terms, over the old 2 KB limit) is answered, and says what it kept.
  const para = Array.from({ length: 90 }, (_, i) => `token${i} refresh`).join(" ") + " rotating authentication tokens";
  const long = await post("/search", { query: para, limit: 3 });
  assert.equal(long.status, 200);
  const lr = await long.json();
  assert.ok(lr.results.length >= 1 && /most informative/.test(lr.fallback?.reason ?? ""), JSON.stringify(lr.fallback));
  const m = await (await post("/multi_search", { queries: [{ query: "cache" }, { query: "memo" }], limit: 5 })).json();
  assert.ok(m.results.some((x) => x.queries.length === 2) || m.results.length >= 2, JSON.stringify(m));
  await expectError(await post("/multi_search", { queries: [] }), 400, "invalid_request");
});

test("GET /documents/{id} and /related/{id}", { skip }, async () => {
  for (const p of ["/documents/guides/deploy.md", "/documents/guides%2Fdeploy.md"]) {
    const r = await get(p);
    assert.equal(r.status, 200, p);
    const d = await r.json();
    assert.equal(d.title, "Deploying to production");
    assert.ok(!("sp" in d));
  }
  await expectError(await get("/documents/no/such.md"), 404, "not_found");
  const rel = await (await get("/related/reference/cache.md?limit=3")).json();
  assert.ok(rel.results.length >= 1 && !rel.results.some((x) => x.id === "reference/cache.md"));
  await expectError(await get("/related/no/such.md"), 404, "not_found");
  await expectError(await get("/related/reference/cache.md?limit=0"), 400, "invalid_limit");
});

test("unknown routes are 404, wrong methods 405 with Allow, CORS preflight answers", { skip }, async () => {
  await expectError(await get("/nope"), 404, "not_found");
  const put = await fetch(w.url + "/search", { method: "PUT", body: "{}" });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, POST");
  await expectError(await get("/multi_search"), 405, "method_not_allowed");
  assert.equal((await fetch(w.url + "/mcp", { method: "GET" })).status, 405);
  assert.equal((await fetch(w.url + "/mcp", { method: "DELETE" })).status, 405);
  const pre = await fetch(w.url + "/search", { method: "OPTIONS", headers: { origin: "https://a.example", "access-control-request-method": "POST" } });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
  // A configured origin list answers only those origins.
  const ok = await fetch(secured.url + "/health", { headers: { origin: "https://docs.example.org" } });
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://docs.example.org");
  const other = await fetch(secured.url + "/health", { headers: { origin: "https://evil.example" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
});

const rpc = (body, url = w.url, headers = {}) =>
  fetch(url + "/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

test("a bundle of an older format is a 500 with bundle_version and a message to rebuild it, on REST and MCP", { skip }, async () => {
  for (const p of ["/health", "/search?q=cache"]) {
    const r = await fetch(older.url + p);
    assert.equal(r.status, 500, p);
    const body = await r.json();
    assert.equal(body.error?.code, "bundle_version", JSON.stringify(body));
    assert.match(body.error.message, /rebuild it with `sift build`/);
  }
  const r = await fetch(older.url + "/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: { query: "cache" } } }),
  });
  // The bundle cannot be opened at all: a JSON-RPC error that says why, with the code.
  const { error } = await r.json();
  assert.equal(error?.data?.code, "bundle_version", JSON.stringify(error));
  assert.match(error.message, /rebuild it with `sift build`/);
});

test("MCP JSON-RPC errors for bad calls", { skip }, async () => {
  let r = await rpc("{oops");
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, -32700);
  r = await rpc({ jsonrpc: "1.0", id: 1, method: "tools/list" });
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, -32600);
  r = await rpc({ jsonrpc: "2.0", id: 2, method: "no/such" });
  assert.equal((await r.json()).error.code, -32601);
  r = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "drop_tables", arguments: {} } });
  const unknown = await r.json();
  assert.equal(unknown.error.code, -32602);
  assert.match(unknown.error.message, /Unknown tool/);
  r = await rpc({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search", arguments: { query: "x", limit: 0 } } });
  const bad = (await r.json()).result;
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /invalid_limit/);
  r = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(r.status, 202);
  r = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: { pad: "x".repeat(100000) } }));
  assert.equal(r.status, 413);
  r = await rpc([{ jsonrpc: "2.0", id: 6, method: "ping" }, { jsonrpc: "2.0", id: 7, method: "tools/list" }]);
  const batch = await r.json();
  assert.deepEqual(batch.map((x) => x.id), [6, 7]);
});

test("an MCP session with the official SDK client: list tools, search, read a page", { skip }, async () => {
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "sift-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(w.url + "/mcp")));
  assert.equal(client.getServerVersion().name, "sift");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["get_document", "multi_search", "related", "search"]);
  assert.ok(tools.every((t) => t.inputSchema.type === "object"));
  const res = await client.callTool({ name: "search", arguments: { query: "token refresh", limit: 3 } });
  assert.ok(!res.isError);
  assert.equal(res.structuredContent.results[0].id, "guides/authentication.md");
  assert.ok(!/<mark>/.test(res.content[0].text), "agents get plain text");
  const doc = await client.callTool({ name: "get_document", arguments: { id: "guides/authentication.md", max_chars: 200 } });
  assert.equal(doc.structuredContent.offset, 0);
  assert.ok(doc.structuredContent.text.length <= 200);
  if (doc.structuredContent.total_chars > 200) assert.match(doc.content[0].text, /offset": 200/);
  const rel = await client.callTool({ name: "related", arguments: { id: "reference/cache.md" } });
  assert.ok(rel.structuredContent.results.length >= 1);
  const multi = await client.callTool({ name: "multi_search", arguments: { queries: [{ query: "cache" }, { query: "memo" }] } });
  assert.ok(multi.structuredContent.results.length >= 2);
  // An identifier: its definition, with the link an agent can cite.
  const ident = await client.callTool({ name: "search", arguments: { query: "os.getcwd", limit: 3 } });
  assert.deepEqual(ident.structuredContent.results[0].definition, { path: "os.getcwd", kind: "function", url: "/library/os.html#os.getcwd" });
  const missing = await client.callTool({ name: "get_document", arguments: { id: "nope" } });
  assert.equal(missing.isError, true);
  await client.close();
});

test("sift mcp over stdio answers every tool call as the worker does", { skip }, async () => {
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
  const http = new Client({ name: "sift-test", version: "1.0.0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(w.url + "/mcp")));
  const stdio = new Client({ name: "sift-test", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({ command: SIFT, args: ["mcp", bundle], stderr: "pipe" }));
  try {
    const httpTools = (await http.listTools()).tools;
    const stdioTools = (await stdio.listTools()).tools;
    assert.deepEqual(stdioTools.slice(0, httpTools.length), httpTools, "one list of tools");
    const calls = [
      ["search", { query: "token refresh", limit: 3 }],
      ["search", { query: "cache invalidation", include_content: true }],
      ["search", { query: "os.getcwd" }],
      ["search", { query: "deploymnet" }],
      ["search", { query: "guide", filters: { type: "guide" }, offset: 1, limit: 2 }],
      ["search", { query: "\"exact phrase nobody wrote\"" }],
      ["multi_search", { queries: [{ query: "cache" }, { query: "memo" }], limit: 4 }],
      ["get_document", { id: "guides/authentication.md", max_chars: 200, offset: 20 }],
      ["get_document", { id: "reference/state-machine.md" }],
      ["related", { id: "reference/cache.md", limit: 3 }],
      ["get_document", { id: "nope" }],
      ["search", { query: "x", limit: 0 }],
      ["search", { query: "x", colour: "red" }],
      ["search", { query: "cache", bundles: ["docs"] }],
      ["get_document", { id: "reference/cache.md", bundle: "docs" }],
      ["related", { id: "reference/cache.md", colour: "red" }],
    ];
    for (const [name, args] of calls) {
      const a = await http.callTool({ name, arguments: args });
      const b = await stdio.callTool({ name, arguments: args });
      assert.deepEqual(b.structuredContent, a.structuredContent, `${name} ${JSON.stringify(args)}`);
      assert.equal(b.isError, a.isError, `${name} ${JSON.stringify(args)}`);
      if (a.isError) assert.equal(b.content[0].text, a.content[0].text);
    }
  } finally {
    await http.close();
    await stdio.close();
  }
});

test("MCP bearer-token auth when MCP_TOKEN is set", { skip }, async () => {
  const init = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const denied = await rpc(init, secured.url);
  assert.equal(denied.status, 401);
  assert.match(denied.headers.get("www-authenticate"), /Bearer/);
  assert.equal((await rpc(init, secured.url, { authorization: "Bearer wrong-token!" })).status, 401);
  const ok = await rpc(init, secured.url, { authorization: "Bearer s3cret-token" });
  assert.equal(ok.status, 200);
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "sift-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(secured.url + "/mcp"), { requestInit: { headers: { authorization: "Bearer s3cret-token" } } }));
  const res = await client.callTool({ name: "search", arguments: { query: "deploy" } });
  assert.equal(res.structuredContent.results[0].id, "guides/deploy.md");
  await client.close();
});
