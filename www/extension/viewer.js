// The offline reader for the packaged bundle's pages: the stored document, sections with
// their anchors, rendered as text.
import { listBundles, openBundle } from "./bundles.js";

const params = new URLSearchParams(location.search);
const main = document.getElementById("doc");

(async () => {
  const bundle = (await listBundles()).find((b) => b.id === params.get("b"));
  if (!bundle) throw new Error(`unknown bundle ${params.get("b")}`);
  const sift = await openBundle(bundle);
  const doc = await sift.getDocument(params.get("id") ?? "");
  if (!doc) throw new Error(`no page ${params.get("id")} in ${bundle.name}`);
  document.title = doc.title;
  const h1 = document.createElement("h1");
  h1.textContent = doc.title;
  const parts = [h1];
  for (const s of doc.sections) {
    if (s.heading) {
      const h = document.createElement("h2");
      h.textContent = s.heading;
      if (s.anchor) h.id = s.anchor;
      parts.push(h);
    } else if (s.anchor) {
      const a = document.createElement("a");
      a.id = s.anchor;
      parts.push(a);
    }
    const p = document.createElement("p");
    p.textContent = s.text;
    parts.push(p);
  }
  main.replaceChildren(...parts);
  if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
})().catch((e) => {
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = String(e.message ?? e);
  main.replaceChildren(p);
});
