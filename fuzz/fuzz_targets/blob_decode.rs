//! cargo-fuzz target `blob_decode`: see `pmix_fuzz::runtime::blob_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run blob_decode corpus/blob_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/blob_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("blob_decode"),
    |data: &[u8]| pmix_fuzz::blob_decode(data)
);
