// Numbers in the wasm engines: their exact steps (reading a number's text correctly rounded,
// the exact quotient behind a float's shortest digits) are the host's — JavaScript's Number
// and BigInt, lent by crates/sift-wasm/src/numbers.rs — where the native engine does its own
// big-integer arithmetic (sift-core's `exact-numbers`). The wasm engine must read and write
// every number of the native sample (`numbers_sample_is_written` in tests/json_codec.rs:
// extremes, subnormals, halfway cases, 30-digit texts, random f64 and f32 bit patterns) to
// the same digits, and refuse the same ones.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { ROOT, TARGET } from "../support.mjs";

const DIST = path.join(ROOT, "www/dist");

function nativeSample() {
  // Written afresh: the answers are the native engine's as built now.
  execFileSync("cargo", ["test", "-q", "-p", "sift-tests", "--test", "json_codec", "--", "--exact", "numbers_sample_is_written"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, CARGO_TARGET_DIR: TARGET },
  });
  return JSON.parse(fs.readFileSync(path.join(TARGET, "numbers-wasm/cases.json"), "utf8"));
}

/** `text` read and written back by the full wasm runtime (instantiated once), as f32 or
 * f64: `{done: text}` or `{error: {code, message}}`. */
let full;
async function numberText(text, f32) {
  if (!full) {
    full = await import("../../www/dist/sift_wasm_full.js");
    full.initSync({ module: new WebAssembly.Module(fs.readFileSync(path.join(DIST, "sift_wasm_full_bg.wasm"))) });
  }
  return JSON.parse(full.numberText(text, f32));
}

test("the wasm engine reads and writes every number as the native engine does", async () => {
  const cases = nativeSample();
  assert.ok(cases.length > 4000, `expected the 4000-number sample, found ${cases.length}`);
  const answer = async (text, f32) => {
    const step = await numberText(text, f32);
    return step.error ? { error: step.error.message } : { text: step.done };
  };
  let exact = 0;
  for (const c of cases) {
    assert.deepEqual(await answer(c.text, false), c.f64, `${c.text} as an f64`);
    assert.deepEqual(await answer(c.text, true), c.f32, `${c.text} as an f32`);
    if (c.f64.text) exact++;
  }
  assert.ok(exact > 4000, `most of the sample reads as a number (${exact})`);
});

test("a number past f64's range is refused by the wasm engine, with where it is", async () => {
  const error = async (text) => (await numberText(text, false)).error;
  assert.match((await error("1e400")).message, /number out of range at line 1 column 6/);
  assert.match((await error('"1"')).message, /not a number: a string/);
  assert.match((await error("1.")).message, /line 1/);
  assert.equal((await error("1.")).code, "invalid_request");
});
