#!/usr/bin/env node
// `sift` from npm: runs the prebuilt binary of the platform package npm installed beside this
// one (@sift-search/cli-<os>-<cpu>, an optional dependency: npm installs only the one whose
// `os` and `cpu` match). SIFT_BINARY points at another binary.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const platform = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "sift.exe" : "sift";

function binary() {
  if (process.env.SIFT_BINARY) return process.env.SIFT_BINARY;
  try {
    return require.resolve(`@sift-search/cli-${platform}/bin/${exe}`);
  } catch (_) {
    console.error(
      `sift: no prebuilt binary for ${platform} (the package @sift-search/cli-${platform} is not installed).\n` +
        "Install on a supported platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64), " +
        "without --no-optional, or build from source: cargo install --path sift",
    );
    process.exit(1);
  }
}

const r = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`sift: cannot run ${binary()}: ${r.error.message}`);
  process.exit(1);
}
// A signal that ended the binary ends this process the same way.
if (r.signal) process.kill(process.pid, r.signal);
process.exit(r.status ?? 1);
