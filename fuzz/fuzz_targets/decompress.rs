//! cargo-fuzz target `decompress`: see `pmix_fuzz::decompress` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run decompress corpus/decompress`
//! (`PMIX_FUZZ_SEEDS=corpus/decompress` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("decompress"),
    |data: &[u8]| pmix_fuzz::decompress(data)
);
