// The popup: the same <sift-search> box as on the web, over a chosen bundle, opened at once.
import "./sift-search.js";
import { listBundles, fetchFor, pageUrl } from "./bundles.js";

const select = document.getElementById("bundle");
const box = document.getElementById("box");
const timing = document.getElementById("timing");
let bundles = [];

function use(id) {
  const b = bundles.find((x) => x.id === id) ?? bundles[0];
  box.useBundle(b.base, fetchFor(b));
  box.dataset.bundleId = b.id;
  chrome.storage.local.set({ lastBundle: b.id });
}

box.addEventListener("sift-navigate", (e) => {
  e.preventDefault(); // a popup opens pages in a tab, not in itself
  const b = bundles.find((x) => x.id === box.dataset.bundleId);
  const res = box.lastResponse?.results ?? [];
  const url = e.detail.url;
  const hit = res.find((r) => r.url === url || (r.sub_results ?? []).some((s) => s.url === url));
  const target = hit ? pageUrl(b, hit, url) : new URL(url, b.base).href;
  chrome.tabs.create({ url: target });
  window.close();
});

let t0 = null; // set when the box opens; cleared at its first results
box.addEventListener("sift-results", (e) => {
  if (t0 !== null) {
    const ms = performance.now() - t0;
    timing.textContent = `first result in ${ms.toFixed(0)} ms`;
    timing.dataset.firstResultMs = String(ms);
    t0 = null;
  }
});

(async () => {
  bundles = await listBundles();
  for (const b of bundles) select.append(new Option(`${b.name}${b.packaged ? "" : ` (${(b.bytes / 1024).toFixed(0)} kB)`}`, b.id));
  // Listen before the next await: a bundle chosen while the last one is looked up is kept,
  // not overwritten by it (the extension test picks one that fast, and lost the race).
  let chosen = false;
  select.addEventListener("change", () => {
    chosen = true;
    use(select.value);
  });
  const { lastBundle } = await chrome.storage.local.get("lastBundle");
  if (!chosen) {
    select.value = bundles.some((b) => b.id === lastBundle) ? lastBundle : bundles[0].id;
    use(select.value);
  }
  t0 = performance.now();
  box.open();
})();
