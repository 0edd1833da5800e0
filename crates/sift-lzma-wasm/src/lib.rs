//! `sift_lzma` as a wasm module for the page (`www/src/lzma.js`, which carries it inline):
//! the page copies an `.lzma` file into memory at `__heap_base`, asks its decoded size,
//! grows the memory and decodes after it; a decoded engine in the code streams' split form
//! (`sift_lzma::code_streams`) is joined back into its module the same way, after it. No
//! allocator: the decoder's models are one static table (24 kB of zeroed memory, not of
//! file). Natively the crate is empty (the decoder's
//! tests live in sift-lzma).

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
mod exports {
    use sift_lzma::code_streams::{join, joined_size};
    use sift_lzma::{decode, decoded_size, Error, PROBS};

    fn code(r: Result<usize, Error>) -> i32 {
        match r {
            Ok(n) => n as i32,
            Err(e) => -(e as i32),
        }
    }

    static mut MODELS: [u16; PROBS] = [0; PROBS];

    /// `decode` from the `len` bytes at `input` into the `out_len` bytes at `out`: 0, or a
    /// negated `sift_lzma::Error` (what both decoding exports share).
    ///
    /// # Safety
    /// `input` points at `len` readable bytes and `out` at `out_len` writable ones, apart.
    unsafe fn into_out(
        input: *const u8,
        len: usize,
        out: *mut u8,
        out_len: usize,
        decode: impl FnOnce(&[u8], &mut [u8]) -> Result<(), Error>,
    ) -> i32 {
        code(decode(core::slice::from_raw_parts(input, len), core::slice::from_raw_parts_mut(out, out_len)).map(|()| 0))
    }

    /// The decoded size, or a negated `sift_lzma::Error`.
    ///
    /// # Safety
    /// `input` points at `len` readable bytes.
    #[no_mangle]
    pub unsafe extern "C" fn lzma_decoded_size(input: *const u8, len: usize) -> i32 {
        code(decoded_size(core::slice::from_raw_parts(input, len)))
    }

    /// 0, or a negated `sift_lzma::Error`.
    ///
    /// # Safety
    /// `input` points at `len` readable bytes and `out` at `out_len` writable ones, apart.
    #[no_mangle]
    pub unsafe extern "C" fn lzma_decode(input: *const u8, len: usize, out: *mut u8, out_len: usize) -> i32 {
        into_out(input, len, out, out_len, |i, o| decode(i, o, &mut *core::ptr::addr_of_mut!(MODELS)))
    }

    /// A decoded file in the code streams' split form (`sift_lzma::code_streams`): the
    /// module's length, or a negated `sift_lzma::Error`.
    ///
    /// # Safety
    /// `input` points at `len` readable bytes.
    #[no_mangle]
    pub unsafe extern "C" fn streams_joined_size(input: *const u8, len: usize) -> i32 {
        code(joined_size(core::slice::from_raw_parts(input, len)))
    }

    /// 0, or a negated `sift_lzma::Error`.
    ///
    /// # Safety
    /// `input` points at `len` readable bytes and `out` at `out_len` writable ones, apart.
    #[no_mangle]
    pub unsafe extern "C" fn streams_join(input: *const u8, len: usize, out: *mut u8, out_len: usize) -> i32 {
        into_out(input, len, out, out_len, join)
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}
