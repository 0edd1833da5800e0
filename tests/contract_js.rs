//! `www/src/contract.js` is generated from the engine's contract (limits) and error table
//! (codes, classes): the JavaScript surfaces import it instead of copying literals. This
//! test fails when the checked-in file is stale; `SIFT_UPDATE_CONTRACT_JS=1` rewrites it.

#[test]
fn contract_js_matches_the_engine() {
    let path = sift_tests::repo_root().join("www/src/contract.js");
    let want = js_module();
    if std::env::var_os("SIFT_UPDATE_CONTRACT_JS").is_some() {
        std::fs::write(&path, &want).expect("contract.js written");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale: run `SIFT_UPDATE_CONTRACT_JS=1 cargo test -p sift-tests --test contract_js`", path.display());
}

/// `www/src/contract.js`: the contract's limits and error codes for the JavaScript surfaces
/// (the wrapper, the search box, the worker, MCP, the extension), written from the same
/// constants and table the engine uses. `tests/contract_js.rs` fails when the checked-in
/// file differs, and rewrites it with `SIFT_UPDATE_CONTRACT_JS=1`.
fn js_module() -> String {
    use sift_base::error::ErrorCode;
    use sift_engine::contract::*;
    let mut s = String::from(
        "// Generated from crates/sift-engine/src/contract.rs and crates/sift-base/src/error.rs by tests/contract_js.rs\n\
         // (SIFT_UPDATE_CONTRACT_JS=1 cargo test -p sift-tests --test contract_js). Do not edit.\n\
         // A module of the package (\"sift-search/contract.js\"): sift.js re-exports LIMITS only, and\n\
         // the calls are marked pure so that a bundle drops what it does not import (ERRORS: only\n\
         // HTTP surfaces use it).\n\n",
    );
    let limits = [
        ("maxQueryBytes", MAX_QUERY_BYTES, "bytes of a query"),
        ("maxClauses", MAX_CLAUSES, "terms, phrases and OR groups of a query"),
        ("maxLimit", MAX_LIMIT, "results per page"),
        ("defaultLimit", DEFAULT_LIMIT, "results per page when limit is not given"),
        ("maxOffset", MAX_OFFSET, "largest offset"),
        ("maxMultiQueries", MAX_MULTI_QUERIES, "queries of one multi_search"),
        ("maxHostRounds", MAX_HOST_ROUNDS, "rounds of the host loop before giving up"),
        ("maxShardPayload", sift_format::MAX_SHARD_PAYLOAD, "bytes a shard's payload may inflate to"),
    ];
    s.push_str("/** The contract's limits. */\nexport const LIMITS = /* @__PURE__ */ Object.freeze({\n");
    for (name, v, what) in limits {
        s.push_str(&format!("  {name}: {v}, // {what}\n"));
    }
    s.push_str(
        "});\n\n/** Every error code: its HTTP status (4xx: the caller's fault) and meaning. */\nexport const ERRORS = /* @__PURE__ */ Object.freeze({\n",
    );
    for c in ErrorCode::ALL {
        s.push_str(&format!(
            "  {}: /* @__PURE__ */ Object.freeze({{ status: {}, meaning: {:?} }}),\n",
            c.as_str(),
            c.class().http_status(),
            c.meaning()
        ));
    }
    s.push_str(
        "});\n\n\
         /** HTTP status of an error code (500 for a code this contract does not know). */\n\
         export function statusOf(code) {\n  return Object.hasOwn(ERRORS, code) ? ERRORS[code].status : 500;\n}\n\n\
         /** Whether the caller is at fault (a 4xx code). */\n\
         export function isClientError(code) {\n  const s = statusOf(code);\n  return s >= 400 && s < 500;\n}\n",
    );
    s
}
