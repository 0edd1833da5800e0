// Several bundles behind one worker (SIFT_BUNDLES): folders of its assets searched as one,
// merged by rank, each result naming its bundle; `bundle` narrows a search and picks the
// bundle /documents and /related read, and MCP's tools do the same; a bundle that is
// missing is reported while the others answer; a bad SIFT_BUNDLES, an unknown bundle or
// `bundle` on a one-bundle worker is an error that says why.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { TARGET, sift, skipUnlessCI } from "../support.mjs";
import { ROOT, startWorker, haveWrangler } from "./harness.mjs";

const skip = skipUnlessCI(!haveWrangler() ? "worker/node_modules is missing (scripts/setup-web.sh installs it)"
  : !fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm")) ? "www/dist is not built (scripts/build-wasm.sh)" : false);

const work = path.join(TARGET, "worker-tests/bundles");
const assets = path.join(work, "assets");
const BUNDLES = [
  { name: "docs", path: "docs/", weight: 2 },
  { name: "blog", path: "/blog", filters: { type: "post" } },
  { name: "gone", path: "missing/" },
];
let w;
let single;

before(async () => {
  if (skip) return;
  fs.rmSync(work, { recursive: true, force: true });
  const page = (site, file, title, body, type) => {
    fs.mkdirSync(path.join(work, site), { recursive: true });
    fs.writeFileSync(path.join(work, site, file), `---\ntitle: ${title}\ntype: ${type}\n---\n# ${title}\n\n${body}\n`);
  };
  page("docs-src", "cache.md", "Caching answers", "The cache keeps answers in memory.", "guide");
  page("docs-src", "deploy.md", "Deploying", "Ship the site; the cache is cleared on deploy.", "guide");
  page("blog-src", "cache-post.md", "Why we cache", "A post about the cache and its cache hits.", "post");
  page("blog-src", "cache-draft.md", "Cache draft", "A draft about the cache, not a post yet.", "draft");
  for (const s of ["docs", "blog"]) sift(["build", path.join(work, `${s}-src`), "--out", path.join(assets, s), "--base-url", `/${s}/`, "--no-embedder", "-q"]);
  [w, single] = await Promise.all([
    startWorker({ bundle: assets, vars: { SIFT_BUNDLES: JSON.stringify(BUNDLES) } }),
    startWorker({ bundle: path.join(assets, "docs") }),
  ]);
});

after(() => {
  w?.stop();
  single?.stop();
});

const get = async (base, q) => {
  const r = await fetch(`${base}/search?${new URLSearchParams(q)}`);
  return [r.status, await r.json()];
};

test("the bundles are searched as one, each result naming its bundle; a missing one is reported", { skip }, async () => {
  const [status, res] = await get(w.url, { q: "cache" });
  assert.equal(status, 200, JSON.stringify(res));
  assert.deepEqual(res.results.map((r) => [r.bundle, r.id]), [["docs", "cache.md"], ["docs", "deploy.md"], ["blog", "cache-post.md"]],
    "docs weighs twice the blog; the blog's own filter leaves its draft out");
  assert.deepEqual(res.bundles.map((b) => [b.name, b.total ?? b.error.code]), [["docs", 2], ["blog", 1], ["gone", "bundle_missing"]]);
  assert.equal(res.total, 3);
  const health = await (await fetch(`${w.url}/health`)).json();
  assert.equal(health.status, "degraded");
  assert.deepEqual(health.bundles.map((b) => b.name), ["docs", "blog", "gone"]);
  assert.equal(health.bundles[2].error.code, "bundle_missing");
});

test("bundle narrows a search (GET or POST) and picks the bundle a document is read from", { skip }, async () => {
  let [status, res] = await get(w.url, { q: "cache", bundle: "blog" });
  assert.equal(status, 200);
  assert.deepEqual(res.results.map((r) => [r.bundle, r.id]), [["blog", "cache-post.md"]]);
  const post = await fetch(`${w.url}/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "deploy", bundles: ["docs", "blog"] }) });
  assert.deepEqual((await post.json()).results.map((r) => [r.bundle, r.id]), [["docs", "deploy.md"]]);
  const doc = await (await fetch(`${w.url}/documents/cache-post.md?bundle=blog`)).json();
  assert.equal(doc.title, "Why we cache");
  const first = await (await fetch(`${w.url}/documents/cache.md`)).json();
  assert.equal(first.title, "Caching answers", "no bundle: the first listed");
  [status, res] = await get(w.url, { q: "cache", bundle: "wiki" });
  assert.equal(status, 400);
  assert.match(res.error.message, /no bundle named "wiki"; the bundles are docs, blog, gone/);
  const gone = await fetch(`${w.url}/documents/x.md?bundle=gone`);
  assert.equal(gone.status, 500);
  assert.equal((await gone.json()).error.code, "bundle_missing");
});

test("bundle on a worker of one bundle is a 400 that says how to list several", { skip }, async () => {
  const [status, res] = await get(single.url, { q: "cache", bundle: "docs" });
  assert.equal(status, 400);
  assert.match(res.error.message, /searches one bundle; SIFT_BUNDLES/);
  const [ok, plain] = await get(single.url, { q: "cache" });
  assert.equal(ok, 200);
  assert.ok(plain.results.every((r) => r.bundle === undefined));
});

const mcp = async (base, method, params) => {
  const r = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await r.json();
  assert.ok(body.result, JSON.stringify(body));
  return body.result;
};
const tool = (base, name, args) => mcp(base, "tools/call", { name, arguments: args });

test("MCP searches the bundles as one: results name their bundle, bundles narrows, bundle picks the page to read", { skip }, async () => {
  const init = await mcp(w.url, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } });
  assert.match(init.instructions, /Search 3 bundles as one: docs \(2 pages; filters: type\); blog \(2 pages; filters: type\); gone \(unavailable: /);
  let res = await tool(w.url, "search", { query: "cache" });
  assert.deepEqual(res.structuredContent.results.map((r) => [r.bundle, r.id]), [["docs", "cache.md"], ["docs", "deploy.md"], ["blog", "cache-post.md"]]);
  assert.deepEqual(res.structuredContent.bundles.map((b) => [b.name, b.total ?? b.error.code]), [["docs", 2], ["blog", 1], ["gone", "bundle_missing"]]);
  res = await tool(w.url, "search", { query: "cache", bundles: ["blog"] });
  assert.deepEqual(res.structuredContent.results.map((r) => [r.bundle, r.id]), [["blog", "cache-post.md"]]);
  const multi = await tool(w.url, "multi_search", { queries: [{ query: "deploy" }, { query: "hits" }] });
  assert.deepEqual(multi.structuredContent.results.map((r) => [r.bundle, r.id]).sort(), [["blog", "cache-post.md"], ["docs", "deploy.md"]]);
  const doc = await tool(w.url, "get_document", { id: "cache-post.md", bundle: "blog" });
  assert.equal(doc.structuredContent.title, "Why we cache");
  const rel = await tool(w.url, "related", { id: "cache.md", bundle: "docs" });
  assert.deepEqual(rel.structuredContent.results.map((r) => r.id), ["deploy.md"]);
  // Bad names are tool errors that say what there is.
  for (const [name, args, why] of [
    ["search", { query: "cache", bundles: ["wiki"] }, /no bundle named "wiki"; the bundles are docs, blog, gone/],
    ["search", { query: "cache", bundles: "blog" }, /bundles is a list of bundle names/],
    ["get_document", { id: "cache-post.md", bundle: "wiki" }, /no bundle named "wiki"/],
    ["get_document", { id: "cache-post.md", bundle: 3 }, /bundle is the name of a bundle/],
    ["get_document", { id: "cache-post.md" }, /no document with id "cache-post.md"/],
    ["related", { id: "x.md", bundle: "gone" }, /bundle_missing/],
  ]) {
    const bad = await tool(w.url, name, args);
    assert.equal(bad.isError, true, JSON.stringify(args));
    assert.match(bad.content[0].text, why, JSON.stringify(args));
  }
  // REST's multi_search merges the same way.
  const post = await fetch(`${w.url}/multi_search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ queries: [{ query: "deploy" }], bundles: ["docs"] }) });
  assert.deepEqual((await post.json()).results.map((r) => [r.bundle, r.id]), [["docs", "deploy.md"]]);
});

test("MCP on a worker of one bundle: bundle and bundles are tool errors that say how to list several", { skip }, async () => {
  for (const [name, args] of [["search", { query: "cache", bundles: ["docs"] }], ["get_document", { id: "cache.md", bundle: "docs" }], ["multi_search", { queries: [{ query: "cache" }], bundles: ["docs"] }]]) {
    const bad = await tool(single.url, name, args);
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /invalid_request: this server searches one bundle; SIFT_BUNDLES/);
  }
  const ok = await tool(single.url, "search", { query: "cache" });
  assert.ok(ok.structuredContent.results.length > 0 && ok.structuredContent.results.every((r) => r.bundle === undefined));
  const init = await mcp(single.url, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } });
  assert.match(init.instructions, /^Search 2 documentation pages/);
});

test("a bad SIFT_BUNDLES is refused with what it should be", async () => {
  const { bundlesOf } = await import("../../worker/src/app.js");
  assert.equal(bundlesOf({}), null);
  assert.deepEqual(bundlesOf({ SIFT_BUNDLES: JSON.stringify(BUNDLES) }).map((b) => b.base),
    ["https://assets.local/docs/", "https://assets.local/blog/", "https://assets.local/missing/"]);
  assert.equal(bundlesOf({ SIFT_BUNDLES: '[{"name": "other", "url": "https://example.org/_sift"}]' })[0].base, "https://example.org/_sift/");
  for (const [raw, why] of [
    ["{not json", /is not valid JSON/],
    ["[]", /is not a list of bundles/],
    ['[{"path": "docs/"}]', /entry 0 has no name/],
    ['[{"name": "x"}]', /entry 0 \(x\) has neither a path .* nor an http\(s\) url/],
    ['[{"name": "x", "url": "file:///etc/"}]', /neither a path/],
  ]) {
    assert.throws(() => bundlesOf({ SIFT_BUNDLES: raw }), (e) => e.code === "bundle_missing" && why.test(e.message) && /\[\{"name": "docs"/.test(e.message), raw);
  }
});
