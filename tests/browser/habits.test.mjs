// The search-box habits DocSearch and Pagefind users expect, in headless Chromium: recent
// searches and favourites, results grouped by section, terms highlighted on the page a
// result opens, a phone layout, and an accessibility audit (axe-core) of the open box.
// Screenshots at desktop and phone widths are kept in $CARGO_TARGET_DIR/browser-tests/.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { ROOT, OUT, sift, serve, browser, haveChromium, haveRuntime } from "./harness.mjs";
import { skipUnlessCI } from "../support.mjs";

const require = createRequire(path.join(ROOT, "www/package.json"));
const skip = skipUnlessCI(!haveChromium() ? "no /usr/bin/chromium (scripts/setup-web.sh installs it)"
  : !haveRuntime() ? "www/dist is not built (scripts/build-wasm.sh)"
  : !fs.existsSync(path.join(ROOT, "www/node_modules/axe-core")) ? "axe-core is missing (scripts/setup-web.sh installs www/'s packages)" : false);

let server, chrome, page;
const bundle = path.join(OUT, "habits/_sift");
const SHOTS = path.join(OUT, "screenshots");

before(async () => {
  if (skip) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  sift(["build", path.join(ROOT, "tests/corpus"), path.join(ROOT, "tests/browser/fixtures/api"), "--out", bundle, "--base-url", "/", "-q", "--no-embedder"]);
  server = await serve(bundle, { sites: [path.join(ROOT, "tests/corpus"), path.join(ROOT, "tests/browser/fixtures/api")] });
  chrome = await browser();
  page = await chrome.ctx.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
});

after(async () => {
  await chrome?.close();
  server?.stop();
});

const box = (sel) => page.locator(`sift-search ${sel}`);

async function openBox(url = "/", attrs = {}) {
  await page.goto(server.url + url);
  await page.waitForFunction(() => customElements.get("sift-search") !== undefined);
  await page.evaluate((attrs) => {
    const el = document.querySelector("sift-search");
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  }, attrs);
  await page.keyboard.press("Control+K");
  const input = box("input[role=combobox]");
  await input.waitFor({ state: "visible" });
  return input;
}

async function searchAndOpen(query, { nth = 0 } = {}) {
  const input = await openBox();
  await input.pressSequentially(query, { delay: 10 });
  await box("[role=option]").first().waitFor();
  for (let i = 0; i < nth; i++) await input.press("ArrowDown");
  await Promise.all([page.waitForLoadState("load").then(() => page.waitForURL((u) => u.pathname !== "/")), input.press("Enter")]);
}

const stored = () => page.evaluate(() => Object.fromEntries(Object.keys(localStorage).map((k) => [k, JSON.parse(localStorage.getItem(k))])));

test("recent searches and favourites: shown before typing, kept in localStorage, removable one by one", { skip }, async () => {
  await page.goto(server.url + "/");
  await page.evaluate(() => localStorage.clear());
  await searchAndOpen("token refresh");
  await searchAndOpen("deploy");
  await searchAndOpen("cache");
  const [key, hist] = Object.entries(await stored())[0];
  assert.match(key, /^sift-search:http:\/\/127\.0\.0\.1:\d+\/_sift\/$/);
  assert.deepEqual(hist.recent.map((x) => x.query), ["cache", "deploy", "token refresh"], "newest first");
  assert.ok(hist.recent.every((x) => x.url.startsWith("/") && x.title));
  // Before typing, the box lists them.
  const input = await openBox();
  const rows = box(".history .again");
  await rows.first().waitFor();
  assert.deepEqual(await rows.evaluateAll((bs) => bs.map((b) => b.firstChild.textContent)), ["cache", "deploy", "token refresh"]);
  await page.screenshot({ path: path.join(SHOTS, "history-desktop.png") });
  // ArrowDown reaches them from the input; Delete removes the focused one.
  await input.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.querySelector("sift-search").shadowRoot.activeElement?.firstChild?.textContent), "cache");
  await page.keyboard.press("Delete");
  assert.deepEqual((await stored())[key].recent.map((x) => x.query), ["deploy", "token refresh"]);
  // The star makes one a favourite (listed first, out of the recent list); × removes it.
  await box('.history button[aria-label^="Save “token refresh”"]').click();
  let h = (await stored())[key];
  assert.deepEqual([h.favourites.map((x) => x.query), h.recent.map((x) => x.query)], [["token refresh"], ["deploy"]]);
  assert.equal(await box(".history h2").first().textContent(), "Favourites");
  // Clicking one opens its page again.
  await Promise.all([page.waitForURL(/authentication\.html/), box(".history .again").first().click()]);
  await openBox();
  await box('.history button[aria-label^="Remove “token refresh” from favourites"]').click();
  h = (await stored())[key];
  assert.deepEqual(h.favourites, []);
  // At most 7 recent searches.
  for (const q of ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"]) {
    await page.evaluate(({ key, q }) => {
      const v = JSON.parse(localStorage.getItem(key));
      v.recent.unshift({ query: q, title: q, url: "/" });
      localStorage.setItem(key, JSON.stringify(v));
    }, { key, q });
  }
  await searchAndOpen("escaping");
  assert.equal((await stored())[key].recent.length, 7);
});

test("history=\"off\" shows none and stores nothing; a corrupt store is as if empty", { skip }, async () => {
  await page.goto(server.url + "/");
  await page.evaluate(() => localStorage.clear());
  let input = await openBox("/", { history: "off" });
  await input.pressSequentially("deploy", { delay: 10 });
  await box("[role=option]").first().waitFor();
  await Promise.all([page.waitForURL(/deploy\.html/), input.press("Enter")]);
  assert.deepEqual(await stored(), {}, "nothing stored");
  await page.evaluate(() => localStorage.setItem(`sift-search:${location.origin}/_sift/`, "{not json"));
  input = await openBox();
  assert.equal(await box(".history .again").count(), 0);
  await input.pressSequentially("cache", { delay: 10 });
  await box("[role=option]").first().waitFor();
});

test("results are grouped under their top-level section; a section's option names its page", { skip }, async () => {
  const input = await openBox();
  await input.pressSequentially("cache", { delay: 10 });
  await box("[role=listbox] [role=group]").first().waitFor();
  const groups = await box("[role=listbox] [role=group]").evaluateAll((gs) => gs.map((g) => ({
    label: g.getRootNode().querySelector(`[id="${g.getAttribute("aria-labelledby")}"]`)?.textContent,
    urls: [...g.querySelectorAll("[role=option]")].map((o) => o.dataset.url),
  })));
  assert.ok(groups.length >= 2, JSON.stringify(groups));
  for (const g of groups) assert.ok(g.urls.every((u) => u.startsWith(`/${g.label}/`)), JSON.stringify(g));
  assert.equal(new Set(groups.map((g) => g.label)).size, groups.length, "one group per section");
  // The first group holds the best result.
  const first = await page.evaluate(() => document.querySelector("sift-search").lastResponse.results[0].url);
  assert.equal(groups[0].urls[0], first);
  await input.fill("");
  await input.pressSequentially("token refresh", { delay: 10 });
  const sub = box("[role=option].sub").first();
  await sub.waitFor();
  assert.match(await sub.locator(".where").textContent(), /^in Authenticate users$/);
  assert.equal(await sub.getAttribute("data-title"), "Authenticate users › Rotating tokens");
});

test("a result link carries ?highlight=, and sift-highlight.js marks the terms and scrolls to the first", { skip }, async () => {
  await searchAndOpen("rotate tokens", { nth: 1 });
  const url = new URL(page.url());
  assert.equal(url.pathname, "/guides/authentication.html");
  assert.equal(url.hash, "#rotating");
  const terms = url.searchParams.get("highlight").split(" ");
  assert.ok(terms.includes("rotate") && terms.includes("tokens"), "the query's words, and the forms the result matched");
  await page.locator("mark.sift-highlight").first().waitFor();
  const marks = await page.locator("mark.sift-highlight").allTextContents();
  assert.ok(marks.some((m) => /^rotate$/i.test(m)) && marks.some((m) => /^tokens$/i.test(m)), JSON.stringify(marks));
  assert.equal(await page.locator("sift-search mark.sift-highlight").count(), 0, "the box is left alone");
  const inView = await page.evaluate(() => {
    const r = document.querySelector("mark.sift-highlight").getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  });
  assert.ok(inView, "the first mark is on screen");
  // highlight="off": no parameter.
  const input = await openBox("/", { highlight: "off" });
  await input.pressSequentially("deploy", { delay: 10 });
  await box("[role=option]").first().waitFor();
  await Promise.all([page.waitForURL(/deploy\.html/), input.press("Enter")]);
  assert.equal(new URL(page.url()).search, "");
  // Markup in the parameter is text: nothing is injected.
  await page.goto(server.url + "/guides/deploy.html?highlight=" + encodeURIComponent("<img src=x onerror=alert(1)> deploy"));
  await page.locator("mark.sift-highlight").first().waitFor();
  assert.equal(await page.locator("main img").count(), 0);
});

test("on a phone the open box fills the screen; screenshots at both widths", { skip }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const input = await openBox();
    await input.pressSequentially("authent", { delay: 10 });
    await box("[role=option]").first().waitFor();
    const rect = await box("dialog").boundingBox();
    assert.deepEqual([rect.x, rect.y, rect.width, rect.height], [0, 0, 390, 844]);
    const tap = await box("[role=option]").first().boundingBox();
    assert.ok(tap.height >= 44, `an option is a thumb's height: ${JSON.stringify(tap)}`);
    await page.screenshot({ path: path.join(SHOTS, "results-phone.png") });
    await input.fill("");
    await page.screenshot({ path: path.join(SHOTS, "history-phone.png") });
  } finally {
    await page.setViewportSize({ width: 1100, height: 800 });
  }
  const input = await openBox();
  await input.pressSequentially("authent", { delay: 10 });
  await box("[role=option]").first().waitFor();
  const rect = await box("dialog").boundingBox();
  assert.ok(rect.width <= 722 && rect.x > 0, `a centred dialog on a desktop: ${JSON.stringify(rect)}`);
  await page.screenshot({ path: path.join(SHOTS, "results-desktop.png") });
});

async function audit() {
  await page.addScriptTag({ content: fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8") });
  return page.evaluate(async () => {
    const r = await window.axe.run({ include: [["sift-search"]] }, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 3) }));
  });
}

test("an accessibility audit (axe-core) of the open box finds no violations: results, groups, history, phone", { skip }, async () => {
  await page.goto(server.url + "/");
  await page.evaluate(() => localStorage.clear());
  await searchAndOpen("token refresh");
  let input = await openBox();
  await box(".history .again").first().waitFor();
  assert.deepEqual(await audit(), [], "history");
  await input.pressSequentially("cache", { delay: 10 });
  await box("[role=listbox] [role=group]").first().waitFor();
  assert.deepEqual(await audit(), [], "grouped results");
  await input.fill("");
  await input.pressSequentially("token refresh", { delay: 10 });
  await box("[role=option].sub").first().waitFor();
  await input.press("ArrowDown");
  assert.deepEqual(await audit(), [], "results with sub-results, one active");
  await input.fill("");
  await input.pressSequentially("zzqqxx", { delay: 10 });
  await box(".empty").waitFor();
  assert.deepEqual(await audit(), [], "no results");
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    input = await openBox();
    await input.pressSequentially("deploy", { delay: 10 });
    await box("[role=option]").first().waitFor();
    assert.deepEqual(await audit(), [], "phone");
  } finally {
    await page.setViewportSize({ width: 1100, height: 800 });
  }
});

/** A fresh box on a page whose <html lang> is `lang` (a box reads its language once, when first shown). */
async function boxIn(lang) {
  await page.goto(server.url + "/");
  await page.evaluate((lang) => {
    document.documentElement.lang = lang;
    const old = document.querySelector("sift-search");
    const fresh = document.createElement("sift-search");
    // (The demo page's own placeholder would win over the translation.)
    for (const a of old.attributes) if (a.name !== "placeholder") fresh.setAttribute(a.name, a.value);
    old.replaceWith(fresh);
  }, lang);
  // The words are shown once the translations have loaded.
  await page.waitForFunction(() => document.querySelector("sift-search").shadowRoot.querySelector("dialog").hasAttribute("lang"));
  await page.keyboard.press("Control+K");
  const input = box("input[role=combobox]");
  await input.waitFor({ state: "visible" });
  return input;
}

test("the box speaks its page's language, and Arabic and Hebrew pages get it right to left", { skip }, async () => {
  let input = await boxIn("de-DE");
  assert.equal(await input.getAttribute("placeholder"), "Dokumentation durchsuchen");
  assert.equal(await box("dialog").getAttribute("aria-label"), "Suche");
  await input.pressSequentially("cache", { delay: 10 });
  await box("[role=option]").first().waitFor();
  assert.match(await box(".status").textContent(), /^\d+ Ergebnisse? · /);
  await input.fill("");
  await input.pressSequentially("zzqqxx", { delay: 10 });
  await box(".empty").waitFor();
  assert.equal(await box(".empty").textContent(), "Keine Ergebnisse für „zzqqxx“.");
  // Filters alone list their pages, and the note says so in German.
  await input.fill("type:guide");
  await box("[role=option]").first().waitFor();
  await box(".notice .fallback").waitFor();
  assert.equal(await box(".notice .fallback").textContent(), "Keine Suchwörter; alle Seiten, die den Filtern entsprechen");
  assert.ok((await box("[role=option]").count()) > 0, "the guides are listed");
  assert.equal(await box("dialog").getAttribute("dir"), "ltr");
  for (const [lang, placeholder] of [["ar", "ابحث في التوثيق"], ["he", "חיפוש בתיעוד"]]) {
    input = await boxIn(lang);
    assert.equal(await input.getAttribute("placeholder"), placeholder);
    assert.equal(await box("dialog").getAttribute("dir"), "rtl");
    await input.pressSequentially("deploy", { delay: 10 });
    await box("[role=option]").first().waitFor();
    const [inputBox, closeBox] = [await input.boundingBox(), await box("button.close").boundingBox()];
    assert.ok(closeBox.x < inputBox.x, "the close button is on the left, right to left");
    assert.deepEqual(await audit(), [], `${lang}: accessibility`);
    await page.screenshot({ path: path.join(SHOTS, `results-${lang}-rtl.png`) });
  }
  // Chinese in the Traditional script gets its own words.
  input = await boxIn("zh-Hant-TW");
  assert.equal(await input.getAttribute("placeholder"), "搜尋文件");
});

test("one box searches several bundles: results from each, and a missing one does not stop the others", { skip }, async () => {
  // A second site's bundle, served beside the first at /_b/.
  const second = path.join(OUT, "habits/site2");
  fs.rmSync(second, { recursive: true, force: true });
  sift(["build", path.join(ROOT, "tests/browser/fixtures/api"), "--out", path.join(second, "_b"), "--base-url", "/", "-q", "--no-embedder"]);
  const both = await serve(bundle, { sites: [path.join(ROOT, "tests/corpus"), second] });
  try {
    for (const bundles of ["/_sift/ /_b/", "/_sift/ /_nowhere/"]) {
      await page.goto(both.url + "/");
      await page.evaluate((b) => {
        const old = document.querySelector("sift-search");
        const fresh = document.createElement("sift-search");
        fresh.setAttribute("bundle", b);
        old.replaceWith(fresh);
      }, bundles);
      await page.keyboard.press("Control+K");
      const input = box("input[role=combobox]");
      await input.waitFor({ state: "visible" });
      const urls = async (q) => {
        await input.fill("");
        await input.pressSequentially(q, { delay: 10 });
        await box("[role=option]").first().waitFor();
        return box("[role=option]").evaluateAll((os) => os.map((o) => o.dataset.url));
      };
      assert.ok((await urls("cache")).some((u) => u.includes("cache")), `${bundles}: the first bundle answers`);
      if (bundles.includes("_b")) assert.ok((await urls("path")).some((u) => u.includes("library/os.html")), "the second bundle answers");
      await page.keyboard.press("Escape");
    }
  } finally {
    both.stop();
  }
});
