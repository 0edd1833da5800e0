// Known items beside Pagefind: MRR@10 of Sift (`sift eval`, lexical and — when the bundle
// has vectors — hybrid with its static encoder, ten results a page as a search box asks)
// and of Pagefind built on the same site, searched in Node from its files, for each query
// set (BEIR queries.jsonl) against one qrels file (any listed page is an answer).
//
//   node bench/known-items.mjs --sift DIR --pagefind DIR --qrels FILE QUERIES.jsonl ...

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { SIFT, fileFetch } from "../tests/support.mjs";

const { values: args, positionals: sets } = parseArgs({
  options: { sift: { type: "string" }, pagefind: { type: "string" }, qrels: { type: "string" } },
  allowPositionals: true,
});
for (const k of ["sift", "pagefind", "qrels"]) if (!args[k] || !fs.existsSync(args[k])) throw new Error(`--${k} ${args[k] ?? "(missing)"} does not exist`);

const answers = new Map();
for (const line of fs.readFileSync(args.qrels, "utf8").split("\n").slice(1).filter(Boolean)) {
  const [q, doc] = line.split("\t");
  if (!answers.has(q)) answers.set(q, new Set());
  answers.get(q).add(doc);
}
const hybrid = JSON.parse(fs.readFileSync(path.join(args.sift, "manifest.json"), "utf8")).vectors != null;
const siftMrr = (queries, mode) =>
  JSON.parse(execFileSync(SIFT, ["eval", args.sift, "--queries", queries, "--qrels", args.qrels, "--mode", mode, "--page-size", "10", "--json"], { encoding: "utf8" }))["mrr@10"];

globalThis.fetch = fileFetch();
const pf = await import(pathToFileURL(path.join(args.pagefind, "pagefind.js")).href);
await pf.options({ basePath: pathToFileURL(args.pagefind + "/").href, baseUrl: "/" });
async function pagefindMrr(queries) {
  let sum = 0, n = 0;
  for (const line of fs.readFileSync(queries, "utf8").split("\n").filter(Boolean)) {
    const { _id, text } = JSON.parse(line);
    const r = await pf.search(text);
    const urls = await Promise.all(r.results.slice(0, 10).map(async (x) => (await x.data()).url));
    const rank = urls.findIndex((u) => answers.get(_id)?.has(decodeURI(u).split("#")[0].replace(/^\//, "").replace(/\/$/, "/index.html")));
    sum += rank < 0 ? 0 : 1 / (rank + 1);
    n++;
  }
  return sum / Math.max(n, 1);
}

console.log(`set${" ".repeat(28)}Sift lexical  ${hybrid ? "Sift hybrid  " : ""}Pagefind   (MRR@10)`);
for (const set of sets) {
  const cells = [siftMrr(set, "lexical"), ...(hybrid ? [siftMrr(set, "hybrid")] : []), await pagefindMrr(set)];
  console.log(`${path.basename(set).padEnd(31)}${cells.map((c) => c.toFixed(3).padStart(12)).join("  ")}`);
}
