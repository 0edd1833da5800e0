// Browser benchmark: Sift (keyword and hybrid) and Pagefind on the same site, in the same
// headless Chromium, served by the same local server (gzip when it helps, as a static host
// would). Prints runtime bytes, bytes transferred until the first result, cold first-query
// time and warm query latency, and the main thread's long tasks while a search box is typed
// into. Numbers, not pass/fail.
//
// Hybrid rows: `sift_hybrid` embeds queries with the bundle's static encoder (the default);
// `sift_model` (with --model, when the bundle has a copy of the model) with the full MiniLM
// compiled to wasm, measured until its first *hybrid* answer.
//
//   node bench/browser.mjs --lex DIR --hybrid DIR --pagefind DIR [--model] [--cold-runs 5] [--rounds 3] [--slow-runs 3]
//                          [--queries FILE] [--json FILE] [--ui-b DIR]
//
// --ui-b DIR compares this www/dist with another build of it (a copy of main's, made before
// a change to sift.js or the engines): cold first queries, the two alternated load by load.

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { ROOT, browser } from "../tests/browser/harness.mjs";
import { sendFile } from "./static.mjs";

const { values: args } = parseArgs({ options: { lex: { type: "string" }, hybrid: { type: "string" }, pagefind: { type: "string" }, tinysearch: { type: "string" }, model: { type: "boolean" }, "cold-runs": { type: "string" }, rounds: { type: "string" }, json: { type: "string" }, "slow-runs": { type: "string" }, queries: { type: "string" }, "ui-b": { type: "string" } } });
const dirs = { ui: path.join(ROOT, "www/dist"), lex: args.lex, hyb: args.hybrid, pagefind: args.pagefind };
if (args.tinysearch) dirs.ts = args.tinysearch; // optional peer: a tinysearch wasm + its loader
// --ui-b DIR: another build of www/dist (say, main's before a change), whose cold first
// queries are measured against this one's, alternated load by load in the same run.
if (args["ui-b"]) dirs["ui-b"] = args["ui-b"];
const COLD_RUNS = Number(args["cold-runs"] ?? 5);
const ROUNDS = Number(args.rounds ?? 3);

// The Python docs' queries, or --queries FILE: one query a line (bench/rust-doc-queries.txt).
const QUERIES = args.queries
  ? fs.readFileSync(args.queries, "utf8").split("\n").map((l) => l.trim()).filter(Boolean)
  : JSON.parse(fs.readFileSync(path.join(ROOT, "bench/queries.json"), "utf8")).queries;

function handler(req, res) {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/bench.html") {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><meta charset=utf-8><title>bench</title><body>bench</body>");
    return;
  }
  // tinysearch's loader fetches "./tinysearch_engine.wasm" relative to the page.
  if (url.pathname === "/tinysearch_engine.wasm" && dirs.ts) url.pathname = "/ts/tinysearch_engine.wasm";
  const [, top, ...rest] = url.pathname.split("/");
  const onSent = wire.on ? (bytes) => wire.sent.push({ pathname: url.pathname, bytes }) : null;
  sendFile(req, res, dirs[top], decodeURIComponent(rest.join("/")), onSent);
}

/** What the server sends while `on`: one entry per response (path, bytes written). */
const wire = { on: false, sent: [] };

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const median = (xs) => pct(xs, 50);
/** Raw bytes and bytes on the wire (gzip -9, as this bench's server sends them; a file
 * shipped compressed — Sift's `.lzma` engines — as it is). */
const fileBytes = (files) => {
  let raw = 0, gz = 0;
  for (const f of files) {
    const b = fs.readFileSync(f);
    if (f.endsWith(".lzma")) {
      raw += b.readUInt32LE(5); // the decoded size, from the header
      gz += b.length;
      continue;
    }
    raw += b.length;
    gz += zlib.gzipSync(b, { level: 9 }).length;
  }
  return { raw, gzip: gz };
};
/** Bytes of every file under `dir` (as deployed: shards are compressed already), leaving out
 * the top-level folders named in `skip`. */
const dirBytes = (dir, skip = []) => {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (skip.includes(e.name)) continue;
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
};

// In-page programs: load the engine, search, return timings. `kind` picks the peer.
const PROGRAMS = {
  async first(kind, base, query, ui = "/ui/") {
    const t0 = performance.now();
    if (kind === "pagefind") {
      const pf = await import(`${base}pagefind.js`);
      await pf.options({ excerptLength: 28 });
      const r = await pf.search(query);
      const data = await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
      return { ms: performance.now() - t0, results: data.length, top: data[0]?.url ?? null };
    }
    if (kind === "tinysearch") {
      const m = await import(`${base}tinysearch_engine.js`);
      const ts = await m.init_tinysearch();
      const r = ts.search(query, 10);
      return { ms: performance.now() - t0, results: r.length, top: r[0] ?? null };
    }
    const { Sift } = await import(`${ui}sift.js`);
    const lexical = kind === "sift";
    const embedder = kind === "sift-model" ? "model" : "static";
    const s = await Sift.load(base, { semantic: !lexical, embedder });
    if (!lexical) await s.loadSemantic(); // the model: until it is ready; the encoder: at once
    const r = await s.search({ query, mode: lexical ? "lexical" : "hybrid" });
    const ms = performance.now() - t0;
    // Where the time went: each file's request and response end, from t0 (ms).
    const files = performance.getEntriesByType("resource").filter((e) => e.startTime >= t0)
      .map((e) => [new URL(e.name).pathname, Math.round(e.startTime - t0), Math.round(e.responseEnd - t0)]);
    return { ms, results: r.results.length, top: r.results[0]?.url ?? null, type: r.search_type, semantic: r.semantic, files };
  },
  /** The top ten URLs of each query (the known-item evaluation). */
  async ranked(kind, base, queries, mode) {
    const out = [];
    if (kind === "pagefind") {
      const pf = await import(`${base}pagefind.js`);
      for (const q of queries) {
        const r = await pf.search(q);
        out.push((await Promise.all(r.results.slice(0, 10).map((x) => x.data()))).map((d) => d.url));
      }
      return out;
    }
    const { Sift } = await import("/ui/sift.js");
    const s = await Sift.load(base, { semantic: mode !== "lexical", embedder: "static" });
    for (const q of queries) out.push((await s.search({ query: q, mode, limit: 10 })).results.map((r) => r.url));
    return out;
  },
  async warm(kind, base, queries, rounds, mode) {
    let run;
    let embed = [];
    if (kind === "tinysearch") {
      const m = await import(`${base}tinysearch_engine.js`);
      const ts = await m.init_tinysearch();
      run = async (q) => ts.search(q, 10);
    } else if (kind === "pagefind") {
      const pf = await import(`${base}pagefind.js`);
      await pf.options({ excerptLength: 28 });
      run = async (q) => {
        const r = await pf.search(q);
        await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
      };
    } else {
      const { Sift } = await import("/ui/sift.js");
      const s = await Sift.load(base, { semantic: mode !== "lexical", embedder: kind === "sift-model" ? "model" : "static" });
      if (mode !== "lexical") await s.loadSemantic();
      run = async (q) => {
        const r = await s.search({ query: q, mode });
        if (r.timings_ms?.embed !== undefined) embed.push(r.timings_ms.embed);
      };
    }
    for (const q of queries) await run(q); // load what every query needs: warm from here on
    embed = [];
    const times = [];
    for (let i = 0; i < rounds; i++) {
      for (const q of queries) {
        const t0 = performance.now();
        await run(q);
        times.push(performance.now() - t0);
      }
    }
    return { times, embed };
  },
};

/** A `<sift-search>` box on a fresh page, opened, a query typed into it a key at a time:
 * time from the first key to the first option shown, and every long task (> 50 ms) the
 * main thread ran from the page's load to a second after the last key. With `slow`, on the
 * emulated mobile link instead, typed at 120 ms a key from the moment the box opens (the
 * runtime loading meanwhile): the bytes sent from the box's opening to the final answer,
 * and the time from the last key to it. */
async function typeIntoBox(chrome, origin, base, query, embedder, slow = false) {
  const page = await chrome.ctx.newPage();
  await page.goto(`${origin}/bench.html`);
  await page.evaluate(async () => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: "longtask", buffered: true });
    await import("/ui/sift-search.js");
  });
  if (slow) {
    const cdp = await chrome.ctx.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", SLOW);
    wire.sent = [];
    wire.on = true;
  }
  await page.evaluate(([base, embedder]) => {
    const box = document.createElement("sift-search");
    box.setAttribute("bundle", base);
    if (embedder === "model") box.setAttribute("embedder", "model");
    document.body.append(box);
    box.open();
  }, [base, embedder]);
  const t0 = Date.now();
  const typing = page.keyboard.type(query, { delay: slow ? 120 : 60 });
  await page.locator("sift-search [role=option]").first().waitFor({ timeout: 60000 });
  const firstOptionMs = Date.now() - t0;
  await typing;
  const lastKey = Date.now();
  await page.waitForFunction((q) => document.querySelector("sift-search").lastResponse?.query === q, query, { timeout: 60000 });
  const lastKeyToAnswerMs = Date.now() - lastKey;
  if (slow) {
    await new Promise((res) => setTimeout(res, 50)); // the last responses' "finish"
    wire.on = false;
    await page.close();
    return { bytes: wire.sent.reduce((n, x) => n + x.bytes, 0), requests: wire.sent.length, last_key_to_answer_ms: lastKeyToAnswerMs, first_option_ms: firstOptionMs };
  }
  await page.waitForTimeout(1000);
  const r = await page.evaluate(() => ({ long: window.__long, type: document.querySelector("sift-search").lastResponse?.search_type }));
  await page.close();
  return { first_option_ms: firstOptionMs, long_tasks: r.long.length, longest_task_ms: r.long.length ? Math.max(...r.long) : 0, last_type: r.type };
}

/** An in-page program (a method of PROGRAMS) called with JSON arguments, as source text. */
const call = (fn, name, argv) =>
  `(${fn.toString().replace(new RegExp(`^async ${name}`), "async function")})(${argv.map((a) => JSON.stringify(a)).join(", ")})`;

/** A file's name, a shard's without its hash and number (`t-<hash>-3.bin` → `t` + `suffix`). */
const fileKind = (pathname, suffix = "") => path.basename(pathname).replace(/-[0-9a-f]{6,}(-[0-9]+)?\.bin$/, suffix);

/** The median cold run's files as `name start–end` (ms from the start; requests in one
 * round start together), and when the answer came: a cold search's rounds laid out. */
function waterfall(runs) {
  const r = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
  if (!r.files) return undefined;
  const files = r.files.map(([f, a, b]) => `${fileKind(f)} ${a}–${b}`).join(", ");
  return `${files}; answer at ${Math.round(r.ms)} ms`;
}

async function measure(chrome, origin, kind, base, mode) {
  // One record per cold run: its query, time, files, and the bytes the server sent.
  const runs = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const page = await chrome.ctx.newPage();
    await page.goto(`${origin}/bench.html`);
    wire.sent = [];
    wire.on = true;
    const query = QUERIES[i % 12];
    const r = await page.evaluate(call(PROGRAMS.first, "first", [kind, base, query]));
    await new Promise((res) => setTimeout(res, 50)); // the last responses' "finish"
    wire.on = false;
    const kinds = {};
    for (const { pathname, bytes } of wire.sent) {
      const k = /\/fragment\//.test(pathname) ? "pf fragments" : /\/index\//.test(pathname) ? "pf index"
        : /\.pf_meta$/.test(pathname) ? "pf meta" : fileKind(pathname, " shards");
      kinds[k] = (kinds[k] ?? 0) + bytes;
    }
    runs.push({ ...r, query, bytes: wire.sent.reduce((n, x) => n + x.bytes, 0), requests: wire.sent.length, kinds });
    await page.close();
  }
  const box = kind === "pagefind" || kind === "tinysearch" ? undefined
    : await typeIntoBox(chrome, origin, base, BOX_QUERY, kind === "sift-model" ? "model" : "static");
  const page = await chrome.ctx.newPage();
  await page.goto(`${origin}/bench.html`);
  const w = await page.evaluate(call(PROGRAMS.warm, "warm", [kind, base, QUERIES, ROUNDS, mode]));
  await page.close();
  // The bytes by kind of the query whose bytes are the median (`median` picks one of them).
  const medianBytes = median(runs.map((r) => r.bytes));
  return {
    cold_first_query_ms: median(runs.map((r) => r.ms)),
    bytes_until_first_result: medianBytes,
    requests_until_first_result: median(runs.map((r) => r.requests)),
    warm_p50_ms: pct(w.times, 50),
    warm_p95_ms: pct(w.times, 95),
    embed_p50_ms: w.embed.length ? pct(w.embed, 50) : undefined,
    bytes_by_file_kind: runs.find((r) => r.bytes === medianBytes).kinds,
    cold_runs: runs.map(({ query, ms, bytes, requests }) => ({ query, ms, bytes, requests })),
    cold_waterfall: waterfall(runs),
    first_answer_type: runs.at(-1).type,
    search_box: box,
  };
}

// A mobile link (Chromium's network emulation through CDP): 150 ms round trip, 1.6 Mbit/s
// down, 750 kbit/s up, no cache — the "slow 3G"-class profile Lighthouse uses.
const SLOW = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8 };
const SLOW_RUNS = Number(args["slow-runs"] ?? 3);
/** What the search box benchmarks type. */
const BOX_QUERY = "how do i read a file line by line";

/** From navigation to the first result on the emulated mobile link: page, runtime, index, text. */
async function slowFirst(chrome, origin, kind, base) {
  const ms = [];
  for (let i = 0; i < SLOW_RUNS; i++) ms.push(await firstOnce(chrome, origin, kind, base, QUERIES[i % 12], "/ui/", true));
  return median(ms);
}

/** One cold first query on a fresh page, ms: from the page's load on localhost (as
 * `measure`), or from navigation on the emulated mobile link (`slow`). */
async function firstOnce(chrome, origin, kind, base, query, ui, slow) {
  const page = await chrome.ctx.newPage();
  if (slow) {
    const cdp = await chrome.ctx.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", SLOW);
  }
  const t0 = Date.now();
  await page.goto(`${origin}/bench.html`);
  const r = await page.evaluate(call(PROGRAMS.first, "first", [kind, base, query, ui]));
  await page.close();
  return slow ? Date.now() - t0 : r.ms;
}

/** Sift's two rows measured on every link: name in the report, peer kind, bundle. */
const SIFT_ROWS = [["sift_lexical", "sift", "/lex/"], ["sift_hybrid", "sift-static", "/hyb/"]];

/** This www/dist (A) against --ui-b (B): cold first queries on localhost and on the mobile
 * link, the two alternated load by load so that the machine's drift falls on both. */
async function compareUi(chrome, origin, kind, base) {
  const ms = { a: [], b: [], slow_a: [], slow_b: [] };
  for (const slow of [false, true]) {
    for (let i = 0; i < 2 * (slow ? SLOW_RUNS : COLD_RUNS); i++) {
      const b = i % 2 === 1;
      const ui = b ? "/ui-b/" : "/ui/";
      ms[(slow ? "slow_" : "") + (b ? "b" : "a")].push(await firstOnce(chrome, origin, kind, base, QUERIES[(i >> 1) % 12], ui, slow));
    }
  }
  return Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]));
}

async function main() {
  for (const [k, v] of Object.entries(dirs)) {
    if (!v || !fs.existsSync(v)) throw new Error(`--${k === "hyb" ? "hybrid" : k} ${v ?? "(missing)"} does not exist`);
  }
  const server = http.createServer(handler);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const chrome = await browser();
  const report = { queries: QUERIES.length, rounds: ROUNDS, cold_runs: COLD_RUNS, runtime: {}, results: {} };
  const ui = (f) => path.join(dirs.ui, f);
  // The runtime: what `Sift.load` fetches before its first request for a bundle file (sift.js
  // is one file: host.js, contract.js and the runtime's glue inside, scripts/build-wasm.sh),
  // beside what Pagefind's pagefind.js fetches; the `_box` rows add each one's search UI.
  // Semantic search off loads the keyword engine; the hybrid search box, the lean one.
  // The engines as sift.js fetches them: packed as LZMA by build-wasm.sh.
  report.runtime.sift_keyword = fileBytes(["sift_wasm_keyword_bg.wasm.lzma", "sift.js"].map(ui));
  report.runtime.sift_keyword_box = fileBytes(["sift_wasm_keyword_bg.wasm.lzma", "sift.js", "sift-search.js"].map(ui));
  report.runtime.sift_keyword_wasm = fileBytes([ui("sift_wasm_keyword_bg.wasm.lzma")]);
  report.runtime.sift_hybrid = fileBytes(["sift_wasm_bg.wasm.lzma", "sift.js", "sift-search.js"].map(ui));
  report.runtime.sift_embedder_wasm = fileBytes([ui("sift_embed_wasm_bg.wasm"), ui("sift_embed_wasm.js")]);
  report.runtime.sift_with_model_embedder = {
    raw: report.runtime.sift_hybrid.raw + report.runtime.sift_embedder_wasm.raw,
    gzip: report.runtime.sift_hybrid.gzip + report.runtime.sift_embedder_wasm.gzip,
  };
  const model = path.join(dirs.hyb, "model/model.onnx");
  if (fs.existsSync(model)) report.runtime.sift_model = fileBytes([model, path.join(dirs.hyb, "model/tokenizer.json")]);
  const pfWasm = fs.readdirSync(dirs.pagefind).filter((f) => /^wasm\.(en|unknown)\.pagefind$/.test(f)).map((f) => path.join(dirs.pagefind, f));
  // Pagefind's wasm file is gzip already: its transfer size is its file size. pagefind.js
  // searches in a Web Worker started from pagefind-worker.js (fetched in full by every
  // browser with workers: 12.6 kB on this bench's wire), so both scripts count. Its default
  // UI is pagefind-ui.js and pagefind-ui.css.
  const pf = (f) => path.join(dirs.pagefind, f);
  const pfJs = fileBytes(["pagefind.js", "pagefind-worker.js"].map(pf).filter((f) => fs.existsSync(f)));
  const pfUi = fileBytes(["pagefind-ui.js", "pagefind-ui.css"].map(pf).filter((f) => fs.existsSync(f)));
  const pfW = pfWasm.length ? fs.statSync(pfWasm[0]).size : 0;
  const pfWasmRaw = pfWasm.length ? zlib.gunzipSync(fs.readFileSync(pfWasm[0])).length : 0;
  report.runtime.pagefind = { raw: pfWasmRaw + pfJs.raw, gzip: pfW + pfJs.gzip };
  report.runtime.pagefind_box = { raw: report.runtime.pagefind.raw + pfUi.raw, gzip: report.runtime.pagefind.gzip + pfUi.gzip };

  // The whole bundle: every file a site deploys for search (the hybrid bundle without the
  // model it was given with --copy-model; tinysearch's index is inside its wasm).
  report.bundle = { sift_keyword: dirBytes(dirs.lex), sift_hybrid: dirBytes(dirs.hyb, ["model"]), pagefind: dirBytes(dirs.pagefind) };
  if (dirs.ts) report.bundle.tinysearch = fileBytes([path.join(dirs.ts, "tinysearch_engine.wasm"), path.join(dirs.ts, "tinysearch_engine.js")]).raw;

  report.results.sift_lexical = await measure(chrome, origin, "sift", "/lex/", "lexical");
  report.results.pagefind = await measure(chrome, origin, "pagefind", "/pagefind/", "lexical");
  if (dirs.ts) {
    report.runtime.tinysearch = fileBytes([path.join(dirs.ts, "tinysearch_engine.wasm"), path.join(dirs.ts, "tinysearch_engine.js")]);
    report.results.tinysearch = await measure(chrome, origin, "tinysearch", "/ts/", "lexical");
  }
  report.results.sift_hybrid = await measure(chrome, origin, "sift-static", "/hyb/", "hybrid");
  if (args.model) {
    if (fs.existsSync(model)) report.results.sift_model = await measure(chrome, origin, "sift-model", "/hyb/", "hybrid");
    else console.error(`bench: --model: ${model} is missing (build the bundle with --copy-model); no sift_model row`);
  }
  // The boxes typed into on the mobile link (keyword and the static encoder's hybrid).
  report.slow_box = {
    sift_lexical: await typeIntoBox(chrome, origin, "/lex/", BOX_QUERY, "static", true),
    sift_hybrid: await typeIntoBox(chrome, origin, "/hyb/", BOX_QUERY, "static", true),
  };
  if (dirs["ui-b"]) {
    report.compare_ui = {};
    for (const [name, kind, base] of SIFT_ROWS) {
      report.compare_ui[name] = await compareUi(chrome, origin, kind, base);
    }
  }
  report.slow_network = {};
  for (const [name, kind, base] of [...SIFT_ROWS, ["pagefind", "pagefind", "/pagefind/"], ...(dirs.ts ? [["tinysearch", "tinysearch", "/ts/"]] : [])]) {
    report.slow_network[name] = await slowFirst(chrome, origin, kind, base);
  }
  // Known items (bench/known-item): keyword queries and paraphrases of the Python docs, each
  // with the one page it asks for; MRR@10 per half, Sift's modes beside Pagefind, same page.
  const ki = path.join(ROOT, "bench/known-item");
  const readQueries = (f) => fs.readFileSync(path.join(ki, f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  // The held-out paraphrases were written after relevance work had been tuned on the first
  // forty, before anything was measured on them: they say whether that work generalises.
  const halves = {
    keyword: readQueries("python-docs-keyword.jsonl"),
    paraphrase: readQueries("python-docs-paraphrase.jsonl"),
    heldout: readQueries("python-docs-paraphrase-heldout.jsonl"),
  };
  const wanted = new Map(); // query id → the pages that answer it (some queries have several)
  for (const [q, d] of fs.readFileSync(path.join(ki, "python-docs-qrels.tsv"), "utf8").split("\n").slice(1).filter(Boolean).map((l) => l.split("\t"))) {
    if (!wanted.has(q)) wanted.set(q, new Set());
    wanted.get(q).add(d);
  }
  const pageOf = (url) => decodeURI(url).split("#")[0].replace(/^\/+/, "").replace(/^(lex|hyb|pagefind)\//, "");
  const systems = [["sift lexical", "sift", "/lex/", "lexical"], ["sift semantic", "sift-static", "/hyb/", "semantic"], ["sift hybrid", "sift-static", "/hyb/", "hybrid"], ["sift auto", "sift-static", "/hyb/", "auto"], ["pagefind", "pagefind", "/pagefind/", "lexical"]];
  report.known_item = {};
  // Only on the Python docs: another site's known items are bench/known-items.mjs's (rust-doc.sh).
  for (const [name, kind, base, mode] of args.queries ? [] : systems) {
    report.known_item[name] = {};
    for (const [half, qs] of Object.entries(halves)) {
      const page = await chrome.ctx.newPage();
      await page.goto(`${origin}/bench.html`);
      const lists = await page.evaluate(call(PROGRAMS.ranked, "ranked", [kind, base, qs.map((q) => q.text), mode]));
      await page.close();
      const rr = lists.map((urls, i) => {
        const rank = urls.map(pageOf).findIndex((p) => wanted.get(qs[i]._id)?.has(p));
        return rank < 0 ? 0 : 1 / (rank + 1);
      });
      report.known_item[name][half] = rr.reduce((a, b) => a + b, 0) / rr.length;
      report.known_item[name].empty = (report.known_item[name].empty ?? 0) + lists.filter((urls) => urls.length === 0).length;
    }
  }
  await chrome.close();
  server.close();

  const kb = (b) => `${(b / 1024).toFixed(1)} kB`;
  console.log("\n== runtime bytes (wasm + JS)                raw        gzip");
  for (const [k, v] of Object.entries(report.runtime)) console.log(`${k.padEnd(36)} ${kb(v.raw).padStart(10)} ${kb(v.gzip).padStart(11)}`);
  const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
  console.log("\n== whole bundle (every file a site deploys for search)");
  for (const [k, v] of Object.entries(report.bundle)) console.log(`${k.padEnd(16)} ${mb(v).padStart(9)}`);
  console.log(`ratio sift_keyword / pagefind: ${(report.bundle.sift_keyword / report.bundle.pagefind).toFixed(2)}× (goal ≤ 0.5×)`);
  console.log(`\n== queries in Chromium (${QUERIES.length} queries × ${ROUNDS} rounds warm; ${COLD_RUNS} cold loads, medians)`);
  console.log(`${"engine".padEnd(14)} ${"bytes→1st result".padStart(17)} ${"requests".padStart(9)} ${"cold 1st query".padStart(15)} ${"warm p50".padStart(9)} ${"warm p95".padStart(9)} ${"embed p50".padStart(10)}`);
  for (const [k, v] of Object.entries(report.results)) {
    console.log(`${k.padEnd(14)} ${kb(v.bytes_until_first_result).padStart(17)} ${String(v.requests_until_first_result).padStart(9)} ${(v.cold_first_query_ms.toFixed(1) + " ms").padStart(15)} ${(v.warm_p50_ms.toFixed(2) + " ms").padStart(9)} ${(v.warm_p95_ms.toFixed(2) + " ms").padStart(9)} ${(v.embed_p50_ms !== undefined ? v.embed_p50_ms.toFixed(1) + " ms" : "-").padStart(10)}`);
  }
  const s = report.results.sift_lexical, p = report.results.pagefind;
  console.log(`\nratios vs Pagefind: bytes to first result ${(s.bytes_until_first_result / p.bytes_until_first_result).toFixed(2)}×, cold ${(s.cold_first_query_ms / p.cold_first_query_ms).toFixed(2)}×, warm p50 ${(s.warm_p50_ms / p.warm_p50_ms).toFixed(2)}×; keyword runtime gzip ${(report.runtime.sift_keyword.gzip / report.runtime.pagefind.gzip).toFixed(2)}× (with each one's search UI ${(report.runtime.sift_keyword_box.gzip / report.runtime.pagefind_box.gzip).toFixed(2)}×)`);
  const h = report.results.sift_hybrid;
  console.log(`sift_hybrid (static encoder): first answer ${h.first_answer_type}; bytes to the first hybrid result − keyword bytes = ${kb(h.bytes_until_first_result - s.bytes_until_first_result)} (goal ≤ 100 kB); cold ${h.cold_first_query_ms.toFixed(0)} ms (goal ≤ 200); warm p50 ${h.warm_p50_ms.toFixed(2)} ms (goal ≤ 5)`);
  if (report.compare_ui) {
    console.log(`\n== this www/dist (A) against --ui-b ${args["ui-b"]} (B): cold first query, loads alternated (medians of ${COLD_RUNS} each; mobile link ${SLOW_RUNS} each)`);
    for (const [k, v] of Object.entries(report.compare_ui)) {
      console.log(`${k.padEnd(14)} localhost A ${v.a.toFixed(0)} ms, B ${v.b.toFixed(0)} ms (A/B ${(v.a / v.b).toFixed(2)}); mobile link A ${v.slow_a} ms, B ${v.slow_b} ms (A/B ${(v.slow_a / v.slow_b).toFixed(2)})`);
    }
  }
  console.log(`\n== slow network: navigation to the first result on an emulated mobile link (150 ms RTT, 1.6 Mbit/s down; median of ${SLOW_RUNS})`);
  for (const [k, v] of Object.entries(report.slow_network)) console.log(`${k.padEnd(14)} ${(v + " ms").padStart(9)}`);
  console.log(`ratio sift_lexical / pagefind: ${(report.slow_network.sift_lexical / report.slow_network.pagefind).toFixed(2)}× (goal ≤ 0.5×)`);
  console.log(`\n== a <sift-search> box typed into on the mobile link from its opening ("${BOX_QUERY}", 120 ms a key): bytes until the final answer, last key → final answer`);
  for (const [k, v] of Object.entries(report.slow_box)) console.log(`${k.padEnd(14)} ${kb(v.bytes).padStart(10)} in ${String(v.requests).padStart(3)} requests ${(v.last_key_to_answer_ms + " ms").padStart(9)}  (first option ${v.first_option_ms} ms after the first key)`);
  console.log(`\n== a <sift-search> box typed into ("${BOX_QUERY}", 60 ms a key)`);
  console.log(`${"engine".padEnd(14)} ${"1st option".padStart(11)} ${"long tasks".padStart(11)} ${"longest".padStart(9)} ${"last answer".padStart(12)}`);
  for (const [k, v] of Object.entries(report.results)) {
    if (!v.search_box) continue;
    const b = v.search_box;
    console.log(`${k.padEnd(14)} ${(b.first_option_ms + " ms").padStart(11)} ${String(b.long_tasks).padStart(11)} ${(b.longest_task_ms.toFixed(0) + " ms").padStart(9)} ${String(b.last_type).padStart(12)}`);
  }
  for (const [k, v] of Object.entries(report.results)) {
    console.log(`${k} bytes by file until the first result (the median query's): ${Object.entries(v.bytes_by_file_kind).sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f} ${kb(n)}`).join(", ")}`);
  }
  for (const [k, v] of Object.entries(report.results)) {
    if (v.cold_waterfall) console.log(`${k} cold first query, the median run's files (ms from the start): ${v.cold_waterfall}`);
  }
  if (!args.queries) {
    console.log(`\n== known items on the Python docs (bench/known-item: ${halves.keyword.length} keyword queries, ${halves.paraphrase.length} paraphrases, ${halves.heldout.length} held-out paraphrases), MRR@10, same run`);
    console.log(`${"system".padEnd(14)} ${"keyword".padStart(8)} ${"paraphrase".padStart(11)} ${"held-out".padStart(9)} ${"no result".padStart(10)}`);
    for (const [k, v] of Object.entries(report.known_item)) console.log(`${k.padEnd(14)} ${v.keyword.toFixed(3).padStart(8)} ${v.paraphrase.toFixed(3).padStart(11)} ${v.heldout.toFixed(3).padStart(9)} ${String(v.empty).padStart(10)}`);
    console.log("(goals: static-encoder hybrid paraphrase ≥ 0.85, held-out ≥ 0.70; no query without a result)");
  }
  console.log("(sift_model's cold row waits for the model: runtime, tract wasm, model download and load; tinysearch returns titles and URLs only — no snippets — and matches whole words only, the index being inside its wasm)");
  if (args.json) fs.writeFileSync(args.json, JSON.stringify(report, null, 2));
}

main().catch((e) => {
  console.error(`bench: ${e.stack ?? e}`);
  process.exit(1);
});
