// Generated from crates/sift-engine/src/contract.rs and crates/sift-base/src/error.rs by tests/contract_js.rs
// (SIFT_UPDATE_CONTRACT_JS=1 cargo test -p sift-tests --test contract_js). Do not edit.
// A module of the package ("sift-search/contract.js"): sift.js re-exports LIMITS only, and
// the calls are marked pure so that a bundle drops what it does not import (ERRORS: only
// HTTP surfaces use it).

/** The contract's limits. */
export const LIMITS = /* @__PURE__ */ Object.freeze({
  maxQueryBytes: 16384, // bytes of a query
  maxClauses: 64, // terms, phrases and OR groups of a query
  maxLimit: 50, // results per page
  defaultLimit: 10, // results per page when limit is not given
  maxOffset: 10000, // largest offset
  maxMultiQueries: 30, // queries of one multi_search
  maxHostRounds: 16, // rounds of the host loop before giving up
  maxShardPayload: 536870912, // bytes a shard's payload may inflate to
});

/** Every error code: its HTTP status (4xx: the caller's fault) and meaning. */
export const ERRORS = /* @__PURE__ */ Object.freeze({
  empty_query: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "the query is empty" }),
  query_too_long: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "the query is over the byte or term limit" }),
  invalid_limit: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "limit is not an integer from 1 to the maximum" }),
  invalid_offset: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "offset is negative or over the maximum" }),
  invalid_mode: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "mode is not auto, lexical, semantic or hybrid" }),
  invalid_sort: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "sort is not relevance or date" }),
  invalid_since: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "since is not an ISO date or a span like 7d" }),
  invalid_filter: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "a filter is malformed (empty list, FIELD=VALUE expected)" }),
  unknown_filter: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "a filter names a field the bundle cannot filter on" }),
  invalid_json: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "the request is not valid JSON or has unknown fields" }),
  invalid_request: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "the request is malformed in another way" }),
  too_many_queries: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "multi_search got more queries than it takes" }),
  no_vectors: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "semantic or hybrid search on a bundle built without vectors" }),
  embedder_required: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "the request needs a query vector the host did not give" }),
  not_found: /* @__PURE__ */ Object.freeze({ status: 404, meaning: "no such document or route" }),
  payload_too_large: /* @__PURE__ */ Object.freeze({ status: 413, meaning: "the request body is over the size limit" }),
  method_not_allowed: /* @__PURE__ */ Object.freeze({ status: 405, meaning: "the HTTP method is not allowed on this route" }),
  embedder_unavailable: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "the query embedder (model) could not be loaded" }),
  bundle_missing: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "no bundle (or no shard) where one was expected" }),
  bundle_corrupt: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "a bundle file is truncated, damaged or from another build" }),
  bundle_version: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "the bundle was written in a format this build does not read" }),
  network: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "a bundle file could not be fetched" }),
  runtime_unavailable: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "the wasm runtime could not be loaded" }),
  full_runtime_required: /* @__PURE__ */ Object.freeze({ status: 400, meaning: "a browser runtime built without a feature was asked for it (sift.js asks the full runtime instead)" }),
  internal: /* @__PURE__ */ Object.freeze({ status: 500, meaning: "a bug: the engine failed unexpectedly" }),
});

/** HTTP status of an error code (500 for a code this contract does not know). */
export function statusOf(code) {
  return Object.hasOwn(ERRORS, code) ? ERRORS[code].status : 500;
}

/** Whether the caller is at fault (a 4xx code). */
export function isClientError(code) {
  const s = statusOf(code);
  return s >= 400 && s < 500;
}
