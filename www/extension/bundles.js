// Bundles the extension searches: one packaged inside the extension (bundles/sample/) and
// any the user adds by URL. Added bundles are downloaded once into the Cache API (every file
// the manifest lists) and read from there ever after, so they answer offline; the list
// lives in chrome.storage.local. Shared by the service worker, the popup and the options page.

import { Sift, SiftError, bundleBase, fetchOk } from "./sift.js";

export const PACKAGED = { id: "sample", name: "Sift sample docs", base: chrome.runtime.getURL("bundles/sample/"), packaged: true };
const LIST_KEY = "bundles";
const SETTINGS_KEY = "bundleSettings"; // id → {weight, filters}: how the omnibox merges it
const cacheName = (id) => `sift-bundle:${id}`;

/** Every bundle, each with its weight (default 1) and filters in the omnibox's merge. */
export async function listBundles() {
  const { [LIST_KEY]: added = [], [SETTINGS_KEY]: settings = {} } = await chrome.storage.local.get([LIST_KEY, SETTINGS_KEY]);
  return [PACKAGED, ...added].map((b) => ({ weight: 1, ...b, ...settings[b.id] }));
}

/**
 * How a bundle weighs in the omnibox's merge of every bundle: `weight` (a positive number,
 * scaling its ranks) and `filters` (field → value or values, applied to its searches).
 */
export async function setBundleSettings(id, { weight = 1, filters } = {}) {
  if (!(await listBundles()).some((b) => b.id === id)) throw new SiftError("not_found", `no bundle ${id}`);
  if (typeof weight !== "number" || !(weight > 0) || !Number.isFinite(weight)) throw new SiftError("invalid_request", "the weight must be a positive number");
  const valid = filters === undefined || (filters && typeof filters === "object" && !Array.isArray(filters)
    && Object.values(filters).every((v) => typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"))));
  if (!valid) throw new SiftError("invalid_request", "filters are field → value (or a list of values)");
  const { [SETTINGS_KEY]: settings = {} } = await chrome.storage.local.get(SETTINGS_KEY);
  settings[id] = filters && Object.keys(filters).length ? { weight, filters } : { weight };
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
}

/** `type=guide, lang=en fr` → {type: "guide", lang: ["en", "fr"]}; "" → undefined. */
export function parseFilters(text) {
  const filters = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new SiftError("invalid_request", `a filter is field=value; got ${JSON.stringify(part)}`);
    const values = part.slice(eq + 1).trim().split(/\s+/).filter(Boolean);
    if (!values.length) throw new SiftError("invalid_request", `filter ${part.slice(0, eq).trim()} has no value`);
    filters[part.slice(0, eq).trim()] = values.length === 1 ? values[0] : values;
  }
  return Object.keys(filters).length ? filters : undefined;
}

/** Filters as `parseFilters` reads them. */
export function formatFilters(filters) {
  return Object.entries(filters ?? {}).map(([k, v]) => `${k}=${[].concat(v).join(" ")}`).join(", ");
}

async function saveList(added) {
  await chrome.storage.local.set({ [LIST_KEY]: added });
}

/** A fetch that answers from the bundle's cache only: added bundles never touch the network after download. */
export function cachedFetch(id) {
  return async (url) => {
    const cache = await caches.open(cacheName(id));
    const hit = await cache.match(url);
    if (hit) return hit;
    return new Response(`not in the offline copy: ${url}`, { status: 404 });
  };
}

/** How long one file of a bundle may take to arrive before it is asked for again. */
const FILE_TIMEOUT_MS = 10_000;
const FILE_ATTEMPTS = 3;

/**
 * One file of the bundle being added, body included. A request that stalls (a server or a
 * link that stops answering one of several parallel requests) is abandoned after
 * FILE_TIMEOUT_MS and asked for again, up to FILE_ATTEMPTS times; then the add fails with a
 * clear `network` error instead of "Adding…" forever.
 */
async function getFile(base, file) {
  const what = file === "manifest.json" ? "the bundle manifest (is this a Sift bundle URL?)" : `bundle shard ${file}`;
  for (let attempt = 1; ; attempt++) {
    const signal = AbortSignal.timeout(FILE_TIMEOUT_MS);
    try {
      const res = await fetchOk(fetch, base + file, what, { cache: "no-store", signal });
      const body = await res.arrayBuffer();
      return new Response(body, { status: res.status, headers: res.headers });
    } catch (e) {
      if (!signal.aborted) throw e;
      if (attempt >= FILE_ATTEMPTS) {
        throw new SiftError("network", `${what} at ${base + file} did not arrive within ${FILE_TIMEOUT_MS / 1000} s (${FILE_ATTEMPTS} attempts)`);
      }
    }
  }
}

async function download(id, base) {
  const get = (file) => getFile(base, file);
  const manifestRes = await get("manifest.json");
  const manifestBytes = await manifestRes.clone().arrayBuffer();
  // Validate before storing anything: the engine refuses what is not a Sift bundle. Every
  // file it loads (keyword shards, and the vectors and query encoder for semantic search,
  // which needs no model) is kept for the offline copy, downloaded once.
  const fetched = new Map();
  const probeFetch = async (url) => {
    if (url === base + "manifest.json") return new Response(manifestBytes);
    const res = await get(url.slice(base.length));
    fetched.set(url, await res.clone().arrayBuffer());
    return res;
  };
  // The lean runtime (the one the extension ships) reads every shard, the semantic ones too.
  const sift = await Sift.load(base, { fetch: probeFetch, semantic: false, runtime: "lean" });
  await sift.preload();
  const tmpName = `${cacheName(id)}:incoming`;
  await caches.delete(tmpName);
  const tmp = await caches.open(tmpName);
  let bytes = manifestBytes.byteLength;
  for (const [url, body] of fetched) {
    bytes += body.byteLength;
    await tmp.put(url, new Response(body, { headers: { "content-type": "application/octet-stream" } }));
  }
  await tmp.put(base + "manifest.json", new Response(manifestBytes, { headers: { "content-type": "application/json" } }));
  const files = [...fetched.keys()];
  // Swap the complete copy in: a failed download never leaves a half bundle.
  await caches.delete(cacheName(id));
  const final = await caches.open(cacheName(id));
  for (const req of await tmp.keys()) await final.put(req, await tmp.match(req));
  await caches.delete(tmpName);
  return { bytes, files: files.length + 1, documents: sift.info.documents };
}

export async function addBundle(url, name) {
  const base = bundleBase(url, { userInput: true });
  const list = await listBundles();
  if (list.some((b) => b.base === base)) throw new SiftError("invalid_request", `${base} is already added`);
  const id = `b${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const info = await download(id, base);
  const now = new Date().toISOString();
  const entry = { id, name: name || new URL(base).host, base, addedAt: now, updatedAt: now, ...info };
  await saveList([...list.filter((b) => !b.packaged), entry]);
  return entry;
}

export async function refreshBundle(id) {
  const list = (await listBundles()).filter((b) => !b.packaged);
  const entry = list.find((b) => b.id === id);
  if (!entry) throw new SiftError("not_found", `no added bundle ${id}`);
  Object.assign(entry, await download(id, entry.base), { updatedAt: new Date().toISOString() });
  await saveList(list);
  return entry;
}

export async function removeBundle(id) {
  const list = (await listBundles()).filter((b) => !b.packaged);
  if (!list.some((b) => b.id === id)) throw new SiftError("not_found", `no added bundle ${id}`);
  await caches.delete(cacheName(id));
  await saveList(list.filter((b) => b.id !== id));
  const { [SETTINGS_KEY]: settings = {} } = await chrome.storage.local.get(SETTINGS_KEY);
  delete settings[id];
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
}

export function fetchFor(bundle) {
  return bundle.packaged ? undefined : cachedFetch(bundle.id);
}

const loaded = new Map(); // id → Promise<Sift>

export function openBundle(bundle) {
  const key = `${bundle.id}@${bundle.updatedAt ?? ""}`;
  if (!loaded.has(key)) {
    // Semantic search with the bundle's own query encoder: offline too, no model.
    const p = Sift.load(bundle.base, { fetch: fetchFor(bundle) });
    p.catch(() => loaded.delete(key));
    loaded.set(key, p);
  }
  return loaded.get(key);
}

/** Where a result opens: the site's page for added bundles, the offline reader for the packaged one. */
export function pageUrl(bundle, result, sectionUrl) {
  if (bundle.packaged) {
    const hash = (sectionUrl ?? result.url).split("#")[1];
    return chrome.runtime.getURL(`viewer.html?b=${encodeURIComponent(bundle.id)}&id=${encodeURIComponent(result.id)}${hash ? `#${hash}` : ""}`);
  }
  return new URL(sectionUrl ?? result.url, bundle.base).href;
}
