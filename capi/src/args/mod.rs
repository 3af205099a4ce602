//! Checked access to the pointers an export is handed, in the manner of rustls-ffi's
//! `try_ref_from_ptr!` / `try_slice!`: one place turns a C pointer into a Rust borrow
//! or an owned core value, and a NULL or malformed argument into `PMIX_ERR_BAD_PARAM`
//! with a log line naming it, so that exports need no `unsafe` of their own.
//!
//! Two layers:
//!
//! * the `unsafe fn`s below ([`ref_arg`], [`mut_arg`], [`slice_arg`], [`cstr_arg`],
//!   [`key_arg`], [`proc_arg`], [`infos_arg`], …) each state, in their `# Safety`
//!   section, what the pointer must be when it is not NULL;
//! * the macros [`arg!`](crate::arg) (gives a `pmix_core::Result<_>`) and
//!   [`try_arg!`](crate::try_arg) (gives the value, or returns the status — or the given
//!   fallback — from the enclosing export) call them. They are meant for export bodies
//!   (and `unsafe fn`s) whose own `# Safety` section promises exactly that of the
//!   argument: the C caller's contract is what makes the access sound.
//!
//! ```ignore
//! let p = try_arg!(proc proc_);           // ProcId, NULL is BAD_PARAM
//! let infos = try_arg!(infos info, ninfo); // Vec<Info>, (NULL, 0) is empty
//! let out = try_arg!(mut val);            // &mut *mut pmix_value_t
//! let n = try_arg!(ref size; else ());    // in an export returning nothing
//! ```

use core::ffi::c_char;
use pmix_core::{Info, Key, ProcId};
use pmix_sys as sys;

mod owned;
pub use owned::*;

/// What an argument check fails with: an engine error whose status is
/// `PMIX_ERR_BAD_PARAM` (or what the conversion reports), so `?` works in closures that
/// return a `pmix_core::Result` and `e.status()` gives the C status.
pub type Status = pmix_core::Error;

fn bad(msg: String) -> Status {
    log::warn!("{}", msg);
    pmix_core::Error::bad_param(msg)
}

fn null(what: &str) -> Status {
    bad(format!("NULL argument {}", what))
}

/// `*p`, borrowed for the call.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged, naming `what`) for NULL.
///
/// # Safety
/// `p` is NULL or points to an initialised, aligned `T` that nobody writes while the
/// borrow lives.
pub unsafe fn ref_arg<'a, T>(p: *const T, what: &str) -> Result<&'a T, Status> {
    // SAFETY: non-NULL `p` is a valid `T` (caller's promise); `as_ref` checks NULL.
    unsafe { p.as_ref() }.ok_or_else(|| null(what))
}

/// `*p`, borrowed mutably for the call (an in/out struct or an out-parameter slot).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL.
///
/// # Safety
/// `p` is NULL or points to an initialised, aligned `T` that nobody else reads or writes
/// while the borrow lives. For an out-parameter slot such as `pmix_value_t **` any bit
/// pattern of the slot is initialised enough: it is a pointer, only written.
pub unsafe fn mut_arg<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Status> {
    // SAFETY: non-NULL `p` is a valid, unaliased `T` (caller's promise).
    unsafe { p.as_mut() }.ok_or_else(|| null(what))
}

/// `*p` when `p` is not NULL (an optional argument).
///
/// # Safety
/// As [`ref_arg`].
pub unsafe fn opt_arg<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: as ref_arg (caller's promise).
    unsafe { p.as_ref() }
}

/// `*p` borrowed mutably when `p` is not NULL (an optional out-parameter).
///
/// # Safety
/// As [`mut_arg`].
pub unsafe fn opt_mut_arg<'a, T>(p: *mut T) -> Option<&'a mut T> {
    // SAFETY: as mut_arg (caller's promise).
    unsafe { p.as_mut() }
}

/// Store `v` in the optional out-parameter `*p` (nothing for NULL); the old contents are
/// overwritten, not dropped.
///
/// # Safety
/// `p` is NULL or aligned and writable for one `T`.
pub unsafe fn set_arg<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-NULL, so writable (caller's promise).
        unsafe { p.write(v) };
    }
}

/// `*p` as a zero-filled `T` (the constructed state of every PMIx struct), borrowed
/// mutably: for construct/load functions whose target may hold garbage.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL.
///
/// # Safety
/// `p` is NULL or aligned and writable for one `T` that nobody else uses meanwhile, and
/// all-zero bytes are a valid `T` (true of every `#[repr(C)]` struct of `pmix-sys`: its
/// fields are integers, arrays, unions of those and raw pointers).
pub unsafe fn zeroed_arg<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Status> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: `p` is writable for one `T` and all-zero is a valid `T` (caller's promise),
    // so after the fill the `&mut` points to an initialised value nobody else uses.
    unsafe {
        core::ptr::write_bytes(p, 0, 1);
        Ok(&mut *p)
    }
}

/// The `n` elements at `p`; `(NULL, 0)` (and any `p` with `n == 0`) is empty.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL with `n > 0`, or for `n` elements that cannot
/// be one allocation (more than `isize::MAX` bytes).
///
/// # Safety
/// When `n > 0` and `p` is not NULL, `p` points to `n` initialised, aligned, consecutive
/// `T`s that nobody writes while the borrow lives.
pub unsafe fn slice_arg<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T], Status> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(bad(format!("NULL argument {} with a count of {}", what, n)));
    }
    if n.checked_mul(core::mem::size_of::<T>().max(1))
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(bad(format!(
            "{}: a count of {} is larger than memory",
            what, n
        )));
    }
    // SAFETY: non-NULL, `n` valid elements (caller's promise), size checked above.
    Ok(unsafe { core::slice::from_raw_parts(p, n) })
}

/// As [`slice_arg`], mutably.
///
/// # Errors
/// As [`slice_arg`].
///
/// # Safety
/// As [`slice_arg`], and nobody else reads or writes the elements meanwhile.
pub unsafe fn slice_mut_arg<'a, T>(p: *mut T, n: usize, what: &str) -> Result<&'a mut [T], Status> {
    // SAFETY: this function's contract includes slice_arg's (the same pointer and count).
    let s = unsafe { slice_arg(p as *const T, n, what) }?;
    if s.is_empty() {
        return Ok(&mut []);
    }
    // SAFETY: `s` was made from `p` and `n` above; exclusive use is the caller's promise.
    Ok(unsafe { core::slice::from_raw_parts_mut(p, n) })
}

/// A NUL-terminated C string as UTF-8 text, borrowed for the call.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL or bytes that are not UTF-8.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that nobody writes meanwhile.
pub unsafe fn cstr_arg<'a>(p: *const c_char, what: &str) -> Result<&'a str, Status> {
    // SAFETY: NULL or a C string (caller's promise).
    let b = unsafe { crate::conv::cstr_ref(p) }.ok_or_else(|| null(what))?;
    core::str::from_utf8(b).map_err(|_| bad(format!("argument {} is not valid UTF-8", what)))
}

/// As [`cstr_arg`], NULL allowed (`None`).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for bytes that are not UTF-8.
///
/// # Safety
/// As [`cstr_arg`].
pub unsafe fn opt_cstr_arg<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Status> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: this function's contract is `cstr_arg`'s (the same pointer).
    unsafe { cstr_arg(p, what) }.map(Some)
}

/// A key from a `const char *` (1..=`PMIX_MAX_KEYLEN` bytes, read with that bound).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL, empty, over-length or non-UTF-8 keys.
///
/// # Safety
/// `p` is NULL or readable up to its NUL or `PMIX_MAX_KEYLEN + 1` bytes.
pub unsafe fn key_arg(p: *const c_char) -> Result<Key, Status> {
    // SAFETY: this function's contract is key_from_ptr's: it reads at most
    // PMIX_MAX_KEYLEN + 1 bytes.
    unsafe { crate::conv::key_from_ptr(p) }
}

/// A key from a `const char *`, borrowed (checked as [`key_arg`] is, bar what `Key::new`
/// checks when the key is stored).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL, over-length or non-UTF-8 keys.
///
/// # Safety
/// As [`key_arg`], and the string is not written while the borrow lives.
pub unsafe fn key_str_arg<'a>(p: *const c_char) -> Result<&'a str, Status> {
    // SAFETY: this function's contract is key_str's: it reads at most
    // PMIX_MAX_KEYLEN + 1 bytes.
    unsafe { crate::conv::key_str(p) }
}

/// A `pmix_value_t`, deep-copied into an owned core value.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL or a malformed value;
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for a type the library does not know.
///
/// # Safety
/// `p` is NULL or points to an initialised `pmix_value_t` whose data is what its type
/// says (the buffers it points to readable).
pub unsafe fn value_arg(p: *const sys::pmix_value_t) -> Result<pmix_core::Value, Status> {
    // SAFETY: this function's contract is `value_from_c`'s (the same pointer).
    unsafe { crate::conv::value_from_c(p) }
}

/// A process identifier from a `const pmix_proc_t *`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL or a namespace without NUL.
///
/// # Safety
/// `p` is NULL or points to a readable `pmix_proc_t`.
pub unsafe fn proc_arg(p: *const sys::pmix_proc_t) -> Result<ProcId, Status> {
    // SAFETY: this function's contract is `proc_from_ptr`'s (the same pointer).
    unsafe { crate::conv::proc_from_ptr(p) }
}

/// The `n` processes at `p` as owned identifiers; `(NULL, 0)` is empty.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL with `n > 0` or a malformed namespace.
///
/// # Safety
/// `p` is NULL or points to `n` readable `pmix_proc_t`s.
pub unsafe fn procs_arg(p: *const sys::pmix_proc_t, n: usize) -> Result<Vec<ProcId>, Status> {
    // SAFETY: this function's contract is `proc_array_from_c`'s (the same pointer).
    unsafe { crate::conv::proc_array_from_c(p, n) }
}

/// The `n` infos at `p`, deep-copied into owned core values; `(NULL, 0)` is empty.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL with `n > 0` or a malformed info;
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for a value type the library does not know.
///
/// # Safety
/// `p` is NULL or points to `n` initialised `pmix_info_t`s whose values are what their
/// types say (the buffers they point to readable).
pub unsafe fn infos_arg(p: *const sys::pmix_info_t, n: usize) -> Result<Vec<Info>, Status> {
    // SAFETY: this function's contract is `info_array_from_c`'s (the same pointer).
    unsafe { crate::conv::info_array_from_c(p, n) }
}

/// `*p` as a zero-filled `T` when `p` is not NULL (construct functions, which ignore
/// NULL without a log line).
///
/// # Safety
/// As [`zeroed_arg`].
pub unsafe fn opt_zeroed_arg<'a, T>(p: *mut T) -> Option<&'a mut T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: this function's contract is zeroed_arg's (the same pointer).
    unsafe { zeroed_arg(p, "") }.ok()
}

/// The `n` elements at `p`, mutably, or `None` for NULL (no log line: for exports that
/// ignore a NULL target).
///
/// # Errors
/// `None` also for `n` elements that cannot be one allocation.
///
/// # Safety
/// As [`slice_mut_arg`].
pub unsafe fn opt_slice_mut_arg<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: this function's contract is slice_mut_arg's (the same pointer and count).
    unsafe { slice_mut_arg(p, n, "") }.ok()
}

/// The bytes of a NUL-terminated C string (without the NUL), borrowed for the call;
/// `None` for NULL.
///
/// # Safety
/// As [`cstr_arg`].
pub unsafe fn cbytes_arg<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: NULL or a C string (caller's promise), which is cstr_ref's contract.
    unsafe { crate::conv::cstr_ref(p) }
}

/// The bytes of the string at `p` up to its NUL or `max` bytes, whichever comes first
/// (NULL: empty): for fixed arrays such as `pmix_key_t` that may lack a NUL.
///
/// # Safety
/// `p` is NULL or readable up to its NUL or `max` bytes, not written meanwhile.
pub unsafe fn bounded_arg<'a>(p: *const c_char, max: usize) -> &'a [u8] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: strnlen reads at most `max` bytes, all readable (caller's promise), and
    // the `n` bytes before the bound or NUL are then borrowed.
    unsafe {
        let n = libc::strnlen(p, max);
        core::slice::from_raw_parts(p as *const u8, n)
    }
}

/// A `pmix_info_t`, deep-copied into an owned core info.
///
/// # Errors
/// As [`infos_arg`] (NULL is `PMIX_ERR_BAD_PARAM`).
///
/// # Safety
/// `p` is NULL or points to an initialised `pmix_info_t` whose value is what its type
/// says.
pub unsafe fn info_arg(p: *const sys::pmix_info_t) -> Result<Info, Status> {
    // SAFETY: this function's contract is info_from_c's (the same pointer).
    unsafe { crate::conv::info_from_c(p) }
}

/// A namespace from a `const char *` (at most `PMIX_MAX_NSLEN` bytes, read with that
/// bound).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for NULL, over-length or non-UTF-8 namespaces.
///
/// # Safety
/// `p` is NULL or readable up to its NUL or `PMIX_MAX_NSLEN + 1` bytes.
pub unsafe fn nspace_arg(p: *const c_char) -> Result<pmix_core::Nspace, Status> {
    // SAFETY: this function's contract is nspace_from_ptr's (the same pointer).
    unsafe { crate::conv::nspace_from_ptr(p) }
}

/// A `pmix_app_t`, deep-copied.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL or a malformed app.
///
/// # Safety
/// `p` is NULL or points to an initialised `pmix_app_t` (its strings, argv and infos
/// readable).
pub unsafe fn app_arg(p: *const sys::pmix_app_t) -> Result<pmix_core::App, Status> {
    // SAFETY: this function's contract is app_from_c's (the same pointer).
    unsafe { crate::conv::app_from_c(p) }
}

/// A `pmix_regattr_t`, deep-copied.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL or a malformed attribute.
///
/// # Safety
/// `p` is NULL or points to an initialised `pmix_regattr_t` (its strings and argv
/// readable).
pub unsafe fn regattr_arg(p: *const sys::pmix_regattr_t) -> Result<pmix_core::Regattr, Status> {
    // SAFETY: NULL is refused; otherwise the pointee is what regattr_from_c requires
    // (caller's promise).
    unsafe { crate::conv::regattr_from_c(ref_arg(p, "regattr")?) }
}

/// The bytes of the byte object at `p` (`None` for NULL; NULL bytes or size 0: empty).
///
/// # Safety
/// `p` is NULL or points to a `pmix_byte_object_t` whose `bytes` are NULL or readable
/// for `size` bytes.
pub unsafe fn bo_arg(p: *const sys::pmix_byte_object_t) -> Option<Vec<u8>> {
    // SAFETY: NULL or a readable byte object (caller's promise), bo_from_c's contract.
    unsafe { p.as_ref().map(|bo| crate::conv::bo_from_c(bo)) }
}

/// One datum of PMIx data type `t` at `p` (as `PMIx_Data_pack`, `PMIx_Value_load` and
/// friends take it: a `char *` for `PMIX_STRING`, the address of the struct otherwise),
/// deep-copied into a core value.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed datum, `PMIX_ERR_UNKNOWN_DATA_TYPE`.
///
/// # Safety
/// `p` is NULL or points to an initialised datum of type `t` (the buffers it points to
/// readable).
pub unsafe fn datum_arg(
    p: *const core::ffi::c_void,
    t: sys::pmix_data_type_t,
) -> Result<pmix_core::Value, Status> {
    // SAFETY: this function's contract is datum_from_c's (the same pointer and type).
    unsafe { crate::helpers::value::datum_from_c(p, t) }
}

/// Check and convert one export argument: `arg!(KIND ARGS)` gives a
/// `pmix_core::Result<_>` (see [`crate::args`] for the kinds: `ref`, `mut`, `opt`,
/// `opt_mut`, `zeroed`, `slice`, `slice_mut`, `cstr`, `opt_cstr`, `key`, `key_str`,
/// `value`, `info`, `datum`, `proc`, `procs`, `infos`); `arg!(set p, v)` stores `v` in the
/// optional out-parameter `p`. The kinds `opt_zeroed` (`Option<&mut T>`), `cbytes`
/// (`Option<&[u8]>`), `bounded` (`&[u8]`), `owned` and `block` (`Option<Owned<T>>`,
/// `Option<Block<T>>`, see [`Owned`]) give the value itself: they cannot fail.
///
/// Use it only where the enclosing export's (or `unsafe fn`'s) `# Safety` section
/// promises, of that argument, what the matching [`crate::args`] function requires.
#[macro_export]
macro_rules! arg {
    (ref $p:expr) => { $crate::arg!(@one ref_arg, $p) };
    (mut $p:expr) => { $crate::arg!(@one mut_arg, $p) };
    (opt $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs: the enclosing `# Safety` contract gives `p`
        // what `args::opt_arg` requires.
        Ok::<_, $crate::args::Status>(unsafe { $crate::args::opt_arg(p) })
    }};
    (opt_mut $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::opt_mut_arg`).
        Ok::<_, $crate::args::Status>(unsafe { $crate::args::opt_mut_arg(p) })
    }};
    (set $p:expr, $v:expr) => {{
        let (p, v) = ($p, $v);
        // SAFETY: see the macro's docs (`args::set_arg`): `p` is NULL or writable.
        unsafe { $crate::args::set_arg(p, v) }
    }};
    (zeroed $p:expr) => { $crate::arg!(@one zeroed_arg, $p) };
    (opt_zeroed $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::opt_zeroed_arg`).
        unsafe { $crate::args::opt_zeroed_arg(p) }
    }};
    (opt_slice_mut $p:expr, $n:expr) => {{
        let (p, n) = ($p, $n);
        // SAFETY: see the macro's docs (`args::opt_slice_mut_arg`).
        unsafe { $crate::args::opt_slice_mut_arg(p, n) }
    }};
    (cbytes $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::cbytes_arg`).
        unsafe { $crate::args::cbytes_arg(p) }
    }};
    (bounded $p:expr, $max:expr) => {{
        let (p, max) = ($p, $max);
        // SAFETY: see the macro's docs (`args::bounded_arg`).
        unsafe { $crate::args::bounded_arg(p, max) }
    }};
    (info $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::info_arg`).
        unsafe { $crate::args::info_arg(p) }
    }};
    (datum $p:expr, $t:expr) => {{
        let (p, t) = ($p, $t);
        // SAFETY: see the macro's docs (`args::datum_arg`).
        unsafe { $crate::args::datum_arg(p, t) }
    }};
    (set_unaligned $p:expr, $v:expr) => {{
        let (p, v) = ($p, $v);
        // SAFETY: see the macro's docs (`args::set_unaligned_arg`): `p` is writable.
        unsafe { $crate::args::set_unaligned_arg(p, v) }
    }};
    (bo $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::bo_arg`).
        unsafe { $crate::args::bo_arg(p) }
    }};
    (argv $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::argv_arg`).
        unsafe { $crate::args::argv_arg(p) }
    }};
    (argv_slot $p:expr) => { $crate::arg!(@one argv_slot_arg, $p) };
    (argv_free $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::argv_free_arg`).
        unsafe { $crate::args::argv_free_arg(p) }
    }};
    (nspace $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::nspace_arg`).
        unsafe { $crate::args::nspace_arg(p) }
    }};
    (app $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::app_arg`).
        unsafe { $crate::args::app_arg(p) }
    }};
    (regattr $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::regattr_arg`).
        unsafe { $crate::args::regattr_arg(p) }
    }};
    (datum_ptr $p:expr, $t:expr) => {{
        let (p, t) = ($p, $t);
        // SAFETY: see the macro's docs (`args::datum_ptr_arg`).
        unsafe { $crate::args::datum_ptr_arg(p, t) }
    }};
    (owned $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::owned_arg`): one struct.
        unsafe { $crate::args::owned_arg(p, 1) }
    }};
    (owned $p:expr, $n:expr) => {{
        let (p, n) = ($p, $n);
        // SAFETY: see the macro's docs (`args::owned_arg`).
        unsafe { $crate::args::owned_arg(p, n) }
    }};
    (block $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::block_arg`): one struct.
        unsafe { $crate::args::block_arg(p, 1) }
    }};
    (block $p:expr, $n:expr) => {{
        let (p, n) = ($p, $n);
        // SAFETY: see the macro's docs (`args::block_arg`).
        unsafe { $crate::args::block_arg(p, n) }
    }};
    (slice $p:expr, $n:expr) => { $crate::arg!(@counted slice_arg, $p, $n) };
    (slice_mut $p:expr, $n:expr) => { $crate::arg!(@counted slice_mut_arg, $p, $n) };
    (cstr $p:expr) => { $crate::arg!(@one cstr_arg, $p) };
    (opt_cstr $p:expr) => { $crate::arg!(@one opt_cstr_arg, $p) };
    (key $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::key_arg`).
        unsafe { $crate::args::key_arg(p) }
    }};
    (key_str $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::key_str_arg`).
        unsafe { $crate::args::key_str_arg(p) }
    }};
    (value $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::value_arg`).
        unsafe { $crate::args::value_arg(p) }
    }};
    (proc $p:expr) => {{
        let p = $p;
        // SAFETY: see the macro's docs (`args::proc_arg`).
        unsafe { $crate::args::proc_arg(p) }
    }};
    (procs $p:expr, $n:expr) => {{
        let (p, n) = ($p, $n);
        // SAFETY: see the macro's docs (`args::procs_arg`).
        unsafe { $crate::args::procs_arg(p, n) }
    }};
    (infos $p:expr, $n:expr) => {{
        let (p, n) = ($p, $n);
        // SAFETY: see the macro's docs (`args::infos_arg`).
        unsafe { $crate::args::infos_arg(p, n) }
    }};
    (@one $f:ident, $p:expr) => {{
        let (p, what) = ($p, concat!("`", stringify!($p), "` (", module_path!(), ")"));
        // SAFETY: the enclosing export's `# Safety` contract (the C caller's promise)
        // gives this argument exactly what the `args` function requires.
        unsafe { $crate::args::$f(p, what) }
    }};
    (@counted $f:ident, $p:expr, $n:expr) => {{
        let (p, n, what) = ($p, $n, concat!("`", stringify!($p), "` (", module_path!(), ")"));
        // SAFETY: as in `@one`: the contract covers `p` with `n` elements.
        unsafe { $crate::args::$f(p, n, what) }
    }};
}

/// As [`arg!`](crate::arg), but gives the value itself and returns the failing status
/// (`e.status()`) from the enclosing function — or, after `; else`, the given fallback (for exports
/// that return nothing, a pointer or a boolean).
#[macro_export]
macro_rules! try_arg {
    ($kind:ident $($a:expr),+ ; else $fallback:expr) => {
        match $crate::arg!($kind $($a),+) {
            Ok(v) => v,
            Err(_) => return $fallback,
        }
    };
    ($kind:ident $($a:expr),+) => {
        match $crate::arg!($kind $($a),+) {
            Ok(v) => v,
            Err(e) => return e.status(),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ptr::{null, null_mut};
    use pmix_sys as sys;

    fn st<T>(r: Result<T, Status>) -> sys::pmix_status_t {
        match r {
            Ok(_) => sys::PMIX_SUCCESS,
            Err(e) => e.status(),
        }
    }

    #[test]
    fn null_pointers_are_bad_param() {
        // SAFETY: NULL is allowed by every helper's contract.
        unsafe {
            assert_eq!(st(ref_arg::<u32>(null(), "p")), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(st(mut_arg::<u32>(null_mut(), "p")), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(
                st(zeroed_arg::<u32>(null_mut(), "p")),
                sys::PMIX_ERR_BAD_PARAM
            );
            assert_eq!(st(cstr_arg(null(), "s")), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(st(key_arg(null())), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(st(proc_arg(null())), sys::PMIX_ERR_BAD_PARAM);
            assert!(opt_arg::<u32>(null()).is_none());
            assert_eq!(opt_cstr_arg(null(), "s").ok(), Some(None));
        }
    }

    #[test]
    fn counted_arrays_null_only_when_empty() {
        // SAFETY: NULL with any count is allowed; a count of 0 never reads.
        unsafe {
            assert!(slice_arg::<u64>(null(), 0, "a").unwrap().is_empty());
            assert_eq!(
                st(slice_arg::<u64>(null(), 3, "a")),
                sys::PMIX_ERR_BAD_PARAM
            );
            assert!(infos_arg(null(), 0).unwrap().is_empty());
            assert_eq!(st(infos_arg(null(), 2)), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(st(procs_arg(null(), 1)), sys::PMIX_ERR_BAD_PARAM);
        }
        let one = [7u64];
        // SAFETY: a count larger than memory is refused before any read.
        assert_eq!(
            st(unsafe { slice_arg(one.as_ptr(), usize::MAX / 4, "a") }),
            sys::PMIX_ERR_BAD_PARAM
        );
        // SAFETY: `one` holds one element.
        assert_eq!(unsafe { slice_arg(one.as_ptr(), 1, "a") }.unwrap(), &[7]);
    }

    #[test]
    fn strings_and_keys() {
        // SAFETY: NUL-terminated literals.
        unsafe {
            assert_eq!(cstr_arg(c"héllo".as_ptr(), "s").unwrap(), "héllo");
            let bad = [0xffu8 as c_char, 0];
            assert_eq!(st(cstr_arg(bad.as_ptr(), "s")), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(key_arg(c"my.key".as_ptr()).unwrap().as_str(), "my.key");
            assert_eq!(key_str_arg(c"my.key".as_ptr()).unwrap(), "my.key");
        }
        let long = vec![b'k' as c_char; sys::PMIX_MAX_KEYLEN + 1]
            .into_iter()
            .chain([0])
            .collect::<Vec<_>>();
        // SAFETY: NUL-terminated, one byte over the key bound.
        assert_eq!(
            st(unsafe { key_arg(long.as_ptr()) }),
            sys::PMIX_ERR_BAD_PARAM
        );
    }

    #[test]
    fn zeroed_clears_and_macros_return_the_status() {
        let mut x = 0xdead_beef_u32;
        // SAFETY: `x` is a writable u32, for which all-zero is valid.
        let r = unsafe { zeroed_arg(&mut x, "x") }.unwrap();
        assert_eq!(*r, 0);
        // An export-shaped function: try_arg! hands back the failing status.
        unsafe fn export(p: *const u32) -> sys::pmix_status_t {
            let v = crate::try_arg!(ref p);
            if *v == 1 {
                sys::PMIX_SUCCESS
            } else {
                sys::PMIX_ERROR
            }
        }
        let one = 1u32;
        // SAFETY: NULL or a valid u32.
        unsafe {
            assert_eq!(export(null()), sys::PMIX_ERR_BAD_PARAM);
            assert_eq!(export(&one), sys::PMIX_SUCCESS);
        }
    }

    #[test]
    fn bounded_reads_and_optional_targets() {
        let unterminated = [b'a' as c_char; 8];
        // SAFETY: 8 readable bytes, no NUL: the bound stops the read.
        assert_eq!(unsafe { bounded_arg(unterminated.as_ptr(), 5) }, b"aaaaa");
        // SAFETY: NULL is allowed.
        assert!(unsafe { bounded_arg(null(), 5) }.is_empty());
        // SAFETY: NULL is allowed; no log line, just None.
        assert!(unsafe { opt_slice_mut_arg::<c_char>(null_mut(), 4) }.is_none());
        let mut x = 7u32;
        // SAFETY: `x` is a writable u32.
        assert_eq!(unsafe { opt_zeroed_arg(&mut x) }.map(|v| *v), Some(0));
        // SAFETY: NULL is allowed.
        assert!(unsafe { cbytes_arg(null()) }.is_none());
    }

    #[test]
    fn handles_release_what_the_library_made() {
        let p = crate::conv::elem_array_new(2, sys::PMIX_INFO).unwrap() as *mut sys::pmix_info_t;
        let s = c"text";
        // SAFETY: `p` holds 2 constructed infos; the datum is a C string.
        unsafe {
            let d = datum_ptr_arg(s.as_ptr() as *const core::ffi::c_void, sys::PMIX_STRING);
            assert_eq!(d.load_into(&mut (*p).value), sys::PMIX_SUCCESS);
            assert_eq!(
                value_arg(&(*p).value).unwrap(),
                pmix_core::Value::String(Some(b"text".to_vec()))
            );
            // An `Owned` handle never comes from NULL or a count of 0.
            assert!(owned_arg::<sys::pmix_info_t>(null_mut(), 1).is_none());
            assert!(owned_arg(p, 0).is_none());
            owned_arg(p, 1).unwrap().destruct();
            assert_eq!((*p).value.type_, sys::PMIX_UNDEF);
            block_arg(p, 2).unwrap().free();
        }
        let v: sys::pmix_value_t = zeroed();
        assert_eq!(v.type_, sys::PMIX_UNDEF);
    }
}
