// Start the Sift worker in the real local workerd (worker/start.sh → wrangler dev --local) on
// a free loopback port, over a given bundle; stop it after the tests.

import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export function haveWrangler() {
  return fs.existsSync(path.join(ROOT, "worker/node_modules/.bin/wrangler"));
}

/** Resolves with {url, stop, pid} once /health answers. */
export async function startWorker({ bundle, entry = "keyword", vars = {} }) {
  const port = await freePort();
  const extra = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn("bash", [path.join(ROOT, "worker/start.sh"), ...extra], {
    env: { ...process.env, PORT: String(port), SIFT_BUNDLE: bundle, SIFT_WORKER: entry },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: stop() ends wrangler and workerd together
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}):\n${log}`);
    try {
      const r = await fetch(`${url}/health`);
      if (r.status === 200) break;
    } catch (_) {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid, "SIGTERM");
      throw new Error(`the worker did not answer /health within 90 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    pid: child.pid,
    log: () => log,
    stop: () => {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch (_) {
        /* already gone */
      }
    },
  };
}
