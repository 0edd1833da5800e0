// <sift-search>'s small DOM helpers: elements made from data (every string as text, only the
// engine's <mark> tags as elements), and the words a result's page marks.

import { markedParts } from "./sift.js";

/** Append the engine's escaped-with-<mark> HTML to `el` as text nodes and <mark> elements. */
export function appendMarked(el, html) {
  for (const { text, mark } of markedParts(html)) {
    if (mark) {
      const m = document.createElement("mark");
      m.textContent = text;
      el.append(m);
    } else el.append(document.createTextNode(text));
  }
}

/** An element with `attrs` (false, null and undefined left out; true an empty attribute) and `kids`. */
export const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  el.append(...kids);
  return el;
};

/** Whether a key event comes from where the reader types (a field, an editable element). */
export function typing(e) {
  const t = e.composedPath?.()[0] ?? e.target;
  return !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName ?? ""));
}

/** The words to mark on the page: the query's, and the forms the result matched. */
export function highlightTerms(query, li) {
  const words = query.replace(/\b(OR|AND|NOT)\b/g, " ").split(/\s+/)
    .filter((w) => w && !w.startsWith("-"))
    .map((w) => w.replace(/^[a-z_]+:(?!:)/i, "").replace(/["()*]/g, ""));
  for (const m of li?.querySelectorAll("mark") ?? []) words.push(m.textContent);
  return [...new Set(words.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 1))].slice(0, 12);
}

/** A result's address as shown: its path on this site, else the whole URL. */
export function shownPath(url) {
  try {
    const u = new URL(url, location.href);
    return u.origin === location.origin ? u.pathname + u.hash : u.href;
  } catch (_) {
    return String(url);
  }
}
