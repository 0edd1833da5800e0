// Types of the Sift JS API: the JSON contract of a search (request, response, errors).

export type Scalar = string | number | boolean;
export type FilterValue = Scalar | Scalar[];

export interface SearchRequest {
  query: string;
  /** auto (default when the bundle has vectors), lexical, semantic or hybrid */
  mode?: "auto" | "lexical" | "semantic" | "hybrid";
  /** field → value or values (values of one field OR-ed, fields AND-ed) */
  filters?: Record<string, FilterValue>;
  /** ISO date or a span: 7d, 2w, 3m, 1y */
  since?: string;
  /** 1–50, default 10 */
  limit?: number;
  offset?: number;
  sort?: "relevance" | "date";
  boost_recent?: boolean;
  include_content?: boolean;
  explain?: boolean;
}

export interface SubResult {
  title: string;
  url: string;
  /** HTML: matches in <mark>, everything else escaped */
  snippet: string;
}

/** The API entry a result defines, for a query that is an identifier or a path. Plain text. */
export interface Definition {
  /** Its full path as the documentation writes it: `os.getcwd`, `std::vec::Vec::with_capacity` */
  path: string;
  /** As its generator names it: `function`, `method`, `struct`, … */
  kind: string;
  /** The link to the entry (also the result's first sub-result) */
  url: string;
}

export interface SearchResult {
  id: string;
  /** HTML: matches in <mark>, everything else escaped */
  title: string;
  url: string;
  /** HTML: matches in <mark>, everything else escaped */
  snippet: string;
  score: number;
  type?: string;
  date?: string;
  metadata?: Record<string, string[]>;
  sub_results?: SubResult[];
  definition?: Definition;
  content?: string;
  explain?: unknown;
  /** multiSearch: which queries found it */
  queries?: number[];
}

export interface Fallback {
  from: string;
  to: string;
  reason: string;
}

export interface SearchResponse {
  results: SearchResult[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
  query: string;
  search_type: "lexical" | "semantic" | "hybrid";
  fallback?: Fallback;
  suggestions?: string[];
  facets?: Record<string, Record<string, number>>;
  timings_ms?: Record<string, number>;
  /** present when the bundle has vectors: the query embedder's state when this answer was made */
  semantic?: SemanticState;
}

export interface MultiSearchRequest {
  queries: SearchRequest[];
  limit?: number;
  offset?: number;
}

export interface MultiSearchResponse {
  results: SearchResult[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
  queries: { query: string; total: number; fallback?: Fallback }[];
  search_type: string;
}

export interface Section {
  heading?: string;
  anchor?: string;
  text: string;
}

/** A page as getDocument returns it (the contract's Document). */
export interface Document {
  id: string;
  url: string;
  title: string;
  metadata?: Record<string, string[]>;
  date?: string;
  sections: Section[];
}

/** "static": the bundle's encoder embeds queries (ready, nothing to download); the others are the model's. */
export type SemanticState = "off" | "static" | "idle" | "loading" | "ready" | "failed";

export interface LoadOptions {
  fetch?: typeof fetch;
  /** "lean" (default): the search box's engine; the full one (explain, multiSearch, related, getDocument, queries of 8+ terms) loads on first use. "keyword" (the default with semantic: false): the lean engine without its semantic half. "full": everything at once (workers, APIs). */
  runtime?: "keyword" | "lean" | "full";
  /** The runtime's wasm: sift_wasm_bg.wasm, sift_wasm_keyword_bg.wasm or sift_wasm_full_bg.wasm; a URL ending in .lzma is decoded, one ending in .deflate inflated (default: the LZMA-packed copy beside sift.js, <name>.wasm.lzma). */
  wasmUrl?: string | URL | WebAssembly.Module;
  /** sift_wasm_full_bg.wasm(.lzma), for a lean page's first explain, multiSearch, related, getDocument or query of 8+ terms (default: beside sift.js). */
  fullWasmUrl?: string | URL | WebAssembly.Module;
  semantic?: boolean;
  modelUrl?: string;
  /** Who embeds queries: the bundle's static encoder (default), "model" (all-MiniLM-L6-v2 in wasm), or your own function (the model's space). */
  embedder?: "static" | "model" | ((text: string) => Float32Array | number[]);
  /** "small": keep the model's int8 weights int8 (23 MB of wasm memory instead of 90, slower queries). */
  modelMemory?: "fast" | "small";
  embedWasmUrl?: string | URL | WebAssembly.Module;
  /** The page's language ("de", "pt-BR"): opens that language's bundle when the site was built in several. */
  language?: string;
  /** The folder of the per-language stemmer modules (`<code>.wasm.lzma`; default: `stem/` beside sift.js); null never loads one (the full runtime stems instead). */
  stemmerUrl?: string | URL | null;
}

/** fetch, with one error mapping: a failed request is a `network` SiftError, HTTP 404 `bundle_missing`, any other status `network`. */
/** The language of a BCP 47 tag, lowercased (`pt-BR` → `pt`; "" for none). */
export declare function primaryLanguage(tag: string | undefined): string;

export declare function fetchOk(fetchImpl: typeof fetch, url: string, what: string, init?: RequestInit): Promise<Response>;

export declare class SiftError extends Error {
  /** One of the contract's codes (keys of ERRORS): invalid_request, query_too_long, not_found, bundle_missing, bundle_corrupt, network, no_vectors, embedder_unavailable, internal, … */
  code: string;
  message: string;
  toJSON(): { code: string; message: string };
}

export declare class Sift {
  static load(base?: string, options?: LoadOptions): Promise<Sift>;
  /** The site's other languages: code → folder of that language's bundle (empty: one language). */
  readonly languages: Record<string, string>;
  /** The language this bundle's text was analysed as ("en", "de", "ja"). */
  readonly language: string;
  readonly info: {
    documents: number;
    filterFields: string[];
    vectors: { model: string; dim: number } | null;
    /** The language the bundle was analysed as, and the site's other languages' folders. */
    language: string;
    languages: Record<string, string>;
    semantic: SemanticState;
    base: string;
  };
  readonly semanticState: SemanticState;
  /** wasm linear memory of the engine and the embedder, bytes */
  readonly wasmMemoryBytes: number;
  readonly semanticError: SiftError | null;
  stats: { shardsFetched: number; bytesFetched: number };
  onSemanticState(fn: (state: SemanticState) => void): () => void;
  loadSemantic(): Promise<boolean>;
  /** Every shard file of the bundle (besides manifest.json). */
  readonly files: string[];
  preload(): Promise<number>;
  search(request: SearchRequest | string): Promise<SearchResponse>;
  multiSearch(request: MultiSearchRequest): Promise<MultiSearchResponse>;
  getDocument(id: string): Promise<Document | null>;
  related(id: string, options?: { limit?: number }): Promise<SearchResponse>;
  /** Results compacted for an agent's context, as the MCP tools answer them (full runtime). */
  agentResults(results: SearchResult[], includeContent: boolean, sizes: { snippet_chars: number; content_preview_chars: number }): Promise<Record<string, unknown>[]>;
  /** Part of a document from `offset` (characters), as the MCP tool get_document answers it. */
  agentDocument(doc: Document, offset: number, maxChars: number): Promise<{ structured: Record<string, unknown>; text: string }>;
}

/** The contract's limits (generated from the engine: contract.js, which also has the error
 * table, `ERRORS`, and `statusOf`/`isClientError`: import those from "sift-search/contract.js"). */
export { LIMITS } from "./contract.js";
/** An HTML-safe engine string (title, snippet) as plain parts, entities decoded. */
export declare function markedParts(html: string): { text: string; mark: boolean }[];
/** An HTML-safe engine string as plain text. */
export declare function plainText(html: string): string;
/** A bundle folder's URL ending in "/"; with userInput, only absolute http(s) URLs. */
export declare function bundleBase(base?: string, options?: { userInput?: boolean }): string;

export default Sift;
