// A site built in several languages behind the worker: `lang` (GET parameter or POST
// member) picks the language's bundle, each stemmed its own way; a language the site does
// not have is a 400 that lists the ones it has; /health lists them.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { TARGET, sift, skipUnlessCI } from "../support.mjs";
import { ROOT, startWorker, haveWrangler } from "./harness.mjs";

const skip = skipUnlessCI(!haveWrangler() ? "worker/node_modules is missing (scripts/setup-web.sh installs it)"
  : !fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm")) ? "www/dist is not built (scripts/build-wasm.sh)" : false);

const site = path.join(TARGET, "worker-tests/languages/site");
const bundle = path.join(TARGET, "worker-tests/languages/_sift");
const PAGES = {
  "en/install.html": ["en", "Installing packages", "Configurations live in /etc."],
  "en/net.html": ["en", "Network setup", "Configure the network interfaces."],
  "de/install.html": ["de", "Pakete installieren", "Die Konfigurationen liegen in /etc."],
  "ja/install.html": ["ja", "パッケージのインストール", "パッケージ管理システムで導入します。"],
};
let w;

before(async () => {
  if (skip) return;
  fs.rmSync(site, { recursive: true, force: true });
  for (const [file, [lang, title, body]] of Object.entries(PAGES)) {
    fs.mkdirSync(path.join(site, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(site, file), `<html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`);
  }
  sift(["build", site, "--out", bundle, "--base-url", "/", "-q", "--no-embedder"]);
  w = await startWorker({ bundle });
});

after(() => w?.stop());

const get = async (q) => {
  const r = await fetch(`${w.url}/search?${new URLSearchParams(q)}`);
  return [r.status, await r.json()];
};

test("lang picks the language's bundle, stemmed its own way", { skip }, async () => {
  let [status, res] = await get({ q: "Konfiguration", lang: "de-AT" });
  assert.equal(status, 200, JSON.stringify(res));
  assert.deepEqual(res.results.map((r) => r.id), ["de/install.html"]);
  [status, res] = await get({ q: "パッケージ管理", lang: "ja" });
  assert.deepEqual(res.results.map((r) => r.id), ["ja/install.html"]);
  [status, res] = await get({ q: "etc" });
  assert.deepEqual(res.results.map((r) => r.id), ["en/install.html"], "no lang: the main bundle");
  [status, res] = await get({ q: "etc", lang: "en" });
  assert.deepEqual(res.results.map((r) => r.id), ["en/install.html"]);
  const post = await fetch(`${w.url}/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "Konfigurationen", lang: "de" }) });
  assert.deepEqual((await post.json()).results.map((r) => r.id), ["de/install.html"]);
  const health = await (await fetch(`${w.url}/health`)).json();
  assert.deepEqual(health.languages, ["en", "de", "ja"]);
});

test("a language the site does not have, or a lang that is no string, is a 400 that says what there is", { skip }, async () => {
  const [status, res] = await get({ q: "paquet", lang: "fr" });
  assert.equal(status, 400);
  assert.equal(res.error.code, "invalid_request");
  assert.match(res.error.message, /no pages in that language; it has en, de, ja/);
  const post = await fetch(`${w.url}/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "x", lang: 7 }) });
  assert.equal(post.status, 400);
  assert.match((await post.json()).error.message, /lang is a language code/);
});

test("MCP: search takes lang too; a language the site lacks is a tool error", { skip }, async () => {
  const rpc = async (args) => (await fetch(`${w.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: args } }),
  })).json();
  const de = await rpc({ query: "Konfiguration", lang: "de" });
  assert.deepEqual(de.result.structuredContent.results.map((r) => r.id), ["de/install.html"], JSON.stringify(de));
  const fr = await rpc({ query: "paquet", lang: "fr" });
  assert.equal(fr.result.isError, true);
  assert.match(fr.result.content[0].text, /no pages in that language; it has en, de, ja/);
  const bad = await rpc({ query: "x", lang: 7 });
  assert.equal(bad.result.isError, true);
});
