// The decoder needs a few hundred bytes of stack, not Rust's default 1 MB: with 64 kB the
// module's memory starts at 2 pages instead of 17 (it grows to hold the file and the engine,
// and a page keeps it as long as it may load another engine).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=65536");
    }
}
