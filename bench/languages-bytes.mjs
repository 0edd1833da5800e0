// Bytes to the first result for Chinese, Japanese, Korean, German, French and Spanish queries: Sift and Pagefind 1.6
// built on the same pages (bench/translated-sites.mjs: Debian Reference, and the Debian FAQ
// for Korean; `<html lang>` added to each copy), each measured in a
// fresh Node process from nothing cached: every file the search fetches (the JS, the wasm,
// the index, and the first result's text: Pagefind's fragment, Sift's doc shard), counted
// as served — a file that is not compressed already (.js, .json, .wasm not packed) at
// gzip -9. What a page pays for the search box itself (<sift-search>, Pagefind's UI) is not
// counted for either.
//
//   node bench/languages-bytes.mjs [lang...]  (default ja, zh-cn, zh-tw, ko, de, fr, es; needs their packages)

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL, fileURLToPath } from "node:url";
import { ROOT, sift } from "../tests/support.mjs";
import { copyPages, site } from "./translated-sites.mjs";

const PAGEFIND = path.join(ROOT, "www/node_modules/.bin/pagefind");
const QUERIES = {
  ja: ["パッケージ管理", "ネットワーク", "権"], "zh-cn": ["软件包管理", "网络配置", "包"], "zh-tw": ["套件管理", "網路設定", "包"], ko: ["패키지 관리", "커널", "데비안"],
  // Stemmed languages: the page loads its language's stemmer beside the engine.
  de: ["Paketverwaltung", "Netzwerkkonfiguration", "Dateisysteme"], fr: ["gestion des paquets", "réseau", "systèmes de fichiers"],
  es: ["gestión de paquetes", "configuración de red", "sistemas de archivos"],
};

// A child: one search from nothing cached; prints the bytes it fetched.
if (process.argv[2] === "--one") {
  const [, , , tool, dir, query] = process.argv;
  let bytes = 0;
  const fetched = [];
  const served = (file, body) => (/\.(js|json|wasm)$/.test(file) ? zlib.gzipSync(body, { level: 9 }).length : body.length);
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const u = String(url);
    if (!u.startsWith("file:")) return realFetch(url, init);
    const file = fileURLToPath(u.split("?")[0]);
    fetched.push(path.basename(file));
    try {
      const body = fs.readFileSync(file);
      bytes += served(file, body);
      return new Response(body, { headers: { "content-type": file.endsWith(".wasm") ? "application/wasm" : "application/octet-stream" } });
    } catch (_) {
      return new Response("not found", { status: 404 });
    }
  };
  let first;
  if (tool === "sift") {
    const js = path.join(ROOT, "www/dist/sift.js");
    bytes += served(js, fs.readFileSync(js));
    const { Sift } = await import(pathToFileURL(js).href);
    const s = await Sift.load(pathToFileURL(dir + "/").href, { semantic: false });
    first = (await s.search({ query, limit: 10 })).results[0]?.title;
    // Modules sift.js imports (not fetches) when it needs them: a stemmer's loader, the
    // full runtime's glue.
    const imported = { "sift-stem.js": fetched.some((f) => /^[a-z]{2}\.wasm\.lzma$/.test(f)), "sift_wasm_full.js": fetched.includes("sift_wasm_full_bg.wasm.lzma") };
    for (const [file, used] of Object.entries(imported)) {
      const js = path.join(ROOT, "www/dist", file);
      if (used && fs.existsSync(js)) bytes += served(js, fs.readFileSync(js));
    }
  } else {
    const js = path.join(dir, "pagefind.js");
    bytes += served(js, fs.readFileSync(js));
    const pf = await import(pathToFileURL(js).href);
    await pf.options({ basePath: pathToFileURL(dir + "/").href, baseUrl: "/" });
    const r = await pf.search(query);
    first = r.results.length ? (await r.results[0].data()).meta.title : undefined;
  }
  console.log(JSON.stringify({ bytes, first }));
  process.exit(0);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sift-bytes-"));
const kb = (n) => (n / 1024).toFixed(1);
console.log("language  query            Sift kB  Pagefind kB  (first result: Sift | Pagefind)");
try {
  const only = process.argv.slice(2);
  for (const [lang, queries] of Object.entries(QUERIES).filter(([l]) => !only.length || only.includes(l))) {
    const src = path.join(work, `site-${lang}`);
    if (!copyPages(lang, src).length) {
      console.log(`${lang}: no pages (apt-get install ${site(lang).pkg})`);
      continue;
    }
    const siftDir = path.join(work, `sift-${lang}`);
    const pfDir = path.join(work, `pagefind-${lang}`);
    sift(["build", src, "--out", siftDir, "--no-embedder", "-q"]);
    execFileSync(PAGEFIND, ["--site", src, "--output-path", pfDir], { stdio: "pipe" });
    for (const q of queries) {
      const one = (tool, dir) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--one", tool, dir, q], { encoding: "utf8" }));
      const [s, p] = [one("sift", siftDir), one("pagefind", pfDir)];
      console.log(`${lang.padEnd(9)} ${q.padEnd(16)} ${kb(s.bytes).padStart(7)}  ${kb(p.bytes).padStart(11)}  (${s.first ?? "none"} | ${p.first ?? "none"})`);
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
