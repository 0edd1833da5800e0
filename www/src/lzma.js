// Unpacks the engines sift.js fetches (`<name>_bg.wasm.lzma`, written by
// scripts/pack-engine.py: the module's code as streams, then LZMA) with the decoder of
// crates/sift-lzma (LZMA, then the streams joined back into the module), a 5.4 kB wasm module
// carried here inline (lzma-wasm.js, deflated and base64, written by scripts/build-wasm.sh). Why LZMA: on
// the engines it is 11-12% below an optimal deflate (keyword engine 111.2 -> 98.4 kB), the
// largest cut left in the bytes to a first result. Why wasm: the same decoder in JS took
// 50 ms on its one cold run (a single call never reaches the JS engine's optimising tiers);
// this one takes 8 ms, 15 with its compilation. Pagefind ships its own gunzip for the reason
// we compress at all: the bytes on the wire must not depend on the host.

import { LZMA_WASM } from "./lzma-wasm.js";
import { inflating } from "./host.js";

// The crate's errors (`sift_lzma::Error`), by number.
const WHY = [
  "",
  "too short",
  "unsupported properties",
  "decoded size not given or over 64 MB",
  "bad range coder start",
  "truncated",
  "a repeated match before any byte",
  "the stream ends before its size",
  "a match before the start",
  "a match past the end",
  "output of the wrong size",
  "not a wasm module",
  "code the stream layout does not know",
  "a code stream header that does not add up, or bytes to spare",
  "a code stream that ends early",
];

let decoder;

// The decoder's wasm, carried deflated (3.1 kB of sift.js's gzip instead of 4.0 as plain
// base64) and inflated by the platform's DecompressionStream, as shards are (`inflating`).
function decoderWasm() {
  return new Response(inflating([Uint8Array.from(atob(LZMA_WASM), (c) => c.charCodeAt(0))])).arrayBuffer();
}

/** The decoder, compiled once: call it early (while the file downloads). A function from
 * an `.lzma` file's bytes to the decoded bytes (a module packed as code streams: the
 * module); it throws an Error saying why a file is not one. */
export function lzmaDecoder() {
  decoder ??= decoderWasm().then((bytes) => WebAssembly.instantiate(bytes)).then(({ instance }) => {
    const x = instance.exports;
    const room = (end) => {
      const short = end - x.memory.buffer.byteLength;
      if (short > 0) x.memory.grow(Math.ceil(short / 65536));
    };
    const check = (r) => {
      if (r < 0) throw new Error(`not an LZMA engine file: ${WHY[-r] ?? `error ${-r}`}`);
      return r;
    };
    return (input) => {
      // The file at the heap's start, the output after it; the memory grows to hold both.
      const at = x.__heap_base.value;
      room(at + input.length);
      new Uint8Array(x.memory.buffer, at, input.length).set(input);
      const size = check(x.lzma_decoded_size(at, input.length));
      let out = at + input.length;
      room(out + size);
      check(x.lzma_decode(at, input.length, out, size));
      let len = size;
      // An engine is packed with its code as streams (crates/sift-lzma's code_streams,
      // "\0sw1"): joined back into the module after the decoded bytes.
      const head = new Uint8Array(x.memory.buffer, out, Math.min(4, size));
      if (String.fromCharCode(...head) === "\0sw1") {
        len = check(x.streams_joined_size(out, size));
        room(out + size + len);
        check(x.streams_join(out, size, out + size, len));
        out += size;
      }
      return new Uint8Array(x.memory.buffer, out, len).slice();
    };
  });
  return decoder;
}

/** The decoded bytes of an `.lzma` file; rejects with an Error saying why it is not one. */
export async function lzmaDecode(input) {
  return (await lzmaDecoder())(input);
}
