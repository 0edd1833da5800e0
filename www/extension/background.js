// The extension's service worker: the omnibox (`sift <query>`) over every bundle, offline.
// Bundles load lazily on the first keystroke and stay loaded while the worker lives.

import { markedParts } from "./sift.js";
import { SiftGroup } from "./sift-group.js";
import { listBundles, openBundle, pageUrl } from "./bundles.js";

const xml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]);
/** The engine's HTML-safe title (escaped text + <mark>) as omnibox XML: escaped text + <match>. */
function omniboxMarkup(html) {
  return markedParts(html).map(({ text, mark }) => (mark ? `<match>${xml(text)}</match>` : xml(text))).join("");
}

/** Top results over every bundle, best first, as omnibox suggestions: merged by weighted
 * rank (`SiftGroup`, as a page's box and the worker merge several bundles), each bundle
 * with the weight and filters set on the options page. A bundle that cannot be opened is
 * left out; the others answer. */
async function suggestionsFor(text, limit = 6) {
  const query = text.trim();
  if (!query) return [];
  const bundles = await listBundles();
  const opened = await Promise.allSettled(bundles.map(openBundle));
  const members = bundles
    .map((b, i) => ({ b, sift: opened[i].status === "fulfilled" ? opened[i].value : null }))
    .filter((m) => m.sift);
  if (!members.length) return [];
  const group = SiftGroup.of(members.map(({ b, sift }) => ({ sift, name: b.id, weight: b.weight, filters: b.filters })));
  const res = await group.search({ query, limit });
  const byId = new Map(bundles.map((b) => [b.id, b]));
  return res.results.map((r) => {
    const b = byId.get(r.bundle);
    return {
      content: pageUrl(b, r),
      description: `${omniboxMarkup(r.title)} <dim>— ${xml(b.name)}</dim> <url>${xml(r.url)}</url>`,
    };
  });
}

// Exposed for the end-to-end tests (and handy from the worker's console).
self.siftSuggest = suggestionsFor;

chrome.omnibox.setDefaultSuggestion({ description: "Search the docs with Sift: type a query" });

chrome.omnibox.onInputChanged.addListener((text, suggest) => {
  suggestionsFor(text).then(suggest, () => suggest([]));
});

chrome.omnibox.onInputEntered.addListener(async (text, disposition) => {
  let url = text;
  if (!/^(https?|chrome-extension|moz-extension):/.test(text)) {
    const [best] = await suggestionsFor(text, 1); // Enter without picking: the best match
    if (!best) return;
    url = best.content;
  }
  if (disposition === "currentTab") chrome.tabs.update({ url });
  else chrome.tabs.create({ url, active: disposition === "newForegroundTab" });
});
