//! cargo-fuzz target `data_unpack`: see `pmix_fuzz::data_unpack` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run data_unpack corpus/data_unpack`
//! after `cargo run --release --no-default-features --bin fuzz-fallback -- gen corpus`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pmix_fuzz::data_unpack(data));
