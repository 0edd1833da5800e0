// <sift-search>'s words: English here, the other languages' in sift-search-i18n.js, loaded
// only by a box whose page is in one of them.

import { primaryLanguage } from "./sift.js";

// The box's words. Other languages' are in sift-search-i18n.js, loaded only by a box whose
// page is in one of them (the keys and placeholders are described there).
export const EN = {
  search: "Search", placeholder: "Search the docs", close: "Esc (close the search)", filters: "Filters",
  results: "Search results", pages: "Pages", none: "No results for “{q}”.", dym: "Did you mean ", dymEnd: "?",
  retry: "Try again", unavailable: "Search is unavailable: {m} ", save: "Save “{q}” as a favourite",
  saveTitle: "Save as a favourite", remove: "Remove “{q}” from {list}", removeTitle: "Remove", favourites: "Favourites",
  recent: "Recent searches", count: { one: "{n} result", other: "{n} results" }, keyword: "keyword", hybrid: "hybrid",
  semantic: "semantic", semOn: "semantic search on", semLoading: "loading semantic search…",
  semFailed: "semantic search unavailable (keywords only)", in: "in {page}",
};
export const FALLBACK_KEYS = { fuzzy: "fbFuzzy", "any term": "fbAny", nothing: "fbNothing", words: "fbWords", semantic: "fbMeaning", filters: "fbFilters" };

/** `key`'s words in `strings` (English when it lacks them), `{name}`s filled from `vars`, a count's plural form chosen for `lang`. */
export function say(strings, lang, key, vars = {}) {
  let text = strings[key] ?? EN[key];
  if (typeof text === "object") {
    const forms = text;
    text = forms[new Intl.PluralRules(lang).select(vars.n)] ?? forms.other;
  }
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/**
 * The words for a page's language tag: {strings, lang, dir}, or null for English (and for
 * a language without words of its own, whose box stays English but takes its direction).
 */
export async function wordsFor(tag) {
  const primary = primaryLanguage(tag);
  if (primary === "en") return null;
  const { STRINGS, RTL } = await import("./sift-search-i18n.js");
  const script = /-(hant|tw|hk|mo)\b/.test(tag) && primary === "zh" ? "zh-tw" : tag.split("-").slice(0, 2).join("-");
  const key = [tag, script, primary].find((k) => STRINGS[k]);
  const dir = RTL.includes(primary) ? "rtl" : "ltr";
  return key ? { strings: { ...EN, ...STRINGS[key] }, lang: key, dir } : { strings: EN, lang: "en", dir };
}
