// The translated docs sites the languages benchmarks read: Debian Reference in each language
// Debian packages it (debian-reference-LANG), and for Korean, which it lacks, the Debian FAQ
// (debian-faq-ko, DocBook like the Reference). Each copy gets `<html lang>`: the packaged
// pages declare none, and both Sift and Pagefind choose their analysis from it.

import fs from "node:fs";
import path from "node:path";

const REFERENCE = "/usr/share/debian-reference";
const FAQ = "/usr/share/doc/debian/FAQ";

/** Where `lang`'s pages are and which package holds them. */
export function site(lang) {
  if (lang === "ko") return { dir: path.join(FAQ, lang), match: /^[a-z-]+\.ko\.html$/, pkg: "debian-faq-ko" };
  return { dir: REFERENCE, match: new RegExp(`^(ch|ap|pr|index)[0-9a-z]*\\.${lang}\\.html$`), pkg: `debian-reference-${lang}` };
}

/** Every language installed: the Reference's, and Korean when the FAQ is there. */
export function installed() {
  const reference = fs.existsSync(REFERENCE) ? fs.readdirSync(REFERENCE).map((f) => f.match(/^ch01\.([a-zA-Z-]+)\.html$/)?.[1]) : [];
  return [...new Set(reference.filter(Boolean)), ...(fs.existsSync(path.join(FAQ, "ko")) ? ["ko"] : [])].sort();
}

/** `lang`'s pages copied into `out` with `<html lang>` set: [file name, original text] each;
 * none when its package is not installed. */
export function copyPages(lang, out) {
  const { dir, match } = site(lang);
  const pages = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => match.test(f)).sort() : [];
  fs.mkdirSync(out, { recursive: true });
  return pages.map((p) => {
    const text = fs.readFileSync(path.join(dir, p), "utf8");
    fs.writeFileSync(path.join(out, p), text.replace(/<html\b/, `<html lang="${lang}"`));
    return [p, text];
  });
}
