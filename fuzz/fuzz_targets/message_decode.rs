//! cargo-fuzz target `message_decode`: see `pmix_fuzz::runtime::message_decode` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run message_decode corpus/message_decode`
//! (`PMIX_FUZZ_SEEDS=corpus/message_decode` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("message_decode"),
    |data: &[u8]| pmix_fuzz::message_decode(data)
);
