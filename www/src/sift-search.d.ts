import type { Sift, SearchResponse } from "./sift.js";

/**
 * `<sift-search bundle="/_sift/">`: a search button (and Ctrl/Cmd-K) that opens a dialog with
 * results as you type. Attributes: bundle, placeholder, semantic ("off" disables it),
 * theme ("light" | "dark" | "auto"), limit, facets (comma-separated fields, default "type"),
 * history ("off": no recent searches or favourites, nothing in localStorage), group ("off":
 * results not grouped by section), highlight ("off": result links without `?highlight=`),
 * highlight-param (the parameter's name).
 * Events: `sift-results` (detail: SearchResponse), `sift-error` (detail: SiftError),
 * `sift-navigate` (detail: {url, terms}; cancel it to route yourself).
 */
export declare class SiftSearchElement extends HTMLElement {
  sift: Sift | null;
  /** A custom fetch for the bundle's files (set before the first search). */
  fetchImpl: typeof fetch | undefined;
  useBundle(bundle: string, fetchImpl?: typeof fetch): void;
  open(): void;
  close(): void;
  readonly lastResponse: SearchResponse | null;
}

declare global {
  interface HTMLElementTagNameMap {
    "sift-search": SiftSearchElement;
  }
}
