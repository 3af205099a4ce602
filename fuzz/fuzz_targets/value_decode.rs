//! cargo-fuzz target `value_decode`: see `pmix_fuzz::value_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run value_decode corpus/value_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/value_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("value_decode"),
    |data: &[u8]| pmix_fuzz::value_decode(data)
);
