// The differential sample under Node: the npm package's wasm engine (www/dist) answers
// the requests that `tests/differential.rs` (`write_wasm_sample`, run by the example
// `wasm_sample`) generated, over
// bundles read from disk. Each answer must agree with the naive reference's ranking (ties
// within the printed precision may come in either order) and equal the native engine's.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Sift } from "../../www/dist/sift.js";
import { ROOT, TARGET, fileFetch } from "../support.mjs";

const SAMPLE = path.join(TARGET, "differential-wasm");
const CASES = path.join(SAMPLE, "cases.json");

// Made again on every run: the native engine's answers are this tree's, and a sample left
// by an earlier build (the same format, another engine) would compare against stale ones.
// (No -p: the example is built as the workspace's default members build it, the features
// `cargo test` gives every dependency, so nothing is compiled a second way.)
function ensureSample() {
  execFileSync("cargo", ["run", "-q", "--example", "wasm_sample"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, CARGO_TARGET_DIR: TARGET },
  });
}

// The same rule as `agree` in tests/differential.rs.
function agree(got, want, req, sortByDate, tolerance) {
  const offset = req.offset ?? 0;
  const limit = req.limit ?? 10;
  assert.equal(got.total, want.total, "total");
  assert.equal(got.results.length, Math.min(limit, Math.max(0, want.total - offset)), "page size");
  assert.equal(got.has_more, offset + got.results.length < want.total, "has_more");
  assert.equal(new Set(got.results.map((r) => r.id)).size, got.results.length, "an id appears twice");
  got.results.forEach((r, k) => {
    const atRank = want.ranked[offset + k];
    const mine = want.ranked.find((x) => x.id === r.id);
    assert.ok(mine, `${r.id} at rank ${offset + k} is not a reference hit`);
    assert.ok(Math.abs(mine.score - r.score) <= tolerance, `${r.id}: score ${r.score} vs reference ${mine.score}`);
    const tie = Math.abs(mine.score - atRank.score) <= tolerance && (!sortByDate || mine.date === atRank.date);
    assert.ok(tie, `rank ${offset + k}: ${r.id} where the reference has ${atRank.id}`);
  });
  assert.deepEqual(got.facets ?? {}, want.facets, "facets");
}

test("the wasm engine agrees with the naive reference and the native engine on the differential sample", async () => {
  ensureSample();
  const { tolerance, cases } = JSON.parse(fs.readFileSync(CASES, "utf8"));
  assert.ok(cases.length >= 40, `expected the 40-case sample, found ${cases.length}`);
  // Semantic search off: the keyword engine (the lean one without its semantic half).
  const wasmUrl = new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm")));
  // Queries of 8 or more terms are the full runtime's (sift.js hands them on).
  const fullWasmUrl = new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm")));
  let requests = 0;
  for (const c of cases) {
    const base = pathToFileURL(path.join(SAMPLE, c.dir) + "/").href;
    const sift = await Sift.load(base, { fetch: fileFetch(), wasmUrl, fullWasmUrl, semantic: false });
    for (const r of c.requests) {
      const got = await sift.search(r.request);
      const where = `${c.dir} ${JSON.stringify(r.request.query)}`;
      try {
        agree(got, r.reference, r.request, r.sort_by_date, tolerance);
      } catch (e) {
        e.message = `${where}: ${e.message}`;
        throw e;
      }
      const brief = (x) => ({ total: x.total, results: x.results.map((h) => [h.id, h.score]), facets: x.facets ?? {}, fallback: x.fallback ?? null });
      assert.deepEqual(brief(got), brief(r.native), `${where}: wasm and native answers differ`);
      requests++;
    }
  }
  assert.ok(requests >= 100, `only ${requests} requests in the sample`);
  console.log(`# wasm differential: ${cases.length} bundles, ${requests} requests agree`);
});
