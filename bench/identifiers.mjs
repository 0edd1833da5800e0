// API reference search: identifiers (bench/identifiers/*.jsonl, each with the entry that
// defines it, `page#anchor`) searched in the same headless Chromium with Sift's keyword
// engine (sift.js, as a search box loads it) and Pagefind, each from a fresh page, served
// by one local server (gzip, as a static host would). An entry may name the same item at
// other paths (`also`: rustdoc documents `std::vec::Vec` again as `alloc::vec::Vec`). Prints, per system: how often the
// first result is the defining page *with a link to the entry* (its definition, or a
// sub-result), MRR@10 of results linking to the entry, MRR@10 of the defining page alone,
// and the bytes on the wire until the first answer (runtime included). Numbers, not
// pass/fail.
//
//   node bench/identifiers.mjs --name NAME --queries FILE --sift DIR --pagefind DIR [--json FILE]

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, browser } from "../tests/browser/harness.mjs";
import { sendFile } from "./static.mjs";

const { values: args } = parseArgs({ options: { name: { type: "string" }, queries: { type: "string" }, sift: { type: "string" }, pagefind: { type: "string" }, json: { type: "string" } } });
const dirs = { ui: path.join(ROOT, "www/dist"), sift: args.sift, pagefind: args.pagefind };
for (const [k, v] of Object.entries(dirs)) if (!v || !fs.existsSync(v)) throw new Error(`--${k} ${v ?? "(missing)"} does not exist`);
const QUERIES = fs.readFileSync(args.queries, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

const wire = { on: false, bytes: 0 };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/bench.html") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><meta charset=utf-8><title>bench</title>");
  const [, top, ...rest] = url.pathname.split("/");
  sendFile(req, res, dirs[top], decodeURIComponent(rest.join("/")), wire.on ? (bytes) => (wire.bytes += bytes) : null);
});

// In-page: load the engine, search once, return the first ten results as links.
async function ranked(kind, query) {
  if (kind === "pagefind") {
    const pf = await import("/pagefind/pagefind.js");
    const r = await pf.search(query);
    const data = await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
    return data.map((d) => ({ url: d.url, links: (d.sub_results ?? []).map((s) => s.url) }));
  }
  const { Sift } = await import("/ui/sift.js");
  const s = await Sift.load("/sift/", { semantic: false });
  const r = await s.search({ query, mode: "lexical", limit: 10 });
  return r.results.map((x) => ({ url: x.url, links: [x.definition?.url, ...(x.sub_results ?? []).map((s) => s.url)].filter(Boolean) }));
}

const clean = (u) => decodeURI(u).replace(/^\/+/, "").replace(/^(sift|pagefind)\//, "").replace(/\.html#/, ".html#").replace(/\/$/, "/index.html");
const pageOf = (u) => clean(u).split("#")[0];

await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}`;
const chrome = await browser();
const report = { name: args.name, queries: QUERIES.length, systems: {} };
for (const kind of ["sift", "pagefind"]) {
  const rows = [];
  for (const { query, entry, also = [] } of QUERIES) {
    const page = await chrome.ctx.newPage();
    await page.goto(`${origin}/bench.html`);
    wire.bytes = 0;
    wire.on = true;
    const results = await page.evaluate(`(${ranked.toString()})(${JSON.stringify(kind)}, ${JSON.stringify(query)})`);
    await new Promise((r) => setTimeout(r, 50));
    wire.on = false;
    await page.close();
    const wants = [entry, ...also].map(clean);
    const isWant = (u) => wants.includes(clean(u));
    const linking = results.findIndex((r) => [r.url, ...r.links].some(isWant));
    const onPage = results.findIndex((r) => wants.some((w) => pageOf(r.url) === pageOf(w)));
    // First with the link: the first result's first link (its definition, else its first
    // sub-result) is the entry, or the entry is a whole page (`fn.swap.html`) and it is
    // the first result.
    const first = results[0];
    const firstOk = !!first && (isWant(first.links[0] ?? "") || isWant(first.url));
    rows.push({ query, entry, first: firstOk, linking: linking < 0 ? 0 : 1 / (linking + 1), page: onPage < 0 ? 0 : 1 / (onPage + 1), bytes: wire.bytes, top: first ? clean(first.url) : null, top_link: first?.links[0] ? clean(first.links[0]) : null });
  }
  const mean = (k) => rows.reduce((a, r) => a + Number(r[k]), 0) / rows.length;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  report.systems[kind] = { first_with_link: mean("first"), mrr_link: mean("linking"), mrr_page: mean("page"), median_bytes: median(rows.map((r) => r.bytes)), rows };
}
await chrome.close();
server.close();

console.log(`\n== identifiers on ${args.name} (${QUERIES.length} queries, each with the entry that defines it), same Chromium, same server`);
console.log(`${"system".padEnd(10)} ${"first+link".padStart(10)} ${"MRR@10 link".padStart(12)} ${"MRR@10 page".padStart(12)} ${"median kB to answer".padStart(20)}`);
for (const [k, v] of Object.entries(report.systems)) {
  console.log(`${k.padEnd(10)} ${(100 * v.first_with_link).toFixed(1).padStart(9)}% ${v.mrr_link.toFixed(3).padStart(12)} ${v.mrr_page.toFixed(3).padStart(12)} ${(v.median_bytes / 1000).toFixed(1).padStart(20)}`);
}
const misses = report.systems.sift.rows.filter((r) => !r.first);
if (misses.length) console.log(`sift misses: ${misses.map((r) => `${r.query} → ${r.top_link ?? r.top}`).join("; ")}`);
if (args.json) fs.writeFileSync(args.json, JSON.stringify(report, null, 1));
