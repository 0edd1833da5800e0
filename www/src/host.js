// The host side of the engine's contract, once for every JavaScript surface (the wrapper
// `sift.js`, the search box, the worker, MCP, the extension): errors as SiftError, the
// engine's HTML-safe strings as plain parts, bundle URLs, fetching with one error mapping,
// and the host loop that answers the engine's `{need: [files]}`.

import { LIMITS } from "./contract.js";

export class SiftError extends Error {
  constructor(code, message, cause) {
    super(message);
    this.name = "SiftError";
    this.code = code;
    if (cause !== undefined) this.cause = cause;
  }
  toJSON() {
    return { code: this.code, message: this.message };
  }
}

/** The language of a BCP 47 tag, lowercased (`pt-BR` → `pt`, `zh_Hant` → `zh`; "" for none). */
export function primaryLanguage(tag) {
  return typeof tag === "string" ? tag.trim().split(/[-_]/)[0].toLowerCase() : "";
}

/** Turn whatever a wasm call (or a host) threw into a SiftError. */
export function asSiftError(e) {
  if (e instanceof SiftError) return e;
  if (e && typeof e === "object" && typeof e.code === "string" && typeof e.message === "string") {
    return new SiftError(e.code, e.message);
  }
  // The engine's error as JSON text: thrown as is, or as the message of the Error its
  // constructor throws for a manifest it cannot open.
  const text = typeof e === "string" ? e : e instanceof Error && e.message.startsWith('{"code":') ? e.message : null;
  if (text !== null) {
    try {
      const o = JSON.parse(text);
      if (o && typeof o.code === "string") return new SiftError(o.code, o.message);
    } catch (_) {
      /* not JSON: fall through */
    }
    return new SiftError("internal", text);
  }
  if (typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError) {
    return new SiftError("internal", `the search engine stopped unexpectedly (${e.message}); it will be reloaded`, e);
  }
  return new SiftError("internal", String(e && e.message ? e.message : e), e);
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'", "#x27": "'" };

/**
 * The engine's HTML-safe strings (result titles and snippets: escaped text, matches in
 * <mark>) as plain parts, entities decoded: [{text, mark}]. Every surface renders from
 * this — DOM text nodes, omnibox XML, plain text for agents — never by parsing HTML.
 */
export function markedParts(html) {
  const parts = [];
  let mark = false;
  for (const piece of String(html ?? "").split(/(<mark>|<\/mark>)/)) {
    if (piece === "<mark>") mark = true;
    else if (piece === "</mark>") mark = false;
    else if (piece) parts.push({ text: piece.replace(/&(amp|lt|gt|quot|apos|#39|#x27);/g, (_, e) => ENTITIES[e]), mark });
  }
  return parts;
}

/** An HTML-safe string as plain text. */
export const plainText = (html) => markedParts(html).map((p) => p.text).join("");

/**
 * A bundle folder's URL, ending in "/": relative bases resolve against the page. With
 * `{ userInput: true }` (a URL someone typed), only absolute http(s) URLs are accepted and
 * their query and fragment are dropped.
 */
export function bundleBase(base, { userInput = false } = {}) {
  let b = String(base ?? "/_sift/");
  if (userInput) {
    let u;
    try {
      u = new URL(b);
    } catch (_) {
      throw new SiftError("invalid_request", `not a URL: ${JSON.stringify(b)} (expected something like https://example.org/_sift/)`);
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new SiftError("invalid_request", "bundle URLs must be http(s)");
    u.search = "";
    u.hash = "";
    b = u.href;
  }
  if (!b.endsWith("/")) b += "/";
  try {
    return new URL(b, globalThis.location ? globalThis.location.href : undefined).href;
  } catch (_) {
    return b; // a relative base with no page URL (workers with a custom fetch)
  }
}

/** Fetch a bundle file: a Response that is ok, or a SiftError (404 → bundle_missing). */
export async function fetchOk(fetchImpl, url, what, init) {
  let res;
  try {
    res = await fetchImpl(url, init);
  } catch (e) {
    throw new SiftError("network", `${what} could not be fetched from ${url}: ${e && e.message ? e.message : e}`, e);
  }
  if (!res.ok) {
    throw new SiftError(res.status === 404 ? "bundle_missing" : "network", `${what} at ${url} answered HTTP ${res.status}`);
  }
  return res;
}

export async function fetchBytes(fetchImpl, url, what) {
  const res = await fetchOk(fetchImpl, url, what);
  return new Uint8Array(await res.arrayBuffer());
}

const HEADER = 16; // a shard file's header: magic, version, kind, codec, payload length, CRC
const DEFLATE = 1;
const DEFLATE_AFTER_DICTIONARY = 2; // a doc shard compressed after the doc store's dictionary

/** A dictionary as stored deflate blocks, none final (as `sift_format::bundle::dictionary`). */
function storedBlocks(dictionary) {
  const blocks = [];
  for (let at = 0; at < dictionary.length; at += 65535) {
    const block = dictionary.subarray(at, at + 65535);
    const n = block.length;
    // BFINAL 0, BTYPE 00 (stored), padding to the byte; LEN and its complement, LE.
    blocks.push(new Uint8Array([0, n & 255, n >> 8, ~n & 255, (~n >> 8) & 255]), block);
  }
  return blocks;
}

/**
 * `parts`, one raw deflate stream, as a stream of inflated chunks. Written into the
 * DecompressionStream from here: a Blob's stream reads its bytes back from the browser
 * process, which cost 1.7 ms a shard on the main thread (0.15 ms this way; Chromium, 12
 * term shards) — some 25 ms of a cold first query's 16 shards. A chunk goes in at most
 * 16 KB at a time, so a stream that inflates far past its claimed length is stopped
 * (`inflatedPayload` cancels the reader) before it has expanded much more of its input.
 */
export function inflating(parts) {
  const ds = new DecompressionStream("deflate-raw");
  const writer = ds.writable.getWriter();
  const fed = (async () => {
    for (const part of parts) for (let at = 0; at < part.length; at += 16384) await writer.write(part.subarray(at, at + 16384));
    await writer.close();
  })();
  fed.catch(() => {}); // a corrupt stream or a cancelled reader: the reader reports it
  return ds.readable;
}

/**
 * The payload of a deflated shard file, inflated with the platform's DecompressionStream
 * (the browser engine carries no inflater of its own; it checks what this returns against
 * the shard's header: length and CRC-32). Undefined for a stored shard, for bytes that are
 * no shard at all and for a stream that does not inflate within the length its header
 * claims (so a corrupt or hostile stream cannot fill memory): the engine then checks the
 * file and says what is wrong with it, as it would have with an inflater of its own.
 * A doc shard compressed after the doc store's dictionary (codec 2) is inflated as one
 * stream with the dictionary before it as stored blocks, whose output is the dictionary
 * and then the payload; without the dictionary it gets no payload.
 */
export async function inflatedPayload(bytes, dictionary) {
  if (bytes.length < HEADER) return undefined;
  const codec = bytes[7];
  if (codec !== DEFLATE && !(codec === DEFLATE_AFTER_DICTIONARY && dictionary)) return undefined;
  const claimed = new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  if (claimed > LIMITS.maxShardPayload) return undefined;
  const skip = codec === DEFLATE_AFTER_DICTIONARY ? dictionary.length : 0;
  const parts = codec === DEFLATE_AFTER_DICTIONARY ? [...storedBlocks(dictionary), bytes.subarray(HEADER)] : [bytes.subarray(HEADER)];
  const chunks = [];
  let at = 0;
  try {
    const reader = inflating(parts).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.length > skip + claimed) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
      at += value.length;
    }
  } catch (_) {
    return undefined; // not a deflate stream
  }
  if (chunks.length === 1 && skip === 0) return chunks[0];
  const out = new Uint8Array(at); // a short payload fails the engine's check
  let to = 0;
  for (const c of chunks) {
    out.set(c, to);
    to += c.length;
  }
  return out.subarray(Math.min(skip, at));
}

/**
 * Add shard files to an engine in the order given (the engine lists the doc store's
 * dictionary before the doc shards read with it), each payload inflated here. `fetched`
 * holds each file's bytes or a promise of them. Each payload is inflated as soon as its
 * bytes arrive, side by side with the others, not in turn after the round's last file
 * (each inflation takes several trips through the event loop); one compressed after the
 * dictionary, when no earlier round brought it, waits until the shards before it in this
 * round (which bring it) are added. `dictionary(file)`: the dictionary that file is read with
 * (a delta's doc shards have their own), when it is known.
 */
export async function addShards(files, fetched, { isLoaded, addShard, dictionary }) {
  const early = fetched.map((p, i) => {
    const known = dictionary(files[i]); // brought by an earlier round, if any
    return Promise.resolve(p).then((b) => (b[7] === DEFLATE_AFTER_DICTIONARY && !known ? null : inflatedPayload(b, known)), () => null);
  });
  const bytes = await Promise.all(fetched); // the first fetch that fails is the error
  for (let i = 0; i < files.length; i++) {
    if (isLoaded(files[i])) continue;
    const payload = await early[i];
    addShard(files[i], bytes[i], payload === null ? await inflatedPayload(bytes[i], dictionary(files[i])) : payload);
  }
}

/**
 * An engine call's answer, JSON text: `{done}`, `{need: [files]}` or `{error: {code,
 * message}}`, which is thrown as a SiftError.
 */
export function engineStep(text) {
  const step = JSON.parse(text);
  if (step.error) throw asSiftError(step.error);
  return step;
}

/**
 * The host loop: `call()` returns the engine's answer (`engineStep`); needed files are
 * fetched by `shardBytes(file)` (in parallel), inflated as they arrive and added in the
 * engine's order (`addShards`), and the call is repeated.
 */
export async function drive(call, { shardBytes, ...engine }) {
  for (let round = 0; round < LIMITS.maxHostRounds; round++) {
    const step = engineStep(call());
    if (step.need === undefined) return step.done;
    const files = step.need;
    await addShards(files, files.map((f) => shardBytes(f)), engine);
  }
  throw new SiftError("internal", "the engine kept asking for shards");
}
