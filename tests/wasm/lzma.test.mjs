// The LZMA decoder sift.js reads its engines with (www/src/lzma.js over crates/sift-lzma's
// wasm; the build writes both into www/dist), on streams written by
// the packer the build uses (scripts/pack-engine.py, Python's liblzma): every kind of input
// decodes to exactly the bytes packed, and no damaged, truncated or malformed stream hangs,
// throws anything but an Error that says so, or yields bytes of another length.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { ROOT, TARGET, skipUnlessCI } from "../support.mjs";

const built = fs.existsSync(path.join(ROOT, "www/dist/lzma-wasm.js"));
const { lzmaDecode } = built ? await import("../../www/dist/lzma.js") : {};
const hasPython = spawnSync("python3", ["-c", "import lzma"]).status === 0;
const noBuild = skipUnlessCI(built ? false : "www/dist is not built (scripts/build-wasm.sh)");
const skip = skipUnlessCI(noBuild || (hasPython ? false : "python3 with its lzma module is not installed (the packer needs it)"));

// The code streams' tool as the build uses it (scripts/build-wasm.sh builds it); without
// it the packer runs it through cargo.
const STREAMS_TOOL = path.join(TARGET, "release/sift-code-streams");
const streamsArgs = () => (fs.existsSync(STREAMS_TOOL) ? ["--streams", STREAMS_TOOL] : []);

/** `bytes` packed as the build packs an engine. */
function pack(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-lzma-"));
  try {
    fs.writeFileSync(path.join(dir, "in"), bytes);
    const r = spawnSync("python3", [path.join(ROOT, "scripts/pack-engine.py"), ...streamsArgs(), path.join(dir, "in"), path.join(dir, "out")], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return fs.readFileSync(path.join(dir, "out"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Deterministic "random" bytes: the tests must not change from run to run.
const noise = (n, seed) => {
  const out = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
};
const words = (n) => {
  const vocab = ["search", "index", "shard", "query", "the", "of", "wasm", "engine", "posting", "fuzzy", "\n", "  ", "{", "}"];
  const r = noise(n, 7);
  return Buffer.from(Array.from(r, (b) => vocab[b % vocab.length]).join(" "));
};

const SAMPLES = {
  empty: Buffer.alloc(0),
  "one byte": Buffer.from([42]),
  "1 MB of zeros (long repeated matches)": Buffer.alloc(1 << 20),
  "64 kB of noise (literals only)": noise(64 << 10, 1),
  "text from a small vocabulary (every kind of repeat)": words(40000),
  "a wasm engine": fs.existsSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))
    ? fs.readFileSync(path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm"))
    : words(1000),
};

test("every kind of input decodes to exactly the bytes packed", { skip }, async () => {
  for (const [what, bytes] of Object.entries(SAMPLES)) {
    const packed = pack(bytes);
    const out = await lzmaDecode(new Uint8Array(packed));
    assert.ok(out instanceof Uint8Array, what);
    assert.ok(Buffer.from(out).equals(bytes), `${what}: decoded ${out.length} bytes of ${bytes.length}, or other bytes`);
  }
});

/** Decoding `bytes` either gives `size` bytes or throws an Error naming the file's kind. */
async function decodesOrSaysWhy(bytes, size, what) {
  let out;
  try {
    out = await lzmaDecode(bytes);
  } catch (e) {
    assert.ok(e instanceof Error, `${what}: threw ${e}`);
    assert.match(e.message, /^not an LZMA engine file: /, what);
    return false;
  }
  assert.equal(out.length, size, `${what}: decoded to ${out.length} bytes, not ${size}`);
  return true;
}

test("a truncated stream is an error, or decodes whole (only the end marker cut)", { skip }, async () => {
  const bytes = SAMPLES["text from a small vocabulary (every kind of repeat)"].subarray(0, 6000);
  const packed = new Uint8Array(pack(bytes));
  let whole = 0;
  for (let n = 0; n < packed.length; n++) {
    if (await decodesOrSaysWhy(packed.subarray(0, n), bytes.length, `first ${n} bytes`)) {
      assert.ok(Buffer.from(await lzmaDecode(packed.subarray(0, n))).equals(bytes), `first ${n} bytes decode to other bytes`);
      whole++;
    }
  }
  // The stream's last bytes are its end marker and the range coder's flush, which the
  // decoder (told the size) does not read: at most those prefixes decode.
  assert.ok(whole <= 8, `${whole} truncated streams decoded`);
  await assert.rejects(lzmaDecode(packed.subarray(0, packed.length >> 1)), /truncated/);
});

test("a damaged stream is an error or bytes of the right length, never a hang", { skip }, async () => {
  const bytes = SAMPLES["text from a small vocabulary (every kind of repeat)"];
  const packed = new Uint8Array(pack(bytes));
  const r = noise(3 * 300, 99);
  let refused = 0;
  for (let k = 0; k < 300; k++) {
    const damaged = packed.slice();
    const at = 14 + ((r[3 * k] << 8) | r[3 * k + 1]) % (packed.length - 14);
    damaged[at] ^= r[3 * k + 2] | 1;
    if (!(await decodesOrSaysWhy(damaged, bytes.length, `byte ${at} flipped`))) refused++;
  }
  // LZMA has no checksum: some damage decodes to other bytes (the engine's wasm validation
  // refuses those, tests/wasm/packed.test.mjs); most makes the stream inconsistent.
  assert.ok(refused > 150, `only ${refused} of 300 damaged streams refused`);
});

test("a malformed header is refused with what is wrong", { skip: noBuild }, async () => {
  const stream = (header) => new Uint8Array([...header, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const size = (n) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24, 0, 0, 0, 0];
  const cases = [
    [new Uint8Array(0), /too short/],
    [new Uint8Array(17), /too short/],
    [stream([225, 0, 0, 1, 0, ...size(10)]), /unsupported properties/],
    [stream([3 + 9 * 2, 0, 0, 1, 0, ...size(10)]), /unsupported properties/], // lc + lp over 4
    [stream([3, 0, 0, 1, 0, 255, 255, 255, 255, 255, 255, 255, 255]), /decoded size not given/],
    [stream([3, 0, 0, 1, 0, ...size((64 << 20) + 1)]), /over 64 MB/],
    [new Uint8Array([3, 0, 0, 1, 0, ...size(10), 7, 0, 0, 0, 0]), /bad range coder start/],
    [new Uint8Array([3, 0, 0, 1, 0, ...size(10), 0, 0, 0, 0, 0]), /truncated/],
  ];
  for (const [bytes, why] of cases) await assert.rejects(lzmaDecode(bytes), why);
  // Then a good file still decodes: an error leaves the decoder as it was.
  const one = new Uint8Array([3, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 48, 195, 235, 255, 255, 255, 225, 0, 0, 0]);
  assert.deepEqual([...(await lzmaDecode(one))], [97]);
});

test("the packer refuses what it cannot read, and writes nothing then", { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-lzma-"));
  try {
    const out = path.join(dir, "out.lzma");
    const r = spawnSync("python3", [path.join(ROOT, "scripts/pack-engine.py"), path.join(dir, "missing.wasm"), out], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /pack-engine: .*missing\.wasm/);
    assert.ok(!fs.existsSync(out));
    const usage = spawnSync("python3", [path.join(ROOT, "scripts/pack-engine.py")], { encoding: "utf8" });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /usage: pack-engine\.py \[--streams sift-code-streams\] IN OUT/);
    // Bytes that begin as a module in code streams would be misread by the page.
    fs.writeFileSync(path.join(dir, "split"), Buffer.from("\0sw1 not a module"));
    const split = spawnSync("python3", [path.join(ROOT, "scripts/pack-engine.py"), path.join(dir, "split"), out], { encoding: "utf8" });
    assert.equal(split.status, 1);
    assert.match(split.stderr, /begins as a module in code streams would/);
    // A file that says it is a module but is not one cannot be split.
    fs.writeFileSync(path.join(dir, "bad.wasm"), Buffer.from("\0asm\x01\0\0\0\x0a\x09"));
    const bad = spawnSync("python3", [path.join(ROOT, "scripts/pack-engine.py"), ...streamsArgs(), path.join(dir, "bad.wasm"), out], { encoding: "utf8" });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /cannot split: not a wasm module/);
    assert.ok(!fs.existsSync(out));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** `bytes` as LZMA exactly as given (no code streams): what a damaged split form decodes to. */
function packRaw(bytes) {
  const py = "import lzma,struct,sys;d=sys.stdin.buffer.read();p=lzma.compress(d,format=lzma.FORMAT_ALONE);sys.stdout.buffer.write(p[:5]+struct.pack('<Q',len(d))+p[13:])";
  const r = spawnSync("python3", ["-c", py], { input: bytes });
  assert.equal(r.status, 0, String(r.stderr));
  return new Uint8Array(r.stdout);
}

/** A module's code as streams (`sift-code-streams split`). */
function splitForm(module) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-streams-"));
  try {
    fs.writeFileSync(path.join(dir, "in"), module);
    const tool = fs.existsSync(STREAMS_TOOL) ? [STREAMS_TOOL] : ["cargo", "run", "--quiet", "--release", "-p", "sift-lzma", "--bin", "sift-code-streams", "--"];
    const r = spawnSync(tool[0], [...tool.slice(1), "split", path.join(dir, "in"), path.join(dir, "out")], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return fs.readFileSync(path.join(dir, "out"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const engineFile = path.join(ROOT, "www/dist/sift_wasm_keyword_bg.wasm");
const noEngine = skipUnlessCI(skip || (fs.existsSync(engineFile) ? false : "the keyword engine is not built"));

test("an engine is packed as code streams, smaller, and unpacks to its module", { skip: noEngine }, async () => {
  const module = fs.readFileSync(engineFile);
  const packed = pack(module);
  // The header's decoded size is the split form's: the module and the streams' header (72).
  assert.equal(Buffer.from(packed).readUInt32LE(5), module.length + 72);
  assert.ok(packed.length < packRaw(module).length * 0.95, `code streams ${packed.length} bytes vs plain ${packRaw(module).length}`);
  assert.ok(Buffer.from(await lzmaDecode(new Uint8Array(packed))).equals(module));
  await WebAssembly.compile(await lzmaDecode(new Uint8Array(packed)));
});

test("a damaged code stream form is refused with what is wrong", { skip: noEngine }, async () => {
  const form = splitForm(fs.readFileSync(engineFile));
  const u32 = (b, at, v) => b.writeUInt32LE(v, at);
  // The module's length not what the form holds.
  const longer = Buffer.from(form);
  u32(longer, 4, form.readUInt32LE(4) + 1);
  await assert.rejects(lzmaDecode(packRaw(longer)), /header that does not add up/);
  // Streams that do not add up to the code.
  const lengths = Buffer.from(form);
  u32(lengths, 16, form.readUInt32LE(16) + 1);
  await assert.rejects(lzmaDecode(packRaw(lengths)), /header that does not add up/);
  // A byte moved from the opcodes to the offsets: the lengths add up, the code does not.
  const moved = Buffer.from(form);
  u32(moved, 16, form.readUInt32LE(16) - 1);
  u32(moved, 16 + 4 * 13, form.readUInt32LE(16 + 4 * 13) + 1);
  await assert.rejects(lzmaDecode(packRaw(moved)), /code stream that ends early|bytes to spare|does not know/);
  // An opcode no engine has (0xff) where the first one is.
  const opcodes = 72 + form.readUInt32LE(4) - form.readUInt32LE(12);
  const bad = Buffer.from(form);
  bad[opcodes] = 0xff;
  await assert.rejects(lzmaDecode(packRaw(bad)), /code the stream layout does not know/);
  // Cut short.
  await assert.rejects(lzmaDecode(packRaw(form.subarray(0, 40))), /header that does not add up/);
  // And the decoder still unpacks a good engine after each refusal.
  assert.equal((await lzmaDecode(packRaw(form))).length, form.readUInt32LE(4));
});
