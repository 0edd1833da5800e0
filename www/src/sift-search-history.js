// <sift-search>'s recent searches and favourites: kept per bundle in localStorage, shown
// before the reader types. Storage that fails (private mode, quota, a corrupt value) is as
// if empty: the box works without it.

import { h } from "./sift-search-dom.js";

const HISTORY_MAX = 7; // recent searches kept, as DocSearch keeps them
const FAVOURITES_MAX = 20;

/** The lists under one storage key: {recent: [], favourites: []}, entries {query, title, url}. */
export class SearchHistory {
  constructor(key) {
    this.key = key;
  }

  load() {
    try {
      const v = JSON.parse(localStorage.getItem(this.key) ?? "{}");
      const ok = (l) => (Array.isArray(l) ? l.filter((x) => x && typeof x.query === "string" && typeof x.url === "string") : []);
      return { recent: ok(v.recent).slice(0, HISTORY_MAX), favourites: ok(v.favourites).slice(0, FAVOURITES_MAX) };
    } catch (_) {
      return { recent: [], favourites: [] };
    }
  }

  /** Change the stored lists with `change(lists)`. */
  edit(change) {
    const hist = this.load();
    change(hist);
    try {
      localStorage.setItem(this.key, JSON.stringify(hist));
    } catch (_) {
      /* storage full or denied: not remembered */
    }
  }

  /** A page opened from a search: first of the recent ones (unless it is a favourite). */
  remember(entry) {
    const same = (x) => x.query === entry.query && x.url === entry.url;
    this.edit((hist) => {
      if (!hist.favourites.some(same)) hist.recent = [entry, ...hist.recent.filter((x) => !same(x))].slice(0, HISTORY_MAX);
    });
  }
}

/**
 * The lists as headed rows: each entry searches again (`open(entry, event)`), a recent one
 * can be starred into the favourites, and any removed (`edit(change, kind, i)`). `t` gives
 * the box's words, `ids` its element ids' prefix.
 */
export function historyRows(hist, { ids, t, open, edit }) {
  const section = (kind, label, entries) => {
    if (!entries.length) return [];
    const id = `${ids}-h-${kind}`;
    const rows = entries.map((x, i) => {
      const again = h("button", { type: "button", class: "again", "data-url": x.url }, x.query, h("span", { class: "where" }, x.title));
      again.addEventListener("click", (e) => open(x, e));
      const acts = [];
      if (kind === "recent") {
        const star = h("button", { type: "button", class: "act", "aria-label": t("save", { q: x.query }), title: t("saveTitle") }, "☆");
        star.addEventListener("click", () => edit((hs) => {
          hs.recent.splice(i, 1);
          hs.favourites = [x, ...hs.favourites].slice(0, FAVOURITES_MAX);
        }, kind, i));
        acts.push(star);
      }
      const remove = h("button", { type: "button", class: "act", "aria-label": t("remove", { q: x.query, list: label.toLowerCase() }), title: t("removeTitle") }, "×");
      remove.addEventListener("click", () => edit((hs) => hs[kind].splice(i, 1), kind, i));
      return h("li", {}, again, ...acts, remove);
    });
    return [h("h2", { id }, label), h("ul", { "aria-labelledby": id }, ...rows)];
  };
  return [...section("favourites", t("favourites"), hist.favourites), ...section("recent", t("recent"), hist.recent)];
}

/** Arrow keys move between the rows (up from the first: the input); Delete removes one. */
export function historyKey(e, history, input) {
  const rows = [...history.querySelectorAll(".again")];
  const at = rows.indexOf(e.target);
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    const next = at + (e.key === "ArrowDown" ? 1 : -1);
    (next < 0 ? input : rows[Math.min(next, rows.length - 1)])?.focus();
  } else if (e.key === "Delete" && at >= 0) {
    e.preventDefault();
    e.target.closest("li").querySelector(".act:last-child").click();
  }
}
