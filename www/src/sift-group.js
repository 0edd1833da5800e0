// Several bundles searched as one: other sites, versions or languages in one box. Each
// bundle answers the query on its own (with its own filters); the answers are merged by
// weighted reciprocal rank (a result at rank r of a bundle of weight w scores
// w / (60 + r), the constant the engine's own fusion uses: scores of different bundles are
// not comparable, ranks are), and each result says which bundle it came from. A bundle that
// fails to load or to answer is reported in `bundles` and the others still answer.

import { Sift, SiftError, asSiftError } from "./sift.js";

const RRF_K = 60;

/** The group's members from what a caller gave: each with `key` (base or sift), a name, a positive weight. */
function checked(sources, key, what) {
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new SiftError("invalid_request", `a group takes a list of bundles: [{ ${key}, name?, weight?, filters? }, …]`);
  }
  const members = sources.map((src, i) => {
    const s = typeof src === "string" ? { base: src } : src;
    if (!s || !s[key] || (key === "base" && typeof s.base !== "string")) throw new SiftError("invalid_request", `bundle ${i}: ${what} is required`);
    const weight = s.weight ?? 1;
    const name = s.name ?? s.base;
    if (typeof weight !== "number" || !(weight > 0) || !Number.isFinite(weight)) {
      throw new SiftError("invalid_request", `bundle ${i} (${name}): weight must be a positive number`);
    }
    return { name, base: s.base, weight, filters: s.filters, language: s.language, sift: s.sift };
  });
  if (new Set(members.map((m) => m.name)).size !== members.length) throw new SiftError("invalid_request", "bundle names must differ (they label the results)");
  return members;
}

/**
 * `SiftGroup.load([{ base, name?, weight?, filters?, language? }, …], options)`: options are
 * `Sift.load`'s, for every bundle. `name` (default: the base) labels its results, `weight`
 * (default 1) scales its ranks, `filters` apply to every search of it.
 */
export class SiftGroup {
  #members;

  constructor(members) {
    this.#members = members;
  }

  static async load(sources, options = {}) {
    const members = checked(sources, "base", "base (the bundle's URL)");
    const loaded = await Promise.allSettled(members.map((m) => Sift.load(m.base, { ...options, language: m.language ?? options.language })));
    members.forEach((m, i) => {
      if (loaded[i].status === "fulfilled") m.sift = loaded[i].value;
      else m.error = asSiftError(loaded[i].reason);
    });
    if (members.every((m) => m.error)) throw members[0].error;
    return new SiftGroup(members);
  }

  /** A group of Sifts loaded already (each with its own fetch: the extension's offline copies): `[{ sift, name, weight?, filters? }, …]`. */
  static of(sources) {
    const members = checked(sources, "sift", "sift (a loaded Sift)");
    if (members.some((m) => typeof m.sift.search !== "function")) throw new SiftError("invalid_request", "SiftGroup.of takes loaded Sifts: [{ sift, name }, …]");
    return new SiftGroup(members);
  }

  /** The bundles: name, weight, and the error of one that could not be loaded. */
  get bundles() {
    return this.#members.map((m) => ({ name: m.name, weight: m.weight, ...(m.error ? { error: m.error.toJSON() } : {}) }));
  }

  /** The Sift of the bundle named `name` (its load error if it failed to load). */
  sift(name) {
    const m = this.#members.find((x) => x.name === name);
    if (!m) throw this.#unknown(name);
    if (m.error) throw m.error;
    return m.sift;
  }

  #unknown(name) {
    return new SiftError("invalid_request", `no bundle named ${JSON.stringify(name)}; the bundles are ${this.#members.map((x) => x.name).join(", ")}`);
  }

  /**
   * A search over every bundle (or those `bundles` names), merged: the contract's response,
   * with `bundle` on each result and `bundles` (each one's total or error).
   */
  async search(request) {
    const asked = typeof request === "string" ? { query: request } : request;
    if (asked === null || typeof asked !== "object" || Array.isArray(asked)) {
      throw new SiftError("invalid_request", "search takes a request object ({query, …}) or a query string");
    }
    return this.#merged(asked, (sift, req, filters) => sift.search({ ...req, filters }));
  }

  /**
   * Several queries over every bundle (or those `bundles` names): each bundle fuses the
   * queries as `Sift.multiSearch` does, and the bundles' answers are merged by rank.
   */
  async multiSearch(request) {
    if (request === null || typeof request !== "object" || Array.isArray(request)) {
      throw new SiftError("invalid_request", "multiSearch takes {queries: [...], limit?, offset?, bundles?}");
    }
    // A bundle's filters apply to each of its queries (a query's own win).
    return this.#merged(request, (sift, req, filters) => sift.multiSearch({
      ...req, queries: Array.isArray(req.queries) && filters ? req.queries.map((q) => (q && typeof q === "object" ? { ...q, filters: { ...filters, ...q.filters } } : q)) : req.queries,
    }));
  }

  /** `ask(sift, request, filters)` on each chosen bundle, the answers merged by weighted rank. */
  async #merged(asked, ask) {
    const { bundles: only, ...req } = asked;
    let members = this.#members;
    if (only !== undefined) {
      if (!Array.isArray(only) || !only.length || only.some((n) => typeof n !== "string")) {
        throw new SiftError("invalid_request", "bundles is a list of bundle names, such as [\"docs\"]");
      }
      const unknown = only.find((n) => !members.some((m) => m.name === n));
      if (unknown !== undefined) throw this.#unknown(unknown);
      members = members.filter((m) => only.includes(m.name));
    }
    const limit = req.limit ?? 10;
    const offset = req.offset ?? 0;
    // Every bundle's first offset + limit results: the merged page is among them.
    const answers = await Promise.allSettled(members.map((m) => {
      if (m.error) return Promise.reject(m.error);
      const filters = m.filters || req.filters ? { ...m.filters, ...req.filters } : undefined;
      return ask(m.sift, { ...req, offset: 0, limit: Math.min(offset + limit, 100) }, filters);
    }));
    const ok = answers.map((a, i) => [members[i], a]).filter(([, a]) => a.status === "fulfilled");
    // A request every bundle refuses (an empty query, a bad limit) is the caller's error.
    if (!ok.length) throw asSiftError(answers[0].reason);
    // A bundle that found none of the words and answered by meaning ranks after every
    // bundle that found them: a guess must not bury an exact match elsewhere.
    const guessed = (a) => a.value.fallback?.to === "semantic";
    const scored = [];
    for (const [m, a] of ok) {
      a.value.results.forEach((r, rank) => scored.push({ ...r, bundle: m.name, score: m.weight / (RRF_K + rank + 1), guess: guessed(a) }));
    }
    scored.sort((a, b) => a.guess - b.guess || b.score - a.score);
    scored.forEach((r) => delete r.guess);
    const best = members.reduce((w, m) => Math.max(w, m.weight), 0) / (RRF_K + 1);
    const results = scored.slice(offset, offset + limit).map((r) => ({ ...r, score: Math.round((r.score / best) * 1e4) / 1e4 }));
    const total = ok.reduce((n, [, a]) => n + a.value.total, 0);
    const first = ok[0][1].value;
    const facets = {};
    for (const [, a] of ok) {
      for (const [field, values] of Object.entries(a.value.facets ?? {})) {
        facets[field] ??= {};
        for (const [v, n] of Object.entries(values)) facets[field][v] = (facets[field][v] ?? 0) + n;
      }
    }
    return {
      ...first,
      results,
      total,
      limit,
      offset,
      has_more: offset + results.length < total,
      suggestions: ok.find(([, a]) => a.value.suggestions?.length)?.[1].value.suggestions ?? [],
      facets,
      timings_ms: { total: Math.max(...ok.map(([, a]) => a.value.timings_ms?.total ?? 0)) },
      bundles: answers.map((a, i) => ({
        name: members[i].name,
        ...(a.status === "fulfilled" ? { total: a.value.total } : { error: asSiftError(a.reason).toJSON() }),
      })),
    };
  }

  /** The semantic state of the first bundle that loaded (the box shows one). */
  get semanticState() {
    return this.#members.find((m) => m.sift)?.sift.semanticState ?? "off";
  }

  onSemanticState(fn) {
    this.#members.find((m) => m.sift)?.sift.onSemanticState(fn);
  }
}
