//! cargo-fuzz target `v41_decode`: see `pmix_fuzz::v41_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run v41_decode corpus/v41_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/v41_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("v41_decode"),
    |data: &[u8]| pmix_fuzz::v41_decode(data)
);
