//! cargo-fuzz target `frame_decode`: see `pmix_fuzz::runtime::frame_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run frame_decode corpus/frame_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/frame_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("frame_decode"),
    |data: &[u8]| pmix_fuzz::frame_decode(data)
);
