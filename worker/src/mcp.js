// MCP (Model Context Protocol) over Streamable HTTP: JSON-RPC 2.0 messages POSTed to /mcp,
// answered with application/json. Stateless: no session id, no server-initiated stream.
// Tools: search, multi_search, get_document, related — previews sized for an agent's context,
// with a hint on how to read more.

import { SiftError, asSiftError } from "../../www/dist/sift.js";
import { statusOf } from "../../www/dist/contract.js";

// The tools, their schemas and the answer sizes are data shared with `sift mcp` (the
// stdio server of the CLI), so both servers list the same tools.
import SPEC from "./mcp-tools.json" with { type: "json" };

const PROTOCOL_VERSIONS = SPEC.protocol_versions;
const SERVER_INFO = SPEC.server_info;
const DOC_DEFAULT_CHARS = SPEC.doc_default_chars;
const DOC_MAX_CHARS = SPEC.doc_max_chars;

export const TOOLS = SPEC.tools;

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.rpcCode = code;
    this.data = data;
  }
}

// Results and documents are shaped for an agent by the engine (Sift#agentResults,
// Sift#agentDocument: `sift_engine::agent`), as `sift mcp` shapes them.
const SIZES = { snippet_chars: SPEC.snippet_chars, content_preview_chars: SPEC.content_preview_chars };

function searchSummary(res) {
  const head = `${res.total} result${res.total === 1 ? "" : "s"} for ${JSON.stringify(res.query ?? "")} (${res.search_type})`;
  const lines = [head];
  if (res.fallback) lines.push(`Note: ${res.fallback.reason}`);
  if (res.suggestions?.length) lines.push(`Did you mean: ${res.suggestions.join(", ")}?`);
  return lines.join("\n");
}

function toolResult(structured, text) {
  return { content: [{ type: "text", text: `${text}\n${JSON.stringify(structured, null, 1)}` }], structuredContent: structured };
}

function toolError(err) {
  return { content: [{ type: "text", text: `Error ${err.code}: ${err.message}` }], isError: true };
}

function needObject(args, tool) {
  if (args === undefined) return {};
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new RpcError(-32602, `${tool}: arguments must be an object`);
  return args;
}

function onlyKeys(args, allowed, tool) {
  for (const k of Object.keys(args)) {
    // (Names in sorted order: `sift mcp` says the same.)
    if (!allowed.includes(k)) throw new SiftError("invalid_request", `${tool} takes ${[...allowed].sort().join(", ")}; unknown argument ${JSON.stringify(k)}`);
  }
}

/**
 * `host`: `sift(lang?, bundle?)` the Sift of a language or of a named bundle, `group(lang?)`
 * the bundles searched as one (null: the worker has one), `oneBundle()` the error for
 * naming bundles on a worker of one.
 */
async function callTool(name, rawArgs, host) {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new RpcError(-32602, `Unknown tool ${JSON.stringify(name)}; the tools are ${TOOLS.map((t) => t.name).join(", ")}`);
  const args = needObject(rawArgs, name);
  // A bundle that cannot be opened at all is the server's error, not the call's.
  await (host.group() ?? host.sift());
  try {
    onlyKeys(args, Object.keys(tool.inputSchema.properties), name);
    if (name === "search" || name === "multi_search") {
      // `lang` (a site built in several languages) picks the bundle; `bundles` narrows a
      // worker of several to some of them.
      const { lang, ...req } = { limit: 5, ...args };
      if (lang !== undefined && typeof lang !== "string") throw new SiftError("invalid_request", "lang is a language code such as \"de\"");
      const g = host.group(lang);
      if (!g && req.bundles !== undefined) throw host.oneBundle();
      let res;
      if (g) res = name === "search" ? await (await g).search(req) : await (await g).multiSearch(req);
      else {
        const s = await host.sift(lang);
        if (name === "search" && s.semanticState === "idle") await s.loadSemantic();
        res = name === "search" ? await s.search(req) : await s.multiSearch(req);
      }
      const structured = { total: res.total, has_more: res.has_more };
      if (name === "search") Object.assign(structured, { offset: res.offset, search_type: res.search_type });
      else structured.queries = res.queries;
      structured.results = await (await host.sift()).agentResults(res.results, name === "search" && args.include_content, SIZES);
      if (res.bundles) structured.bundles = res.bundles;
      if (name === "multi_search") return toolResult(structured, `${res.total} results merged from ${res.queries.length} queries`);
      if (res.fallback) structured.fallback = res.fallback;
      if (res.suggestions?.length) structured.suggestions = res.suggestions;
      if (res.has_more) structured.next = `more results: call search again with offset ${res.offset + res.results.length}`;
      return toolResult(structured, searchSummary(res));
    }
    // get_document and related read one bundle: `bundle` (from a result) on a worker of several.
    if (args.bundle !== undefined && typeof args.bundle !== "string") throw new SiftError("invalid_request", "bundle is the name of a bundle, from a result's bundle");
    const s = await host.sift(undefined, args.bundle);
    if (name === "get_document") {
      const { id, offset = 0, max_chars = DOC_DEFAULT_CHARS } = args;
      if (typeof id !== "string" || !id) throw new SiftError("invalid_request", "get_document needs an id string (from search results)");
      if (!Number.isInteger(offset) || offset < 0) throw new SiftError("invalid_request", "offset must be a non-negative integer");
      if (!Number.isInteger(max_chars) || max_chars < 200 || max_chars > DOC_MAX_CHARS) {
        throw new SiftError("invalid_request", `max_chars must be an integer from 200 to ${DOC_MAX_CHARS}`);
      }
      const doc = await s.getDocument(id);
      if (!doc) throw new SiftError("not_found", `no document with id ${JSON.stringify(id)}; ids come from search results`);
      const { structured, text } = await s.agentDocument(doc, offset, max_chars);
      return { content: [{ type: "text", text }], structuredContent: structured };
    }
    // related
    if (typeof args.id !== "string" || !args.id) throw new SiftError("invalid_request", "related needs an id string (from search results)");
    const res = await s.related(args.id, { limit: args.limit ?? 5 });
    return toolResult({ total: res.total, results: await s.agentResults(res.results, false, SIZES) }, `Pages related to ${args.id}`);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    return toolError(asSiftError(e));
  }
}

async function dispatch(msg, host) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) throw new RpcError(-32600, "Invalid Request: a JSON-RPC message is an object");
  if (msg.jsonrpc !== "2.0") throw new RpcError(-32600, `Invalid Request: jsonrpc must be "2.0", got ${JSON.stringify(msg.jsonrpc)}`);
  if (typeof msg.method !== "string") throw new RpcError(-32600, "Invalid Request: method must be a string");
  const params = msg.params ?? {};
  switch (msg.method) {
    case "initialize": {
      const asked = params.protocolVersion;
      return {
        protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: SERVER_INFO,
        instructions: await instructions(host),
      };
    }
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call":
      if (params === null || typeof params !== "object" || typeof params.name !== "string") throw new RpcError(-32602, "tools/call needs params {name, arguments}");
      return callTool(params.name, params.arguments, host);
    case "resources/list":
      return { resources: [] };
    case "prompts/list":
      return { prompts: [] };
    default:
      throw new RpcError(-32601, `Method not found: ${msg.method}`);
  }
}

/** What the server searches, and how to start. */
async function instructions(host) {
  const how = "Start with the search tool; read a page with get_document (paged by offset); find neighbours with related.";
  const g = host.group();
  if (!g) {
    const info = (await host.sift()).info;
    return `Search ${info.documents} documentation pages. ${how} Filterable fields: ${info.filterFields.join(", ") || "none"}.`;
  }
  const group = await g;
  const each = group.bundles.map((b) => {
    if (b.error) return `${b.name} (unavailable: ${b.error.message})`;
    const info = group.sift(b.name).info;
    return `${b.name} (${info.documents} pages${info.filterFields.length ? `; filters: ${info.filterFields.join(", ")}` : ""})`;
  });
  return `Search ${each.length} bundles as one: ${each.join("; ")}. ${how} Results name their bundle: pass it as bundle to get_document and related; bundles narrows search and multi_search.`;
}

function authorized(req, env) {
  const token = env.MCP_TOKEN;
  if (!token) return true;
  const got = req.headers.get("authorization") ?? "";
  const want = `Bearer ${token}`;
  // Compare in constant time (length leaks only whether the header has the right size).
  let diff = got.length ^ want.length;
  for (let i = 0; i < want.length; i++) diff |= (got.charCodeAt(i) || 0) ^ want.charCodeAt(i);
  return diff === 0;
}

export async function handleMcp(req, env, { readJson, json, ...host }) {
  if (!authorized(req, env)) {
    return json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized: send Authorization: Bearer <token>" } }, 401, {
      "www-authenticate": 'Bearer realm="sift-mcp"',
    });
  }
  let body;
  try {
    body = await readJson(req);
  } catch (e) {
    const status = statusOf(e.code);
    return json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${e.message}` } }, status);
  }
  const one = async (msg) => {
    const id = msg && typeof msg === "object" && "id" in msg ? msg.id : undefined;
    const isNotification = msg && typeof msg === "object" && !("id" in msg) && typeof msg.method === "string";
    try {
      if (isNotification) {
        if (msg.jsonrpc !== "2.0") throw new RpcError(-32600, "Invalid Request: jsonrpc must be \"2.0\"");
        return null; // notifications/initialized, cancelled, …: nothing to answer
      }
      const result = await dispatch(msg, host);
      return { jsonrpc: "2.0", id: id ?? null, result };
    } catch (e) {
      if (e instanceof RpcError) {
        const error = { code: e.rpcCode, message: e.message };
        if (e.data !== undefined) error.data = e.data;
        return { jsonrpc: "2.0", id: id ?? null, error };
      }
      const err = asSiftError(e);
      return { jsonrpc: "2.0", id: id ?? null, error: { code: -32603, message: `Internal error: ${err.message}`, data: { code: err.code } } };
    }
  };
  if (Array.isArray(body)) {
    if (body.length === 0) return json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: empty batch" } }, 400);
    const answers = (await Promise.all(body.map(one))).filter((a) => a !== null);
    return answers.length ? json(answers, 200) : new Response(null, { status: 202 });
  }
  const answer = await one(body);
  if (answer === null) return new Response(null, { status: 202 });
  const invalid = answer.error && answer.error.code === -32600;
  return json(answer, invalid ? 400 : 200);
}
