//! cargo-fuzz target `info_decode`: see `pmix_fuzz::info_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run info_decode corpus/info_decode`
//! after `cargo run --release --no-default-features --bin fuzz-fallback -- gen corpus`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pmix_fuzz::info_decode(data));
