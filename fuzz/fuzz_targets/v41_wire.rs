//! cargo-fuzz target `v41_wire`: see `pmix_fuzz::v41_wire` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run v41_wire corpus/v41_wire`
//! (`PMIX_FUZZ_SEEDS=corpus/v41_wire` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("v41_wire"),
    |data: &[u8]| pmix_fuzz::v41_wire(data)
);
