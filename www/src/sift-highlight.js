// sift-highlight.js: on the page a search result opened, mark the search terms that the
// result link carried (`?highlight=token refresh`, set by <sift-search>) and scroll to the
// first one — after the section the link points at, when it has an anchor.
//
//   <script type="module" src="/sift-highlight.js"></script>
//   <script type="module" src="/sift-highlight.js?param=q"></script>   (another parameter)
//
// Terms match at the start of words, case- and accent-insensitively (`token` marks
// "Tokens"); text in scripts, styles, form fields and the search box is left alone. The
// marks are <mark class="sift-highlight">, for the page's CSS to style.

const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEXTAREA", "INPUT", "SELECT", "OPTION", "SVG", "MARK", "SIFT-SEARCH", "TEMPLATE"]);
const fold = (s) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/**
 * Mark `terms` (default: the URL's `param` values) under `root` (default: the page's marked
 * body, main content or body). Returns the marks, in document order.
 */
export function highlight({ param = "highlight", terms, root } = {}) {
  terms ??= new URLSearchParams(location.search).getAll(param).flatMap((v) => v.split(/\s+/));
  const wanted = [...new Set(terms.map(fold).filter((t) => t.length > 1))];
  if (!wanted.length) return [];
  root ??= document.querySelector("[data-sift-body], [data-pagefind-body], main, [role=main], article") ?? document.body;
  const escaped = wanted.sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // The folded text keeps one character per original one only when folding does: match on
  // the folded copy, cut the original at the same offsets only when their lengths agree.
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join("|")})[\\p{L}\\p{N}]*`, "gu");
  const nodes = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(n) {
      for (let e = n.parentElement; e && e !== root.parentElement; e = e.parentElement) {
        if (SKIP.has(e.tagName.toUpperCase()) || e.isContentEditable) return NodeFilter.FILTER_REJECT;
      }
      return n.nodeValue.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
    },
  });
  while (walker.nextNode()) nodes.push(walker.currentNode);
  const marks = [];
  for (const node of nodes) {
    const text = node.nodeValue;
    const folded = fold(text);
    if (folded.length !== text.length) continue;
    const hits = [...folded.matchAll(re)];
    if (!hits.length) continue;
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const m of hits) {
      frag.append(text.slice(at, m.index));
      const mark = document.createElement("mark");
      mark.className = "sift-highlight";
      mark.textContent = text.slice(m.index, m.index + m[0].length);
      frag.append(mark);
      marks.push(mark);
      at = m.index + m[0].length;
    }
    frag.append(text.slice(at));
    node.replaceWith(frag);
  }
  return marks;
}

/** Mark the URL's terms and scroll to the first mark at or after the link's anchor. */
export function highlightFromUrl(param = "highlight") {
  const marks = highlight({ param });
  if (!marks.length) return marks;
  const anchor = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  const first = (anchor && marks.find((m) => anchor.contains(m) || anchor.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING)) ?? marks[0];
  first.scrollIntoView({ block: "center" });
  return marks;
}

const own = new URL(import.meta.url).searchParams.get("param");
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => highlightFromUrl(own ?? undefined));
else highlightFromUrl(own ?? undefined);
