//! Deflates a runtime file for shipping: `scripts/build-wasm.sh` writes each browser engine
//! as `<name>_bg.wasm.deflate` beside the plain `.wasm`, and `sift.js` inflates it with the
//! platform's `DecompressionStream("deflate-raw")` (as it does shards) while the browser
//! compiles it.
//!
//! Why ship it compressed rather than leave it to the server: the bytes on the wire no longer
//! depend on the host (many static hosts send `.wasm` uncompressed, others gzip at level 6),
//! and an optimal deflate (zopfli) is 5% smaller than `gzip -9` on the engines — Pagefind
//! ships its wasm pre-gzipped for the first of these reasons.
//!
//! `cargo run -p sift-core --example deflate_runtime -- <IN> <OUT>`: raw deflate (no zlib or
//! gzip framing), read back before it is written, so a bad stream never ships. (An example of
//! the core, whose dependencies are few: a build compiles it in seconds.)

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: deflate_runtime <IN> <OUT>");
        return ExitCode::from(2);
    };
    match deflate_file(input, output) {
        Ok((raw, packed)) => {
            println!("{output}: {raw} bytes -> {packed} deflated");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("deflate_runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

fn deflate_file(input: &str, output: &str) -> Result<(usize, usize), String> {
    let raw = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let mut packed = Vec::new();
    zopfli::compress(zopfli::Options::default(), zopfli::Format::Deflate, raw.as_slice(), &mut packed)
        .map_err(|e| format!("zopfli: {e}"))?;
    let back = miniz_oxide::inflate::decompress_to_vec(&packed).map_err(|e| format!("{output} does not inflate: {e:?}"))?;
    if back != raw {
        return Err(format!("{output} inflates to other bytes than {input}"));
    }
    // Written whole under a temporary name, then renamed: a page never sees half a file.
    let tmp = format!("{output}.tmp");
    std::fs::write(&tmp, &packed).map_err(|e| format!("{tmp}: {e}"))?;
    std::fs::rename(&tmp, output).map_err(|e| format!("{output}: {e}"))?;
    Ok((raw.len(), packed.len()))
}
