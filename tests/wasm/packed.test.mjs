// The engines as sift.js fetches them by default: packed as LZMA by scripts/build-wasm.sh
// (`<name>_bg.wasm.lzma`) and decoded by www/src/lzma.js. The shipped file must be the very
// engine, a page must answer through it exactly as through the plain .wasm, and a damaged,
// truncated or missing one must be a clear runtime_unavailable error, never a hang. A
// caller's `.deflate` engine is still inflated on the way in.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import { drive, engineStep } from "../../www/src/host.js";
import { lzmaDecode } from "../../www/dist/lzma.js";
import { ROOT, fileFetch } from "../support.mjs";

const DIST = path.join(ROOT, "www/dist");
const BUNDLE = pathToFileURL(path.join(ROOT, "tests/frozen/v18/bundle") + "/").href;
const ENGINES = ["sift_wasm_keyword", "sift_wasm", "sift_wasm_full"];

test("each shipped engine decodes to exactly its .wasm, at least 10% below gzip -9 of it", async () => {
  for (const name of ENGINES) {
    const wasm = fs.readFileSync(path.join(DIST, `${name}_bg.wasm`));
    const shipped = fs.readFileSync(path.join(DIST, `${name}_bg.wasm.lzma`));
    assert.ok(Buffer.from(await lzmaDecode(shipped)).equals(wasm), `${name}: the packed file is the engine`);
    const gz = zlib.gzipSync(wasm, { level: 9 }).length;
    assert.ok(shipped.length < 0.9 * gz, `${name}: ${shipped.length} bytes shipped, gzip -9 ${gz}`);
  }
  assert.ok(!fs.readdirSync(DIST).some((f) => f.endsWith(".wasm.deflate")), "no deflated engine of an earlier build is left beside them");
});

// Run first: the keyword glue bundled into sift.js is initialised once per process, and a
// failed load leaves it uninitialised, so each bad file below is really loaded.
test("a damaged, truncated or missing packed engine is a clear runtime_unavailable error", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-packed-"));
  try {
    const shipped = fs.readFileSync(path.join(DIST, "sift_wasm_keyword_bg.wasm.lzma"));
    const damaged = Buffer.from(shipped);
    for (let i = 100; i < 400; i++) damaged[i] ^= 0x5a;
    const wrongSize = Buffer.from(shipped);
    wrongSize.writeUInt32LE(wrongSize.readUInt32LE(5) + 1000, 5);
    const cases = {
      damaged,
      truncated: shipped.subarray(0, shipped.length >> 1),
      "not lzma at all": fs.readFileSync(path.join(DIST, "sift_wasm_keyword_bg.wasm")),
      "a size the stream does not have": wrongSize,
      empty: Buffer.alloc(0),
    };
    for (const [what, bytes] of Object.entries(cases)) {
      const file = path.join(dir, `${what.replaceAll(" ", "-")}.wasm.lzma`);
      fs.writeFileSync(file, bytes);
      await assert.rejects(Sift.load(BUNDLE, { fetch: fileFetch(), semantic: false, wasmUrl: pathToFileURL(file).href }), (e) => {
        assert.equal(e.code, "runtime_unavailable", `${what}: ${e.code} ${e.message}`);
        assert.match(e.message, /the Sift runtime \(wasm\) could not be loaded/, what);
        return true;
      });
    }
    const missing = pathToFileURL(path.join(dir, "missing.wasm.lzma")).href;
    await assert.rejects(Sift.load(BUNDLE, { fetch: fileFetch(), semantic: false, wasmUrl: missing }), (e) => {
      assert.equal(e.code, "runtime_unavailable");
      assert.match(e.message, /missing\.wasm\.lzma answered HTTP 404/);
      return true;
    });
    // A damaged deflated engine (a caller's own) the same way.
    const deflated = zlib.deflateRawSync(fs.readFileSync(path.join(DIST, "sift_wasm_keyword_bg.wasm")));
    const badDeflate = path.join(dir, "damaged.wasm.deflate");
    fs.writeFileSync(badDeflate, deflated.subarray(0, deflated.length >> 1));
    await assert.rejects(Sift.load(BUNDLE, { fetch: fileFetch(), semantic: false, wasmUrl: pathToFileURL(badDeflate).href }), (e) => {
      assert.equal(e.code, "runtime_unavailable", e.message);
      return true;
    });
    // A load that failed is not remembered: the same URL works once the file is whole.
    const file = path.join(dir, "damaged.wasm.lzma");
    fs.writeFileSync(file, shipped);
    const s = await Sift.load(BUNDLE, { fetch: fileFetch(), semantic: false, wasmUrl: pathToFileURL(file).href });
    assert.ok((await s.search({ query: "cache" })).results.length > 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a page answers through the packed engine exactly as the plain .wasm does", async () => {
  const counts = {};
  const wasmUrl = pathToFileURL(path.join(DIST, "sift_wasm_keyword_bg.wasm.lzma")).href + "?counted";
  const page = await Sift.load(BUNDLE, { fetch: fileFetch(counts), semantic: false, wasmUrl });
  // The plain file, in a glue instance of its own, driven by the same host loop.
  const plain = await import("../../www/dist/sift_wasm_keyword.js?plain");
  await plain.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(DIST, "sift_wasm_keyword_bg.wasm"))) });
  const bundleFile = (f) => new Uint8Array(fs.readFileSync(new URL(f, BUNDLE)));
  const e = new plain.SiftEngine(bundleFile("manifest.json"));
  const direct = (req) =>
    drive(() => e.search(JSON.stringify(req), Math.floor(Date.now() / 86400000), undefined), {
      shardBytes: async (f) => bundleFile(f),
      isLoaded: (f) => e.isLoaded(f),
      addShard: (f, bytes, payload) => engineStep(e.addShard(f, bytes, payload)),
      dictionary: (file) => e.docDictionary(file),
    });
  for (const query of ["cache", "authentificate", "\"state machine\" -oauth2", "deploy typ"]) {
    const a = await page.search({ query, limit: 5 });
    const b = await direct({ query, limit: 5 });
    delete a.timings_ms;
    delete b.timings_ms;
    assert.deepEqual(a, b, query);
  }
  assert.equal(counts["sift_wasm_keyword_bg.wasm.lzma"], 1, "the packed file was fetched once");
});
