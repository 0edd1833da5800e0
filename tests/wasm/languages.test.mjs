// A site in several languages, searched from the browser runtime: one bundle per language
// in one build, the page's language picking its bundle, each language stemmed by its own
// rules (the keyword runtime loads that language's stemmer module, else hands the bundle to
// the full runtime),
// Han and Kana searched by the same bigrams the builder indexed, and a missing language
// bundle reported, not hidden. A file of its own: the keyword glue bundled into sift.js is
// initialised once per process.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, before, after } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import { ROOT, sift, fileFetch } from "../support.mjs";

// The keyword engine, and the full one for what it hands on (a German bundle's stemmer).
const engines = {
  wasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))),
  fullWasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm"))),
};

const PAGES = {
  "en/install.html": ["en", "Installing packages", "<h2 id='apt'>Using apt</h2><p>Install packages with apt. Configurations live in /etc.</p>"],
  "en/network.html": ["en", "Network setup", "<h2 id='if'>Interfaces</h2><p>Configure the network interfaces.</p>"],
  "de/install.html": ["de", "Pakete installieren", "<h2 id='apt'>Mit apt</h2><p>Installieren Sie Pakete mit apt. Die Konfigurationen liegen in /etc.</p>"],
  "de/netz.html": ["de-AT", "Netzwerk einrichten", "<h2 id='if'>Schnittstellen</h2><p>Die Netzwerkschnittstelle konfigurieren.</p>"],
  "ja/install.html": ["ja", "パッケージのインストール", "<h2 id='apt'>apt の使い方</h2><p>パッケージ管理システムでソフトウェアを導入します。</p>"],
  "ja/network.html": ["ja", "ネットワークの設定", "<h2 id='if'>インターフェース</h2><p>所有権と設定ファイルについて。</p>"],
};

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-languages-"));
  for (const [file, [lang, title, body]] of Object.entries(PAGES)) {
    fs.mkdirSync(path.join(dir, "site", path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(dir, "site", file), `<!doctype html><html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`);
  }
  sift(["build", path.join(dir, "site"), "--out", path.join(dir, "b"), "--no-embedder", "--quiet"]);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const base = () => pathToFileURL(path.join(dir, "b") + "/").href;
const ids = (r) => r.results.map((x) => x.id);

test("one build writes a bundle per language, the others listed by the main one", async () => {
  const main = JSON.parse(fs.readFileSync(path.join(dir, "b/manifest.json"), "utf8"));
  // Two pages each: English is the main language (first among equals).
  assert.equal(main.language, "en");
  assert.deepEqual(main.languages, { de: "de/", ja: "ja/" });
  const de = JSON.parse(fs.readFileSync(path.join(dir, "b/de/manifest.json"), "utf8"));
  assert.equal(de.language, "de");
  assert.ok(de.stop_words.includes("und"), "German stop words travel with the bundle");
  const s = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines });
  assert.deepEqual(s.languages, { de: "de/", ja: "ja/" });
});

test("the page's language opens its bundle, stemmed by its own rules", async () => {
  const s = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines, language: "de-DE" });
  // `Konfiguration` (singular) finds `Konfigurationen`: German stemming, not English.
  const r = await s.search({ query: "Konfiguration" });
  assert.deepEqual(ids(r), ["de/install.html"]);
  assert.match(r.results[0].snippet, /<mark>Konfigurationen<\/mark>/);
  assert.deepEqual(ids(await s.search({ query: "Schnittstellen" })), ["de/netz.html"]);
  // English pages are not in the German bundle.
  assert.equal((await s.search({ query: "interfaces" })).results.length, 0);
});

// The stemmer modules beside sift.js (scripts/build-wasm.sh), and a full runtime that cannot
// load: a search that works then never needed it.
const STEMS = pathToFileURL(path.join(ROOT, "www/dist/stem") + "/").href;
const noFull = { fullWasmUrl: pathToFileURL(path.join(os.tmpdir(), "sift-no-such-full-runtime", "no-such-full.wasm")).href };

test("a stemmer module that is missing or damaged leaves the page to the full runtime", async () => {
  // Before any test loads the German module: a page keeps a module once it has one.
  const damaged = fs.mkdtempSync(path.join(os.tmpdir(), "sift-stems-"));
  try {
    fs.writeFileSync(path.join(damaged, "de.wasm.lzma"), Buffer.from("not a stemmer at all"));
    for (const stemmerUrl of [pathToFileURL(path.join(dir, "no-stems") + "/").href, pathToFileURL(damaged + "/").href]) {
      const s = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines, stemmerUrl, language: "de" });
      assert.deepEqual(ids(await s.search({ query: "Konfiguration" })), ["de/install.html"], stemmerUrl);
    }
  } finally {
    fs.rmSync(damaged, { recursive: true, force: true });
  }
});

test("a German bundle is stemmed by its language's module, without the full runtime", async () => {
  const counts = {};
  const s = await Sift.load(base(), { fetch: fileFetch(counts), semantic: false, wasmUrl: engines.wasmUrl, ...noFull, stemmerUrl: STEMS, language: "de" });
  const r = await s.search({ query: "Konfiguration" });
  assert.deepEqual(ids(r), ["de/install.html"]);
  assert.match(r.results[0].snippet, /<mark>Konfigurationen<\/mark>/);
  assert.deepEqual(ids(await s.search({ query: "Schnittstellen" })), ["de/netz.html"]);
  assert.equal(counts["de.wasm.lzma"], 1, "the German stemmer is fetched once");
  assert.equal(counts["no-such-full.wasm"], undefined, "the full runtime is never asked for");
  // The same answers as the full runtime's, which compiles the stemmers in.
  const full = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines, stemmerUrl: null, language: "de" });
  const answer = async (engine, query) => ({ ...(await engine.search({ query })), timings_ms: null });
  for (const query of ["Konfiguration", "Pakete installieren", "Schnittstelle", "Netzwerk"]) {
    assert.deepEqual(await answer(s, query), await answer(full, query), query);
  }
});

test("every stemmer module loads and stems its language", async () => {
  // Words and the stems the builder gives them (crates/sift-text checks the same table).
  const stems = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/fixtures/stems.json"), "utf8"));
  const files = fs.readdirSync(path.join(ROOT, "www/dist/stem")).filter((f) => f.endsWith(".wasm.lzma"));
  assert.ok(files.length >= 33, `${files.length} stemmer modules`);
  const { lzmaDecoder } = await import("../../www/dist/lzma.js");
  const decode = await lzmaDecoder();
  for (const file of files) {
    const code = file.split(".")[0];
    const x = (await WebAssembly.instantiate(decode(fs.readFileSync(path.join(ROOT, "www/dist/stem", file))))).instance.exports;
    const put = (text) => {
      const b = new TextEncoder().encode(text);
      new Uint8Array(x.memory.buffer, x.buffer(), b.length).set(b);
      return b.length;
    };
    assert.equal(x.language(put(code)), 1, `${file} stems ${code}`);
    assert.equal(x.language(put("xx")), 0, `${file}: an unknown language is refused`);
    assert.equal(x.stem(put("word")), -1, `${file}: no language set, the word is left as it is`);
    x.language(put(code));
    assert.ok(stems[code], `${code} has words in tests/fixtures/stems.json`);
    for (const [word, stem] of stems[code]) {
      const n = x.stem(put(word));
      assert.equal(new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.buffer(), n)), stem, `${file}: ${word}`);
    }
  }
});

test("Japanese queries of one, two, three and more characters find their pages", async () => {
  const s = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines, language: "ja" });
  for (const q of ["権", "所有", "所有権", "パッケージ管理", "ネットワークの設定"]) {
    const r = await s.search({ query: q });
    assert.ok(r.results.length > 0, `${q}: no results`);
  }
  assert.deepEqual(ids(await s.search({ query: "所有権" })), ["ja/network.html"]);
  const r = await s.search({ query: "パッケージ管理" });
  assert.equal(r.results[0].id, "ja/install.html");
  assert.match(r.results[0].snippet, /<mark>パッケージ管理<\/mark>/);
  // Mixed scripts: a Latin word and a Japanese one.
  assert.equal((await s.search({ query: "apt の使い方" })).results[0].id, "ja/install.html");
  // A run no page holds as written still answers, by its bigrams, and says so.
  const relaxed = await s.search({ query: "パッケージ設定" });
  assert.ok(relaxed.results.length > 0, "a run's bigrams answer");
  assert.equal(relaxed.fallback?.from, "phrase");
  // Two characters in another order are another word: no fuzzy match for them.
  assert.equal((await s.search({ query: "有所" })).results.length, 0);
});

test("a page language the build did not have opens the main bundle", async () => {
  const s = await Sift.load(base(), { fetch: fileFetch(), semantic: false, ...engines, language: "fr" });
  assert.deepEqual(ids(await s.search({ query: "interfaces" })), ["en/network.html"]);
});

test("a missing language bundle is an error that names it", async () => {
  const broken = path.join(dir, "broken");
  fs.cpSync(path.join(dir, "b"), broken, { recursive: true });
  fs.rmSync(path.join(broken, "de"), { recursive: true });
  const url = pathToFileURL(broken + "/").href;
  await assert.rejects(Sift.load(url, { fetch: fileFetch(), semantic: false, ...engines, language: "de" }), (e) => e.code === "bundle_missing" && /de bundle/.test(e.message));
  // The main bundle still answers.
  const s = await Sift.load(url, { fetch: fileFetch(), semantic: false, ...engines });
  assert.ok((await s.search({ query: "apt" })).results.length > 0);
});
