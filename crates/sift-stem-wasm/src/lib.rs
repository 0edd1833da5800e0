//! One Snowball stemmer as a wasm module of its own (`www/dist/stem/<code>.wasm.lzma`): a page
//! whose bundle is in a stemmed language other than English loads the lean engine and this
//! (a few kB) instead of the full runtime, which carries every stemmer. `sift.js` hands
//! the engine's query words to it (the engine asks through `globalThis.__siftStem`).
//!
//! No wasm-bindgen: two exports and one buffer. The host writes UTF-8 into the buffer at
//! `buffer()` and calls `language(len)` once (the language code; 1 if this module stems
//! it), then `stem(len)` per word: the stem replaces the word in the buffer and its length
//! is returned (-1: the word is left as it is: not UTF-8, no language set, or a stem
//! longer than the buffer).

use std::cell::{Cell, RefCell};

/// Longer words are not stemmed by the host (the analyzer keeps words far shorter).
const CAPACITY: usize = 1024;

thread_local! {
    static BUFFER: RefCell<[u8; CAPACITY]> = const { RefCell::new([0; CAPACITY]) };
    static STEMMER: Cell<Option<frostem::Stemmer>> = const { Cell::new(None) };
}

/// Where the host writes its text; `capacity()` bytes long.
#[no_mangle]
pub extern "C" fn buffer() -> *mut u8 {
    BUFFER.with(|b| b.borrow_mut().as_mut_ptr())
}

#[no_mangle]
pub extern "C" fn capacity() -> usize {
    CAPACITY
}

/// The language (its code or name, as `frostem::Algorithm::from_name` reads it) in the
/// buffer's first `len` bytes: 1 when this module has its stemmer, else 0.
#[no_mangle]
pub extern "C" fn language(len: usize) -> i32 {
    let algorithm = BUFFER.with(|b| {
        let b = b.borrow();
        std::str::from_utf8(&b[..len.min(CAPACITY)]).ok().and_then(|name| frostem::Algorithm::from_name(name).ok())
    });
    STEMMER.with(|s| s.set(algorithm.map(frostem::Stemmer::new)));
    i32::from(algorithm.is_some())
}

/// Stem the word in the buffer's first `len` bytes in place; its new length, or -1.
#[no_mangle]
pub extern "C" fn stem(len: usize) -> i32 {
    let Some(stemmer) = STEMMER.with(Cell::get) else { return -1 };
    BUFFER.with(|b| {
        let mut b = b.borrow_mut();
        let Ok(word) = std::str::from_utf8(&b[..len.min(CAPACITY)]) else { return -1 };
        let stem = stemmer.stem(word).into_owned();
        if stem.len() > CAPACITY {
            return -1;
        }
        b[..stem.len()].copy_from_slice(stem.as_bytes());
        stem.len() as i32
    })
}
