// Debian's translated docs in each language installed (the Reference, and the FAQ for Korean:
// bench/translated-sites.mjs), searched by Sift and by Pagefind 1.6 built on the same pages
// in the same run: every k-th section title (h2–h4, the section number left out) as the
// query, the page holding it the answer; then twelve paraphrases per language
// (bench/languages/paraphrases.json: needs written in other words than the headings'). Prints
// MRR@10 per language for both, and Sift's section-level MRR@10 (the deep link is the
// result's own link or one of its sub-results').
//
//   node bench/languages.mjs [LANG ...]      (default: every installed language;
//                                            SIFT_BENCH_MISSES=1 prints each paraphrase missed)

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, sift, fileFetch } from "../tests/support.mjs";
import { copyPages, installed, site } from "./translated-sites.mjs";

const PER_LANGUAGE = 40;
const PAGEFIND = path.join(ROOT, "www/node_modules/.bin/pagefind");
const langs = process.argv.slice(2).length ? process.argv.slice(2) : installed();
const PARAPHRASES = JSON.parse(fs.readFileSync(path.join(ROOT, "bench/languages/paraphrases.json"), "utf8"));

// Pagefind's search fetches its files with the global fetch: here, from disk.
globalThis.fetch = fileFetch();

const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
function sections(text) {
  const out = [];
  for (const m of text.matchAll(/<h([234])[^>]*>\s*<a (?:id|name)="([^"]+)"\s*\/?>(?:<\/a>)?(.*?)<\/h\1>/gs)) {
    let title = unescape(m[3].replace(/<[^>]+>/g, "")).trim().replace(/^[0-9A-Z]+(\.[0-9]+)*\.\s+/, "");
    title = title.split(/\s+/).join(" ");
    if ([...title].length > 3) out.push([m[2], title]);
  }
  return out;
}

const rr = (rank) => (rank < 0 || rank >= 10 ? 0 : 1 / (rank + 1));
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sift-languages-bench-"));
console.log("language  sections  Sift page  Pagefind page  Sift section  paraphrases  Sift page  Pagefind page");
try {
  for (const lang of langs) {
    const src = path.join(work, `site-${lang}`);
    const pages = copyPages(lang, src);
    if (!pages.length) {
      console.log(`${lang}: no pages (apt-get install ${site(lang).pkg})`);
      continue;
    }
    const cases = pages.flatMap(([p, text]) => sections(text).map(([anchor, title]) => [p, anchor, title]));
    const step = Math.max(1, Math.floor(cases.length / PER_LANGUAGE));
    const picked = cases.filter((_, i) => i % step === 0).slice(0, PER_LANGUAGE);
    const bundle = path.join(work, `sift-${lang}`);
    sift(["build", src, "--out", bundle, "--no-embedder", "-q"]);
    const pfOut = path.join(work, `pagefind-${lang}`);
    execFileSync(PAGEFIND, ["--site", src, "--output-path", pfOut], { stdio: "pipe" });
    const pf = await import(pathToFileURL(path.join(pfOut, "pagefind.js")).href + `?${lang}`);
    await pf.options({ basePath: pathToFileURL(pfOut + "/").href, baseUrl: "/" });
    const siftSearch = (q) => JSON.parse(sift(["search", bundle, q, "--json", "--limit", "10"])).results;
    const pfPages = async (q) => {
      const theirs = await pf.search(q);
      const urls = await Promise.all(theirs.results.slice(0, 10).map(async (r) => (await r.data()).url));
      return urls.map((u) => u.split("#")[0].replace(/^\//, ""));
    };
    let siftPage = 0, siftLink = 0, pfPage = 0;
    for (const [page, anchor, title] of picked) {
      const res = siftSearch(title);
      siftPage += rr(res.findIndex((r) => r.url.split("#")[0] === page));
      const want = `${page}#${anchor}`;
      siftLink += rr(res.findIndex((r) => [r.url, ...(r.sub_results ?? []).map((s) => s.url)].includes(want)));
      pfPage += rr((await pfPages(title)).indexOf(page));
    }
    // Paraphrases: the page that answers a need written in other words than its headings'.
    const needs = PARAPHRASES[lang] ?? [];
    let siftPara = 0, pfPara = 0;
    for (const [query, stem] of needs) {
      const page = `${stem}.${lang}.html`;
      const [s, p] = [rr(siftSearch(query).findIndex((r) => r.url.split("#")[0] === page)), rr((await pfPages(query)).indexOf(page))];
      siftPara += s;
      pfPara += p;
      if (process.env.SIFT_BENCH_MISSES && (s < 1 || p < 1)) console.log(`  ${query}: Sift ${s.toFixed(2)}, Pagefind ${p.toFixed(2)}`);
    }
    const n = picked.length, m = needs.length || 1;
    const cell = (x, w) => x.toFixed(3).padStart(w);
    console.log(
      `${lang.padEnd(9)} ${String(n).padStart(8)}  ${cell(siftPage / n, 9)}  ${cell(pfPage / n, 13)}  ${cell(siftLink / n, 12)}  ${String(needs.length).padStart(11)}  ${cell(siftPara / m, 9)}  ${cell(pfPara / m, 13)}`,
    );
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
