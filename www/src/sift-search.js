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
// Its parts beside it (bundled into this one file for pages): the stylesheet
// (sift-search-style.js), the words (sift-search-words.js), the recent searches and
// favourites (sift-search-history.js) and DOM helpers (sift-search-dom.js).

import { Sift, asSiftError, LIMITS } from "./sift.js";
import { EN, FALLBACK_KEYS, say, wordsFor } from "./sift-search-words.js";
import { STYLE } from "./sift-search-style.js";
import { h, appendMarked, typing, highlightTerms, shownPath } from "./sift-search-dom.js";
import { SearchHistory, historyRows, historyKey } from "./sift-search-history.js";




// How long a search may hold the keystrokes typed during it (see #search): longer than a
// cold hybrid search with the runtime's loading on a mobile link (about 2 s).
const STALL_MS = 2500;
let instances = 0;


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
    return say(this.#strings, this.#lang, key, vars);
  }

  /** Load the words of a page not in English, then show them. */
  #localise() {
    wordsFor(this.#pageLang).then((w) => {
      if (!w) return;
      [this.#strings, this.#lang] = [w.strings, w.lang];
      this.#els.dialog.setAttribute("dir", w.dir);
      this.#els.trigger.setAttribute("dir", w.dir);
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
        where.textContent = r.type ? `${r.type} · ${shownPath(r.url)}` : shownPath(r.url);
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

  // Recent searches and favourites of this bundle, kept in this browser.
  get #history() {
    const key = `sift-search:${new URL(this.getAttribute("bundle") ?? "/_sift/", location.href).href}`;
    return new SearchHistory(key);
  }

  #remember(entry) {
    if (this.#historyOn) this.#history.remember(entry);
  }

  #showHistory() {
    const { history, input } = this.#els;
    if (!this.#historyOn || input.value.trim()) {
      history.replaceChildren();
      return;
    }
    const t = (key, vars) => this.#t(key, vars);
    const open = (x, e) => this.#navigate(x.url, highlightTerms(x.query, null), e);
    const edit = (change, kind, i) => {
      this.#history.edit(change);
      this.#showHistory();
      const rows = [...history.querySelectorAll(".again")];
      (rows[Math.min(i, rows.length - 1)] ?? input).focus();
    };
    history.replaceChildren(...historyRows(this.#history.load(), { ids: this.#ids, t, open, edit }));
  }

  #onHistoryKey(e) {
    historyKey(e, this.#els.history, this.#els.input);
  }

  // Open an option's page: remembered as a recent search, with the terms to mark there.
  #go(li, e) {
    const url = li?.dataset.url;
    if (!url) return;
    const query = this.#els.input.value.trim();
    if (query) this.#remember({ query, title: li.dataset.title ?? "", url });
    this.#navigate(url, highlightTerms(query, li), e);
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
