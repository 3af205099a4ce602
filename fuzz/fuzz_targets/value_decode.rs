//! cargo-fuzz target `value_decode`: see `pmix_fuzz::value_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run value_decode corpus/value_decode`
//! after `cargo run --release --no-default-features --bin fuzz-fallback -- gen corpus`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pmix_fuzz::value_decode(data));
