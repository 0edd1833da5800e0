//! The exact number operations the engine core leaves to its host (sift-core's
//! `exact-numbers` feature is off here): JavaScript already reads a number's text correctly
//! rounded (`Number`) and divides big integers exactly (`BigInt`), so the runtime need not
//! carry its own big-integer arithmetic for them. Lent to the core when the module starts,
//! before any call can read or write JSON.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
// floor(m * 2^e * 10^k) * 2, plus 1 when the next integer up is as near or nearer, mod 2^64
// (sift-core's json::number::Host::scaled_floor).
export function scaled_floor(m, e, k) {
  let num = BigInt(m), den = 1n;
  if (e < 0) den <<= BigInt(-e); else num <<= BigInt(e);
  if (k < 0) den *= 10n ** BigInt(-k); else num *= 10n ** BigInt(k);
  return BigInt.asUintN(64, (num / den) * 2n + BigInt(2n * (num % den) >= den));
}
"#)]
extern "C" {
    fn scaled_floor(mant: f64, exp2: i32, k: i32) -> u64;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = Number)]
    fn number(text: &str) -> f64;
}

#[wasm_bindgen(start)]
fn lend_numbers() {
    sift_core::json::lend_host(sift_core::json::NumberHost { read: number, scaled_floor });
}
