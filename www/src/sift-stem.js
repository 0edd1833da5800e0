// A stemmer module for the keyword and lean engines (stem/<code>.wasm.lzma beside sift.js,
// from crates/sift-stem-wasm), loaded by sift.js for a bundle in a stemmed language other
// than English, and kept in the registry the engines ask (`globalThis.__siftStemmers`).
// A module of its own: an English page never downloads it.

const loads = new Map(); // code → Promise, once per page
const FILES = { nb: "no", nn: "no" }; // Norwegian Bokmål and Nynorsk: Snowball's Norwegian

/**
 * Load `code`'s stemmer into the registry (once). `folderUrl`: the modules' folder, ending in "/"
 * (fetched with `fetchImpl`), else stem/ beside this file; `engineModule(url, fetch)`: sift.js's
 * fetch-and-compile (an `.lzma` file is decoded). Rejects when the module cannot be loaded
 * or does not stem the language; the next call tries again.
 */
export function loadStemmer(code, folderUrl, fetchImpl, engineModule) {
  const registry = globalThis.__siftStemmers;
  if (registry.has(code)) return Promise.resolve();
  if (!loads.has(code)) {
    const name = FILES[code] ?? code;
    const file = `${name}.wasm.lzma`;
    const p = (async () => {
      const module = folderUrl
        ? await engineModule(folderUrl + file, fetchImpl)
        : await engineModule(new URL(`stem/${file}`, import.meta.url).href, globalThis.fetch.bind(globalThis));
      const x = (await WebAssembly.instantiate(module)).exports;
      const encoder = new TextEncoder();
      const decoder = new TextDecoder();
      // The module's one buffer: the text in, the stem out (-1: leave the word).
      const put = (text) => {
        const bytes = encoder.encode(text);
        if (bytes.length > x.capacity()) return -1;
        new Uint8Array(x.memory.buffer, x.buffer(), bytes.length).set(bytes);
        return bytes.length;
      };
      if (x.language(put(name)) !== 1) throw new Error(`${file} has no stemmer for ${code}`);
      registry.set(code, (word) => {
        const n = put(word);
        const m = n < 0 ? -1 : x.stem(n);
        return m < 0 ? null : decoder.decode(new Uint8Array(x.memory.buffer, x.buffer(), m));
      });
    })();
    p.catch(() => loads.delete(code));
    loads.set(code, p);
  }
  return loads.get(code);
}
