// The benchmarks' file server: a file under a root, gzip -9 when that makes it smaller (as
// a static host would; Sift's shards, engines and Pagefind's .pf files are compressed
// already), and the bytes on the wire counted where they are sent, headers included:
// Playwright's per-request sizes miss the body of a Web Worker's script (Pagefind's
// pagefind-worker.js showed 0.2 kB of its 12.6 kB), so the server is the one count.

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html" };
const gzCache = new Map();

/** Send `rel` under `root` (404 outside it or when absent); `onSent(bytes)` when done. */
export function sendFile(req, res, root, rel, onSent) {
  if (!root || rel.split("/").includes("..")) return res.writeHead(404).end();
  const file = path.join(root, rel);
  let body;
  try {
    body = fs.readFileSync(file);
  } catch (_) {
    return res.writeHead(404).end();
  }
  const headers = { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" };
  if (/gzip/.test(req.headers["accept-encoding"] ?? "")) {
    if (!gzCache.has(file)) {
      const gz = zlib.gzipSync(body, { level: 9 });
      gzCache.set(file, gz.length < body.length * 0.9 ? gz : null);
    }
    if (gzCache.get(file)) {
      headers["content-encoding"] = "gzip";
      body = gzCache.get(file);
    }
  }
  const sock = res.socket;
  const before = sock.bytesWritten;
  if (onSent) res.on("finish", () => onSent(sock.bytesWritten - before));
  res.writeHead(200, headers);
  res.end(body);
}
