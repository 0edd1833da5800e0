#!/usr/bin/env python3
"""Known items on the Debian New Maintainers' Guide in each language Debian packages it
(maint-guide, maint-guide-LANG): its pages declare no language, so the build reads the
language of their file names and text. For each language, MRR@10 of the page:

- headings: each section heading, its number left out, as a query for its page;
- inflected (Russian): bench/known-item/maint-guide-ru-inflected.jsonl, the headings'
  subjects in other grammatical cases, as a reader types them.

Each is built as a user builds it (no flags) and with `--language en` (how every page was
read before the build read the language of their text), keyword bundles both.

Usage: bench/maint-guide.py <sift binary> <work dir> [lang...]"""
import html, json, os, re, subprocess, sys

sift, work = sys.argv[1], sys.argv[2]
langs = sys.argv[3:] or ["en", "de", "fr", "it", "ja", "ru", "zh-cn"]
here = os.path.dirname(os.path.abspath(__file__))


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def headings(folder):
    """(heading, page) for every h2/h3 of every page, numbers and markup left out."""
    out = []
    for page in sorted(os.listdir(folder)):
        if not page.endswith(".html"):
            continue
        text = open(os.path.join(folder, page), encoding="utf-8").read()
        for h in re.findall(r"<h[23][^>]*>(.*?)</h[23]>", text, re.S):
            words = html.unescape(re.sub(r"<[^>]+>", "", h))
            words = re.sub(r"^\s*([A-Z]\.)?[0-9.]+\s*", "", " ".join(words.split()))
            if len(words) > 2:
                out.append((words, page))
    return out


def mrr(bundle, queries, qrels):
    return json.loads(run(sift, "eval", bundle, "--queries", queries, "--qrels", qrels, "--mode", "lexical", "--json"))["mrr@10"]


print("maint-guide known items, MRR@10 of the page (keyword bundles)")
print("| language | set | queries | as built | as built (language) | --language en |")
print("|---|---|---|---|---|---|")
for lang in langs:
    folder = "/usr/share/doc/maint-guide/html" if lang == "en" else f"/usr/share/doc/maint-guide-{lang}/html"
    if not os.path.isdir(folder):
        print(f"| {lang} | (maint-guide-{lang} not installed: skipped) | | | | |")
        continue
    built, english = os.path.join(work, lang), os.path.join(work, f"{lang}-en")
    run(sift, "build", folder, "--out", built, "-q", "--no-embedder")
    run(sift, "build", folder, "--out", english, "-q", "--no-embedder", "--language", "en")
    read_as = json.load(open(os.path.join(built, "manifest.json")))["language"]
    sets = []
    pairs = headings(folder)
    q, r = os.path.join(work, f"{lang}-headings.jsonl"), os.path.join(work, f"{lang}-headings-qrels.tsv")
    with open(q, "w") as fq, open(r, "w") as fr:
        fr.write("query-id\tcorpus-id\tscore\n")
        for i, (text, page) in enumerate(pairs):
            fq.write(json.dumps({"_id": f"h{i}", "text": text}, ensure_ascii=False) + "\n")
            fr.write(f"h{i}\t{page}\t1\n")
    sets.append(("headings", q, r, len(pairs)))
    inflected = os.path.join(here, "known-item", f"maint-guide-{lang}-inflected.jsonl")
    if os.path.exists(inflected):
        n = sum(1 for _ in open(inflected))
        sets.append(("inflected", inflected, os.path.join(here, "known-item", f"maint-guide-{lang}-qrels.tsv"), n))
    for name, q, r, n in sets:
        print(f"| {lang} | {name} | {n} | {mrr(built, q, r):.3f} | {read_as} | {mrr(english, q, r):.3f} |")
