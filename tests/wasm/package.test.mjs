// The npm package as built (www/dist): every entry of package.json's `exports` is a file
// that loads, and a page's sift.js carries only what a page uses — the contract's error
// table (HTTP statuses and meanings) is in contract.js, which HTTP surfaces import.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { ROOT } from "../support.mjs";

const WWW = path.join(ROOT, "www");
const pkg = JSON.parse(fs.readFileSync(path.join(WWW, "package.json"), "utf8"));

test("every export of the package names a built file and its types", () => {
  for (const [name, entry] of Object.entries(pkg.exports)) {
    for (const kind of ["default", "types"]) {
      assert.ok(entry[kind], `export ${name} has no ${kind}`);
      assert.ok(fs.existsSync(path.join(WWW, entry[kind])), `export ${name}: ${entry[kind]} is missing`);
    }
  }
});

test("contract.js answers HTTP statuses; sift.js re-exports the limits only", async () => {
  const contract = await import(pathToFileURL(path.join(WWW, pkg.exports["./contract.js"].default)).href);
  assert.equal(contract.statusOf("not_found"), 404);
  assert.equal(contract.statusOf("no_such_code"), 500);
  assert.equal(contract.isClientError("invalid_limit"), true);
  assert.equal(contract.isClientError("bundle_corrupt"), false);
  const sift = await import(pathToFileURL(path.join(WWW, pkg.exports["."].default)).href);
  assert.deepEqual(sift.LIMITS, contract.LIMITS); // sift.js is one file: its own copy
  assert.equal(sift.statusOf, undefined);
  assert.equal(sift.ERRORS, undefined);
});

test("a page's sift.js does not carry the error table", () => {
  const text = fs.readFileSync(path.join(WWW, "dist/sift.js"), "utf8");
  // Codes no page-side code names: only the table has them.
  for (const code of ["payload_too_large", "method_not_allowed", "too_many_queries"]) {
    assert.ok(!text.includes(code), `sift.js carries ${code}: the error table was bundled in`);
  }
  assert.ok(text.includes("maxShardPayload"), "sift.js lost the limits it uses");
});
