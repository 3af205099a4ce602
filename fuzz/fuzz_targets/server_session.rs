//! cargo-fuzz target `server_session`: see `pmix_fuzz::runtime::server_session` for what it checks.
//!
//! Run (stable toolchain): `RUSTC_BOOTSTRAP=1 cargo fuzz run server_session corpus/server_session`
//! (`PMIX_FUZZ_SEEDS=corpus/server_session` makes it write its seed corpus there first).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: pmix_fuzz::write_seeds_from_env("server_session"),
    |data: &[u8]| pmix_fuzz::server_session(data)
);
