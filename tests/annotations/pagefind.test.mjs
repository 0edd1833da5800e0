// Page annotations: a site annotated for Pagefind (`data-pagefind-*`, tests/fixtures/annotated)
// built by Pagefind 1.6 and by `sift build`, compared page by page — the pages indexed, their
// metadata, filters, ignored and added text, and what weights do to the order of results.
// Pagefind's own search runs here in Node (its pagefind.js over a fetch of the files).

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { ROOT, SIFT, sift, skipUnlessCI } from "../support.mjs";

const PAGEFIND = path.join(ROOT, "www/node_modules/.bin/pagefind");
const SITE = path.join(ROOT, "tests/fixtures/annotated");
const skip = skipUnlessCI(
  !fs.existsSync(PAGEFIND) ? "Pagefind is missing (scripts/setup-web.sh installs www/'s packages)"
  : !fs.existsSync(SIFT) ? `no sift binary at ${SIFT}` : false,
);

let pf, bundle, tmp;

before(async () => {
  if (skip) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sift-annotated-"));
  bundle = path.join(tmp, "sift");
  sift(["build", SITE, "--out", bundle, "--no-embedder", "--base-url", "/", "-q"]);
  execFileSync(PAGEFIND, ["--site", SITE, "--output-path", path.join(tmp, "pagefind")], { stdio: "pipe" });
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const u = String(url);
    if (!u.startsWith("file:")) return realFetch(url, init);
    try {
      return new Response(fs.readFileSync(fileURLToPath(u.split("?")[0])));
    } catch (_) {
      return new Response("not found", { status: 404 });
    }
  };
  pf = await import(pathToFileURL(path.join(tmp, "pagefind/pagefind.js")).href);
  await pf.options({ basePath: pathToFileURL(path.join(tmp, "pagefind") + "/").href, baseUrl: "/" });
});

/** Pagefind's results for a query: url, title, meta and filters, in its order. */
async function pagefind(query, filters = {}) {
  const s = await pf.search(query, { filters });
  return Promise.all(s.results.map(async (r) => {
    const d = await r.data();
    return { url: d.url, title: d.meta.title, meta: d.meta, filters: d.filters };
  }));
}

/** Sift's results for a query, in its order. */
function siftSearch(query, extra = []) {
  return JSON.parse(sift(["search", bundle, query, "--json", "--mode", "lexical", ...extra])).results;
}

test("the same pages are indexed: once a page marks its body, pages without one are left out", { skip }, async () => {
  const pfPages = (await pagefind(null)).map((r) => r.url).sort();
  assert.deepEqual(pfPages, ["/blog/release.html", "/guides/harbor.html", "/guides/install.html", "/guides/plain.html"]);
  const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"));
  assert.equal(manifest.doc_count, pfPages.length);
  for (const url of pfPages) {
    const title = (await pagefind(null)).find((r) => r.url === url).title;
    assert.equal(siftSearch(title)[0]?.url, url, `Sift finds ${url} by its title ${JSON.stringify(title)}, as Pagefind names it`);
  }
  // Neither indexes the unmarked homepage, nor text outside the marked bodies.
  for (const word of ["homepage", "pelican", "newsletter", "menu", "copyright"]) {
    assert.equal((await pagefind(word)).length, 0, `Pagefind: ${word}`);
    assert.equal(siftSearch(word).length, 0, `Sift: ${word}`);
  }
  // Several marked bodies on one page are joined.
  assert.equal(siftSearch("announcement")[0]?.url, "/blog/release.html");
  assert.equal(siftSearch("faster index")[0]?.url, "/blog/release.html");
});

test("ignored blocks are not indexed; index-attrs add attribute text", { skip }, async () => {
  for (const word of ["flamingo", "walrus"]) {
    assert.equal((await pagefind(word)).length, 0, `Pagefind: ${word}`);
    assert.equal(siftSearch(word).length, 0, `Sift: ${word}`);
  }
  for (const word of ["beacon", "lighthouse"]) {
    assert.deepEqual((await pagefind(word)).map((r) => r.url), ["/guides/install.html"], `Pagefind: ${word}`);
    assert.deepEqual(siftSearch(word).map((r) => r.url), ["/guides/install.html"], `Sift: ${word}`);
  }
});

test("the same metadata and filters per page, and filtering by them narrows alike", { skip }, async () => {
  const pages = await pagefind(null);
  const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"));
  const pfFilterKeys = Object.keys(await pf.filters()).sort();
  assert.deepEqual([...manifest.filter_fields].sort(), pfFilterKeys, "the tagged filters, and no guessed ones");
  for (const p of pages) {
    const mine = siftSearch(p.title).find((r) => r.url === p.url);
    assert.ok(mine, p.url);
    assert.equal(mine.title, p.title, `${p.url}: title`);
    for (const [k, v] of Object.entries(p.meta)) {
      if (["title", "image", "image_alt"].includes(k)) continue; // Pagefind's defaults
      assert.deepEqual(mine.metadata?.[k], [v], `${p.url}: meta ${k}`);
    }
    for (const [k, vs] of Object.entries(p.filters)) {
      assert.deepEqual([...(mine.metadata?.[k] ?? [])].sort(), [...vs].sort(), `${p.url}: filter ${k}`);
    }
  }
  // A filter tagged inside an ignore="all" block is not read by either.
  assert.ok(!Object.keys((await pf.filters()).category ?? {}).includes("Hidden"));
  assert.equal(siftSearch("install", ["--filter", "category=Hidden"]).length, 0);
  for (const [field, value] of [["category", "Guides"], ["category", "Reference"], ["author", "Ada Lovelace"], ["tag", "release, notes"]]) {
    const theirs = (await pagefind(null, { [field]: value })).map((r) => r.url).sort();
    // Each page searched by its title under the filter: found when it passes.
    const ours = pages.filter((p) => siftSearch(p.title, ["--filter", `${field}=${value}`]).some((r) => r.url === p.url)).map((p) => p.url).sort();
    assert.deepEqual(ours, theirs, `filter ${field}=${value}`);
  }
});

test("weights order results as Pagefind's do: a heavy stretch first, a light one last", { skip }, async () => {
  for (const word of ["harbor", "lagoon"]) {
    const theirs = (await pagefind(word)).map((r) => r.url);
    const ours = siftSearch(word).map((r) => r.url);
    assert.deepEqual(ours, theirs, word);
  }
  assert.equal(siftSearch("harbor")[0].url, "/guides/harbor.html", "weight 10 on one mention beats two plain ones");
  assert.equal(siftSearch("lagoon")[0].url, "/guides/plain.html", "three mentions at weight 0.2 weigh less than two plain ones");
});

test("a date sort tag dates the page (results sort by date)", { skip }, async () => {
  const install = siftSearch("install")[0];
  assert.equal(install.date, "2024-03-05");
  const byDate = JSON.parse(sift(["search", bundle, "the", "--json", "--sort", "date"])).results;
  assert.equal(byDate[0].url, "/guides/install.html", "the only dated page first");
});
