//! `www/src/contract.js` is generated from the engine's contract (limits) and error table
//! (codes, classes): the JavaScript surfaces import it instead of copying literals. This
//! test fails when the checked-in file is stale; `SIFT_UPDATE_CONTRACT_JS=1` rewrites it.

#[test]
fn contract_js_matches_the_engine() {
    let path = sift_tests::repo_root().join("www/src/contract.js");
    let want = sift_engine::contract::js_module();
    if std::env::var_os("SIFT_UPDATE_CONTRACT_JS").is_some() {
        std::fs::write(&path, &want).expect("contract.js written");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale: run `SIFT_UPDATE_CONTRACT_JS=1 cargo test -p sift-tests --test contract_js`", path.display());
}
