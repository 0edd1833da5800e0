// Folding's rare blocks (enclosed CJK, CJK compatibility, Arabic presentation forms,
// mathematical alphanumerics, ...) are not compiled into the browser engines: each bundle
// carries the table (format 8, a `u-` shard) and the engine asks for it only when a query,
// or the text of a page it is about to analyse (snippets, feedback), has such a character. Checked with the keyword engine against
// the native CLI, which has the table compiled in. Each test loads its own instance of the
// engine: the table, once installed, serves every bundle of the process.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { asSiftError, engineStep, inflatedPayload } from "../../www/src/host.js";
import { ROOT, sift } from "../support.mjs";

let instances = 0;

/** A fresh engine module (its own memory, so no table installed yet) over `dir`'s manifest:
 * the keyword engine, or `sift_wasm` (the lean one). */
async function engine(dir, name = "sift_wasm_keyword") {
  const glue = await import(`../../www/dist/${name}.js?instance=${++instances}`);
  await glue.default({ module_or_path: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, `www/dist/${name}_bg.wasm`))) });
  return new glue.SiftEngine(new Uint8Array(fs.readFileSync(path.join(dir, "manifest.json"))));
}

/** A search (a query, or a whole request) through the host loop; returns the answer (or
 * the error) and every need list. */
async function search(e, dir, query, serve = (f, bytes) => bytes) {
  const request = typeof query === "string" ? { query } : query;
  const rounds = [];
  for (let round = 0; round < 16; round++) {
    const step = engineStep(e.search(JSON.stringify(request), 20000, undefined));
    if (step.done) return { answer: step.done, rounds };
    rounds.push(step.need);
    for (const f of step.need) {
      const bytes = serve(f, new Uint8Array(fs.readFileSync(path.join(dir, f))));
      engineStep(e.addShard(f, bytes, await inflatedPayload(bytes, e.docDictionary(f))));
    }
  }
  throw new Error("too many rounds");
}

/** The native CLI's answer (the whole table compiled in): ids and snippets. */
function native(dir, query) {
  const r = JSON.parse(sift(["search", dir, query, "--json"]));
  return r.results.map((x) => [x.id, x.snippet]);
}
const shown = (answer) => answer.results.map((x) => [x.id, x.snippet]);

/** A bundle built by the CLI from Markdown pages. */
function bundle(name, pages) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `sift-folds-${name}-`));
  const src = path.join(root, "docs");
  fs.mkdirSync(src);
  for (const [file, text] of Object.entries(pages)) fs.writeFileSync(path.join(src, file), text);
  const out = path.join(root, "bundle");
  sift(["build", src, "--out", out, "-q", "--no-embedder"]);
  return out;
}

const PLAIN = bundle("plain", {
  "files.md": "# Working with files\n\nOpen a file, read it line by line, and close the file when done.\n",
  "network.md": "# Sockets\n\nA socket connects two programs over a network.\n",
});
const RARE = bundle("rare", {
  "company.md": "# Company names\n\nIn Japanese documents ㈱ abbreviates a joint-stock company: ㈱ Example 𝐇𝐨𝐥𝐝𝐢𝐧𝐠𝐬.\n",
  "network.md": "# Sockets\n\nA socket connects two programs over a network.\n",
});
const foldTable = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).fold_table.file;
const isTable = (f) => f.startsWith("u-");

test("a damaged fold table is refused by name and the query gets no answer from it", async () => {
  const damaged = (f, bytes) => (isTable(f) ? bytes.map((b, i) => (i === bytes.length - 1 ? b ^ 1 : b)) : bytes);
  const refusal = async (e) => {
    try {
      await search(e, PLAIN, "𝐟𝐢𝐥𝐞", damaged);
    } catch (x) {
      return asSiftError(x);
    }
    return null;
  };
  // The browser engine names the file too (every engine carries its errors' texts).
  const err = await refusal(await engine(PLAIN));
  assert.equal(err?.code, "bundle_corrupt");
  assert.match(err.message, /u-[0-9a-f]+\.bin/);
  const full = await refusal(await engine(PLAIN, "sift_wasm_full"));
  assert.equal(full?.code, "bundle_corrupt");
  assert.match(full.message, /u-[0-9a-f]+\.bin/);
  const e = await engine(PLAIN);
  await refusal(e);
  // The intact table then serves the same engine.
  const { answer } = await search(e, PLAIN, "𝐟𝐢𝐥𝐞");
  assert.equal(answer.results[0].id, "files.md");
});

test("a query with a rare-block character reads the table first and answers as the native engine", async () => {
  const e = await engine(PLAIN);
  const plain = await search(e, PLAIN, "file");
  assert.ok(!plain.rounds.flat().some(isTable), "a query without one never reads it");
  const { answer, rounds } = await search(e, PLAIN, "𝐟𝐢𝐥𝐞 ｌｉｎｅ");
  assert.deepEqual(rounds[0], [foldTable(PLAIN)], "the table alone, before the query is analysed");
  assert.equal(answer.results[0].id, "files.md");
  assert.deepEqual(shown(answer), native(PLAIN, "𝐟𝐢𝐥𝐞 ｌｉｎｅ"));
  // Installed once, it is not asked for again.
  assert.ok(!(await search(e, PLAIN, "𝐬𝐨𝐜𝐤𝐞𝐭")).rounds.flat().some(isTable));
});

test("a page whose text has one gets the table before its snippet is cut; other pages never ask", async () => {
  const e = await engine(RARE);
  const other = await search(e, RARE, "socket");
  assert.equal(other.answer.results[0].id, "network.md");
  // The doc shard read holds both pages (the corpus is tiny); only a page analysed counts.
  assert.ok(other.rounds.flat().some((f) => f.startsWith("d-")));
  assert.ok(!other.rounds.flat().some(isTable), "the page with ㈱ is not among the results");
  const { answer, rounds } = await search(e, RARE, "company");
  // Every other shard it reads is loaded by now: the ASCII query's one round is the table,
  // for the page's text.
  assert.deepEqual(rounds, [[foldTable(RARE)]], "once the page is to be shown: a round for the table alone");
  assert.deepEqual(shown(answer), native(RARE, "company"));
  // A word written in mathematical bold is indexed folded, and its snippet is cut and
  // highlighted from the text as the native engine does.
  const bold = await search(e, RARE, "holdings");
  assert.equal(bold.answer.results[0]?.id, "company.md");
  assert.match(bold.answer.results[0].snippet, /<mark>𝐇𝐨𝐥𝐝𝐢𝐧𝐠𝐬<\/mark>/);
  assert.deepEqual(shown(bold.answer), native(RARE, "holdings"));
});

// (BERT normalises by NFD, so 𝐦𝐞𝐦𝐨𝐫𝐲 stays an unknown token for the encoder, as in the
// model's own tokenizer; which characters the table's BERT half maps is checked for every
// code point in sift-text's decompose tests.)
test("the lean engine reads the table before its static encoder tokenises a rare-block query, and answers as the native engine", async () => {
  const v13 = path.join(ROOT, "tests/frozen/v18/bundle"); // toy vectors and a static encoder
  const e = await engine(v13, "sift_wasm");
  const { answer, rounds } = await search(e, v13, { query: "cache 𝐦𝐞𝐦𝐨𝐫𝐲", mode: "semantic" });
  assert.deepEqual(rounds[0], [foldTable(v13)]);
  assert.equal(answer.search_type, "semantic");
  const cli = JSON.parse(sift(["search", v13, "cache 𝐦𝐞𝐦𝐨𝐫𝐲", "--mode", "semantic", "--json"]));
  assert.ok(cli.results.length > 0);
  assert.deepEqual(answer.results.map((r) => [r.id, r.score]), cli.results.map((r) => [r.id, r.score]));
});
