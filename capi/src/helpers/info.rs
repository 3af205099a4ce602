//! `PMIx_Info_*`: construct/destruct/create/free, load/xfer, the directive flags, and
//! the opaque info list (`PMIx_Info_list_*`).
//!
//! Ownership: an info owns its value unless it is marked `PMIX_INFO_PERSISTENT` (the
//! value then belongs to someone else and is never freed here). `PMIx_Info_create`
//! arrays come from libc malloc and are released with `PMIx_Info_free(p, n)`.

use super::value::{value_size, xfer};
use crate::args::Datum;
use crate::conv;
use crate::{check_null, ffi_status, ffi_value};
use core::ffi::{c_char, c_void};
use pmix_core::{Key, Value};
use pmix_sys::*;

/// All-zero info: empty key, no flags, `PMIX_UNDEF` value.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_info_t` that the library reads or fills
///   in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_construct(p: *mut pmix_info_t) {
    ffi_value!(PMIx_Info_construct, (), {
        // All-zero is the constructed state; NULL is ignored.
        let _ = crate::arg!(opt_zeroed p);
    })
}

/// Free the info's value unless it is `PMIX_INFO_PERSISTENT`. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_info_t` that the library reads or fills
///   in as described above.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_destruct(p: *mut pmix_info_t) {
    ffi_value!(PMIx_Info_destruct, (), {
        if let Some(i) = crate::arg!(owned p) {
            i.destruct();
        }
    })
}

/// A malloc'd array of `n` constructed infos, the last marked `PMIX_INFO_ARRAY_END`
/// (NULL for `n == 0`); release with `PMIx_Info_free(p, n)`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_create(n: usize) -> *mut pmix_info_t {
    ffi_value!(PMIx_Info_create, core::ptr::null_mut(), {
        conv::elem_array_new(n, PMIX_INFO).unwrap_or(core::ptr::null_mut()) as *mut pmix_info_t
    })
}

/// Destruct `n` infos (persistent values are kept) and free the array. NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to `n` initialised `pmix_info_t`s that the caller may write
///   through.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_free(p: *mut pmix_info_t, n: usize) {
    ffi_value!(PMIx_Info_free, (), {
        if let Some(b) = crate::arg!(block p, n) {
            b.free();
        }
    })
}

/// `PMIx_Value_true` of the info's value (NULL info: `PMIX_BOOL_FALSE`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `p` is NULL or points to an initialised `pmix_info_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_true(p: *const pmix_info_t) -> pmix_boolean_t {
    ffi_value!(PMIx_Info_true, PMIX_NON_BOOL, {
        match crate::arg!(opt p) {
            Ok(Some(i)) => super::value::truth(
                i.value.type_,
                || crate::arg!(value core::ptr::addr_of!(i.value)),
            ),
            _ => PMIX_BOOL_FALSE,
        }
    })
}

/// Construct `*info` and load it with `key` and a copy of the datum at `data`.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` for NULL `info`/`key` or a key longer than
/// `PMIX_MAX_KEYLEN`; `PMIX_ERR_UNKNOWN_DATA_TYPE`; `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to an initialised `pmix_info_t` that the library reads or
///   fills in as described above;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `data` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(
    info: *mut pmix_info_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_load, {
        let info = crate::try_arg!(zeroed info);
        let k = crate::try_arg!(key key);
        load_info(info, &k, crate::arg!(datum_ptr data, type_))
    })
}

/// Load the constructed `info` with `k` and a copy of `data`.
fn load_info(info: &mut pmix_info_t, k: &pmix_core::Key, data: Datum) -> pmix_status_t {
    conv::load_key(&mut info.key, k);
    data.load_into(&mut info.value)
}

/// Copy key, flags and value of `*src` into `*dest` (old content not released). A
/// persistent source is copied shallowly (the value's pointers are shared), as its
/// value is owned elsewhere.
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNKNOWN_DATA_TYPE`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `dest` is NULL or points to an initialised `pmix_info_t` that the library reads or
///   fills in as described above;
/// - `src` is NULL or points to an initialised `pmix_info_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(
    dest: *mut pmix_info_t,
    src: *const pmix_info_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_xfer, {
        check_null!(dest, src);
        if core::ptr::eq(dest, src) {
            return PMIX_SUCCESS;
        }
        let s = crate::try_arg!(ref src);
        let value = if s.flags & PMIX_INFO_PERSISTENT != 0 {
            None
        } else {
            Some(crate::arg!(value core::ptr::addr_of!(s.value)))
        };
        info_xfer_checked(crate::try_arg!(mut dest), s, value)
    })
}

/// `info_xfer` on checked arguments: `value` is the deep copy of `s.value` (`None` for a
/// persistent `s`, whose value is shared bitwise).
pub(crate) fn info_xfer_checked(
    d: &mut pmix_info_t,
    s: &pmix_info_t,
    value: Option<pmix_core::Result<Value>>,
) -> pmix_status_t {
    d.key = s.key;
    d.key[PMIX_MAX_KEYLEN] = 0;
    d.flags = s.flags;
    let Some(v) = value else {
        d.value = s.value;
        return PMIX_SUCCESS;
    };
    let rc = crate::guard::status_of(v.and_then(|v| crate::args::value_into(&v, &mut d.value)));
    if rc != PMIX_SUCCESS {
        *d = crate::args::zeroed();
    }
    rc
}

/// # Safety
/// `dest` writable, `src` an initialised info.
pub(crate) unsafe fn info_xfer(dest: *mut pmix_info_t, src: *const pmix_info_t) -> pmix_status_t {
    // SAFETY: promised by the caller; the key is copied with its bound.
    unsafe {
        if core::ptr::eq(dest, src) {
            return PMIX_SUCCESS;
        }
        let (d, s) = (&mut *dest, &*src);
        d.key = s.key;
        d.key[PMIX_MAX_KEYLEN] = 0;
        d.flags = s.flags;
        if s.flags & PMIX_INFO_PERSISTENT != 0 {
            d.value = s.value;
            PMIX_SUCCESS
        } else {
            let rc = xfer(&mut d.value, &s.value);
            if rc != PMIX_SUCCESS {
                core::ptr::write_bytes(dest, 0, 1);
            }
            rc
        }
    }
}

macro_rules! flag_ops {
    ($( fn $set:ident() / fn $test:ident(): $how:tt $flag:expr; )*) => {$(
        /// Set (or clear) the directive flag.
        ///
        /// # Safety
        /// The C contract (what makes the call sound):
        /// - `p` is NULL or points to an initialised `pmix_info_t` that the library reads
        ///   or fills in as described above.
        ///
        /// What the pointers lead to is read (copied) during the call and may be released
        /// once it returns, unless stated above.
        #[no_mangle]
        pub unsafe extern "C" fn $set(p: *mut pmix_info_t) {
            ffi_value!($set, (), {
                if let Ok(Some(i)) = crate::arg!(opt_mut p) {
                    flag_ops!(@set $how i.flags, $flag);
                }
            })
        }
        /// Test the directive flag (NULL: false).
        ///
        /// # Safety
        /// The C contract (what makes the call sound):
        /// - `p` is NULL or points to an initialised `pmix_info_t` (only read).
        ///
        /// What the pointers lead to is read (copied) during the call and may be released
        /// once it returns, unless stated above.
        #[no_mangle]
        pub unsafe extern "C" fn $test(p: *const pmix_info_t) -> bool {
            ffi_value!($test, false, {
                matches!(crate::arg!(opt p), Ok(Some(i)) if flag_ops!(@test $how i.flags, $flag))
            })
        }
    )*};
    (@set set $f:expr, $flag:expr) => { $f |= $flag };
    (@set clear $f:expr, $flag:expr) => { $f &= !$flag };
    (@test set $f:expr, $flag:expr) => { $f & $flag != 0 };
    (@test clear $f:expr, $flag:expr) => { $f & $flag == 0 };
}

flag_ops! {
    fn PMIx_Info_required() / fn PMIx_Info_is_required(): set PMIX_INFO_REQD;
    fn PMIx_Info_optional() / fn PMIx_Info_is_optional(): clear PMIX_INFO_REQD;
    fn PMIx_Info_processed() / fn PMIx_Info_was_processed(): set PMIX_INFO_REQD_PROCESSED;
    fn PMIx_Info_set_end() / fn PMIx_Info_is_end(): set PMIX_INFO_ARRAY_END;
    fn PMIx_Info_qualifier() / fn PMIx_Info_is_qualifier(): set PMIX_INFO_QUALIFIER;
    fn PMIx_Info_persistent() / fn PMIx_Info_is_persistent(): set PMIX_INFO_PERSISTENT;
}

/// `*size` = the memory the info occupies (struct, key and value).
///
/// # Returns
/// `PMIX_SUCCESS`, `PMIX_ERR_BAD_PARAM`, `PMIX_ERR_UNKNOWN_DATA_TYPE`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `val` is NULL or points to an initialised `pmix_info_t` (only read);
/// - `size` is NULL or points to an initialised `usize` that the library reads or fills in
///   as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_get_size(
    val: *const pmix_info_t,
    size: *mut usize,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_get_size, {
        check_null!(val, size);
        match crate::arg!(info val) {
            Ok(i) if i.value == Value::Undef => PMIX_ERR_UNKNOWN_DATA_TYPE,
            Ok(i) => {
                *crate::try_arg!(mut size) = core::mem::size_of::<pmix_info_t>()
                    + value_size(&i.value)
                    + i.key.as_str().len()
                    + 1;
                PMIX_SUCCESS
            }
            Err(e) => e.status(),
        }
    })
}

// ---- the info list ----

/// The object behind the `void *` of `PMIx_Info_list_start`: infos in C layout, each
/// boxed so the pointers `PMIx_Info_list_get_info` returns stay valid while the list
/// changes. Only `PMIx_Info_list_release` frees it.
struct InfoList {
    // Boxed on purpose: the C caller holds pointers to the infos across insertions.
    #[allow(clippy::vec_box)]
    items: Vec<Box<pmix_info_t>>,
}

impl Drop for InfoList {
    fn drop(&mut self) {
        for it in &mut self.items {
            // SAFETY: each item is an initialised info owning its (non-persistent) value.
            unsafe { conv::info_destruct(&mut **it) };
        }
    }
}

fn zeroed_info() -> Box<pmix_info_t> {
    Box::new(crate::args::zeroed())
}

/// The list behind a handle.
///
/// # Safety
/// `ptr` is NULL or a live handle from `PMIx_Info_list_start`.
unsafe fn list<'a>(ptr: *mut c_void) -> Option<&'a mut InfoList> {
    // SAFETY: promised by the caller.
    unsafe { (ptr as *mut InfoList).as_mut() }
}

/// The list behind an export's `ptr` argument: `let l = list_arg!(ptr, or FALLBACK);`
/// (NULL returns FALLBACK from the export). Used only in the `PMIx_Info_list_*` exports,
/// whose `# Safety` contract makes `ptr` NULL or a live handle.
macro_rules! list_arg {
    ($p:expr, or $fallback:expr) => {{
        let p = $p;
        // SAFETY: the enclosing export's contract: `p` is NULL or a live handle from
        // `PMIx_Info_list_start`, which is what `list` requires.
        match unsafe { list(p) } {
            Some(l) => l,
            None => return $fallback,
        }
    }};
    (take $p:expr) => {{
        let p = $p;
        // SAFETY: the enclosing export's contract (`PMIx_Info_list_release`): `p` is
        // NULL or a live handle from `PMIx_Info_list_start` (a leaked `Box<InfoList>`),
        // released this once and never used again.
        (!p.is_null()).then(|| unsafe { Box::from_raw(p as *mut InfoList) })
    }};
}

/// Position of the item whose key equals `key`.
fn find(l: &InfoList, key: &[u8]) -> Option<usize> {
    l.items.iter().position(|i| {
        let k = &i.key;
        // SAFETY: c_char and u8 have the same layout; the key array is borrowed.
        let b = unsafe { core::slice::from_raw_parts(k.as_ptr() as *const u8, k.len()) };
        let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        &b[..n] == key
    })
}

/// Start a new, empty info list; release it with `PMIx_Info_list_release`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    ffi_value!(PMIx_Info_list_start, core::ptr::null_mut(), {
        Box::into_raw(Box::new(InfoList { items: Vec::new() })) as *mut c_void
    })
}

/// Build one item from key + datum, as `PMIx_Info_load` does.
fn new_item(key: pmix_core::Result<Key>, data: Datum) -> Result<Box<pmix_info_t>, pmix_status_t> {
    let k = key.map_err(|e| e.status())?;
    let mut it = zeroed_info();
    match load_info(&mut it, &k, data) {
        PMIX_SUCCESS => Ok(it),
        rc => Err(rc),
    }
}

/// Build one item from key + a `pmix_value_t` (deep copy): `value` gives the copy, or
/// `None` for a NULL value (`PMIX_ERR_BAD_PARAM`); it is only asked for a valid key.
fn new_item_value(
    key: pmix_core::Result<Key>,
    value: impl FnOnce() -> Option<pmix_core::Result<Value>>,
) -> Result<Box<pmix_info_t>, pmix_status_t> {
    let k = key.map_err(|e| e.status())?;
    let Some(v) = value() else {
        return Err(PMIX_ERR_BAD_PARAM);
    };
    let mut it = zeroed_info();
    conv::load_key(&mut it.key, &k);
    match super::value::xfer_checked(&mut it.value, v) {
        PMIX_SUCCESS => Ok(it),
        rc => Err(rc),
    }
}

/// Add `it` (or replace an item with the same key when `unique`); returns a status.
fn add(
    l: &mut InfoList,
    mut it: Box<pmix_info_t>,
    unique: bool,
    overwrite: bool,
    front: bool,
) -> pmix_status_t {
    if unique {
        let key = conv::key_from_array(&it.key)
            .map(|k| k.as_str().as_bytes().to_vec())
            .unwrap_or_default();
        if let Some(pos) = find(l, &key) {
            if overwrite {
                let old = &mut l.items[pos];
                if old.flags & PMIX_INFO_PERSISTENT == 0 {
                    // SAFETY: `old` owns its (non-persistent) value.
                    unsafe { conv::value_destruct(&mut old.value) };
                }
                // the new value is owned by the list, whatever the old one was
                old.flags &= !PMIX_INFO_PERSISTENT;
                old.value = it.value;
                // the value moved into the list; `it` no longer owns it
                // SAFETY: writing an all-zero (UNDEF) value is valid.
                unsafe { core::ptr::write_bytes(&mut it.value, 0, 1) };
            } else {
                // SAFETY: `it` is fresh and owns its value.
                unsafe { conv::info_destruct(&mut *it) };
            }
            return PMIX_SUCCESS;
        }
    }
    if front {
        l.items.insert(0, it);
    } else {
        l.items.push(it);
    }
    PMIX_SUCCESS
}

/// Append an info holding `key` and a copy of the datum at `value`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_add, {
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        match new_item(crate::arg!(key key), crate::arg!(datum_ptr value, type_)) {
            Ok(it) => add(l, it, false, false, false),
            Err(rc) => rc,
        }
    })
}

/// Like `PMIx_Info_list_add`, but if `key` is already present: replace its value when
/// `overwrite`, otherwise leave the list unchanged (both return `PMIX_SUCCESS`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    overwrite: bool,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_add_unique, {
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        match new_item(crate::arg!(key key), crate::arg!(datum_ptr value, type_)) {
            Ok(it) => add(l, it, true, overwrite, false),
            Err(rc) => rc,
        }
    })
}

/// Append an info holding `key` and a copy of `*value`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or points to an initialised `pmix_value_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_add_value, {
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        let copy = || (!value.is_null()).then(|| crate::arg!(value value));
        match new_item_value(crate::arg!(key key), copy) {
            Ok(it) => add(l, it, false, false, false),
            Err(rc) => rc,
        }
    })
}

/// `PMIx_Info_list_add_value` with the uniqueness rule of `PMIx_Info_list_add_unique`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or points to an initialised `pmix_value_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
    overwrite: bool,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_add_value_unique, {
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        let copy = || (!value.is_null()).then(|| crate::arg!(value value));
        match new_item_value(crate::arg!(key key), copy) {
            Ok(it) => add(l, it, true, overwrite, false),
            Err(rc) => rc,
        }
    })
}

/// Insert an info holding `key` and a copy of the datum at the front of the list.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `key` is NULL or a NUL-terminated string the library only reads;
/// - `value` is NULL or points to the datum (or, with a count, that many data) of the
///   PMIx data type that the type argument names (e.g. a `char *` for `PMIX_STRING`).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_prepend(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_prepend, {
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        match new_item(crate::arg!(key key), crate::arg!(datum_ptr value, type_)) {
            Ok(it) => add(l, it, false, false, true),
            Err(rc) => rc,
        }
    })
}

/// Append a shallow copy of `*info`, marked `PMIX_INFO_PERSISTENT`: the list shares
/// the caller's value pointers and never frees them (the caller keeps ownership).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `info` is NULL or points to an initialised `pmix_info_t` that the library reads or
///   fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(
    ptr: *mut c_void,
    info: *mut pmix_info_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_insert, {
        check_null!(info);
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        let mut it = zeroed_info();
        *it = *crate::try_arg!(ref info);
        it.key[PMIX_MAX_KEYLEN] = 0;
        it.flags |= PMIX_INFO_PERSISTENT;
        add(l, it, false, false, false)
    })
}

/// Append a copy of `*info` (see `PMIx_Info_xfer`).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `info` is NULL or points to an initialised `pmix_info_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer(
    ptr: *mut c_void,
    info: *const pmix_info_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_xfer, {
        check_null!(info);
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        let mut it = zeroed_info();
        let s = crate::try_arg!(ref info);
        let value = (s.flags & PMIX_INFO_PERSISTENT == 0)
            .then(|| crate::arg!(value core::ptr::addr_of!(s.value)));
        match info_xfer_checked(&mut it, s, value) {
            PMIX_SUCCESS => add(l, it, false, false, false),
            rc => rc,
        }
    })
}

/// `PMIx_Info_list_xfer` with the uniqueness rule of `PMIx_Info_list_add_unique`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `info` is NULL or points to an initialised `pmix_info_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer_unique(
    ptr: *mut c_void,
    info: *const pmix_info_t,
    overwrite: bool,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_xfer_unique, {
        check_null!(info);
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        let mut it = zeroed_info();
        let s = crate::try_arg!(ref info);
        let value = (s.flags & PMIX_INFO_PERSISTENT == 0)
            .then(|| crate::arg!(value core::ptr::addr_of!(s.value)));
        match info_xfer_checked(&mut it, s, value) {
            PMIX_SUCCESS => {
                if it.flags & PMIX_INFO_PERSISTENT != 0 {
                    // a shared value must not be handed to `add`, which may free it
                    it.flags &= !PMIX_INFO_PERSISTENT;
                    let rc = super::value::xfer_checked(
                        &mut it.value,
                        crate::arg!(value core::ptr::addr_of!(s.value)),
                    );
                    if rc != PMIX_SUCCESS {
                        return rc;
                    }
                }
                add(l, it, true, overwrite, false)
            }
            rc => rc,
        }
    })
}

/// Copy the list into `*par` as a malloc'd `PMIX_INFO` array (persistent items stay
/// shallow; the last element is marked `PMIX_INFO_ARRAY_END`). `*par` is initialised first, so it is always safe to destruct.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` (NULL); `PMIX_ERR_EMPTY` for an empty list;
/// `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `par` is NULL or points to an initialised `pmix_data_array_t` that the library reads
///   or fills in as described above.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_convert(
    ptr: *mut c_void,
    par: *mut pmix_data_array_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Info_list_convert, {
        let par = crate::try_arg!(mut par);
        *par = pmix_data_array_t {
            type_: PMIX_INFO,
            size: 0,
            array: core::ptr::null_mut(),
        };
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        if l.items.is_empty() {
            return PMIX_ERR_EMPTY;
        }
        match list_to_array(l) {
            Ok(arr) => {
                par.size = l.items.len();
                par.array = arr as *mut c_void;
                PMIX_SUCCESS
            }
            Err(rc) => rc,
        }
    })
}

/// A malloc'd `PMIX_INFO` array copying the (non-empty) list's items (persistent ones
/// shallow), the last marked `PMIX_INFO_ARRAY_END`.
fn list_to_array(l: &InfoList) -> Result<*mut pmix_info_t, pmix_status_t> {
    let n = l.items.len();
    let arr = conv::elem_array_new(n, PMIX_INFO).map_err(|e| e.status())? as *mut pmix_info_t;
    for (i, it) in l.items.iter().enumerate() {
        // SAFETY: element `i` is a constructed info inside `arr`; `it` is initialised.
        let rc = unsafe { info_xfer(arr.add(i), &**it) };
        if rc != PMIX_SUCCESS {
            // SAFETY: every element is filled or constructed.
            unsafe { conv::info_array_free(arr, n) };
            return Err(rc);
        }
    }
    // SAFETY: the last element exists inside `arr`.
    unsafe { (*arr.add(n - 1)).flags |= PMIX_INFO_ARRAY_END };
    Ok(arr)
}

/// Free the list and every value it owns (persistent items excepted). NULL is ignored.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released.
///
/// What is released must have been made by this library (or by libc malloc, as the PMIx
/// macros do) and is not used after the call.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    ffi_value!(PMIx_Info_list_release, (), {
        drop(list_arg!(take ptr));
    })
}

/// Iterate: `prev == NULL` returns the first info, otherwise the info `prev` names;
/// `*next` receives the handle of the following item (NULL after the last). An unknown
/// `prev` or an empty list returns NULL.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released;
/// - `prev` is NULL or an element handle this list handed out by an earlier call;
/// - `next` is NULL or a writable `c_void *` slot (what the library stores there is
///   described above).
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_get_info(
    ptr: *mut c_void,
    prev: *mut c_void,
    next: *mut *mut c_void,
) -> *mut pmix_info_t {
    ffi_value!(PMIx_Info_list_get_info, core::ptr::null_mut(), {
        let l = list_arg!(ptr, or core::ptr::null_mut());
        if next.is_null() {
            return core::ptr::null_mut();
        }
        let pos = if prev.is_null() {
            if l.items.is_empty() {
                None
            } else {
                Some(0)
            }
        } else {
            l.items
                .iter()
                .position(|it| core::ptr::eq(&**it, prev as *const pmix_info_t))
        };
        let Some(pos) = pos else {
            crate::arg!(set next, core::ptr::null_mut());
            return core::ptr::null_mut();
        };
        let following = l
            .items
            .get(pos + 1)
            .map_or(core::ptr::null_mut(), |it| &**it as *const _ as *mut c_void);
        crate::arg!(set next, following);
        &mut *l.items[pos] as *mut pmix_info_t
    })
}

/// Number of infos on the list (0 for NULL).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `ptr` is NULL or a list handle from `PMIx_Info_list_start` not yet released.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_get_size(ptr: *mut c_void) -> usize {
    ffi_value!(PMIx_Info_list_get_size, 0, {
        list_arg!(ptr, or 0).items.len()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_unique_overwrite_and_iteration() {
        // SAFETY: exercising the exports with valid arguments.
        unsafe {
            let l = PMIx_Info_list_start();
            let one = 1u32;
            let two = 2u32;
            assert_eq!(
                PMIx_Info_list_add(
                    l,
                    c"a".as_ptr(),
                    &one as *const u32 as *const c_void,
                    PMIX_UINT32
                ),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Info_list_add_unique(
                    l,
                    c"a".as_ptr(),
                    &two as *const u32 as *const c_void,
                    PMIX_UINT32,
                    false
                ),
                PMIX_SUCCESS
            );
            assert_eq!(PMIx_Info_list_get_size(l), 1);
            assert_eq!(
                PMIx_Info_list_add_unique(
                    l,
                    c"a".as_ptr(),
                    &two as *const u32 as *const c_void,
                    PMIX_UINT32,
                    true
                ),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Info_list_prepend(
                    l,
                    c"z".as_ptr(),
                    c"s".as_ptr() as *const c_void,
                    PMIX_STRING
                ),
                PMIX_SUCCESS
            );
            let mut next = core::ptr::null_mut();
            let first = PMIx_Info_list_get_info(l, core::ptr::null_mut(), &mut next);
            assert_eq!(conv::info_from_c(first).unwrap().key.as_str(), "z");
            let second = PMIx_Info_list_get_info(l, next, &mut next);
            assert!(next.is_null());
            assert_eq!(conv::info_from_c(second).unwrap().value, Value::Uint32(2));
            let mut da: pmix_data_array_t = core::mem::zeroed();
            assert_eq!(PMIx_Info_list_convert(l, &mut da), PMIX_SUCCESS);
            assert_eq!(da.size, 2);
            conv::darray_destruct(&mut da);
            PMIx_Info_list_release(l);
            let e = PMIx_Info_list_start();
            assert_eq!(PMIx_Info_list_convert(e, &mut da), PMIX_ERR_EMPTY);
            PMIx_Info_list_release(e);
            let long = std::ffi::CString::new(vec![b'k'; 600]).unwrap();
            let l = PMIx_Info_list_start();
            assert_eq!(
                PMIx_Info_list_add(l, long.as_ptr(), core::ptr::null(), PMIX_BOOL),
                PMIX_ERR_BAD_PARAM
            );
            PMIx_Info_list_release(l);
        }
    }

    #[test]
    fn truth_of_infos() {
        let mut i: pmix_info_t = unsafe { core::mem::zeroed() };
        // SAFETY: local info.
        unsafe {
            assert_eq!(
                PMIx_Info_load(
                    &mut i,
                    c"pmix.optional".as_ptr(),
                    core::ptr::null(),
                    PMIX_UNDEF
                ),
                PMIX_SUCCESS
            );
            assert_eq!(PMIx_Info_true(&i), PMIX_BOOL_TRUE);
            PMIx_Info_destruct(&mut i);
        }
    }
}
