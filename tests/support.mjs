// Shared by the Node end-to-end tests and benchmarks: where the repository and the build
// cache are, and the `sift` binary under test.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET = process.env.CARGO_TARGET_DIR ?? path.join(os.homedir(), ".cache/sift-target");
export const SIFT = process.env.SIFT_BIN ?? path.join(TARGET, "debug/sift");

/**
 * A test file's reason to skip (`false`: it runs). Under CI (`CI` set), which always has what
 * the tests need, a reason is a failure: the file throws, and the run is red.
 */
export function skipUnlessCI(reason) {
  if (reason && process.env.CI) throw new Error(`CI is set and these tests cannot run: ${reason}`);
  return reason;
}

export function sift(args, opts = {}) {
  return execFileSync(SIFT, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...opts });
}

/** A fetch over file: URLs, as a static host serves a bundle and the runtime's wasm; each
 * file's fetches are counted in `counts` (by file name) when given. */
export function fileFetch(counts) {
  return async (url) => {
    const file = fileURLToPath(url);
    if (counts) counts[path.basename(file)] = (counts[path.basename(file)] ?? 0) + 1;
    try {
      const type = file.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
      return new Response(fs.readFileSync(file), { headers: { "content-type": type } });
    } catch (_) {
      return new Response("not found", { status: 404 });
    }
  };
}
