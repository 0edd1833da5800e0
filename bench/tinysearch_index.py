#!/usr/bin/env python3
"""Write the JSON tinysearch indexes ([{title, url, body}]) for a static HTML site, with the
same main-content rule as `sift build` uses for Sphinx (div[role=main] / div.body), so the
peers index the same text. Usage: tinysearch_index.py SITE_DIR OUT.json"""
import html.parser, json, os, sys

class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.title, self.parts, self.depth, self.in_title, self.skip = "", [], 0, False, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title":
            self.in_title = True
        if tag in ("script", "style"):
            self.skip += 1
        if self.depth:
            self.depth += 1
        elif tag == "div" and (a.get("role") == "main" or "body" in (a.get("class") or "").split()):
            self.depth = 1
    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if self.depth:
            self.depth -= 1
    def handle_data(self, data):
        if self.in_title:
            self.title += data
        elif self.depth and not self.skip:
            self.parts.append(data)

site, out = sys.argv[1], sys.argv[2]
posts = []
for root, _, files in os.walk(site):
    for f in sorted(files):
        if f.endswith(".html") and "_sources" not in root:
            p = os.path.join(root, f)
            t = Text()
            t.feed(open(p, encoding="utf-8", errors="replace").read())
            body = " ".join(" ".join(t.parts).split())
            if body:
                posts.append({"title": t.title.strip() or f, "url": "/" + os.path.relpath(p, site), "body": body})
json.dump(posts, open(out, "w"))
print(f"{len(posts)} pages → {out}")
