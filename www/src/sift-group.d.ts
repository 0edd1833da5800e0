import type { LoadOptions, MultiSearchRequest, MultiSearchResponse, SearchRequest, SearchResponse, SearchResult, SemanticState } from "./sift.js";

/** One bundle of a group: its URL, the name its results carry, its weight and its own filters. */
export interface GroupSource {
  base: string;
  name?: string;
  /** Scales its ranks in the merge (default 1). */
  weight?: number;
  filters?: Record<string, string | string[]>;
  language?: string;
}

export interface GroupResponse extends SearchResponse {
  results: (SearchResult & { bundle: string })[];
  /** Each bundle's total, or the error it gave. */
  bundles: { name: string; total?: number; error?: { code: string; message: string } }[];
}

/** Several bundles searched as one, merged by weighted reciprocal rank. */
export declare class SiftGroup {
  static load(sources: (GroupSource | string)[], options?: LoadOptions): Promise<SiftGroup>;
  /** A group of Sifts loaded already (each with its own fetch). */
  static of(sources: { sift: import("./sift.js").Sift; name: string; weight?: number; filters?: Record<string, string | string[]> }[]): SiftGroup;
  readonly bundles: { name: string; weight: number; error?: { code: string; message: string } }[];
  readonly semanticState: SemanticState;
  /** `bundles` names the bundles to search (default: all of them). */
  search(request: (SearchRequest & { bundles?: string[] }) | string): Promise<GroupResponse>;
  /** Several queries: each bundle fuses them (its filters on every query), the bundles merge by rank. */
  multiSearch(request: MultiSearchRequest & { bundles?: string[] }): Promise<MultiSearchResponse & Pick<GroupResponse, "results" | "bundles">>;
  /** The Sift of one bundle (by name), for calls a group does not merge (getDocument, related). */
  sift(name: string): import("./sift.js").Sift;
  onSemanticState(fn: (state: SemanticState) => void): void;
}
