// Load test of the Sift worker on the real local workerd (numbers, not pass/fail):
// autocannon on loopback, bounded in time, over the same site: the worker with a keyword
// bundle, the worker with a bundle built with vectors (hybrid by its static query encoder),
// and the model entry (hybrid with the full query model, when the bundle carries it).
// Requests/s, latency p50/p99, workerd CPU per request, non-2xx count, wasm memory,
// workerd's peak memory, and each entry's deployable script size (wrangler deploy
// --dry-run, compressed).
//
//   node worker/load.mjs --lex BUNDLE --hybrid BUNDLE [--duration 10] [--connections 8]

import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startWorker, workerdCpuMs, workerdMemoryMb } from "../tests/worker/harness.mjs";

const require = createRequire(path.join(ROOT, "worker/package.json"));
const autocannon = require("autocannon");

const { values: args } = parseArgs({ options: { lex: { type: "string" }, hybrid: { type: "string" }, duration: { type: "string" }, connections: { type: "string" }, json: { type: "string" } } });
const DURATION = Number(args.duration ?? 10);
const CONNECTIONS = Number(args.connections ?? 8);
const QUERIES = JSON.parse(fs.readFileSync(path.join(ROOT, "bench/queries.json"), "utf8")).queries;

function scriptSize(entry) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "sift-dry-run-"));
  const cfg = path.join(out, "wrangler.toml");
  const toml = fs.readFileSync(path.join(ROOT, "worker/wrangler.toml"), "utf8")
    .replace(/^main = .*$/m, `main = "${path.join(ROOT, "worker/src", entry + ".js")}"`)
    .replace(/^directory = .*$/m, `directory = "${path.join(out, "empty-assets")}"`);
  fs.mkdirSync(path.join(out, "empty-assets"));
  fs.writeFileSync(cfg, toml);
  const log = execFileSync(path.join(ROOT, "worker/node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", path.join(out, "dist"), "--config", cfg], {
    encoding: "utf8", cwd: out, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" },
  });
  fs.rmSync(out, { recursive: true, force: true });
  const m = log.match(/Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/);
  return m ? { raw_kib: Number(m[1]), gzip_kib: Number(m[2]) } : { raw_kib: NaN, gzip_kib: NaN, log };
}

async function run(url, mode, connections) {
  let i = 0;
  return autocannon({
    url, connections, duration: DURATION,
    requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: `/search?q=${encodeURIComponent(QUERIES[i++ % QUERIES.length])}&mode=${mode}` }) }],
  });
}

async function load(name, bundle, entry, mode, vars = {}) {
  const w = await startWorker({ bundle, entry, vars });
  try {
    // The first search loads the bundle's shards (and, hybrid, the model): not part of the run.
    const t0 = Date.now();
    const first = await fetch(`${w.url}/search?q=asyncio&mode=${mode}`);
    const firstMs = Date.now() - t0;
    const firstBody = await first.json();
    if (first.status !== 200) throw new Error(`${name}: first search answered ${first.status}: ${JSON.stringify(firstBody)}`);
    // One connection: the service time (and CPU) of a request; then CONNECTIONS: throughput.
    const cpu0 = workerdCpuMs(w.pid);
    const single = await run(w.url, mode, 1);
    const cpuPerRequest = (workerdCpuMs(w.pid) - cpu0) / Math.max(1, single.requests.total);
    const result = await run(w.url, mode, CONNECTIONS);
    const health = await (await fetch(`${w.url}/health`)).json();
    return {
      name, first_request_ms: firstMs, search_type: firstBody.search_type, cpu_ms_per_request: cpuPerRequest,
      single_p50_ms: single.latency.p50, single_p99_ms: single.latency.p99, single_rps: single.requests.average,
      requests_per_s: result.requests.average, p50_ms: result.latency.p50, p99_ms: result.latency.p99,
      requests: result.requests.total + single.requests.total, non2xx: result.non2xx + single.non2xx, errors: result.errors + single.errors,
      peak_memory_mb: workerdMemoryMb(w.pid).peak, wasm_memory_mb: health.wasm_memory_bytes / 1048576,
    };
  } finally {
    w.stop();
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  if (!args.lex || !fs.existsSync(path.join(args.lex, "manifest.json"))) throw new Error("--lex must be a bundle directory");
  const rows = [await load("keyword", args.lex, "worker", "lexical")];
  if (args.hybrid && fs.existsSync(path.join(args.hybrid, "manifest.json"))) {
    rows.push(await load("hybrid", args.hybrid, "worker", "hybrid"));
    if (fs.existsSync(path.join(args.hybrid, "model/model.onnx")) && fs.existsSync(path.join(ROOT, "www/dist/sift_embed_wasm_bg.wasm"))) {
      rows.push(await load("model", args.hybrid, "model", "hybrid"));
    } else console.log("(the --hybrid bundle has no model/ (sift build --copy-model): the model entry is skipped)");
  } else console.log("(no --hybrid bundle: hybrid skipped)");
  const sizes = { worker: scriptSize("worker"), model: scriptSize("model") };
  console.log(`\n== worker on local workerd (one isolate): ${DURATION} s per run, ${QUERIES.length} rotating queries`);
  console.log("           ---- 1 connection ----   ---- " + CONNECTIONS + " connections ----");
  console.log(`${"worker".padEnd(10)} ${"req/s".padStart(6)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${"CPU/req".padStart(9)}   ${"req/s".padStart(6)} ${"p50".padStart(7)} ${"p99".padStart(8)} ${"non-2xx".padStart(8)} ${"wasm mem".padStart(9)} ${"workerd RSS".padStart(12)} ${"1st req".padStart(9)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(10)} ${r.single_rps.toFixed(0).padStart(6)} ${(r.single_p50_ms + " ms").padStart(7)} ${(r.single_p99_ms + " ms").padStart(7)} ${(r.cpu_ms_per_request.toFixed(1) + " ms").padStart(9)}   ${r.requests_per_s.toFixed(0).padStart(6)} ${(r.p50_ms + " ms").padStart(7)} ${(r.p99_ms + " ms").padStart(8)} ${String(r.non2xx).padStart(8)} ${(r.wasm_memory_mb.toFixed(0) + " MB").padStart(9)} ${(r.peak_memory_mb.toFixed(0) + " MB").padStart(12)} ${(r.first_request_ms + " ms").padStart(9)}`);
  }
  console.log("\n== deployable script (wrangler deploy --dry-run; the bundle is in static assets)");
  for (const [k, v] of Object.entries(sizes)) console.log(`${k.padEnd(8)} ${v.raw_kib.toFixed(0)} KiB raw, ${v.gzip_kib.toFixed(0)} KiB gzip`);
  if (args.json) fs.writeFileSync(args.json, JSON.stringify({ rows, sizes }, null, 2));
}

main().catch((e) => {
  console.error(`load: ${e.stack ?? e}`);
  process.exit(1);
});
