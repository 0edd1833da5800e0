// The extension's service worker: the omnibox (`sift <query>`) over every bundle, offline.
// Bundles load lazily on the first keystroke and stay loaded while the worker lives.

import { markedParts } from "./sift.js";
import { listBundles, openBundle, pageUrl } from "./bundles.js";

const xml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]);
/** The engine's HTML-safe title (escaped text + <mark>) as omnibox XML: escaped text + <match>. */
function omniboxMarkup(html) {
  return markedParts(html).map(({ text, mark }) => (mark ? `<match>${xml(text)}</match>` : xml(text))).join("");
}

/** Top results over every bundle, best first, as omnibox suggestions. Scores of different
 * bundles are compared as they are, except that a bundle which found none of the words and
 * answered by meaning (`fallback` to semantic) ranks below every bundle that matched them:
 * a guess must not bury an exact match elsewhere. */
async function suggestionsFor(text, limit = 6) {
  const query = text.trim();
  if (!query) return [];
  const bundles = await listBundles();
  const answers = await Promise.all(bundles.map(async (b) => {
    try {
      const sift = await openBundle(b);
      const res = await sift.search({ query, limit });
      const guess = res.fallback?.to === "semantic";
      return res.results.map((r) => ({ b, r, guess }));
    } catch (_) {
      return []; // one broken bundle must not silence the others
    }
  }));
  return answers
    .flat()
    .sort((x, y) => x.guess - y.guess || y.r.score - x.r.score)
    .slice(0, limit)
    .map(({ b, r }) => ({
      content: pageUrl(b, r),
      description: `${omniboxMarkup(r.title)} <dim>— ${xml(b.name)}</dim> <url>${xml(r.url)}</url>`,
    }));
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
