#!/usr/bin/env python3
"""Deep links on a DocBook site: Debian Reference's section titles as queries.

For each language given, the site's pages of that language are built into a keyword bundle
and every k-th section title (h2-h4, its anchor an `<a id>` inside the heading, as DocBook
writes it; the section number left out) is searched with `sift search --json`. Prints
MRR@10 of the page and of the section's deep link (the result's own link or a sub-result's).

    python3 bench/deep_links.py SIFT WORK_DIR [LANG ...]   (default: en; needs debian-reference-LANG)
"""
import html, json, os, re, shutil, subprocess, sys

SITE = "/usr/share/debian-reference"
PER_LANGUAGE = 40

def sections(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r'<h([234])[^>]*>\s*<a (?:id|name)="([^"]+)"\s*/?>(?:</a>)?(.*?)</h\1>', text, re.S):
        title = html.unescape(re.sub(r"<[^>]+>", "", m.group(3))).strip()
        title = re.sub(r"^[0-9A-Z]+(\.[0-9]+)*\.\s+", "", title)
        if len(title) > 3:
            yield m.group(2), " ".join(title.split())

def main():
    sift, work, langs = sys.argv[1], sys.argv[2], sys.argv[3:] or ["en"]
    for lang in langs:
        pages = sorted(f for f in os.listdir(SITE) if re.fullmatch(rf"(ch|ap|pr|index)[0-9a-z]*\.{lang}\.html", f))
        if not pages:
            print(f"{lang}: no pages (apt-get install debian-reference-{lang})")
            continue
        src = os.path.join(work, f"site-{lang}")
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        for p in pages:
            shutil.copy(os.path.join(SITE, p), src)
        bundle = os.path.join(work, f"bundle-{lang}")
        subprocess.run([sift, "build", src, "--out", bundle, "--no-embedder", "-q", "--language", lang], check=True)
        cases = [(p, a, t) for p in pages for a, t in sections(os.path.join(src, p))]
        step = max(1, len(cases) // PER_LANGUAGE)
        cases = cases[::step][:PER_LANGUAGE]
        page_rr, link_rr = [], []
        for page, anchor, title in cases:
            out = subprocess.run([sift, "search", bundle, title, "--json", "--limit", "10"], capture_output=True, text=True)
            results = json.loads(out.stdout).get("results", []) if out.returncode == 0 else []
            want = f"{page}#{anchor}"
            rank_page = next((i for i, r in enumerate(results) if r["url"].split("#")[0] == page), None)
            rank_link = next((i for i, r in enumerate(results) if want in [r["url"]] + [s["url"] for s in r.get("sub_results", [])]), None)
            page_rr.append(0 if rank_page is None else 1 / (rank_page + 1))
            link_rr.append(0 if rank_link is None else 1 / (rank_link + 1))
        n = len(cases)
        print(f"{lang}: {n} section titles; MRR@10 page {sum(page_rr) / n:.3f}, section deep link {sum(link_rr) / n:.3f}")

main()
