//! `sift-code-streams split|join IN OUT`: a wasm module into its split form and back
//! (`sift_lzma::code_streams`), for `scripts/pack-engine.py`, which packs the split form
//! with liblzma and checks with `join` that it restores the module, byte for byte.

use sift_lzma::code_streams::{join, joined_size, split, HEADER};
use std::process::ExitCode;

fn run(args: &[String]) -> Result<(), String> {
    let [mode, input, output] = args else {
        return Err("usage: sift-code-streams split|join IN OUT".into());
    };
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let out = match mode.as_str() {
        "split" => {
            let mut out = vec![0; bytes.len() + HEADER];
            split(&bytes, &mut out).map(|()| out)
        }
        "join" => joined_size(&bytes).and_then(|n| {
            let mut out = vec![0; n];
            join(&bytes, &mut out).map(|()| out)
        }),
        _ => return Err(format!("unknown mode {mode:?} (split or join)")),
    }
    .map_err(|e| format!("{input}: cannot {mode}: {e}"))?;
    std::fs::write(output, out).map_err(|e| format!("{output}: {e}"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sift-code-streams: {e}");
            ExitCode::FAILURE
        }
    }
}
