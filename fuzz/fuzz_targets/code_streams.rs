#![no_main]
// The body is sift_fuzz::code_streams, which the regression tests also replay.
libfuzzer_sys::fuzz_target!(|data: &[u8]| sift_fuzz::code_streams(data));
