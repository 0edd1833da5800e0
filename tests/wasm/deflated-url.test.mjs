// A caller's own deflated engine (`wasmUrl` ending in .deflate) is still inflated on the way
// in and answers. A file of its own: the keyword glue bundled into sift.js is initialised
// once per process, and tests/wasm/packed.test.mjs initialises it with the packed engine.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import { ROOT, fileFetch } from "../support.mjs";

test("an engine given as a .deflate URL is inflated and answers", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-deflated-"));
  try {
    const file = path.join(dir, "sift_wasm_keyword_bg.wasm.deflate");
    fs.writeFileSync(file, zlib.deflateRawSync(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))));
    const counts = {};
    const bundle = pathToFileURL(path.join(ROOT, "tests/frozen/v18/bundle") + "/").href;
    const s = await Sift.load(bundle, { fetch: fileFetch(counts), semantic: false, wasmUrl: pathToFileURL(file).href });
    assert.ok((await s.search({ query: "cache" })).results.length > 0);
    assert.equal(counts["sift_wasm_keyword_bg.wasm.deflate"], 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
