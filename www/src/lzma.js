// An LZMA decoder for the engines sift.js fetches (`<name>_bg.wasm.lzma`, written by
// scripts/pack-engine.py). Why LZMA and not the platform's DecompressionStream: on the engines
// it is 11-12% smaller than an optimal deflate (keyword engine 111.2 -> 98.4 kB), the
// largest cut left in the bytes to a first result, for a decoder of about 1.5 kB gzip.
// Pagefind ships its own gunzip in its JS for the same reason (the bytes on the wire must
// not depend on the host).
//
// The format is LZMA "alone" (.lzma) as liblzma writes it: a properties byte
// (lc + 9 * (lp + 5 * pb)), the dictionary size (u32 LE) and the decoded size (u64 LE), then
// the range-coded stream. The size must be given (the packer writes it): the output is
// allocated once and the stream is decoded into it, matches copied from what is already
// there. The algorithm is the reference decoder's (LzmaSpec.cpp in the LZMA SDK), written
// once here; every way a stream can be wrong — truncated, a distance before the start, a
// length past the end, an end marker too early — is an error, never a hang or a short file.

/** A decoded engine is at most this large (the full engine is 0.36 MB). */
const MAX_SIZE = 64 << 20;
const PROB_INIT = 1024; // probabilities are 11-bit: 1024 is one half

/** The decoded bytes of an `.lzma` file, or an Error saying why it is not one. */
export function lzmaDecode(input) {
  const fail = (why) => {
    throw new Error(`not an LZMA engine file: ${why}`);
  };
  if (input.length < 18) fail(`${input.length} bytes is too short`);
  let props = input[0];
  if (props >= 9 * 5 * 5) fail(`properties byte ${props}`);
  const lc = props % 9;
  props = (props / 9) | 0;
  const lp = props % 5;
  const pb = (props / 5) | 0;
  const size = (input[5] | (input[6] << 8) | (input[7] << 16) | (input[8] << 24)) >>> 0;
  if (input[9] | input[10] | input[11] | input[12] || size > MAX_SIZE) fail("decoded size not given or over 64 MB");

  let at = 13;
  const next = () => {
    if (at >= input.length) fail("truncated");
    return input[at++];
  };
  // The range decoder. `range` and `code` are below 2^32, kept as plain numbers.
  if (next() !== 0) fail("bad range coder start");
  let range = 0xffffffff;
  let code = 0;
  for (let i = 0; i < 4; i++) code = code * 256 + next();
  if (code === range) fail("bad range coder start");
  const bit = (probs, i) => {
    const p = probs[i];
    const bound = (range >>> 11) * p;
    let b = 0;
    if (code < bound) {
      range = bound;
      probs[i] = p + ((2048 - p) >>> 5);
    } else {
      range -= bound;
      code -= bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if (range < 0x1000000) {
      range *= 256;
      code = code * 256 + next();
    }
    return b;
  };
  const direct = (n) => {
    let v = 0;
    while (n--) {
      range = range >>> 1;
      let b = 0;
      if (code >= range) {
        code -= range;
        b = 1;
      }
      v = v * 2 + b;
      if (range < 0x1000000) {
        range *= 256;
        code = code * 256 + next();
      }
    }
    return v;
  };
  /** A symbol of `bits` bits, most significant first, from the tree at probs[off + 1..]. */
  const tree = (probs, off, bits) => {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + bit(probs, off + m);
    return m - (1 << bits);
  };
  /** The same, least significant bit first. */
  const reverse = (probs, off, bits) => {
    let m = 1;
    let v = 0;
    for (let i = 0; i < bits; i++) {
      const b = bit(probs, off + m);
      m = (m << 1) + b;
      v |= b << i;
    }
    return v;
  };
  const probs = (n) => new Uint16Array(n).fill(PROB_INIT);
  const lengths = () => ({ choice: probs(2), low: probs(16 << 3), mid: probs(16 << 3), high: probs(256) });
  const length = (l, posState) => {
    if (bit(l.choice, 0) === 0) return tree(l.low, posState << 3, 3);
    if (bit(l.choice, 1) === 0) return 8 + tree(l.mid, posState << 3, 3);
    return 16 + tree(l.high, 0, 8);
  };

  const literals = probs(0x300 << (lc + lp));
  const isMatch = probs(12 << 4);
  const isRep = probs(12);
  const isRepG0 = probs(12);
  const isRepG1 = probs(12);
  const isRepG2 = probs(12);
  const isRep0Long = probs(12 << 4);
  const posSlots = probs(4 << 6);
  const posSpecial = probs(1 + 128 - 14);
  const align = probs(16);
  const matchLengths = lengths();
  const repLengths = lengths();

  const out = new Uint8Array(size);
  let n = 0;
  let state = 0;
  let rep0 = 0, rep1 = 0, rep2 = 0, rep3 = 0;
  const pbMask = (1 << pb) - 1;
  const lpMask = (1 << lp) - 1;
  while (n < size) {
    const posState = n & pbMask;
    if (bit(isMatch, (state << 4) + posState) === 0) {
      const prev = n > 0 ? out[n - 1] : 0;
      const base = 0x300 * (((n & lpMask) << lc) + (prev >>> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        // After a match: the byte at rep0 guides the first bits while they agree.
        let match = out[n - rep0 - 1];
        do {
          const matchBit = (match >>> 7) & 1;
          match <<= 1;
          const b = bit(literals, base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(literals, base + symbol);
      out[n++] = symbol - 0x100;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len;
    if (bit(isRep, state) !== 0) {
      if (n === 0) fail("a repeated match before any byte");
      if (bit(isRepG0, state) === 0) {
        if (bit(isRep0Long, (state << 4) + posState) === 0) {
          state = state < 7 ? 9 : 11;
          out[n] = out[n - rep0 - 1];
          n++;
          continue;
        }
      } else {
        let dist;
        if (bit(isRepG1, state) === 0) dist = rep1;
        else {
          if (bit(isRepG2, state) === 0) dist = rep2;
          else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = length(repLengths, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = length(matchLengths, posState);
      state = state < 7 ? 7 : 10;
      const slot = tree(posSlots, Math.min(len, 3) << 6, 6);
      if (slot < 4) rep0 = slot;
      else {
        const bits = (slot >>> 1) - 1;
        rep0 = (2 | (slot & 1)) * 2 ** bits;
        if (slot < 14) rep0 += reverse(posSpecial, rep0 - slot, bits);
        else rep0 += direct(bits - 4) * 16 + reverse(align, 0, 4);
      }
      if (rep0 === 0xffffffff) fail(`ends after ${n} of ${size} bytes`);
      if (rep0 >= n) fail("a match before the start");
    }
    len += 2;
    if (n + len > size) fail("a match past the end");
    for (const end = n + len; n < end; n++) out[n] = out[n - rep0 - 1];
  }
  return out;
}
