#![no_main]
// The body is sift_fuzz::request_json, which the regression tests also replay.
libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::request_json(data));
