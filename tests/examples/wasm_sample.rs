//! Write the differential sample the wasm engine is checked on (`tests/wasm/differential.test.mjs`
//! runs this when the sample is missing): `cargo run -p sift-tests --example wasm_sample`.

#[allow(dead_code, unused_imports)]
#[path = "../differential.rs"]
mod differential;

fn main() {
    differential::write_wasm_sample();
    eprintln!("wrote the differential sample into {}", sift_tests::target_dir().join("differential-wasm").display());
}
