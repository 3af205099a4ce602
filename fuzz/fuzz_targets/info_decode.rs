//! cargo-fuzz target `info_decode`: see `pmix_fuzz::info_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run info_decode corpus/info_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/info_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("info_decode"),
    |data: &[u8]| pmix_fuzz::info_decode(data)
);
