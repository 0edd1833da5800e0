// The full model as the query embedder (a page's `embedder: "model"`, or a bundle whose
// vectors come without the static encoder): its runtime's glue is passed in, the model and
// its tokenizer are fetched (and kept in the Cache API). sift.js imports this file only
// then, beside the embedder's glue, so a search box answering with the bundle's encoder (or
// keywords) never downloads it: 0.3 kB of sift.js's gzip.
//
// sift.js passes its own helpers in (`host`): a second copy of host.js would be a second
// SiftError class, which `instanceof` would not recognise.

/**
 * `mod`: the embedder's glue (sift_embed_wasm.js). `ctx`: {opts, modelBase, modelName, fetch,
 * stats, host: {asSiftError, fetchBytes}}. Resolves to `{embed(text) → Float32Array,
 * memoryBytes() → number}`.
 */
export async function modelEmbedder(mod, { opts, modelBase, modelName, fetch, stats, host }) {
  if (opts.embedWasmUrl instanceof WebAssembly.Module) await mod.default({ module_or_path: opts.embedWasmUrl });
  else await mod.default(opts.embedWasmUrl ? { module_or_path: fetch(String(opts.embedWasmUrl)) } : undefined);
  const cached = (url, what) => cachedBytes(url, modelName, what, opts.fetch === undefined, (u, w) => host.fetchBytes(fetch, u, w));
  const [model, tokenizer] = await Promise.all([
    cached(modelBase + "model.onnx", "the embedding model"),
    cached(modelBase + "tokenizer.json", "the model's tokenizer"),
  ]);
  stats.bytesFetched += model.length + tokenizer.length;
  let embedder;
  try {
    embedder = new mod.SiftEmbedder(model, tokenizer, opts.modelMemory === "small");
  } catch (e) {
    throw host.asSiftError(e);
  }
  return {
    embed(text) {
      try {
        return embedder.embed(text);
      } catch (e) {
        throw host.asSiftError(e);
      }
    },
    memoryBytes: () => mod.SiftEmbedder.memoryBytes(),
  };
}

// The model (23 MB) is kept in the Cache API, keyed by its URL and the bundle's model name,
// so a returning visitor does not download it again even if the HTTP cache dropped it.
// (Only with the platform's fetch: a caller's fetch decides its own caching.)
async function cachedBytes(url, modelName, what, useCache, fetchBytes) {
  const key = `${url}?sift-model=${encodeURIComponent(modelName)}`;
  let cache = null;
  try {
    cache = globalThis.caches && useCache ? await globalThis.caches.open("sift-model-v1") : null;
    const hit = cache && (await cache.match(key));
    if (hit) return new Uint8Array(await hit.arrayBuffer());
  } catch (_) {
    cache = null; // no Cache API here (insecure context, private mode): plain fetch
  }
  const bytes = await fetchBytes(url, what);
  if (cache) await cache.put(key, new Response(bytes)).catch(() => {}); // a full quota only costs the next visit a download
  return bytes;
}
