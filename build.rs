//! Build script of `capi`: gives the cdylib OpenPMIx's SONAME and exports only the
//! `PMIx_*` API (a linker version script), so no Rust or internal symbol leaks into
//! the dynamic symbol table.

use std::path::PathBuf;

fn main() {
    // CARGO_MANIFEST_DIR is capi/, the crate this script builds.
    let script = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("exports.map");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpmix.so.2");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
}
