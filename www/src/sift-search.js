// <sift-search>: a search box for static docs sites, no framework.
//
// A button (and Ctrl/Cmd-K, or `/`) opens a modal dialog; results appear as the user types
// (the last word matches as a prefix), grouped under their top-level section; arrow keys
// move through results and sub-results, Enter opens the page at the section's anchor with
// the search terms in `?highlight=` (sift-highlight.js marks them there). Before typing, the
// box lists recent searches and favourites, kept in localStorage (`history="off"`: none,
// and nothing stored). The input is an ARIA combobox controlling a listbox of options.
// Everything lives in a shadow root, so the page's CSS cannot break it, and every string
// from the index is rendered as text: only the engine's <mark> tags become elements.

import { Sift, asSiftError, markedParts, primaryLanguage, LIMITS } from "./sift.js";

// The box's words. Other languages' are in sift-search-i18n.js, loaded only by a box whose
// page is in one of them (the keys and placeholders are described there).
const EN = {
  search: "Search", placeholder: "Search the docs", close: "Esc (close the search)", filters: "Filters",
  results: "Search results", pages: "Pages", none: "No results for “{q}”.", dym: "Did you mean ", dymEnd: "?",
  retry: "Try again", unavailable: "Search is unavailable: {m} ", save: "Save “{q}” as a favourite",
  saveTitle: "Save as a favourite", remove: "Remove “{q}” from {list}", removeTitle: "Remove", favourites: "Favourites",
  recent: "Recent searches", count: { one: "{n} result", other: "{n} results" }, keyword: "keyword", hybrid: "hybrid",
  semantic: "semantic", semOn: "semantic search on", semLoading: "loading semantic search…",
  semFailed: "semantic search unavailable (keywords only)", in: "in {page}",
};
const FALLBACK_KEYS = { fuzzy: "fbFuzzy", "any term": "fbAny", nothing: "fbNothing", words: "fbWords", semantic: "fbMeaning", filters: "fbFilters" };

const STYLE = `
:host { all: initial; display: inline-block; font-family: var(--sift-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  --_bg: var(--sift-bg, #ffffff); --_fg: var(--sift-fg, #1b1f24); --_muted: var(--sift-muted, #5b6470);
  --_accent: var(--sift-accent, #3451b2); --_border: var(--sift-border, #d6dae0); --_mark: var(--sift-mark-bg, #fff2a8);
  --_mark-fg: var(--sift-mark-fg, #1b1f24); --_sel: var(--sift-selected-bg, #e8edfb); --_radius: var(--sift-radius, 10px);
  --_backdrop: var(--sift-backdrop, rgba(20, 24, 31, .45)); }
:host([theme="dark"]) { --_bg: var(--sift-bg, #1d2128); --_fg: var(--sift-fg, #e6e9ee); --_muted: var(--sift-muted, #9aa3ae);
  --_accent: var(--sift-accent, #8ea8ff); --_border: var(--sift-border, #373d48); --_mark: var(--sift-mark-bg, #5c4d00);
  --_mark-fg: var(--sift-mark-fg, #fff6cc); --_sel: var(--sift-selected-bg, #2c3442); --_backdrop: var(--sift-backdrop, rgba(0, 0, 0, .6)); }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { --_bg: var(--sift-bg, #1d2128); --_fg: var(--sift-fg, #e6e9ee);
  --_muted: var(--sift-muted, #9aa3ae); --_accent: var(--sift-accent, #8ea8ff); --_border: var(--sift-border, #373d48);
  --_mark: var(--sift-mark-bg, #5c4d00); --_mark-fg: var(--sift-mark-fg, #fff6cc); --_sel: var(--sift-selected-bg, #2c3442);
  --_backdrop: var(--sift-backdrop, rgba(0, 0, 0, .6)); } }
*, *::before, *::after { box-sizing: border-box; }
/* Inherited properties set on the host by the page (color, letter-spacing, text-transform,
   line-height, even with !important) stop here: the subtree starts from initial values. */
.root { all: initial; display: contents; font-family: var(--sift-font, system-ui, -apple-system, "Segoe UI", sans-serif);
  font-size: 15px; line-height: 1.45; color: var(--_fg); }
.trigger { all: unset; cursor: pointer; display: inline-flex; align-items: center; gap: .5em; padding: .45em .7em; min-width: 12em;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_muted); font: inherit; font-size: 14px; }
.trigger:focus-visible { outline: 2px solid var(--_accent); outline-offset: 2px; }
kbd { font: 12px ui-monospace, monospace; border: 1px solid var(--_border); border-radius: 4px; padding: 0 .35em; margin-inline-start: auto; color: var(--_muted); }
dialog { all: revert; position: fixed; inset: 8vh 0 auto 0; margin: 0 auto; width: min(720px, calc(100vw - 24px)); max-height: 80vh; padding: 0;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_fg); font-size: 15px;
  line-height: 1.45; font-family: inherit; box-shadow: 0 18px 50px rgba(0, 0, 0, .25); overflow: hidden; }
dialog[open] { display: flex; flex-direction: column; }
dialog::backdrop { background: var(--_backdrop); }
.bar { display: flex; align-items: center; gap: .5em; padding: .7em .9em; border-bottom: 1px solid var(--_border); }
input { all: unset; flex: 1; font: inherit; font-size: 17px; color: var(--_fg); min-width: 0; }
input::placeholder { color: var(--_muted); }
.close { all: unset; cursor: pointer; font: 12px ui-monospace, monospace; border: 1px solid var(--_border); border-radius: 4px; padding: .1em .4em; color: var(--_muted); }
.facets { display: flex; flex-wrap: wrap; gap: .4em; padding: .5em .9em 0; }
.facets:empty { display: none; }
.chip { all: unset; cursor: pointer; font-size: 13px; padding: .15em .6em; border: 1px solid var(--_border); border-radius: 999px; color: var(--_muted); }
.chip[aria-pressed="true"] { background: var(--_accent); border-color: var(--_accent); color: var(--_bg); }
.chip:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.notice { padding: .5em .9em 0; font-size: 13px; color: var(--_muted); }
.notice:empty { display: none; }
.notice button { all: unset; cursor: pointer; color: var(--_accent); text-decoration: underline; }
.error { color: #c62828; }
:host([theme="dark"]) .error { color: #ff8a80; }
[role="listbox"] { list-style: none; margin: 0; padding: .4em; overflow-y: auto; flex: 1; }
[role="option"] { display: block; padding: .5em .7em; border-radius: calc(var(--_radius) - 4px); cursor: pointer; color: var(--_fg); }
[role="option"][aria-selected="true"] { background: var(--_sel); }
[role="option"].sub { margin-inline-start: 1.4em; padding-top: .3em; padding-bottom: .3em; border-inline-start: 2px solid var(--_border); border-radius: 0; border-start-end-radius: 6px; border-end-end-radius: 6px; }
.title { font-weight: 600; }
.sub .title { font-weight: 500; font-size: 14px; }
.where { font-size: 12px; color: var(--_muted); margin-inline-start: .4em; font-weight: 400; }
.snippet { font-size: 13.5px; color: var(--_muted); margin-top: .15em; overflow: hidden; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; }
mark { background: var(--_mark); color: var(--_mark-fg); border-radius: 2px; padding: 0 1px; }
.footer { display: flex; gap: 1em; justify-content: space-between; padding: .45em .9em; border-top: 1px solid var(--_border); font-size: 12px; color: var(--_muted); }
.empty { padding: 1.2em .9em; color: var(--_muted); }
[role="group"] { margin: 0; padding: 0; }
.group { padding: .6em .7em .2em; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--_muted); }
[role="listbox"]:empty { display: none; }
.history { overflow-y: auto; padding: .2em .4em .5em; flex: 1; }
.history:empty { display: none; }
.history h2 { margin: .6em .7em .2em; font-size: 12px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--_muted); }
.history ul { list-style: none; margin: 0; padding: 0; }
.history li { display: flex; align-items: center; gap: .2em; border-radius: calc(var(--_radius) - 4px); }
.history li:hover, .history li:focus-within { background: var(--_sel); }
.history button { all: unset; cursor: pointer; border-radius: 6px; color: var(--_fg); }
.history button:focus-visible { outline: 2px solid var(--_accent); outline-offset: -2px; }
.history .again { flex: 1; padding: .5em .7em; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.history .again .where { margin-inline-start: .6em; }
.history .act { padding: .35em .6em; color: var(--_muted); font-size: 15px; }
/* A phone: the box is the whole screen, with room for a thumb. */
@media (max-width: 640px) {
  dialog { inset: 0; width: 100vw; max-width: 100vw; height: 100dvh; max-height: 100dvh; border: 0; border-radius: 0; }
  .bar { padding: .8em; }
  [role="option"], .history .again { padding-top: .7em; padding-bottom: .7em; }
  .history .act { padding: .7em .8em; }
  kbd { display: none; }
  .trigger { min-width: 0; }
}
`;
const HISTORY_MAX = 7; // recent searches kept, as DocSearch keeps them
const FAVOURITES_MAX = 20;

/** Append the engine's escaped-with-<mark> HTML to `el` as text nodes and <mark> elements. */
function appendMarked(el, html) {
  for (const { text, mark } of markedParts(html)) {
    if (mark) {
      const m = document.createElement("mark");
      m.textContent = text;
      el.append(m);
    } else el.append(document.createTextNode(text));
  }
}

const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  el.append(...kids);
  return el;
};

// How long a search may hold the keystrokes typed during it (see #search): longer than a
// cold hybrid search with the runtime's loading on a mobile link (about 2 s).
const STALL_MS = 2500;
let instances = 0;

/** Whether a key event comes from where the reader types (a field, an editable element). */
function typing(e) {
  const t = e.composedPath?.()[0] ?? e.target;
  return !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName ?? ""));
}

export class SiftSearchElement extends HTMLElement {
  static observedAttributes = ["bundle", "semantic", "embedder", "placeholder", "history"];

  sift = null;
  lastResponse = null;
  /** A custom fetch for the bundle's files (extensions read bundles from the Cache API). */
  fetchImpl = undefined;
  #loading = null;
  #root;
  #ids;
  #els = {};
  #filters = {};
  #seq = 0; // the last search started
  #shownSeq = 0; // the newest search whose answer (or error, or empty box) is on screen
  #running = null; // the search under way: {since}
  #again = null; // what to search when it ends: the options of the calls it absorbed
  #stall = null; // the timer that stops a stalled search from holding the box
  #active = -1;
  #options = [];
  #userMoved = false; // the user moved through the list since the last render
  #pending = null; // hybrid answer held back while the user is moving through the list
  #onKey = (e) => this.#globalKey(e);
  #strings = EN;
  #lang = "en";

  /** The box's language: its own `lang`, else its page's (nearest `lang` attribute). */
  get #pageLang() {
    return (this.closest("[lang]")?.getAttribute("lang") || "en").trim().toLowerCase();
  }

  /** A string in the box's language, with `{name}`s filled from `vars`. */
  #t(key, vars = {}) {
    let text = this.#strings[key] ?? EN[key];
    if (typeof text === "object") {
      const forms = text;
      text = forms[new Intl.PluralRules(this.#lang).select(vars.n)] ?? forms.other;
    }
    return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  }

  /** Load the words of a page not in English, then show them. */
  #localise() {
    const tag = this.#pageLang;
    const primary = primaryLanguage(tag);
    if (primary === "en") return;
    import("./sift-search-i18n.js").then(({ STRINGS, RTL }) => {
      const script = /-(hant|tw|hk|mo)\b/.test(tag) && primary === "zh" ? "zh-tw" : tag.split("-").slice(0, 2).join("-");
      const key = [tag, script, primary].find((k) => STRINGS[k]);
      if (key) {
        this.#strings = { ...EN, ...STRINGS[key] };
        this.#lang = key;
      }
      const dir = RTL.includes(primary) ? "rtl" : "ltr";
      this.#els.dialog.setAttribute("dir", dir);
      this.#els.trigger.setAttribute("dir", dir);
      this.#applyStrings();
    }, () => {}); // the English words stay
  }

  /** The words on elements that stay (the others are written as they are made). */
  #applyStrings() {
    const { trigger, input, close, facets, list, dialog } = this.#els;
    trigger.firstChild.textContent = this.#t("search");
    input.setAttribute("aria-label", this.#t("search"));
    input.placeholder = this.getAttribute("placeholder") ?? this.#t("placeholder");
    close.setAttribute("aria-label", this.#t("close"));
    facets.setAttribute("aria-label", this.#t("filters"));
    list.setAttribute("aria-label", this.#t("results"));
    dialog.setAttribute("aria-label", this.#t("search"));
    dialog.setAttribute("lang", this.#lang);
    if (this.sift) this.#semanticChanged(this.sift.semanticState);
    if (!input.value.trim()) this.#showHistory();
  }

  constructor() {
    super();
    instances += 1;
    this.#ids = `sift-${instances}`;
    this.#root = this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    if (!this.#els.dialog) {
      this.#render();
      this.#localise();
    }
    document.addEventListener("keydown", this.#onKey);
  }

  disconnectedCallback() {
    document.removeEventListener("keydown", this.#onKey);
  }

  attributeChangedCallback(name, oldValue, value) {
    if (oldValue !== value && (name === "bundle" || name === "semantic" || name === "embedder") && this.sift) {
      this.sift = null;
      this.#loading = null;
    }
    if (name === "placeholder" && this.#els.input) this.#els.input.placeholder = value ?? this.#t("placeholder");
    if (name === "history" && this.#els.history && !this.#els.input.value.trim()) this.#showHistory();
  }

  get #limit() {
    const n = parseInt(this.getAttribute("limit") ?? "8", 10);
    return Number.isFinite(n) && n >= 1 && n <= LIMITS.maxLimit ? n : 8;
  }

  get #facetFields() {
    return (this.getAttribute("facets") ?? "type").split(",").map((s) => s.trim()).filter(Boolean);
  }

  #render() {
    const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
    const listId = `${this.#ids}-listbox`;
    const trigger = h("button", { class: "trigger", part: "button", type: "button", "aria-haspopup": "dialog" },
      this.#t("search"), h("kbd", {}, isMac ? "⌘ K" : "Ctrl K"));
    const input = h("input", {
      type: "search", role: "combobox", "aria-expanded": "false", "aria-controls": listId, "aria-autocomplete": "list",
      // Phones would capitalise `Json` and correct `getcwd` to words: queries are often code.
      "aria-label": this.#t("search"), autocomplete: "off", spellcheck: "false", autocapitalize: "off", autocorrect: "off", enterkeyhint: "go",
      placeholder: this.getAttribute("placeholder") ?? this.#t("placeholder"),
    });
    const close = h("button", { class: "close", type: "button", "aria-label": this.#t("close") }, "Esc");
    const facets = h("div", { class: "facets", role: "group", "aria-label": this.#t("filters") });
    const notice = h("div", { class: "notice", role: "status", "aria-live": "polite" });
    const list = h("div", { id: listId, role: "listbox", "aria-label": this.#t("results") });
    const history = h("div", { class: "history" });
    const status = h("span", { class: "status" });
    const semantic = h("span", { class: "semantic" });
    const dialog = h("dialog", { part: "dialog", "aria-label": this.#t("search") },
      h("div", { class: "bar" }, input, close), facets, notice, list, history, h("div", { class: "footer" }, status, semantic));
    this.#root.append(h("style", {}, STYLE), h("div", { class: "root" }, trigger, dialog));
    Object.assign(this.#els, { trigger, input, close, facets, notice, list, history, status, semantic, dialog });

    trigger.addEventListener("click", () => this.open());
    trigger.addEventListener("pointerenter", () => this.#ensureLoaded().catch(() => {}), { once: true });
    close.addEventListener("click", () => this.close());
    dialog.addEventListener("close", () => {
      input.setAttribute("aria-expanded", "false");
      trigger.focus();
    });
    dialog.addEventListener("click", (e) => {
      if (e.target === dialog) this.close(); // a click on the backdrop
    });
    input.addEventListener("input", () => this.#search());
    input.addEventListener("keydown", (e) => this.#inputKey(e));
    list.addEventListener("pointermove", (e) => {
      const li = e.target.closest?.("[role=option]");
      if (li) {
        this.#userMoved = true;
        this.#setActive(this.#options.indexOf(li), false);
      }
    });
    list.addEventListener("click", (e) => {
      const li = e.target.closest?.("[role=option]");
      if (li) this.#go(li, e);
    });
    history.addEventListener("keydown", (e) => this.#onHistoryKey(e));
  }

  #globalKey(e) {
    if ((e.key === "k" || e.key === "K") && (e.metaKey || e.ctrlKey) && !e.altKey) {
      e.preventDefault();
      if (this.#els.dialog.open) this.#els.input.select();
      else this.open();
    } else if (e.key === "/" && !e.metaKey && !e.ctrlKey && !e.altKey && !this.#els.dialog.open && !typing(e)) {
      // DocSearch's habit: `/` opens the box — but not while the reader types in a field.
      e.preventDefault();
      this.open();
    }
  }

  /** Point the box at another bundle (and fetch), dropping the loaded one. */
  useBundle(bundle, fetchImpl) {
    this.fetchImpl = fetchImpl;
    this.#filters = {};
    this.sift = null;
    this.#loading = null;
    this.#shownSeq = ++this.#seq; // an answer still coming from the previous bundle is not shown
    this.setAttribute("bundle", bundle);
    if (this.#els.input?.value) this.#search();
  }

  open() {
    const { dialog, input } = this.#els;
    if (!dialog.open) dialog.showModal();
    input.focus();
    input.select();
    if (!input.value.trim()) this.#showHistory();
    this.#ensureLoaded().then(() => input.value && this.#search(), (e) => this.#showError(e));
  }

  close() {
    if (this.#els.dialog.open) this.#els.dialog.close();
  }

  #ensureLoaded() {
    if (this.sift) return Promise.resolve(this.sift);
    if (!this.#loading) {
      const bundle = this.getAttribute("bundle") ?? "/_sift/";
      const semantic = this.getAttribute("semantic") !== "off";
      const embedder = this.getAttribute("embedder") === "model" ? "model" : "static";
      // The page's language picks its bundle when the site was built in several.
      const language = this.closest("[lang]")?.getAttribute("lang") || undefined;
      const options = { semantic, embedder, language, fetch: this.fetchImpl };
      // Several bundles (space-separated): searched as one, results merged by rank.
      const bases = bundle.trim().split(/\s+/);
      const opening = bases.length > 1
        ? import("./sift-group.js").then(({ SiftGroup }) => SiftGroup.load(bases, options))
        : Sift.load(bundle, options);
      const loading = opening.then(
        (s) => {
          // Another bundle was chosen while this one loaded: whoever waited gets that one.
          if (this.#loading !== loading) return this.#ensureLoaded();
          this.sift = s;
          s.onSemanticState((state) => this.#semanticChanged(state));
          this.#semanticChanged(s.semanticState);
          return s;
        },
        (e) => {
          if (this.#loading !== loading) return this.#ensureLoaded();
          this.#loading = null; // try again on the next keystroke
          throw e;
        },
      );
      this.#loading = loading;
    }
    return this.#loading;
  }

  #semanticChanged(state) {
    const label = { static: this.#t("semOn"), loading: this.#t("semLoading"), ready: this.#t("semOn"), failed: this.#t("semFailed") };
    this.#els.semantic.textContent = label[state] ?? "";
    if (state === "ready" && this.lastResponse && this.lastResponse.search_type === "lexical" && this.#els.input.value.trim()) {
      this.#search({ upgrade: true });
    }
  }

  // One search at a time: keystrokes that come while one runs are searched as one — the
  // input's value when it ends — and its answer is shown meanwhile. A cold engine on a slow
  // link takes longer than a keystroke: searching every one fetched every one's shards (a
  // 33-key query on the Python docs, 120 ms a key: 393 kB keyword, 701 kB hybrid) and
  // showed nothing until typing stopped (each answer was dropped for the next keystroke's).
  #search(opts = {}) {
    if (this.#running && this.#els.input.value.trim()) {
      if (!this.#again || this.#again.upgrade) this.#again = opts; // a keystroke outranks an upgrade
      // One stalled on the network holds the box STALL_MS at most: then the input's value
      // is searched beside it (answers are shown in the order they were asked for).
      this.#stall ??= setTimeout(() => this.#release(), this.#running.since + STALL_MS - performance.now());
      return;
    }
    this.#searchNow(opts);
  }

  // The search under way no longer holds the others: what it absorbed is searched now.
  #release() {
    clearTimeout(this.#stall);
    this.#stall = null;
    this.#running = null;
    const again = this.#again;
    this.#again = null;
    if (again) this.#search(again);
  }

  async #searchNow({ upgrade = false }) {
    const query = this.#els.input.value;
    const seq = ++this.#seq;
    if (!query.trim()) {
      this.#shownSeq = seq;
      this.#pending = null;
      this.#clear();
      this.#showHistory();
      return;
    }
    const run = { since: performance.now() };
    this.#running = run;
    try {
      await this.#answer(query, seq, upgrade);
    } finally {
      if (this.#running === run) this.#release();
    }
  }

  async #answer(query, seq, upgrade) {
    let sift;
    try {
      sift = await this.#ensureLoaded();
    } catch (e) {
      this.#errorFor(seq, e);
      return;
    }
    const filters = {};
    for (const [k, v] of Object.entries(this.#filters)) if (v !== undefined) filters[k] = v;
    const req = { query, limit: this.#limit };
    if (Object.keys(filters).length) req.filters = filters;
    try {
      const res = await sift.search(req);
      // Not over a newer answer, an emptied box or another bundle's.
      if (seq <= this.#shownSeq) return;
      this.#shownSeq = seq;
      if (upgrade && this.#userMoved) {
        this.#pending = res; // do not move the list under the user's cursor
        return;
      }
      this.#show(res, { keepActive: upgrade });
    } catch (e) {
      this.#errorFor(seq, e);
    }
  }

  // Only the last search's error is shown: an older one's says nothing of the input.
  #errorFor(seq, e) {
    if (seq !== this.#seq) return;
    this.#shownSeq = seq;
    this.#showError(e);
  }

  #clear() {
    const { list, notice, facets, status, input, history } = this.#els;
    list.replaceChildren();
    history.replaceChildren();
    notice.replaceChildren();
    facets.replaceChildren();
    status.textContent = "";
    this.#options = [];
    this.#active = -1;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    this.lastResponse = null;
  }

  #show(res, { keepActive = false } = {}) {
    const { list, input, status } = this.#els;
    const activeUrl = keepActive && this.#active >= 0 ? this.#options[this.#active]?.dataset.url : null;
    // Hold the list's height while it is replaced, so nothing jumps under the pointer.
    if (keepActive) list.style.minHeight = `${list.offsetHeight}px`;
    this.lastResponse = res;
    this.#pending = null;
    this.#userMoved = false;
    this.#els.history.replaceChildren();
    const items = [];
    // Results under their top-level section (the folder a page is in), sections in the order
    // of their best result; one section alone gets no heading.
    const groups = new Map();
    res.results.forEach((r, i) => {
      const key = r.metadata?.folder?.[0] ?? "";
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push([r, i]);
    });
    const grouped = groups.size > 1 && this.getAttribute("group") !== "off";
    const blocks = [];
    let g = 0;
    for (const [key, members] of groups) {
      const opts = [];
      for (const [r, i] of members) {
        const where = h("span", { class: "where" });
        where.textContent = r.type ? `${r.type} · ${this.#path(r.url)}` : this.#path(r.url);
        const title = h("div", { class: "title", dir: "auto" });
        appendMarked(title, r.title);
        const pageTitle = title.textContent;
        title.append(where);
        const snip = h("div", { class: "snippet", dir: "auto" });
        appendMarked(snip, r.snippet);
        opts.push(h("div", { role: "option", id: `${this.#ids}-o${i}`, "data-url": r.url, "data-title": pageTitle, "aria-selected": "false" }, title, snip));
        (r.sub_results ?? []).forEach((s, j) => {
          // The entry an identifier query names (its path, then its kind), else a section
          // with its heading path (the page, then the heading).
          const entry = j === 0 && r.definition && s.url === r.definition.url;
          const st = h("div", { class: "title", dir: "auto" }, entry ? "" : "# ");
          appendMarked(st, s.title);
          const crumb = h("span", { class: "where" });
          crumb.textContent = entry ? r.definition.kind : this.#t("in", { page: pageTitle });
          const subTitle = st.textContent.replace(/^# /, "");
          st.append(crumb);
          const row = [st];
          // The page's snippet is often its best section's: said once, above.
          if (s.snippet !== r.snippet) {
            const ss = h("div", { class: "snippet", dir: "auto" });
            appendMarked(ss, s.snippet);
            row.push(ss);
          }
          opts.push(h("div", { role: "option", class: "sub", id: `${this.#ids}-o${i}-${j}`, "data-url": s.url, "data-title": `${pageTitle} › ${subTitle}`, "aria-selected": "false" }, ...row));
        });
      }
      items.push(...opts);
      if (grouped) {
        const label = h("div", { class: "group", role: "presentation", id: `${this.#ids}-g${g}` }, key || this.#t("pages"));
        blocks.push(h("div", { role: "group", "aria-labelledby": `${this.#ids}-g${g}` }, label, ...opts));
        g += 1;
      } else blocks.push(...opts);
    }
    list.replaceChildren(...blocks);
    // Said beside the listbox, not in it: a listbox holds options only.
    if (!items.length) this.#els.history.append(h("div", { class: "empty" }, this.#t("none", { q: res.query })));
    this.#options = items;
    input.setAttribute("aria-expanded", items.length ? "true" : "false");
    const keep = activeUrl ? items.findIndex((li) => li.dataset.url === activeUrl) : -1;
    this.#setActive(keep >= 0 ? keep : items.length ? 0 : -1, false);
    this.#renderNotice(res);
    this.#renderFacets(res);
    const ms = res.timings_ms?.total;
    const kind = this.#t(res.search_type === "lexical" ? "keyword" : res.search_type);
    status.textContent = `${this.#t("count", { n: res.total })}${ms !== undefined ? ` · ${ms} ms` : ""} · ${kind}`;
    if (keepActive) requestAnimationFrame(() => (list.style.minHeight = ""));
    this.dispatchEvent(new CustomEvent("sift-results", { detail: res }));
  }

  #path(url) {
    try {
      const u = new URL(url, location.href);
      return u.origin === location.origin ? u.pathname + u.hash : u.href;
    } catch (_) {
      return String(url);
    }
  }

  #renderNotice(res) {
    const { notice } = this.#els;
    notice.classList.remove("error");
    notice.setAttribute("role", "status");
    const parts = [];
    // In English the engine's own reason (it names the words); else what it did, translated.
    // A step with no words of its own (a long query cut to its rarest terms) says nothing
    // rather than "no page matches" above the results it found.
    const key = res.fallback && (FALLBACK_KEYS[res.fallback.to] ?? (res.results?.length ? null : "fbNothing"));
    const fb = res.fallback && (this.#strings === EN ? res.fallback.reason : key && this.#t(key));
    if (fb) parts.push(h("span", { class: "fallback" }, fb));
    if (res.suggestions?.length) {
      const dym = h("span", { class: "dym" }, (parts.length ? " " : "") + this.#t("dym"));
      res.suggestions.slice(0, 3).forEach((s, i) => {
        if (i) dym.append(", ");
        const b = h("button", { type: "button", class: "suggestion" }, s);
        b.addEventListener("click", () => {
          this.#els.input.value = s;
          this.#els.input.focus();
          this.#search();
        });
        dym.append(b);
      });
      dym.append(this.#t("dymEnd"));
      parts.push(dym);
    }
    notice.replaceChildren(...parts);
  }

  #renderFacets(res) {
    const { facets } = this.#els;
    const chips = [];
    for (const field of this.#facetFields) {
      const counts = res.facets?.[field] ?? {};
      const selected = this.#filters[field];
      const values = Object.keys(counts);
      if (selected !== undefined && !values.includes(selected)) values.unshift(selected);
      if (values.length < 2 && selected === undefined) continue; // one value filters nothing
      for (const v of values.slice(0, 12)) {
        const on = selected === v;
        const chip = h("button", { type: "button", class: "chip", "aria-pressed": on ? "true" : "false", "data-field": field, "data-value": v },
          `${v}${counts[v] !== undefined ? ` ${counts[v]}` : ""}`);
        chip.addEventListener("click", () => {
          this.#filters[field] = on ? undefined : v;
          this.#search();
          this.#els.input.focus();
        });
        chips.push(chip);
      }
    }
    facets.replaceChildren(...chips);
  }

  #showError(e) {
    const err = asSiftError(e);
    const { notice, list, input, status } = this.#els;
    list.replaceChildren();
    this.#options = [];
    this.#active = -1;
    input.setAttribute("aria-expanded", "false");
    notice.classList.add("error");
    notice.setAttribute("role", "alert");
    const retry = h("button", { type: "button" }, this.#t("retry"));
    retry.addEventListener("click", () => {
      this.#search();
      input.focus();
    });
    notice.replaceChildren(h("span", {}, this.#t("unavailable", { m: err.message })), retry);
    status.textContent = err.code;
    this.dispatchEvent(new CustomEvent("sift-error", { detail: err }));
  }

  #setActive(i, scroll = true) {
    const { input } = this.#els;
    if (this.#active >= 0 && this.#options[this.#active]) this.#options[this.#active].setAttribute("aria-selected", "false");
    this.#active = i;
    const li = this.#options[i];
    if (li) {
      li.setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", li.id);
      if (scroll) li.scrollIntoView({ block: "nearest" });
    } else input.removeAttribute("aria-activedescendant");
  }

  #inputKey(e) {
    const n = this.#options.length;
    const recall = this.#els.history.querySelector(".again");
    if (e.key === "ArrowDown" && !n && recall) {
      e.preventDefault();
      recall.focus();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!n) return;
      this.#userMoved = true;
      const step = e.key === "ArrowDown" ? 1 : -1;
      this.#setActive(((this.#active < 0 ? (step > 0 ? -1 : 0) : this.#active) + step + n) % n);
    } else if (e.key === "Home" && e.ctrlKey && n) {
      e.preventDefault();
      this.#setActive(0);
    } else if (e.key === "End" && e.ctrlKey && n) {
      e.preventDefault();
      this.#setActive(n - 1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      const li = this.#options[this.#active >= 0 ? this.#active : 0];
      if (li) this.#go(li, e);
    } else if (this.#pending && !e.key.startsWith("Arrow")) {
      this.#pending = null; // typing brings a fresh answer anyway
    }
  }

  get #historyOn() {
    return this.getAttribute("history") !== "off";
  }

  // Recent searches and favourites of this bundle: {recent: [], favourites: []}, each entry
  // {query, title, url}. Storage that fails (private mode, quota, a corrupt value) is as if
  // empty: the box works without it.
  get #storageKey() {
    return `sift-search:${new URL(this.getAttribute("bundle") ?? "/_sift/", location.href).href}`;
  }

  #loadHistory() {
    try {
      const v = JSON.parse(localStorage.getItem(this.#storageKey) ?? "{}");
      const ok = (l) => (Array.isArray(l) ? l.filter((x) => x && typeof x.query === "string" && typeof x.url === "string") : []);
      return { recent: ok(v.recent).slice(0, HISTORY_MAX), favourites: ok(v.favourites).slice(0, FAVOURITES_MAX) };
    } catch (_) {
      return { recent: [], favourites: [] };
    }
  }

  #saveHistory(hist) {
    try {
      localStorage.setItem(this.#storageKey, JSON.stringify(hist));
    } catch (_) {
      /* storage full or denied: not remembered */
    }
  }

  #remember(entry) {
    if (!this.#historyOn) return;
    const hist = this.#loadHistory();
    const same = (x) => x.query === entry.query && x.url === entry.url;
    if (hist.favourites.some(same)) return;
    hist.recent = [entry, ...hist.recent.filter((x) => !same(x))].slice(0, HISTORY_MAX);
    this.#saveHistory(hist);
  }

  #showHistory() {
    const { history } = this.#els;
    if (!this.#historyOn || this.#els.input.value.trim()) {
      history.replaceChildren();
      return;
    }
    const hist = this.#loadHistory();
    const section = (kind, label, entries) => {
      if (!entries.length) return [];
      const id = `${this.#ids}-h-${kind}`;
      const rows = entries.map((x, i) => {
        const again = h("button", { type: "button", class: "again", "data-url": x.url }, x.query, h("span", { class: "where" }, x.title));
        again.addEventListener("click", (e) => this.#navigate(x.url, this.#terms(x.query, null), e));
        const acts = [];
        if (kind === "recent") {
          const star = h("button", { type: "button", class: "act", "aria-label": this.#t("save", { q: x.query }), title: this.#t("saveTitle") }, "☆");
          star.addEventListener("click", () => this.#editHistory((hs) => {
            hs.recent.splice(i, 1);
            hs.favourites = [x, ...hs.favourites].slice(0, FAVOURITES_MAX);
          }, kind, i));
          acts.push(star);
        }
        const remove = h("button", { type: "button", class: "act", "aria-label": this.#t("remove", { q: x.query, list: label.toLowerCase() }), title: this.#t("removeTitle") }, "×");
        remove.addEventListener("click", () => this.#editHistory((hs) => hs[kind].splice(i, 1), kind, i));
        return h("li", {}, again, ...acts, remove);
      });
      return [h("h2", { id }, label), h("ul", { "aria-labelledby": id }, ...rows)];
    };
    history.replaceChildren(...section("favourites", this.#t("favourites"), hist.favourites), ...section("recent", this.#t("recent"), hist.recent));
  }

  // Change the stored lists, redraw, and keep the focus near the row that changed.
  #editHistory(change, kind, i) {
    const hist = this.#loadHistory();
    change(hist);
    this.#saveHistory(hist);
    this.#showHistory();
    const rows = [...this.#els.history.querySelectorAll(".again")];
    (rows[Math.min(i, rows.length - 1)] ?? this.#els.input).focus();
  }

  #onHistoryKey(e) {
    const rows = [...this.#els.history.querySelectorAll(".again")];
    const at = rows.indexOf(e.target);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = at + (e.key === "ArrowDown" ? 1 : -1);
      (next < 0 ? this.#els.input : rows[Math.min(next, rows.length - 1)])?.focus();
    } else if (e.key === "Delete" && at >= 0) {
      e.preventDefault();
      e.target.closest("li").querySelector(".act:last-child").click();
    }
  }

  // Open an option's page: remembered as a recent search, with the terms to mark there.
  #go(li, e) {
    const url = li?.dataset.url;
    if (!url) return;
    const query = this.#els.input.value.trim();
    if (query) this.#remember({ query, title: li.dataset.title ?? "", url });
    this.#navigate(url, this.#terms(query, li), e);
  }

  /** The words to mark on the page: the query's, and the forms the result matched. */
  #terms(query, li) {
    const words = query.replace(/\b(OR|AND|NOT)\b/g, " ").split(/\s+/)
      .filter((w) => w && !w.startsWith("-"))
      .map((w) => w.replace(/^[a-z_]+:(?!:)/i, "").replace(/["()*]/g, ""));
    for (const m of li?.querySelectorAll("mark") ?? []) words.push(m.textContent);
    return [...new Set(words.map((w) => w.trim().toLowerCase()).filter((w) => w.length > 1))].slice(0, 12);
  }

  #navigate(url, terms, e) {
    const ev = new CustomEvent("sift-navigate", { detail: { url, terms }, cancelable: true });
    if (!this.dispatchEvent(ev)) return;
    const target = new URL(url, location.href);
    const param = this.getAttribute("highlight-param") ?? "highlight";
    if (terms.length && target.origin === location.origin && this.getAttribute("highlight") !== "off") {
      target.searchParams.set(param, terms.join(" "));
    }
    if (e && (e.metaKey || e.ctrlKey)) {
      window.open(target.href, "_blank", "noopener");
      return;
    }
    this.close();
    location.assign(target.href);
  }
}

if (!customElements.get("sift-search")) customElements.define("sift-search", SiftSearchElement);

export default SiftSearchElement;
