// The Sift Worker: REST and MCP over one Sift instance (the same wasm engine and JS wrapper
// the browser uses). Routing, HTTP status codes and MCP framing live here; searching,
// validation and error codes live in the core.
//
//   GET  /search?q=…&limit=…&offset=…&mode=…&since=…&sort=…&filter.<field>=…&lang=…&bundle=…
//   POST /search            the JSON contract (+ lang, bundles)
//   POST /multi_search      {queries: [...], limit?, offset?, bundles?}
//   GET  /documents/{id}?bundle=…   the stored document
//   GET  /related/{id}?limit=…&bundle=…
//   GET  /health
//   POST /mcp               Model Context Protocol, Streamable HTTP (JSON-RPC 2.0)
//
// SIFT_BUNDLES (a JSON list of {name, path | url, weight?, filters?}) makes the worker search
// several bundles as one: folders of its assets (other versions, languages) or other sites'
// bundles by URL, merged by rank (SiftGroup), each result naming its bundle; `bundle`
// narrows a search to some of them and picks the one /documents and /related read (MCP:
// `bundles` on search and multi_search, `bundle` on get_document and related).

import { Sift, SiftError, asSiftError, primaryLanguage, LIMITS } from "../../www/dist/sift.js";
import { SiftGroup } from "../../www/dist/sift-group.js";
import { statusOf } from "../../www/dist/contract.js";
import { handleMcp } from "./mcp.js";

const ASSETS_BASE = "https://assets.local/";

/** The bundles SIFT_BUNDLES lists, as SiftGroup sources; null when it is not set. */
export function bundlesOf(env) {
  const raw = env.SIFT_BUNDLES;
  if (raw === undefined || raw === "") return null;
  const bad = (why) => new SiftError("bundle_missing", `SIFT_BUNDLES ${why}; it lists the bundles as [{"name": "docs", "path": "docs/"}, {"name": "blog", "url": "https://blog.example.com/_sift/", "weight": 0.5}]`);
  let list;
  try {
    list = typeof raw === "string" ? JSON.parse(raw) : raw;
  } catch (e) {
    throw bad(`is not valid JSON (${e.message})`);
  }
  if (!Array.isArray(list) || !list.length) throw bad("is not a list of bundles");
  return list.map((b, i) => {
    if (!b || typeof b !== "object" || typeof b.name !== "string" || !b.name) throw bad(`entry ${i} has no name`);
    let base;
    if (typeof b.path === "string") base = new URL(b.path.replace(/^\/+/, ""), ASSETS_BASE).href;
    else if (typeof b.url === "string" && /^https?:\/\//.test(b.url)) base = b.url;
    else throw bad(`entry ${i} (${b.name}) has neither a path (a folder of the assets) nor an http(s) url`);
    return { name: b.name, base: base.endsWith("/") ? base : `${base}/`, weight: b.weight, filters: b.filters };
  });
}

export const MAX_BODY_BYTES = 64 * 1024;

/** One Sift per isolate and language, loaded on the first request from the bundle in static assets. */
export function makeApp({ coreWasm, embedWasm }) {
  const loaded = new Map(); // language code ("" for the main bundle) → Promise<Sift>
  const groups = new Map(); // language code → Promise<SiftGroup>

  /** Engine options every bundle is loaded with. */
  function loadOptions(env, code) {
    const assets = env.ASSETS;
    if (!assets) throw new SiftError("bundle_missing", "the worker has no ASSETS binding with a Sift bundle (see wrangler.toml)");
    // The assets' bundles from the binding; another site's over the network.
    const fetchAsset = (url) => (String(url).startsWith(ASSETS_BASE) ? assets.fetch(new Request(url)) : fetch(url));
    // Semantic search by the bundle's static encoder, or by the model in the model entry.
    const semantic = env.SIFT_SEMANTIC !== "off";
    return {
      fetch: fetchAsset, runtime: "full", wasmUrl: coreWasm, embedWasmUrl: embedWasm, semantic, embedder: embedWasm ? "model" : "static",
      modelMemory: "small", // a Cloudflare isolate has 128 MB
      language: code || undefined,
    };
  }

  /** The promise `make()` gives for `key`, made once; dropped when it fails, so the next request retries. */
  function memo(map, key, make) {
    let p = map.get(key);
    if (!p) {
      p = Promise.resolve().then(make).catch((e) => {
        map.delete(key);
        throw e;
      });
      map.set(key, p);
    }
    return p;
  }

  // SIFT_BUNDLES parsed once per isolate (its value is fixed by the deployment).
  let listed = { raw: undefined, sources: null };
  function sources(env) {
    if (listed.raw !== env.SIFT_BUNDLES) listed = { raw: env.SIFT_BUNDLES, sources: bundlesOf(env) };
    return listed.sources;
  }

  /** The bundles SIFT_BUNDLES lists, in the language of `lang`; null when it is not set. */
  function group(env, lang) {
    const list = sources(env);
    if (!list) return null;
    const code = primaryLanguage(lang);
    return memo(groups, code, () => SiftGroup.load(list, loadOptions(env, code)));
  }

  /**
   * The bundle of `lang` (a site built in several languages has one each; none: the main
   * one); with SIFT_BUNDLES, of the bundle named `bundle` (none: the first listed).
   */
  async function sift(env, lang, bundle) {
    const g = group(env, lang);
    if (g) return (await g).sift(bundle ?? sources(env)[0].name);
    if (bundle !== undefined) throw oneBundle();
    const code = primaryLanguage(lang);
    if (code) {
      const main = await sift(env);
      if (code !== main.language) {
        const others = main.languages;
        if (!(code in others)) {
          const has = [main.language, ...Object.keys(others)].join(", ");
          throw new SiftError("invalid_request", `lang ${JSON.stringify(lang)}: the site has no pages in that language; it has ${has}`);
        }
        return load(env, code);
      }
    }
    return load(env, "");
  }

  const oneBundle = () => new SiftError("invalid_request", "this server searches one bundle; SIFT_BUNDLES (a worker's wrangler.toml) lists several to choose from");

  const load = (env, code) => memo(loaded, code, () => Sift.load(ASSETS_BASE, loadOptions(env, code)));

  function corsHeaders(env, req) {
    const allowed = (env.CORS_ORIGINS ?? "*").split(",").map((s) => s.trim()).filter(Boolean);
    const origin = req.headers.get("origin");
    const h = {};
    if (allowed.includes("*")) h["access-control-allow-origin"] = "*";
    else if (origin && allowed.includes(origin)) {
      h["access-control-allow-origin"] = origin;
      h["vary"] = "Origin";
    }
    if (h["access-control-allow-origin"]) {
      h["access-control-allow-methods"] = "GET, POST, OPTIONS";
      h["access-control-allow-headers"] = "content-type, authorization, mcp-session-id, mcp-protocol-version";
      h["access-control-max-age"] = "86400";
    }
    return h;
  }

  const json = (body, status, headers = {}) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });

  /** The request body as JSON, at most MAX_BODY_BYTES, with contract error codes. */
  async function readJson(req) {
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (declared > MAX_BODY_BYTES) throw new SiftError("payload_too_large", `the request body is ${declared} bytes; the limit is ${MAX_BODY_BYTES}`);
    const reader = req.body?.getReader();
    const chunks = [];
    let size = 0;
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > MAX_BODY_BYTES) {
          await reader.cancel();
          throw new SiftError("payload_too_large", `the request body exceeds ${MAX_BODY_BYTES} bytes`);
        }
        chunks.push(value);
      }
    }
    const buf = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      buf.set(c, at);
      at += c.length;
    }
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
    } catch (_) {
      throw new SiftError("invalid_json", "the request body is not valid UTF-8");
    }
    if (!text.trim()) throw new SiftError("invalid_json", "the request body is empty; send a JSON object");
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new SiftError("invalid_json", `the request body is not valid JSON: ${e.message}`);
    }
  }

  /** GET /search parameters → the JSON contract. Numbers stay numbers; bad ones are reported by the core. */
  function searchFromQuery(params) {
    const req = {};
    const filters = {};
    for (const [k, v] of params) {
      if (k === "q" || k === "query") req.query = v;
      else if (k === "lang") req.lang = v;
      else if (k === "bundle") req.bundles = [...(req.bundles ?? []), ...v.split(",").map((x) => x.trim()).filter(Boolean)];
      else if (k === "limit" || k === "offset") req[k] = /^-?\d+$/.test(v) ? Number(v) : v;
      else if (k === "mode" || k === "since" || k === "sort") req[k] = v;
      else if (k === "boost_recent" || k === "include_content" || k === "explain") req[k] = v === "true" || v === "1";
      else if (k.startsWith("filter.") && k.length > 7) {
        const f = k.slice(7);
        filters[f] = filters[f] === undefined ? v : [].concat(filters[f], v);
      } else throw new SiftError("invalid_request", `unknown parameter ${JSON.stringify(k)}; use q, limit, offset, mode, since, sort, boost_recent, include_content, explain, lang, bundle or filter.<field>`);
    }
    if (req.query === undefined) throw new SiftError("invalid_request", "missing the q parameter: GET /search?q=your+query");
    if (Object.keys(filters).length) req.filters = filters;
    return req;
  }

  const positiveLimit = (v) => {
    if (v === null) return undefined;
    if (!/^\d+$/.test(v)) throw new SiftError("invalid_limit", `limit must be an integer from 1 to ${LIMITS.maxLimit}; got ${JSON.stringify(v)}`);
    return Number(v);
  };

  async function route(req, env, url) {
    const { pathname } = url;
    const method = req.method;
    const only = (...methods) => {
      if (!methods.includes(method)) {
        const e = new SiftError("method_not_allowed", `${method} is not allowed on ${pathname}; use ${methods.join(" or ")}`);
        e.allow = methods.join(", ");
        throw e;
      }
    };
    const cacheGet = { "cache-control": `public, max-age=${env.CACHE_MAX_AGE ?? "300"}` };

    if (pathname === "/health") {
      only("GET", "HEAD");
      const g = group(env);
      if (g) {
        const bundles = (await g).bundles;
        return json({ status: bundles.some((b) => b.error) ? "degraded" : "ok", bundles }, 200, { "cache-control": "no-store" });
      }
      const s = await sift(env);
      const info = s.info;
      return json({
        status: "ok", documents: info.documents, vectors: info.vectors, semantic: s.semanticState, filter_fields: info.filterFields,
        languages: [s.language, ...Object.keys(s.languages)], wasm_memory_bytes: s.wasmMemoryBytes,
      }, 200, { "cache-control": "no-store" });
    }
    if (pathname === "/search") {
      only("GET", "POST");
      let body = method === "GET" ? searchFromQuery(url.searchParams) : await readJson(req);
      let lang;
      // `lang` picks the bundle; the rest is the search (an array or a string is the core's to refuse).
      if (body && typeof body === "object" && !Array.isArray(body) && "lang" in body) ({ lang, ...body } = body);
      if (lang !== undefined && typeof lang !== "string") throw new SiftError("invalid_request", "lang is a language code such as \"de\"");
      const g = group(env, lang);
      if (g) return json(await (await g).search(body), 200, method === "GET" ? cacheGet : {});
      if (body && typeof body === "object" && "bundles" in body) throw oneBundle();
      const s = await sift(env, lang);
      if (s.semanticState === "idle") await s.loadSemantic(); // the edge waits for the model once
      const res = await s.search(body);
      return json(res, 200, method === "GET" ? cacheGet : {});
    }
    if (pathname === "/multi_search") {
      only("POST");
      const body = await readJson(req);
      const g = group(env);
      if (g) return json(await (await g).multiSearch(body), 200);
      if (body && typeof body === "object" && "bundles" in body) throw oneBundle();
      return json(await (await sift(env)).multiSearch(body), 200);
    }
    const doc = pathname.match(/^\/documents\/(.+)$/);
    if (doc) {
      only("GET");
      const id = decodeURIComponent(doc[1]);
      const d = await (await sift(env, undefined, url.searchParams.get("bundle") ?? undefined)).getDocument(id);
      if (!d) throw new SiftError("not_found", `no document with id ${JSON.stringify(id)}`);
      return json(d, 200, cacheGet);
    }
    const rel = pathname.match(/^\/related\/(.+)$/);
    if (rel) {
      only("GET");
      const id = decodeURIComponent(rel[1]);
      const s = await sift(env, undefined, url.searchParams.get("bundle") ?? undefined);
      return json(await s.related(id, { limit: positiveLimit(url.searchParams.get("limit")) }), 200, cacheGet);
    }
    if (pathname === "/mcp") {
      if (method !== "POST") {
        // No server-initiated stream: GET (SSE) and DELETE (sessions) are not offered.
        return json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `${method} /mcp is not supported; POST JSON-RPC messages` } }, 405, { allow: "POST" });
      }
      return handleMcp(req, env, { sift: (lang, bundle) => sift(env, lang, bundle), group: (lang) => group(env, lang), oneBundle, readJson, json });
    }
    throw new SiftError("not_found", `no route ${pathname}; try /search?q=…, /documents/{id}, /related/{id}, /multi_search, /health or /mcp`);
  }

  return {
    async fetch(req, env) {
      const url = new URL(req.url);
      const cors = corsHeaders(env, req);
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      try {
        const res = await route(req, env, url);
        for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
        return res;
      } catch (e) {
        const err = asSiftError(e);
        const headers = { ...cors };
        if (e?.allow) headers.allow = e.allow;
        const status = statusOf(err.code);
        if (status >= 500) console.error(`sift worker: ${err.code}: ${err.message}`);
        return json({ error: { code: err.code, message: err.message } }, status, headers);
      }
    },
  };
}
