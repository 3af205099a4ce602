//! `pmix_framework_names`: the one data symbol of OpenPMIx that Open MPI 5 imports.
//!
//! OpenPMIx defines it (in a file its `autogen.pl` writes) as `char *pmix_framework_names[]`:
//! the names of its MCA frameworks, then `"mca"`, then a NULL pointer. Open MPI 5's
//! `libopen-pal.so.80` walks it up to the NULL when it sorts `OMPI_MCA_*`/`--mca` parameters:
//! a parameter whose first `_`-separated word is `pmix` or one of these names belongs to PMIx
//! and is forwarded as `PMIX_MCA_*`. Without the symbol every Open MPI 5 rank fails in the
//! dynamic linker ("undefined symbol: pmix_framework_names").
//!
//! The list is OpenPMIx 5.0.11's (the library bundled with the Open MPI 5.0.11 wheel):
//! 16 names and the terminating NULL, 17 pointers, 136 bytes, the size of the symbol in
//! that library. This library has no MCA frameworks of its own; the names only tell Open
//! MPI which parameters to hand to PMIx, and our library reads the `PMIX_MCA_*` variables it
//! knows and ignores the others.

use core::ffi::c_char;

/// Entries of [`pmix_framework_names`], the NULL terminator included.
pub const FRAMEWORK_NAMES_LEN: usize = 17;

/// `char *pmix_framework_names[]` (see the module documentation). It is `static mut` so
/// that it lives in writable data, as the C definition does: C code may legally store
/// through this non-const array. Nothing in this library reads or writes it.
#[no_mangle]
pub static mut pmix_framework_names: [*const c_char; FRAMEWORK_NAMES_LEN] = [
    c"bfrops".as_ptr(),
    c"gds".as_ptr(),
    c"pcompress".as_ptr(),
    c"pdl".as_ptr(),
    c"pif".as_ptr(),
    c"pinstalldirs".as_ptr(),
    c"plog".as_ptr(),
    c"pmdl".as_ptr(),
    c"pnet".as_ptr(),
    c"preg".as_ptr(),
    c"psec".as_ptr(),
    c"psensor".as_ptr(),
    c"psquash".as_ptr(),
    c"pstat".as_ptr(),
    c"ptl".as_ptr(),
    c"mca".as_ptr(),
    core::ptr::null(),
];

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::CStr;

    /// The table as a C reader walks it: names up to the first NULL.
    fn names() -> Vec<String> {
        // SAFETY: a plain read of the array's address; nothing in the test process writes
        // the static, so reading it through a shared pointer does not race.
        let table = unsafe { &*core::ptr::addr_of!(pmix_framework_names) };
        table
            .iter()
            .take_while(|p| !p.is_null())
            // SAFETY: every non-NULL entry points at a NUL-terminated literal (above).
            .map(|&p| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn null_terminated_after_sixteen_names_ending_with_mca() {
        let n = names();
        assert_eq!(n.len(), FRAMEWORK_NAMES_LEN - 1);
        assert_eq!(n.first().map(String::as_str), Some("bfrops"));
        assert_eq!(n.last().map(String::as_str), Some("mca"));
        assert!(n.iter().any(|s| s == "ptl") && n.iter().any(|s| s == "gds"));
        // The size OpenPMIx 5.0.11 gives the symbol, so a copy relocation in a non-PIE
        // executable gets the whole table.
        assert_eq!(
            core::mem::size_of::<[*const c_char; FRAMEWORK_NAMES_LEN]>(),
            136
        );
    }
}
