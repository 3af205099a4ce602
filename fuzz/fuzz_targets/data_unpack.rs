//! cargo-fuzz target `data_unpack`: see `pmix_fuzz::data_unpack` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run data_unpack corpus/data_unpack`
//! (`PMIX_FUZZ_SEEDS=corpus/data_unpack` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("data_unpack"),
    |data: &[u8]| pmix_fuzz::data_unpack(data)
);
