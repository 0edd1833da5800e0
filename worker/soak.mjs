// Soak test of the Sift worker on the real local workerd: sustained load on loopback for a
// bounded time with a mix of valid, invalid and oversized requests. Reports, per slice:
// requests, status classes, p50/p99, wasm memory and workerd RSS; fails (exit 1) on any 5xx
// or a valid request answered with anything but 200.
//
//   node worker/soak.mjs --bundle DIR [--minutes 10] [--slice-seconds 60] [--connections 8]

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startWorker, workerdMemoryMb } from "../tests/worker/harness.mjs";

const require = createRequire(path.join(ROOT, "worker/package.json"));
const autocannon = require("autocannon");

const { values: args } = parseArgs({ options: { bundle: { type: "string" }, minutes: { type: "string" }, "slice-seconds": { type: "string" }, connections: { type: "string" }, json: { type: "string" } } });
const MINUTES = Number(args.minutes ?? 10);
const SLICE = Number(args["slice-seconds"] ?? 60);
const CONNECTIONS = Number(args.connections ?? 8);
const QUERIES = JSON.parse(fs.readFileSync(path.join(ROOT, "bench/queries.json"), "utf8")).queries;
const big = JSON.stringify({ query: "x".repeat(100 * 1024) });
const mcpSearch = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: { query: "pathlib", limit: 3 } } });

// The mix (autocannon cycles through it per connection): 5 valid, 5 invalid or oversized.
let qi = 0;
const MIX = [
  { kind: "valid", method: "GET", setupRequest: (r) => ({ ...r, path: `/search?q=${encodeURIComponent(QUERIES[qi++ % QUERIES.length])}` }) },
  { kind: "valid", method: "POST", path: "/search", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "logging handler", limit: 5, filters: { language: "en" } }) },
  { kind: "valid", method: "POST", path: "/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: mcpSearch },
  { kind: "valid", method: "GET", path: "/documents/library%2Fos.html" },
  { kind: "valid", method: "GET", path: "/health" },
  { kind: "invalid", method: "GET", path: "/search?q=x&limit=0" },
  { kind: "invalid", method: "POST", path: "/search", headers: { "content-type": "application/json" }, body: "{not json" },
  { kind: "oversized", method: "POST", path: "/search", headers: { "content-type": "application/json" }, body: big },
  { kind: "invalid", method: "GET", path: "/nope" },
  { kind: "invalid", method: "POST", path: "/mcp", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "1.0", id: 1, method: "x" }) },
];

async function main() {
  if (!args.bundle || !fs.existsSync(path.join(args.bundle, "manifest.json"))) throw new Error("--bundle must be a bundle directory");
  const w = await startWorker({ bundle: args.bundle, entry: "worker" });
  const slices = [];
  let failures = 0;
  try {
    const slicesN = Math.max(1, Math.round((MINUTES * 60) / SLICE));
    for (let s = 0; s < slicesN; s++) {
      // Valid requests must be 200: checked per response.
      let validNot200 = 0;
      const r = await autocannon({
        url: w.url, connections: CONNECTIONS, duration: SLICE,
        requests: MIX.map(({ kind, ...req }) => ({
          ...req,
          onResponse: (status) => {
            if (kind === "valid" && status !== 200) validNot200 += 1;
          },
        })),
      });
      const health = await (await fetch(`${w.url}/health`)).json();
      const row = {
        minute: ((s + 1) * SLICE) / 60, requests: r.requests.total, "2xx": r["2xx"], "4xx": r["4xx"], "5xx": r["5xx"], errors: r.errors, timeouts: r.timeouts,
        valid_not_200: validNot200, p50_ms: r.latency.p50, p99_ms: r.latency.p99, wasm_mb: health.wasm_memory_bytes / 1048576, rss_mb: workerdMemoryMb(w.pid).rss,
      };
      slices.push(row);
      failures += row["5xx"] + row.valid_not_200 + row.errors;
      console.log(`t=${row.minute.toFixed(1)} min  ${row.requests} req  2xx ${row["2xx"]}  4xx ${row["4xx"]}  5xx ${row["5xx"]}  errors ${row.errors}  valid≠200 ${row.valid_not_200}  p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms  wasm ${row.wasm_mb.toFixed(1)} MB  workerd RSS ${row.rss_mb.toFixed(0)} MB`);
    }
  } finally {
    w.stop();
  }
  const total = slices.reduce((a, r) => a + r.requests, 0);
  const rss = slices.map((r) => r.rss_mb);
  console.log(`\nsoak: ${total} requests in ${MINUTES} min; 5xx ${slices.reduce((a, r) => a + r["5xx"], 0)}; valid answered ≠200: ${slices.reduce((a, r) => a + r.valid_not_200, 0)}; ` +
    `p99 per slice ${Math.min(...slices.map((r) => r.p99_ms))}–${Math.max(...slices.map((r) => r.p99_ms))} ms; wasm memory ${slices[0].wasm_mb.toFixed(1)} → ${slices.at(-1).wasm_mb.toFixed(1)} MB; workerd RSS ${rss[0].toFixed(0)} → ${rss.at(-1).toFixed(0)} MB (max ${Math.max(...rss).toFixed(0)})`);
  if (args.json) fs.writeFileSync(args.json, JSON.stringify(slices, null, 2));
  if (failures) {
    console.error(`soak: FAILED (${failures} 5xx, transport errors or valid requests not answered 200)`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`soak: ${e.stack ?? e}`);
  process.exit(1);
});
