// Shared by the Node end-to-end tests and benchmarks: where the repository and the build
// cache are, and the `sift` binary under test.

import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET = process.env.CARGO_TARGET_DIR ?? path.join(os.homedir(), ".cache/sift-target");
export const SIFT = process.env.SIFT_BIN ?? path.join(TARGET, "debug/sift");

export function sift(args, opts = {}) {
  return execFileSync(SIFT, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...opts });
}
