// Shared by the browser tests and the browser benchmark: the sift binary, fixture bundles,
// `sift serve` on a free loopback port, and Debian's Chromium driven by playwright-core.

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, TARGET, SIFT, sift } from "../support.mjs";

export { ROOT, TARGET, SIFT, sift };
const require = createRequire(path.join(ROOT, "www/package.json"));
export const { chromium } = require("playwright-core");

export const OUT = process.env.SIFT_BROWSER_OUT ?? path.join(TARGET, "browser-tests");

/** `sift serve` on port 0; resolves with {url, stop}. */
export function serve(bundle, { sites = [], www = path.join(ROOT, "www/dist") } = {}) {
  const args = ["serve", bundle, "--port", "0", "--www", www, ...sites.flatMap((s) => ["--site", s])];
  const child = spawn(SIFT, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`sift serve did not start: ${stderr}`)), 15000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/at (http:\/\/[0-9.:]+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: () => child.kill("SIGTERM"), child });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`sift serve exited with ${code}: ${stderr}`));
    });
  });
}

// Direct connections only: the tests talk to loopback servers, and a proxy from the
// environment (CI sets one for package registries) made the extension's fetch to 127.0.0.1
// hang until the test timed out.
export const CHROMIUM_ARGS = [
  "--no-proxy-server", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

export async function browser(extraArgs = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-chromium-"));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    // Not CI: launched with CI set in its environment (as the CI runner sets it), Chromium
    // closed the extension's options page right after chrome.storage.local.set, so adding a
    // bundle never reported back (reproduced with CI=true; passes without it). A user's
    // browser does not run with CI set.
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "CI")),
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport: { width: 1100, height: 800 },
  });
  return { ctx, close: async () => { await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

export function haveChromium() {
  return fs.existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium");
}

export function haveRuntime() {
  return fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_bg.wasm.lzma"));
}
