//! Manifests written and read back, and bad ones refused.

use super::*;

#[test]
fn a_store_place_is_read_back_from_the_name_store_file_writes_and_from_no_other() {
    for n in [0, 1, 9, 10, 11, 123_456] {
        assert_eq!(store_place("d-ab", &store_file("d-ab", n)), Some(n));
    }
    for bad in [
        "d-ab-01.bin",
        "d-ab-+1.bin",
        "d-ab-.bin",
        "d-ab-1.bin.bin",
        "d-ab1.bin",
        "d-a-1.bin",
        "d-ab-1",
        "d-ab-99999999999999999999999.bin",
    ] {
        assert_eq!(store_place("d-ab", bad), None, "{bad}");
    }
}

#[test]
fn manifest_magic_and_version_checked() {
    assert_eq!(Manifest::parse(b"{}").unwrap_err().code, "bundle_corrupt");
    assert_eq!(Manifest::parse(b"not json").unwrap_err().code, "bundle_corrupt");
    for old in [1, 13, 99] {
        let text = format!(r#"{{"magic":"sift-bundle","format_version":{old}}}"#);
        let e = Manifest::parse(text.as_bytes()).unwrap_err();
        assert_eq!(e.code, "bundle_version");
        assert!(e.message.contains("rebuild it with `sift build`"), "{}", e.message);
    }
    assert!(!is_safe_file_name("../etc/passwd"));
    assert!(is_safe_file_name("t-0123abcd.bin"));
}
