// The host's half of reading a shard: the browser engine has no inflater, so `host.js`
// inflates deflated payloads with the platform's DecompressionStream and the engine checks
// them against the shard's header. Over the frozen bundle, with the npm package's wasm
// engines (www/dist).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Sift, SiftError } from "../../www/dist/sift.js";
import { inflatedPayload, addShards } from "../../www/src/host.js";
import { ROOT } from "../support.mjs";

// Its doc shards are compressed after the doc store's dictionary (codec 2).
const BUNDLE = path.join(ROOT, "tests/frozen/v18/bundle");
const ANSWERS = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/frozen/v18/answers.json"), "utf8"));
// Semantic search off below: the keyword engine (the full runtime for what it hands on).
const engines = {
  wasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))),
  fullWasmUrl: new WebAssembly.Module(fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_full_bg.wasm"))),
};

/** Bundle files from disk; `damage(name, bytes)` may change a file on its way. */
const fetchFrom = (damage = (_, b) => b) => async (url) => {
  const file = fileURLToPath(url);
  try {
    return new Response(damage(path.basename(file), new Uint8Array(fs.readFileSync(file))));
  } catch (_) {
    return new Response("not found", { status: 404 });
  }
};

/** A shard file: the 16-byte header (kind 1, codec, payload length, a CRC the engine would check) and a body. */
function shard(codec, payloadLength, body) {
  const head = Buffer.alloc(16);
  head.write("SIFT", 0);
  head.writeUInt16LE(14, 4);
  head[6] = 1;
  head[7] = codec;
  head.writeUInt32LE(payloadLength, 8);
  return new Uint8Array(Buffer.concat([head, body]));
}

test("a deflated shard's payload is inflated by the platform, exactly as zlib reads it", async () => {
  const file = fs.readdirSync(BUNDLE).find((f) => f.startsWith("t-"));
  const bytes = new Uint8Array(fs.readFileSync(path.join(BUNDLE, file)));
  assert.equal(bytes[7], 1, "bundles deflate their shards");
  const got = await inflatedPayload(bytes);
  assert.deepEqual(Buffer.from(got), zlib.inflateRawSync(bytes.subarray(16)));
  assert.equal(got.length, new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true));
});

test("a stored shard, bytes that are no shard and streams that are not deflate get no payload", async () => {
  const text = Buffer.from("stored as it is ".repeat(20));
  assert.equal(await inflatedPayload(shard(0, text.length, text)), undefined, "stored");
  assert.equal(await inflatedPayload(new Uint8Array([1, 2, 3])), undefined, "too short for a header");
  assert.equal(await inflatedPayload(shard(1, 100, Buffer.from("not a deflate stream at all"))), undefined, "garbage");
  const deflated = zlib.deflateRawSync(text);
  assert.equal(await inflatedPayload(shard(1, text.length, deflated.subarray(0, deflated.length - 4))), undefined, "truncated");
});

test("a stream inflating past the length its header claims is cut off, not read into memory", async () => {
  const big = zlib.deflateRawSync(Buffer.alloc(4 << 20)); // 4 MB of zeros in a few kB
  assert.equal(await inflatedPayload(shard(1, 1000, big)), undefined);
  const ok = await inflatedPayload(shard(1, 4 << 20, big));
  assert.equal(ok.length, 4 << 20);
});

test("a deflate stream longer than one of the chunks it is written in inflates whole", async () => {
  // Incompressible bytes: a 100 kB stream goes into the DecompressionStream in 16 KB pieces.
  const payload = new Uint8Array(100_000);
  for (let i = 0, x = 1; i < payload.length; i++) payload[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  const deflated = zlib.deflateRawSync(payload);
  assert.ok(deflated.length > 3 * 16384);
  assert.deepEqual(await inflatedPayload(shard(1, payload.length, deflated)), payload);
  assert.equal(await inflatedPayload(shard(1, payload.length, deflated.subarray(0, 40_000))), undefined, "cut inside a later piece");
});

test("the engine answers from host-inflated shards as the frozen bundle recorded", async () => {
  const sift = await Sift.load(pathToFileURL(BUNDLE + "/").href, { fetch: fetchFrom(), ...engines, semantic: false });
  // The answers recorded by words alone (this page has semantic search off).
  const lexical = ANSWERS.filter(({ request, answer }) => typeof request.query === "string" && answer?.search_type === "lexical");
  assert.ok(lexical.length >= 4, `only ${lexical.length} lexical answers recorded`);
  for (const { request, answer } of lexical) {
    const got = await sift.search(request);
    const brief = (r) => r.results.map((x) => [x.id, x.score, x.snippet]);
    assert.deepEqual(brief(got), brief(answer), JSON.stringify(request));
  }
  assert.ok(sift.stats.shardsFetched > 3, "the answers came from shards read through the host");
});

test("doc shards compressed after the store's dictionary inflate with it, and not without it", async () => {
  // The dictionary is the startup shard's third section; the engine hands it to the host.
  const manifest = JSON.parse(fs.readFileSync(path.join(BUNDLE, "manifest.json"), "utf8"));
  const dictFile = manifest.startup.file;
  const { initSync, SiftEngine } = await import("../../www/dist/sift_wasm_full.js");
  initSync({ module: engines.fullWasmUrl });
  const e = new SiftEngine(new Uint8Array(fs.readFileSync(path.join(BUNDLE, "manifest.json"))));
  const startup = new Uint8Array(fs.readFileSync(path.join(BUNDLE, dictFile)));
  JSON.parse(e.addShard(dictFile, startup, await inflatedPayload(startup)));
  const docFile = `${manifest.doc_store.files}-0.bin`;
  const dictionary = e.docDictionary(docFile);
  assert.ok(dictionary && dictionary.length > 0, "the frozen bundle's startup shard holds a dictionary");
  const doc = new Uint8Array(fs.readFileSync(path.join(BUNDLE, docFile)));
  assert.equal(doc[7], 2, "codec 2: deflate after the dictionary");
  const payload = await inflatedPayload(doc, dictionary);
  assert.equal(payload.length, new DataView(doc.buffer, doc.byteOffset).getUint32(8, true));
  assert.match(new TextDecoder().decode(payload), /^\{"shard":0,"docs":\[/);
  assert.equal(await inflatedPayload(doc, undefined), undefined, "without the dictionary: no payload");
  // The host loop fetches the dictionary in the first round, before any doc shard.
  const order = [];
  const sift = await Sift.load(pathToFileURL(BUNDLE + "/").href, {
    fetch: async (url) => {
      order.push(path.basename(fileURLToPath(url)));
      return fetchFrom()(url);
    },
    ...engines,
    semantic: false,
  });
  await sift.search({ query: "cache" });
  const firstDoc = order.findIndex((f) => f.startsWith("d-"));
  assert.ok(order.indexOf(dictFile) >= 0 && order.indexOf(dictFile) < firstDoc, order.join(" "));
});

test("a round's shards are inflated as they arrive and added in the engine's order, a doc shard after the dictionary its round brings", async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(BUNDLE, "manifest.json"), "utf8"));
  const { initSync, SiftEngine } = await import("../../www/dist/sift_wasm_full.js");
  initSync({ module: engines.fullWasmUrl });
  const e = new SiftEngine(new Uint8Array(fs.readFileSync(path.join(BUNDLE, "manifest.json"))));
  const files = [manifest.startup.file, `${manifest.doc_store.files}-0.bin`];
  const bytes = files.map((f) => new Uint8Array(fs.readFileSync(path.join(BUNDLE, f))));
  const added = [];
  const adder = {
    isLoaded: () => false,
    addShard: (file, b, payload) => {
      added.push([file, payload?.length]);
      const answer = JSON.parse(e.addShard(file, b, payload));
      assert.ok(!answer.error, JSON.stringify(answer));
    },
    dictionary: (file) => e.docDictionary(file),
  };
  // The doc shard arrives first; the startup shard, which holds the dictionary, later.
  const late = new Promise((resolve) => setTimeout(() => resolve(bytes[0]), 30));
  await addShards(files, [late, bytes[1]], adder);
  const claimed = (b) => new DataView(b.buffer, b.byteOffset).getUint32(8, true);
  assert.deepEqual(added, files.map((f, i) => [f, claimed(bytes[i])]));

  // A later round's doc shards inflate with the dictionary an earlier round brought.
  added.length = 0;
  const docs = [1, 2, 3].map((n) => `${manifest.doc_store.files}-${n}.bin`);
  const docBytes = docs.map((f) => new Uint8Array(fs.readFileSync(path.join(BUNDLE, f))));
  await addShards(docs, docBytes.map((b, i) => new Promise((resolve) => setTimeout(() => resolve(b), 30 - 10 * i))), adder);
  assert.deepEqual(added, docs.map((f, i) => [f, claimed(docBytes[i])]));

  // A fetch that fails is the round's error, and nothing of the round is added.
  added.length = 0;
  const failed = Promise.reject(new SiftError("bundle_unavailable", "bundle shard gone"));
  await assert.rejects(addShards(files, [bytes[0], failed], adder), /bundle shard gone/);
  assert.deepEqual(added, []);
});

/** Doc shards with every seventh byte from the 20th flipped: the header intact, the deflate stream not. */
const damageDocShards = (name, b) => {
  if (!name.startsWith("d-")) return b;
  const c = b.slice();
  for (let i = 20; i < c.length; i += 7) c[i] ^= 0x5a;
  return c;
};

/** The refusal of a damaged doc shard: bundle_corrupt, naming the shard and what is wrong. */
function namesTheDamagedDocShard(e) {
    assert.ok(e instanceof SiftError);
    assert.equal(e.code, "bundle_corrupt");
    assert.match(e.message, /shard d-[0-9a-f]+-\d+\.bin (does not decompress|fails its payload checksum)/);
    return true;
}

test("a doc shard whose deflate stream is damaged is refused as corrupt, named by the keyword engine itself", async () => {
  // Doc shards carry no manifest checksum: what refuses a damaged one is that it does not
  // inflate, or that its payload fails the header's CRC. The error's text is the keyword
  // engine's own (every engine carries its texts): no other runtime is fetched for it.
  const counts = [];
  const counting = (damage) => async (url) => {
    counts.push(path.basename(fileURLToPath(url)));
    return fetchFrom(damage)(url);
  };
  const load = (damage) => Sift.load(pathToFileURL(BUNDLE + "/").href, { fetch: counting(damage), wasmUrl: engines.wasmUrl, semantic: false });
  await assert.rejects((await load(damageDocShards)).search({ query: "cache", mode: "lexical" }), namesTheDamagedDocShard);
  await assert.rejects((await load(damageDocShards)).preload(), namesTheDamagedDocShard);
  assert.ok(!counts.some((f) => f.includes("full")), `no full runtime fetched: ${counts.join(" ")}`);
  // Intact, the same page answers.
  assert.ok((await (await load()).search({ query: "cache", mode: "lexical" })).results.length > 0);
});
