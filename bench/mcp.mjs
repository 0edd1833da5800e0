// `sift mcp` timings with the official MCP SDK client over stdio:
//   start: process start → the first tools/call answered (keyword and hybrid queries), runs
//   watch: a running `sift mcp --watch` → an edited page searchable, per site
// Usage: node bench/mcp.mjs --sift BIN --bundle DIR [--runs 5] [--watch NAME=DIR ...] [--work DIR]

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "../tests/support.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const all = (name) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const SIFT = opt("--sift");
const bundle = opt("--bundle");
const runs = Number(opt("--runs", 5));
const work = opt("--work", "/tmp/sift-bench-mcp");
const require = createRequire(path.join(ROOT, "worker/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function firstCall(query, mode) {
  const t0 = performance.now();
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: SIFT, args: ["mcp", bundle], stderr: "pipe" }));
  const tInit = performance.now() - t0;
  const r = await client.callTool({ name: "search", arguments: { query, mode } });
  const tCall = performance.now() - t0;
  if (r.isError || !r.structuredContent.results.length) throw new Error(`no results: ${JSON.stringify(r).slice(0, 300)}`);
  await client.close();
  return { tInit, tCall, type: r.structuredContent.search_type };
}

console.log(`sift mcp ${bundle}: process start → first answer (${runs} runs, median / max)`);
for (const [query, mode] of [["os.getcwd", "auto"], ["how do I read a file line by line", "hybrid"]]) {
  const rs = [];
  for (let i = 0; i < runs; i++) rs.push(await firstCall(query, mode));
  const init = rs.map((r) => r.tInit);
  const call = rs.map((r) => r.tCall);
  console.log(
    `  ${JSON.stringify(query)} (${rs[0].type}): initialize ${median(init).toFixed(0)} / ${Math.max(...init).toFixed(0)} ms; first tools/call answered ${median(call).toFixed(0)} / ${Math.max(...call).toFixed(0)} ms`,
  );
}

// --watch: copy the site, start the server, edit one page, poll until the new word is found.
for (const spec of all("--watch")) {
  const [name, dir] = spec.split("=");
  const site = path.join(work, `${name}-site`);
  const out = path.join(work, `${name}-bundle`);
  fs.rmSync(work + `/${name}-site`, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  fs.cpSync(dir, site, { recursive: true });
  const client = new Client({ name: "bench", version: "1" });
  const t0 = performance.now();
  let log = "";
  const transport = new StdioClientTransport({ command: SIFT, args: ["mcp", out, "--watch", site], stderr: "pipe" });
  transport.stderr?.on("data", (d) => (log += d));
  await client.connect(transport);
  const status = async () => (await client.callTool({ name: "status", arguments: {} })).structuredContent;
  // The server answers at once from the previous bundle (if any) and builds in the background.
  while ((await status()).watch.builds < 1) await new Promise((r) => setTimeout(r, 100));
  const st = await status();
  console.log(`${name}: ${st.pages} pages, vectors ${st.vectors}; first build ${(performance.now() - t0).toFixed(0)} ms (${st.watch.last_error ?? "ok"})`);
  const pages = [];
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.(md|html)$/.test(e.name) && pages.push(path.join(d, e.name))));
  walk(site);
  // Pages an edit lands in the main content of: Markdown, or HTML with a title heading.
  const editable = pages.filter((p) => p.endsWith(".md") || /<\/h1>/.test(fs.readFileSync(p, "utf8")));
  const times = [];
  for (let i = 0; i < 3; i++) {
    const word = `zorbleflux${i}`;
    const page = editable[(i * 7919) % editable.length];
    const text = fs.readFileSync(page, "utf8");
    const t = performance.now();
    fs.writeFileSync(page, page.endsWith(".md") ? `${text}\n\nThe ${word} setting.\n` : text.replace(/<\/h1>/, `</h1><p>The ${word} setting.</p>`));
    for (;;) {
      const r = await client.callTool({ name: "search", arguments: { query: word, mode: "lexical" } });
      if (r.structuredContent.total > 0) break;
      if (performance.now() - t > 120_000) throw new Error(`${name}: the edit was not searchable in 2 minutes\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    times.push(performance.now() - t);
  }
  console.log(`${name}: edit → searchable: ${times.map((t) => (t / 1000).toFixed(2)).join(", ")} s`);
  await client.close();
}
