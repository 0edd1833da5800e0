//! The engine's own JSON reader and writer (`sift_base::json`) against serde_json, the
//! independent reference: the same texts accepted and refused (but for numbers past f64's
//! range, which the engine keeps as their text), the same values read, and what the engine
//! writes read back unchanged. The contract's typed readers refuse what serde's derived
//! ones refused (unknown fields, wrong types, missing `query`).

use proptest::prelude::*;
use sift_base::json::{self, Json};
use sift_engine::{MultiSearchRequest, SearchRequest};
use sift_tests::value;

fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        // Both sides are read by serde_json here (ours as the text it kept), whose default
        // float reading may be an ulp off on long texts.
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x.is_sign_negative() == y.is_sign_negative() && x.to_bits().abs_diff(y.to_bits()) <= 2)
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// Both readers agree on `text`: both refuse it, or both read the same value — or serde_json
/// refuses a number out of f64's range, which the engine keeps as its text.
fn agree(text: &[u8]) -> Result<(), String> {
    let ours = json::parse(text);
    let theirs = serde_json::from_slice::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) if e.to_string().starts_with("number out of range") => Ok(()),
        (Ok(v), Ok(w)) if same(&value(v), w) => Ok(()),
        _ => Err(format!("{:?}: sift {:?}, serde_json {:?}", String::from_utf8_lossy(text), ours, theirs)),
    }
}

#[test]
fn accepts_and_refuses_what_serde_json_does() {
    #[rustfmt::skip]
    let texts: &[&str] = &[
        "null", "true", " false ", "0", "-0", "1", "-1", "1.5", "-1.5e-3", "1E10", "1e+2", "0.1", "123456789012345678901234567890",
        "18446744073709551615", "-9223372036854775808", "-9223372036854775809", "1e308", "1e-400", "\"\"", "\"a\\u0000b\"",
        r#""\ud834\udd1e""#, r#""é语😀""#, "[]", "[1,[2,[3]]]", "{}", r#"{"a":{"b":{"c":[true,null]}}}"#, r#"{"a":1,"a":2}"#,
        // Refused by both.
        "", "   ", "nul", "tru", "[1,]", "[,1]", r#"{"a":1,}"#, "{a:1}", "{'a':1}", "[1 2]", "01", "-01", "1.", ".1", "1e",
        "1e+", "+1", "0x10", "NaN", "Infinity", "-", "\"abc", "\"\\x\"", r#""\ud800""#, r#""\udc00""#, r#""\ud800\u0041""#,
        r#""\u12G4""#, "\"\t\"", "\"\n\"", "[] []", "{\"a\" 1}", "[", "{", "]", "}", "[1}", "{\"a\":1]",
        "/* c */ 1", "1 // c", "\u{feff}1",
    ];
    for t in texts {
        agree(t.as_bytes()).unwrap();
    }
    agree(&[b'"', 0xc3, 0x28, b'"']).unwrap(); // invalid UTF-8 inside a string
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for n in [127, 128, 129, 10_000] {
        agree(deep(n).as_bytes()).unwrap();
    }
}

/// Arbitrary JSON values, written by serde_json (compact and pretty).
fn any_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|i| i.into()),
        any::<u64>().prop_map(|u| u.into()),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| f.into()),
        any::<f32>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| f.into()),
        "\\PC{0,12}".prop_map(serde_json::Value::String),
        any::<String>().prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..6).prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn reads_what_serde_json_writes_and_writes_what_it_reads(v in any_json()) {
        for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            let ours = json::parse(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            prop_assert!(same(&value(&ours), &v), "{} read as {}", text, ours.to_text());
            // Written again, compact and pretty, it reads back as the same tree.
            prop_assert_eq!(json::parse(ours.to_text().as_bytes()).unwrap(), ours.clone());
            prop_assert_eq!(json::parse(ours.to_pretty_text().as_bytes()).unwrap(), ours.clone());
        }
        // The pretty form is serde_json's, byte for byte, for values without floats (floats
        // may differ in notation: 1e16 is written 10000000000000000.0 by serde_json).
        if !serde_json::to_string(&v).unwrap().contains(['.', 'e', 'E']) {
            let ours = json::parse(serde_json::to_string(&v).unwrap().as_bytes()).unwrap();
            prop_assert_eq!(ours.to_pretty_text(), serde_json::to_string_pretty(&v).unwrap());
            prop_assert_eq!(ours.to_text(), serde_json::to_string(&v).unwrap());
        }
    }

    #[test]
    fn any_bytes_are_read_or_refused_as_serde_json_does(bytes in prop::collection::vec(prop_oneof![
        Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), Just(b'"'), Just(b':'), Just(b','), Just(b'\\'),
        Just(b'u'), Just(b'0'), Just(b'1'), Just(b'-'), Just(b'.'), Just(b'e'), Just(b' '), Just(b'a'), any::<u8>(),
    ], 0..24)) {
        agree(&bytes).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn numbers_past_f64s_range_are_kept_as_their_text() {
    for t in ["1e999", "-1e999", "123456789012345678901234567890"] {
        assert_eq!(json::parse(t.as_bytes()).unwrap().to_text(), t);
    }
}

#[test]
fn scores_are_written_as_fixed_point_decimals_serde_reads_back() {
    for (x, text) in [(0.7965f32, "0.7965"), (0.1, "0.1"), (1.0 / 3.0, "0.3333"), (1e-7, "0.0"), (123456.79, "123456.7891"), (-2.5, "-2.5")]
    {
        assert_eq!(Json::from(x).to_text(), text);
        let back: f64 = serde_json::from_str(text).unwrap();
        assert!((back - f64::from(x)).abs() <= 0.00005 + f64::from(x).abs() * 1e-7, "{text} reads back near {x}");
    }
}

#[test]
fn requests_are_refused_as_serde_refused_them() {
    let ok = |t: &str| SearchRequest::from_json(t.as_bytes()).unwrap_or_else(|e| panic!("{t}: {e}"));
    let bad = |t: &str| {
        let e = SearchRequest::from_json(t.as_bytes()).expect_err(t);
        assert_eq!(e.code, "invalid_json", "{t}");
        e.message
    };
    let r = ok(r#"{"query":"x","mode":null,"limit":5,"filters":{"type":"a","tags":["b",2,true,1.5]},"explain":true}"#);
    assert_eq!((r.limit, r.mode, r.explain), (Some(5), None, Some(true)));
    assert_eq!(r.filters["tags"].values(), vec!["b", "2", "true", "1.5"]);
    assert!(bad(r#"{"query":"x","limt":3}"#).contains("unknown field \"limt\""));
    assert!(bad(r#"{"query":"x","query":"y"}"#).contains("appears twice"));
    assert!(bad(r#"{"limit":3}"#).contains("missing field \"query\""));
    assert!(bad(r#"{"query":null}"#).contains("missing field \"query\""));
    assert!(bad(r#"{"query":3}"#).contains("must be a string"));
    assert!(bad(r#"{"query":"x","limit":2.5}"#).contains("must be an integer"));
    assert!(bad(r#"{"query":"x","limit":"3"}"#).contains("must be an integer"));
    assert!(bad(r#"{"query":"x","explain":"yes"}"#).contains("true or false"));
    assert!(bad(r#"{"query":"x","filters":[]}"#).contains("must be an object"));
    assert!(bad(r#"{"query":"x","filters":{"a":{"b":1}}}"#).contains("a string, a number or a boolean"));
    assert!(bad(r#"{"query":"x","filters":{"a":[null]}}"#).contains("a string, a number or a boolean"));
    assert!(bad("[]").contains("must be an object"));
    assert!(bad(r#"{"query":"x"} x"#).contains("trailing characters"));
    let m = MultiSearchRequest::from_json(br#"{"queries":[{"query":"a"},{"query":"b","limit":2}],"limit":3}"#).unwrap();
    assert_eq!((m.queries.len(), m.queries[1].limit, m.limit), (2, Some(2), Some(3)));
    for t in [r#"{"limit":3}"#, r#"{"queries":[{"qeury":"a"}]}"#, r#"{"queries":{}}"#, r#"{"queries":[],"x":1}"#] {
        assert_eq!(MultiSearchRequest::from_json(t.as_bytes()).unwrap_err().code, "invalid_json", "{t}");
    }
}
