// End-to-end tests of <sift-search> in headless Debian Chromium: the real wasm runtime, the
// real bundle from `sift build`, served by `sift serve`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ROOT, OUT, sift, serve, browser, haveChromium, haveRuntime } from "./harness.mjs";
import { skipUnlessCI } from "../support.mjs";

const skip = skipUnlessCI(!haveChromium() ? "no /usr/bin/chromium (scripts/setup-web.sh installs it)"
  : !haveRuntime() ? "www/dist is not built (scripts/build-wasm.sh)" : false);

let server, chrome, page;
const bundle = path.join(OUT, "site/_sift");
const siteDir = path.join(OUT, "site");
const withVectors = process.env.SIFT_BROWSER_SEMANTIC === "1";

before(async () => {
  if (skip) return;
  fs.rmSync(siteDir, { recursive: true, force: true });
  fs.mkdirSync(siteDir, { recursive: true });
  for (const f of fs.readdirSync(path.join(ROOT, "tests/browser/fixtures/site"))) {
    fs.copyFileSync(path.join(ROOT, "tests/browser/fixtures/site", f), path.join(siteDir, f));
  }
  // Pages whose box points at a damaged bundle and at no bundle at all.
  const boxPage = (title, bundle) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
    `<script type="module" src="/sift-search.js"></script></head><body><sift-search bundle="${bundle}"></sift-search></body></html>`;
  fs.writeFileSync(path.join(siteDir, "corrupt.html"), boxPage("Corrupt bundle", "/corrupt/_sift/"));
  fs.writeFileSync(path.join(siteDir, "missing.html"), boxPage("Missing bundle", "/no-such-bundle/"));
  fs.writeFileSync(path.join(siteDir, "older.html"), boxPage("Older bundle", "/older/_sift/"));
  fs.mkdirSync(path.join(siteDir, "older/_sift"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "tests/frozen/older-format/manifest.json"), path.join(siteDir, "older/_sift/manifest.json"));
  const embed = withVectors ? [] : ["--no-embedder"];
  sift(["build", path.join(ROOT, "tests/corpus"), path.join(ROOT, "tests/browser/fixtures/docs"), path.join(ROOT, "tests/browser/fixtures/api"), "--out", bundle, "--base-url", "/", "-q", ...embed]);
  // A copy of the bundle with one term shard's payload damaged (its CRC no longer matches).
  const corrupt = path.join(siteDir, "corrupt/_sift");
  fs.mkdirSync(corrupt, { recursive: true });
  for (const f of fs.readdirSync(bundle)) {
    if (fs.statSync(path.join(bundle, f)).isFile()) fs.copyFileSync(path.join(bundle, f), path.join(corrupt, f));
  }
  for (const f of fs.readdirSync(corrupt).filter((f) => f.startsWith("t-"))) {
    const p = path.join(corrupt, f);
    const b = fs.readFileSync(p);
    for (let i = 20; i < b.length; i += 7) b[i] ^= 0x5a;
    fs.writeFileSync(p, b);
  }
  // A German site's bundle: its stemmer comes from stem/de.wasm.lzma beside sift.js.
  const deSite = path.join(OUT, "de-site");
  fs.rmSync(deSite, { recursive: true, force: true });
  fs.mkdirSync(deSite, { recursive: true });
  for (const [file, title, body] of [
    ["install.html", "Pakete installieren", "Installieren Sie Pakete mit apt. Die Konfigurationen liegen in /etc."],
    ["netz.html", "Netzwerk einrichten", "Die Netzwerkschnittstellen konfigurieren."],
  ]) {
    fs.writeFileSync(path.join(deSite, file), `<!doctype html><html lang="de"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`);
  }
  sift(["build", deSite, "--out", path.join(siteDir, "de/_sift"), "--base-url", "/de/", "-q", "--no-embedder"]);
  server = await serve(bundle, { sites: [siteDir, path.join(ROOT, "tests/corpus")] });
  chrome = await browser();
  page = await chrome.ctx.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
});

after(async () => {
  await chrome?.close();
  server?.stop();
});

const options = () => page.locator("sift-search [role=option]");

async function openAndType(query, url = "/") {
  await page.goto(server.url + url);
  await page.waitForFunction(() => customElements.get("sift-search") !== undefined);
  await page.keyboard.press("Control+K");
  const input = page.locator("sift-search input[role=combobox]");
  await input.waitFor({ state: "visible" });
  // Typed key by key, as a user would: results must follow each keystroke.
  await input.pressSequentially(query, { delay: 15 });
  return input;
}

test("typing shows options in an ARIA listbox, as you type", { skip }, async () => {
  const input = await openAndType("authent");
  await options().first().waitFor();
  assert.equal(await input.getAttribute("aria-expanded"), "true");
  // A phone neither capitalises nor corrects what is typed (queries are often code).
  assert.equal(await input.getAttribute("autocapitalize"), "off");
  assert.equal(await input.getAttribute("autocorrect"), "off");
  const list = page.locator("sift-search [role=listbox]");
  assert.equal(await input.getAttribute("aria-controls"), await list.getAttribute("id"));
  assert.match(await options().first().textContent(), /Authentication/i, "the prefix `authent` already finds the page");
  assert.equal(await options().first().getAttribute("aria-selected"), "true");
  assert.equal(await input.getAttribute("aria-activedescendant"), await options().first().getAttribute("id"));
  fs.mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: path.join(OUT, "dialog.png") });
});

test("a typo still finds the page, with a did-you-mean", { skip }, async () => {
  await openAndType("authentificate");
  await options().first().waitFor();
  assert.match(await options().first().textContent(), /Authentication/i);
  const notice = await page.locator("sift-search .notice").textContent();
  assert.match(notice, /authenticat/i, `the notice says what was matched instead: ${notice}`);
});

test("arrow keys and Enter open the sub-result's section anchor", { skip }, async () => {
  const input = await openAndType("token refresh");
  await page.locator("sift-search [role=option].sub").first().waitFor();
  await input.press("ArrowDown");
  const active = page.locator('sift-search [role=option][aria-selected="true"]');
  assert.equal(await active.getAttribute("data-url"), "/guides/authentication.html#rotating");
  await Promise.all([page.waitForURL(/authentication\.html(\?[^#]*)?#rotating$/), input.press("Enter")]);
  assert.ok(await page.locator("#rotating").count(), "the rendered page has the anchor");
});

test("`/` opens the box, but not while typing in a field of the page", { skip }, async () => {
  await page.goto(server.url + "/");
  await page.waitForFunction(() => customElements.get("sift-search") !== undefined);
  const input = page.locator("sift-search input[role=combobox]");
  // In a field of the page, `/` is the reader's text.
  await page.evaluate(() => document.body.insertAdjacentHTML("afterbegin", '<input id="page-field">'));
  await page.locator("#page-field").pressSequentially("a/b");
  assert.equal(await page.locator("#page-field").inputValue(), "a/b");
  assert.equal(await input.isVisible(), false, "the box stays closed");
  // Anywhere else, `/` opens the box, and is not typed into it.
  await page.locator("#page-field").blur();
  await page.keyboard.press("/");
  await input.waitFor({ state: "visible" });
  assert.equal(await input.inputValue(), "");
  await input.pressSequentially("authent", { delay: 15 });
  await options().first().waitFor();
  assert.match(await options().first().textContent(), /Authentication/i);
});

test("an identifier's first option is its definition, with its path and kind, linking to the entry", { skip }, async () => {
  const input = await openAndType("os.getcwd");
  const entry = page.locator("sift-search [role=option].sub").first();
  await entry.waitFor();
  assert.equal(await entry.getAttribute("data-url"), "/library/os.html#os.getcwd");
  assert.match(await entry.locator(".title").textContent(), /^os\.getcwd\s*function$/);
  // The entry's text is the page's snippet: said once, on the page's row.
  assert.equal(await entry.locator(".snippet").count(), 0);
  assert.ok((await options().first().locator(".snippet").textContent()).length > 0);
  await input.press("ArrowDown");
  await Promise.all([page.waitForURL(/os\.html(\?[^#]*)?#os\.getcwd$/), input.press("Enter")]);
});

test("keystrokes typed during a search are searched as one when it ends, its answer shown meanwhile", { skip }, async () => {
  const input = await openAndType("c");
  await page.waitForFunction(() => document.querySelector("sift-search").sift);
  // Each search held until the test lets it answer.
  await page.evaluate(() => {
    const s = document.querySelector("sift-search").sift;
    const search = s.search.bind(s);
    window.__held = new Map();
    s.search = (req) => new Promise((resolve) => window.__held.set(req.query, () => resolve(search(req))));
  });
  const heldNow = () => page.evaluate(() => [...window.__held.keys()]);
  const held = (q) => page.waitForFunction((q) => window.__held.has(q), q, { timeout: 5000 });
  const release = (q) => page.evaluate((q) => window.__held.get(q)(), q);
  const shows = (q) => page.waitForFunction((q) => document.querySelector("sift-search").lastResponse?.query === q, q, { timeout: 5000 });
  await input.fill("cach");
  await held("cach");
  // Typed while "cach" is searched (a cold engine on a slow link): nothing new starts.
  for (const q of ["cache", "cache t", "cache to"]) await input.fill(q);
  await page.waitForTimeout(200);
  assert.deepEqual(await heldNow(), ["cach"]);
  // Its answer is shown, then the input's value is searched — once.
  await release("cach");
  await shows("cach");
  assert.ok((await options().count()) > 0, "the earlier keystroke's options are on screen");
  await held("cache to");
  assert.deepEqual(await heldNow(), ["cach", "cache to"], "the keystrokes between are never searched");
  await release("cache to");
  await shows("cache to");
  // A search that stalls (a fetch that never ends) holds the box a second at most: then
  // the input's value is searched, and the stalled answer, coming later, is not shown.
  await input.fill("authent");
  await held("authent");
  await input.fill("authentication");
  await held("authentication");
  await release("authentication");
  await shows("authentication");
  await release("authent");
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.querySelector("sift-search").lastResponse?.query), "authentication");
  // Emptied while a search runs: its answer is not shown over the empty box.
  await input.fill("token");
  await held("token");
  await input.fill("");
  await release("token");
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.querySelector("sift-search").lastResponse), null);
  assert.equal(await options().count(), 0);
});

test("a facet filter narrows the results", { skip }, async () => {
  await openAndType("cache");
  await options().first().waitFor();
  const before = await options().count();
  const chip = page.locator('sift-search .chip[data-field="type"][data-value="reference"]');
  await chip.click();
  await page.waitForFunction(() => {
    const root = document.querySelector("sift-search").shadowRoot;
    return root.querySelector('.chip[data-value="reference"][aria-pressed="true"]') !== null;
  });
  const types = await page.locator("sift-search [role=option]:not(.sub) .where").allTextContents();
  assert.ok(types.length >= 1 && types.length <= before, `${before} → ${types.length}`);
  assert.ok(types.every((t) => t.startsWith("reference")), types.join(" | "));
});

test("markup in a page's text and title is shown as text, never run", { skip }, async () => {
  await openAndType("zanzibarquux");
  await options().first().waitFor();
  const text = await options().first().textContent();
  assert.match(text, /<img src=x onerror=/, "the markup is visible as text");
  const imgs = await page.evaluate(() => document.querySelector("sift-search").shadowRoot.querySelectorAll("img, script").length);
  assert.equal(imgs, 0, "no element was created from the page's text");
  assert.equal(await page.evaluate(() => window.__siftXss), undefined, "no handler ran");
});

test("a corrupt shard shows an error state, not a frozen box", { skip }, async () => {
  const input = await openAndType("authentication", "/corrupt.html");
  const alert = page.locator("sift-search [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), /unavailable/i);
  assert.equal(await input.isEnabled(), true, "the box still takes input");
  await input.fill("deploy");
  await alert.waitFor(); // still answering (with the error), not stuck
});

test("a bundle of an older format shows why, and what to do: rebuild it", { skip }, async () => {
  await openAndType("authentication", "/older.html");
  const alert = page.locator("sift-search [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), /format 13 and this sift reads format \d+: rebuild it with `sift build`/);
});

test("a bundle chosen while another is still loading is the one that answers", { skip }, async () => {
  // The extension's popup opens the last bundle used and the user picks another at once: the
  // first one finishing its load later must not take the box over (it did: the popup then
  // searched the wrong bundle and showed nothing for a word only the chosen one has).
  await page.goto(server.url + "/");
  await page.waitForFunction(() => customElements.get("sift-search") !== undefined);
  await page.evaluate(() => {
    const box = document.querySelector("sift-search");
    const slow = (url, init) => new Promise((r) => setTimeout(r, 800)).then(() => fetch(url, init));
    box.useBundle("/corrupt/_sift/", slow); // damaged: answering from it is an error
    box.open();
    box.useBundle("/_sift/", (url, init) => fetch(url, init));
  });
  const input = page.locator("sift-search input[role=combobox]");
  await input.fill("authentication");
  await options().first().waitFor();
  await page.waitForTimeout(1500); // well after the first bundle finished loading
  assert.equal(await page.locator("sift-search [role=alert]").count(), 0, "no answer from the bundle left behind");
  assert.ok((await options().count()) > 0);
  assert.match(await options().first().textContent(), /Authenticat/i);
});

test("a missing bundle is an error state too", { skip }, async () => {
  await openAndType("deploy", "/missing.html");
  const alert = page.locator("sift-search [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), /HTTP 404|unavailable/i);
});

test("the box works on a page with hostile CSS (shadow DOM)", { skip }, async () => {
  await openAndType("deploy", "/hostile.html");
  await options().first().waitFor();
  const box = await page.locator("sift-search dialog").boundingBox();
  assert.ok(box && box.width > 300 && box.height > 100, JSON.stringify(box));
  const inputBox = await page.locator("sift-search input").boundingBox();
  assert.ok(inputBox && inputBox.height > 10 && inputBox.height < 80, JSON.stringify(inputBox));
  const fontSize = await page.locator("sift-search [role=option] .title").first().evaluate((el) => getComputedStyle(el).fontSize);
  assert.notEqual(fontSize, "31px", "the page's font-size rule does not reach inside");
  await page.screenshot({ path: path.join(OUT, "hostile.png") });
});

test("a German bundle loads the lean engine and German's stemmer, not the full runtime", { skip }, async () => {
  await page.goto(server.url + "/");
  const r = await page.evaluate(async () => {
    const { Sift } = await import("/sift.js");
    const s = await Sift.load("/de/_sift/");
    const res = await s.search({ query: "Konfiguration" });
    const fetched = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
    return { ids: res.results.map((x) => x.id), snippet: res.results[0]?.snippet, language: s.language, fetched };
  });
  assert.equal(r.language, "de");
  assert.deepEqual(r.ids, ["install.html"], "Konfiguration finds Konfigurationen: stemmed as German");
  assert.match(r.snippet, /<mark>Konfigurationen<\/mark>/);
  assert.ok(r.fetched.includes("/stem/de.wasm.lzma"), JSON.stringify(r.fetched));
  assert.ok(!r.fetched.some((f) => f.endsWith("sift_wasm_full_bg.wasm.lzma")), "the full runtime is not loaded");
});

test("the JS API: search, multiSearch, explain, getDocument, related and errors as rejected promises", { skip }, async () => {
  await page.goto(server.url + "/");
  const r = await page.evaluate(async () => {
    const { Sift } = await import("/sift.js");
    const fullFetched = () => performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/sift_wasm_full_bg.wasm.lzma")).length;
    const fetched = (file) => performance.getEntriesByType("resource").filter((e) => e.name.endsWith(`/${file}`)).length;
    const s = await Sift.load("/_sift/", { semantic: false });
    const keywordRuntime = fetched("sift_wasm_keyword_bg.wasm.lzma");
    const res = await s.search({ query: "cache", limit: 2 });
    const fullBefore = fullFetched();
    const multi = await s.multiSearch({ queries: [{ query: "cache" }, { query: "deploy" }], limit: 5 });
    const explained = await s.search({ query: "cache", limit: 1, explain: true });
    const fullAfter = fullFetched();
    const doc = await s.getDocument(res.results[0].id);
    const rel = await s.related(res.results[0].id, { limit: 3 });
    const errs = {};
    for (const [name, call] of [
      ["limit0", () => s.search({ query: "x", limit: 0 })],
      ["unknownField", () => s.search({ query: "x", bogus: 1 })],
      ["notAnObject", () => s.search(42)],
      ["longQuery", () => s.search({ query: "a".repeat(17000) })],
      ["relatedMissing", () => s.related("no/such.md")],
    ]) {
      try {
        await call();
        errs[name] = "resolved";
      } catch (e) {
        errs[name] = `${e.name}:${e.code}`;
      }
    }
    return {
      first: res.results[0].id, total: res.total, multi: multi.results.length, docTitle: doc.title, hasSp: "sp" in doc,
      related: rel.results.map((x) => x.id), missingDoc: await s.getDocument("nope"), errs, stats: s.stats,
      fullBefore, fullAfter, explained: explained.results[0].explain, explainedFirst: explained.results[0].id, keywordRuntime,
    };
  });
  assert.equal(r.first, "reference/cache.md");
  assert.ok(r.multi >= 2);
  assert.equal(r.docTitle, "Caching");
  assert.equal(r.hasSp, false);
  assert.ok(!r.related.includes("reference/cache.md"));
  assert.equal(r.missingDoc, null);
  assert.deepEqual(r.errs, {
    limit0: "SiftError:invalid_limit",
    unknownField: "SiftError:invalid_json",
    notAnObject: "SiftError:invalid_request",
    longQuery: "SiftError:query_too_long",
    relatedMissing: "SiftError:not_found",
  });
  assert.ok(r.stats.shardsFetched >= 3);
  // With semantic search off the keyword engine answers searches (the lean one's semantic
  // half left out); the full one (explain, multiSearch) is fetched once, on the first call
  // that needs it.
  assert.equal(r.keywordRuntime, 1, "semantic: false loads the keyword engine");
  assert.equal(r.fullBefore, 0, "a plain search does not load the full runtime");
  assert.equal(r.fullAfter, 1, "multiSearch and explain load it once");
  assert.equal(r.explainedFirst, "reference/cache.md");
  assert.ok(Array.isArray(r.explained?.clauses) && r.explained.bm25f > 0, JSON.stringify(r.explained));
});
