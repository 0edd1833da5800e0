// Several bundles searched as one (SiftGroup): two sites merged by weighted rank, each
// result naming its bundle, per-bundle filters, and a missing or corrupt second bundle
// reported while the first still answers. A file of its own: the keyword glue bundled
// into sift.js is initialised once per process.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, before, after } from "node:test";
import { pathToFileURL } from "node:url";
import { SiftGroup } from "../../www/dist/sift-group.js";
import { Sift } from "../../www/dist/sift.js";
import { ROOT, sift, fileFetch } from "../support.mjs";

const engines = {
  wasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))),
  fullWasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm"))),
};
const opts = { fetch: fileFetch(), semantic: false, ...engines };

let dir;
const url = (name) => pathToFileURL(path.join(dir, name) + "/").href;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-group-"));
  const page = (site, file, title, body, type = "guide") => {
    fs.mkdirSync(path.join(dir, site), { recursive: true });
    fs.writeFileSync(path.join(dir, site, file), `---\ntitle: ${title}\ntype: ${type}\n---\n# ${title}\n\n${body}\n`);
  };
  page("docs-src", "cache.md", "Caching answers", "The cache keeps answers in memory. Cache invalidation rules.");
  page("docs-src", "deploy.md", "Deploying", "Ship the site; the cache is cleared on deploy.", "reference");
  page("blog-src", "cache-post.md", "Why we cache", "A post about the cache and its cache hits.");
  page("blog-src", "release.md", "Release notes", "Nothing about caching here, only releases.");
  for (const s of ["docs", "blog"]) sift(["build", path.join(dir, `${s}-src`), "--out", path.join(dir, s), "--no-embedder", "--quiet"]);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("two bundles merged by rank, each result saying where it came from", async () => {
  const g = await SiftGroup.load([{ base: url("docs"), name: "docs" }, { base: url("blog"), name: "blog" }], opts);
  const r = await g.search({ query: "cache" });
  assert.deepEqual(r.bundles.map((b) => b.name), ["docs", "blog"]);
  assert.ok(r.bundles.every((b) => b.total > 0 && !b.error));
  assert.equal(r.total, r.bundles.reduce((n, b) => n + b.total, 0));
  // Ranks interleave: each bundle's best first.
  assert.deepEqual(r.results.slice(0, 2).map((x) => x.bundle).sort(), ["blog", "docs"]);
  assert.ok(r.results.every((x) => ["docs", "blog"].includes(x.bundle)));
  assert.equal(r.results[0].score, 1, "the best rank of the heaviest bundle scores 1");
  // Paging: the second page continues the first.
  const p1 = await g.search({ query: "cache", limit: 2 });
  const p2 = await g.search({ query: "cache", limit: 2, offset: 2 });
  assert.deepEqual([...p1.results, ...p2.results].map((x) => x.id), (await g.search({ query: "cache", limit: 4 })).results.map((x) => x.id));
});

test("a weight favours its bundle, and a bundle's own filters apply to it alone", async () => {
  const g = await SiftGroup.load([{ base: url("docs"), name: "docs", weight: 0.2 }, { base: url("blog"), name: "blog", weight: 2 }], opts);
  const r = await g.search({ query: "cache" });
  assert.equal(r.results[0].bundle, "blog");
  assert.ok(r.results.findIndex((x) => x.bundle === "docs") > r.results.filter((x) => x.bundle === "blog").length - 1, "every blog result first");
  const f = await SiftGroup.load([{ base: url("docs"), name: "docs", filters: { type: "reference" } }, { base: url("blog"), name: "blog" }], opts);
  const docs = (await f.search({ query: "cache" })).results.filter((x) => x.bundle === "docs");
  assert.deepEqual(docs.map((x) => x.id), ["deploy.md"]);
});

test("a missing or corrupt second bundle is reported, and the first still answers", async () => {
  const corrupt = path.join(dir, "corrupt");
  fs.cpSync(path.join(dir, "blog"), corrupt, { recursive: true });
  fs.writeFileSync(path.join(corrupt, "manifest.json"), "{not json");
  for (const bad of [url("nowhere"), url("corrupt")]) {
    const g = await SiftGroup.load([{ base: url("docs"), name: "docs" }, { base: bad, name: "other" }], opts);
    assert.match(g.bundles[1].error.code, /bundle_missing|bundle_corrupt/);
    const r = await g.search({ query: "cache" });
    assert.ok(r.results.length > 0 && r.results.every((x) => x.bundle === "docs"));
    assert.equal(r.bundles[1].name, "other");
    assert.match(r.bundles[1].error.code, /bundle_missing|bundle_corrupt/);
  }
  // None loads: the first one's error.
  await assert.rejects(SiftGroup.load([url("nowhere"), url("corrupt")], opts), (e) => e.code === "bundle_missing");
});

test("bad groups are refused with a reason", async () => {
  await assert.rejects(SiftGroup.load([], opts), /list of bundles/);
  await assert.rejects(SiftGroup.load([{ name: "x" }], opts), /base/);
  await assert.rejects(SiftGroup.load([{ base: url("docs"), weight: 0 }], opts), /weight must be a positive number/);
  await assert.rejects(SiftGroup.load([{ base: url("docs"), name: "a" }, { base: url("blog"), name: "a" }], opts), /names must differ/);
  const g = await SiftGroup.load([url("docs"), url("blog")], opts);
  await assert.rejects(g.search({ query: "" }), (e) => e.code === "empty_query");
});

test("bundles names the ones to search; one bundle's Sift answers what a group does not merge", async () => {
  const g = await SiftGroup.load([{ base: url("docs"), name: "docs" }, { base: url("blog"), name: "blog", weight: 3 }], opts);
  const r = await g.search({ query: "cache", bundles: ["docs"] });
  assert.ok(r.results.length > 0 && r.results.every((x) => x.bundle === "docs"), JSON.stringify(r.results));
  assert.deepEqual(r.bundles.map((b) => b.name), ["docs"]);
  assert.equal(r.results[0].score, 1, "scores are relative to the bundles searched");
  await assert.rejects(g.search({ query: "cache", bundles: ["docs", "wiki"] }), /no bundle named "wiki"; the bundles are docs, blog/);
  await assert.rejects(g.search({ query: "cache", bundles: [] }), /bundles is a list of bundle names/);
  await assert.rejects(g.search({ query: "cache", bundles: "docs" }), /bundles is a list of bundle names/);
  const doc = await g.sift("blog").getDocument("cache-post.md");
  assert.equal(doc.title, "Why we cache");
  assert.throws(() => g.sift("wiki"), /no bundle named "wiki"/);
});

test("a group of Sifts loaded already merges the same way, and refuses what is not one", async () => {
  const [docs, blog] = await Promise.all([url("docs"), url("blog")].map((u) => Sift.load(u, opts)));
  const g = SiftGroup.of([{ sift: docs, name: "docs" }, { sift: blog, name: "blog", weight: 3 }]);
  const loaded = await SiftGroup.load([{ base: url("docs"), name: "docs" }, { base: url("blog"), name: "blog", weight: 3 }], opts);
  const ids = async (group) => (await group.search({ query: "cache" })).results.map((r) => [r.bundle, r.id]);
  assert.deepEqual(await ids(g), await ids(loaded));
  assert.throws(() => SiftGroup.of([{ sift: {}, name: "x" }]), /loaded Sifts/);
  assert.throws(() => SiftGroup.of([{ name: "x" }]), /sift \(a loaded Sift\) is required/);
  assert.throws(() => SiftGroup.of([{ sift: docs, name: "a" }, { sift: blog, name: "a" }]), /names must differ/);
});

test("several queries over several bundles: each bundle fuses them, the bundles merge by rank, a bundle's filters apply to every query", async () => {
  const g = await SiftGroup.load([{ base: url("docs"), name: "docs", filters: { type: "reference" } }, { base: url("blog"), name: "blog" }], opts);
  const r = await g.multiSearch({ queries: [{ query: "cache" }, { query: "releases" }], limit: 10 });
  assert.deepEqual(r.results.map((x) => [x.bundle, x.id]).sort(), [["blog", "cache-post.md"], ["blog", "release.md"], ["docs", "deploy.md"]]);
  assert.deepEqual(r.bundles.map((b) => b.name), ["docs", "blog"]);
  assert.equal(r.queries.length, 2);
  const only = await g.multiSearch({ queries: [{ query: "cache" }], bundles: ["blog"] });
  assert.ok(only.results.length > 0 && only.results.every((x) => x.bundle === "blog"));
  await assert.rejects(g.multiSearch({ queries: [] }), (e) => e.code === "invalid_request");
  await assert.rejects(g.multiSearch("cache"), /multiSearch takes \{queries/);
  await assert.rejects(g.multiSearch({ queries: [{ query: "cache" }], bundles: ["wiki"] }), /no bundle named "wiki"/);
});
