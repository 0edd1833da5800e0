// `sift mcp` (MCP over stdio) driven by the official MCP TypeScript SDK client: the tools,
// bad messages, a rebuilt bundle served without a restart, and `--watch` picking up an edit.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, SIFT, sift, skipUnlessCI } from "../support.mjs";

const skip = skipUnlessCI(
  !fs.existsSync(path.join(ROOT, "worker/node_modules/@modelcontextprotocol/sdk")) ? "the MCP SDK is missing (scripts/setup-web.sh installs worker/)"
  : !fs.existsSync(SIFT) ? `no sift binary at ${SIFT} (cargo build -p sift)` : false,
);

const require = createRequire(path.join(ROOT, "worker/package.json"));
const SPEC = JSON.parse(fs.readFileSync(path.join(ROOT, "worker/src/mcp-tools.json"), "utf8"));
let tmp, bundle;
const clients = [];
const children = [];

before(() => {
  if (skip) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sift-mcp-"));
  bundle = path.join(tmp, "bundle");
  sift(["build", path.join(ROOT, "tests/corpus"), path.join(ROOT, "tests/browser/fixtures/api"), "--out", bundle, "-q", "--no-embedder"]);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const p of children) p.kill();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function connect(args) {
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
  const client = new Client({ name: "sift-test", version: "1.0.0" });
  const transport = new StdioClientTransport({ command: SIFT, args, stderr: "pipe" });
  const t0 = performance.now();
  await client.connect(transport);
  clients.push(client);
  return { client, t0 };
}

/** A `sift mcp` process spoken to line by line, for what an SDK client never sends. */
function raw(args) {
  const p = spawn(SIFT, args, { stdio: ["pipe", "pipe", "pipe"] });
  children.push(p);
  let buf = "";
  const waiting = [];
  p.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiting.shift()?.(JSON.parse(line));
    }
  });
  return {
    send: (text) => new Promise((resolve) => {
      waiting.push(resolve);
      p.stdin.write(text + "\n");
    }),
    sendBytes: (bytes) => new Promise((resolve) => {
      waiting.push(resolve);
      p.stdin.write(bytes);
    }),
    write: (text) => p.stdin.write(text),
    process: p,
  };
}

test("an MCP session over stdio with the SDK client: the worker's tools and status, search, read, related", { skip }, async () => {
  const { client, t0 } = await connect(["mcp", bundle]);
  assert.equal(client.getServerVersion().name, "sift");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), [...SPEC.tools, ...SPEC.stdio_tools].map((t) => t.name), "the worker's tools, then status");
  const res = await client.callTool({ name: "search", arguments: { query: "token refresh", limit: 3 } });
  console.log(`first tools/call answered ${(performance.now() - t0).toFixed(0)} ms after the process started`);
  assert.ok(!res.isError, JSON.stringify(res));
  assert.equal(res.structuredContent.results[0].id, "guides/authentication.md");
  assert.ok(!/<mark>/.test(res.content[0].text), "agents get plain text");
  const ident = await client.callTool({ name: "search", arguments: { query: "os.getcwd", limit: 3 } });
  assert.deepEqual(ident.structuredContent.results[0].definition, { path: "os.getcwd", kind: "function", url: "library/os.html#os.getcwd" });
  const doc = await client.callTool({ name: "get_document", arguments: { id: "guides/authentication.md", max_chars: 200 } });
  assert.equal(doc.structuredContent.offset, 0);
  assert.ok(doc.structuredContent.text.length <= 200);
  const rel = await client.callTool({ name: "related", arguments: { id: "reference/cache.md" } });
  assert.ok(rel.structuredContent.results.length >= 1);
  assert.ok(rel.structuredContent.results.every((r) => r.id !== "reference/cache.md"));
  const multi = await client.callTool({ name: "multi_search", arguments: { queries: [{ query: "cache" }, { query: "memo" }] } });
  assert.ok(multi.structuredContent.results.length >= 2);
  const status = await client.callTool({ name: "status", arguments: {} });
  assert.equal(status.structuredContent.pages, 10);
  assert.equal(status.structuredContent.vectors, false);
  assert.match(status.structuredContent.built, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(status.structuredContent.bundle, fs.realpathSync(bundle));
  const missing = await client.callTool({ name: "get_document", arguments: { id: "nope" } });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /not_found/);
});

test("bad messages get JSON-RPC errors and tool errors, and the server keeps answering", { skip }, async () => {
  const s = raw(["mcp", bundle]);
  assert.equal((await s.send("{oops")).error.code, -32700);
  assert.equal((await s.send(JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }))).error.code, -32600);
  assert.equal((await s.send(JSON.stringify({ jsonrpc: "2.0", id: 2 }))).error.code, -32600);
  assert.equal((await s.send("[]")).error.code, -32600);
  assert.equal((await s.send("42")).error.code, -32600);
  const nope = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such" }));
  assert.deepEqual([nope.id, nope.error.code], [3, -32601]);
  const unknown = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "drop_tables", arguments: {} } }));
  assert.equal(unknown.error.code, -32602);
  assert.match(unknown.error.message, /Unknown tool "drop_tables"; the tools are search, multi_search, get_document, related, status/);
  const notObject = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "search", arguments: [1] } }));
  assert.equal(notObject.error.code, -32602);
  for (const [args, code] of [
    [{ query: "x", limit: 0 }, "invalid_limit"],
    [{ query: "" }, "empty_query"],
    [{ query: "x", colour: "red" }, "invalid_request"],
    [{ query: "x", mode: "psychic" }, "invalid_mode"],
    [{ query: "x", filters: { nosuchfield: "a" } }, "unknown_filter"],
    [{ query: "x", mode: "semantic" }, "no_vectors"],
  ]) {
    const r = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "search", arguments: args } }));
    assert.equal(r.result.isError, true, JSON.stringify(args));
    assert.match(r.result.content[0].text, new RegExp(`^Error ${code}: .{10,}`), JSON.stringify(r));
  }
  const badOffset = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_document", arguments: { id: "guides/deploy.md", offset: -1 } } }));
  assert.match(badOffset.result.content[0].text, /offset must be a non-negative integer/);
  // Bytes that are not UTF-8, then a notification (no answer), then a ping: still answering.
  const junk = await s.sendBytes(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
  assert.equal(junk.error?.code, -32700, "the junk line is a parse error");
  s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const ping = await s.send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }));
  assert.deepEqual(ping, { jsonrpc: "2.0", id: 8, result: {} });
  assert.equal(s.process.exitCode, null, "still running");
  s.process.stdin.end();
  const code = await new Promise((resolve) => s.process.on("exit", resolve));
  assert.equal(code, 0, "the end of its input ends the server cleanly");
});

test("no bundle at the path: the session starts, and every tool says what is missing", { skip }, async () => {
  const { client } = await connect(["mcp", path.join(tmp, "no-such-bundle")]);
  const r = await client.callTool({ name: "search", arguments: { query: "cache" } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /^Error bundle_missing: no Sift bundle at .*sift build/);
  const status = await client.callTool({ name: "status", arguments: {} });
  assert.equal(status.structuredContent.error.code, "bundle_missing");
});

test("a rebuilt bundle is served from the next call on, without a restart", { skip }, async () => {
  const site = path.join(tmp, "rebuilt-site");
  fs.cpSync(path.join(ROOT, "tests/corpus"), site, { recursive: true });
  const out = path.join(tmp, "rebuilt");
  sift(["build", site, "--out", out, "-q", "--no-embedder"]);
  const { client } = await connect(["mcp", out]);
  const before = await client.callTool({ name: "search", arguments: { query: "quokka", mode: "lexical" } });
  assert.equal(before.structuredContent.total, 0);
  fs.writeFileSync(path.join(site, "guides/quokka.md"), "# Quokka mode\n\nThe quokka mode smiles at every request.\n");
  sift(["build", site, "--out", out, "-q", "--no-embedder"]);
  const now = await client.callTool({ name: "search", arguments: { query: "quokka", mode: "lexical" } });
  assert.equal(now.structuredContent.results[0]?.id, "guides/quokka.md");
});

async function until(what, check, ms) {
  const t0 = performance.now();
  for (;;) {
    const v = await check();
    if (v) return performance.now() - t0;
    if (performance.now() - t0 > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("sift mcp --watch: an edited Markdown file is searchable within 5 s; a broken source keeps the last good bundle", { skip }, async () => {
  const site = path.join(tmp, "watched-site");
  fs.cpSync(path.join(ROOT, "tests/corpus"), site, { recursive: true });
  const out = path.join(tmp, "watched");
  const { client } = await connect(["mcp", out, "--watch", site, "--no-embedder"]);
  const search = async (q) => (await client.callTool({ name: "search", arguments: { query: q, mode: "lexical" } })).structuredContent;
  assert.equal((await search("deploy")).results[0]?.id, "guides/deploy.md", "the first build is served");
  assert.equal((await search("wombat")).total, 0);
  const page = path.join(site, "guides/deploy.md");
  fs.appendFileSync(page, "\n\n## Wombat rollouts\n\nA wombat rollout ships to one region first.\n");
  const ms = await until("the edit is searchable", async () => (await search("wombat")).results[0]?.id === "guides/deploy.md", 5000);
  console.log(`an edited Markdown file was searchable through sift mcp --watch after ${ms.toFixed(0)} ms`);
  // A malformed JSONL source fails the build: the previous bundle is still served, and status says why.
  fs.writeFileSync(path.join(site, "records.jsonl"), "{not json\n");
  await until("the failed build is reported", async () => {
    const st = (await client.callTool({ name: "status", arguments: {} })).structuredContent;
    return st.watch.last_error && st.watch.builds >= 3;
  }, 10000);
  const st = (await client.callTool({ name: "status", arguments: {} })).structuredContent;
  assert.match(st.watch.last_error, /records\.jsonl/);
  assert.equal((await search("wombat")).results[0]?.id, "guides/deploy.md", "the last good bundle stays");
  fs.rmSync(path.join(site, "records.jsonl"));
  fs.rmSync(page);
  // Both at once: a build can still be under way from the broken source's own writes, and
  // only the build after the removals both drops the page and clears the error.
  const status = async () => (await client.callTool({ name: "status", arguments: {} })).structuredContent;
  await until("a removed page leaves the index and the error is cleared", async () => (await search("wombat")).total === 0 && (await status()).watch.last_error === null, 10000);
});

test("sift watch rebuilds the bundle when a source changes", { skip }, async () => {
  const site = path.join(tmp, "plain-watch");
  fs.mkdirSync(site);
  fs.writeFileSync(path.join(site, "a.md"), "# Alpha\n\nThe first page.\n");
  const out = path.join(tmp, "plain-watch-bundle");
  const p = spawn(SIFT, ["watch", site, "--out", out, "--no-embedder", "-q"], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(p);
  let log = "";
  p.stderr.on("data", (d) => (log += d));
  const manifest = path.join(out, "manifest.json");
  await until("the first build", async () => fs.existsSync(manifest), 10000);
  fs.writeFileSync(path.join(site, "b.md"), "# Beta\n\nThe second page, about pelicans.\n");
  await until("the rebuild", async () => /1 file changed \(.*b\.md\)/.test(log), 5000);
  assert.match(sift(["search", out, "pelicans"]), /Beta/);
  p.kill();
});

test("search takes lang on a site built in several languages; status lists them; a language the site lacks is a tool error", { skip }, async () => {
  const site = path.join(tmp, "languages-site");
  const page = (file, lang, title, body) => {
    fs.mkdirSync(path.join(site, path.dirname(file)), { recursive: true });
    fs.writeFileSync(path.join(site, file), `<html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`);
  };
  page("en/a.html", "en", "Installing packages", "Configurations live in /etc.");
  page("en/b.html", "en", "Network setup", "Interfaces and routes.");
  page("de/a.html", "de", "Pakete installieren", "Die Konfigurationen liegen in /etc.");
  const out = path.join(tmp, "languages");
  sift(["build", site, "--out", out, "-q", "--no-embedder"]);
  const { client } = await connect(["mcp", out]);
  const ids = (r) => r.structuredContent.results.map((x) => x.id);
  assert.deepEqual(ids(await client.callTool({ name: "search", arguments: { query: "Konfiguration", lang: "de-AT" } })), ["de/a.html"]);
  assert.deepEqual(ids(await client.callTool({ name: "search", arguments: { query: "etc" } })), ["en/a.html"]);
  assert.deepEqual(ids(await client.callTool({ name: "search", arguments: { query: "etc", lang: "en" } })), ["en/a.html"]);
  const status = await client.callTool({ name: "status", arguments: {} });
  assert.deepEqual(status.structuredContent.languages, ["en", "de"]);
  const fr = await client.callTool({ name: "search", arguments: { query: "paquet", lang: "fr" } });
  assert.equal(fr.isError, true);
  assert.match(fr.content[0].text, /invalid_request: lang "fr": the site has no pages in that language; it has en, de/);
  const bad = await client.callTool({ name: "search", arguments: { query: "x", lang: 7 } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /lang is a language code/);
});
