// A bundle with a delta (`sift watch` wrote the pages changed since its build beside it)
// searched through sift.js as a page searches it: the delta's files fetched like any shard,
// its doc shards inflated with its own dictionary, its pages found, its removed pages gone.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import { ROOT, SIFT, fileFetch, skipUnlessCI } from "../support.mjs";

const skip = skipUnlessCI(!fs.existsSync(SIFT) && `no sift binary at ${SIFT} (cargo build -p sift)`);

async function until(what, check, ms) {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a page searches a bundle and its delta as one: the new page found with its snippet, the deleted one gone", { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-delta-"));
  const site = path.join(dir, "site");
  const out = path.join(dir, "bundle");
  fs.cpSync(path.join(ROOT, "tests/corpus"), site, { recursive: true });
  const p = spawn(SIFT, ["watch", site, "--out", out, "--no-embedder", "-q", "--poll-ms", "50"], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  p.stderr.on("data", (d) => (log += d));
  try {
    const manifest = path.join(out, "manifest.json");
    await until("the first build", () => fs.existsSync(manifest), 30000);
    // Enough text (over 64 KB) that the delta's doc shards are compressed after the delta's
    // own dictionary (codec 2), which the page must inflate them with, not the base's.
    const body = Array.from({ length: 900 }, (_, i) => `## Step ${i}\n\nThe platypus rollout step ${i} moves cache entry ${i * 7} forward, region ${i % 13} first.\n`).join("\n");
    fs.writeFileSync(path.join(site, "guides/platypus.md"), `# Platypus rollouts\n\n${body}`);
    fs.rmSync(path.join(site, "guides/deploy.md"));
    await until("the delta", () => /"delta":\{"removed":\[\d+\],"folder"/.test(fs.readFileSync(manifest, "utf8")), 10000);
    const folder = fs.readdirSync(out).find((f) => f.startsWith("delta-"));
    const docShards = fs.readdirSync(path.join(out, folder)).filter((f) => f.startsWith("d-"));
    assert.ok(docShards.some((f) => fs.readFileSync(path.join(out, folder, f))[7] === 2), "a delta doc shard compressed after its dictionary");
    const url = pathToFileURL(out + "/").href;
    // The keyword engine (semantic search off) and the lean one.
    for (const [semantic, engine] of [[false, "sift_wasm_keyword_bg.wasm"], [true, "sift_wasm_bg.wasm"]]) {
      const wasmUrl = new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist", engine)));
      const s = await Sift.load(url, { fetch: fileFetch(), semantic, wasmUrl });
      const found = await s.search({ query: "platypus" });
      assert.equal(found.results[0]?.id, "guides/platypus.md", `semantic ${semantic}`);
      assert.match(found.results[0].snippet, /platypus/i);
      const deploy = await s.search({ query: "deploy", limit: 50 });
      assert.ok(!deploy.results.some((r) => r.id === "guides/deploy.md"), "the deleted page is gone");
    }
  } catch (e) {
    throw new Error(`${e.message}\n${log}`);
  } finally {
    p.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
