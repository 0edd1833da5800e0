// Start the Sift worker in the real local workerd (worker/start.sh → wrangler dev --local) on
// a free loopback port, over a given bundle; stop it after the tests.

import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import fs from "node:fs";
import { ROOT } from "../support.mjs";

export { ROOT };

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

/**
 * Memory of the workerd processes in process group `pgid` (wrangler dev runs its proxy and
 * the worker as two), in MB: `rss` summed now, `peak` the largest VmHWM.
 */
export function workerdMemoryMb(pgid) {
  let rss = 0;
  let peak = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue; // field 5: pgrp
      if (!/workerd/.test(fs.readFileSync(`/proc/${pid}/comm`, "utf8"))) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      rss += Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0) / 1024;
      peak = Math.max(peak, Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0) / 1024);
    } catch (_) {
      /* the process ended */
    }
  }
  return { rss, peak };
}

/**
 * CPU time used so far by the workerd processes in process group `pgid` (user + system),
 * in ms: the difference over a run, divided by its requests, is the CPU per request.
 */
export function workerdCpuMs(pgid) {
  const tick = 10; // USER_HZ is 100 on Linux: one clock tick is 10 ms
  let ms = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) !== pgid || !/workerd/.test(fs.readFileSync(`/proc/${pid}/comm`, "utf8"))) continue;
      ms += (Number(f[11]) + Number(f[12])) * tick; // fields 14, 15: utime, stime
    } catch (_) {
      /* the process ended */
    }
  }
  return ms;
}

/** Process groups of the workers started and not stopped: ended when the test file ends. */
const running = new Set();
process.on("exit", () => {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGTERM");
    } catch (_) {
      /* already gone */
    }
  }
});

/**
 * Resolves with {url, stop, pid} once /health answers (`ready(status)`: 200 unless given).
 * A port another process took between `freePort` and wrangler's listen is tried again on a
 * new one. A worker a failed test never stopped does not keep its test file running: it is
 * not waited for, and is ended when the file ends.
 */
export async function startWorker(options) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      if (attempt >= 3 || !/Address already in use/.test(e.message)) throw e;
    }
  }
}

async function startOnce({ bundle, entry = "worker", vars = {}, ready = (status) => status === 200 }) {
  const port = await freePort();
  const extra = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn("bash", [path.join(ROOT, "worker/start.sh"), ...extra], {
    env: { ...process.env, PORT: String(port), SIFT_BUNDLE: bundle, SIFT_WORKER: entry },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: stop() ends wrangler and workerd together
  });
  running.add(child.pid);
  child.unref();
  let log = "";
  for (const out of [child.stdout, child.stderr]) {
    out.on("data", (d) => (log += d));
    out.unref();
  }
  const stop = () => {
    running.delete(child.pid);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch (_) {
      /* already gone */
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90000;
  for (;;) {
    if (child.exitCode !== null) {
      running.delete(child.pid);
      throw new Error(`the worker exited (${child.exitCode}):\n${log}`);
    }
    try {
      const r = await fetch(`${url}/health`);
      if (ready(r.status)) break;
    } catch (_) {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      stop();
      throw new Error(`the worker did not answer /health within 90 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, pid: child.pid, log: () => log, stop };
}
