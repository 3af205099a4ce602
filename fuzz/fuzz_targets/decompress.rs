//! cargo-fuzz target `decompress`: see `pmix_fuzz::decompress` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run decompress corpus/decompress`
//! after `cargo run --release --no-default-features --bin fuzz-fallback -- gen corpus`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pmix_fuzz::decompress(data));
