//! `PMIx_Info_*`: construct/destruct/create/free, load/xfer, the directive flags, and
//! the opaque info list (`PMIx_Info_list_*`).
//!
//! Ownership: an info owns its value unless it is marked `PMIX_INFO_PERSISTENT` (the
//! value then belongs to someone else and is never freed here). `PMIx_Info_create`
//! arrays come from libc malloc and are released with `PMIx_Info_free(p, n)`.

use super::value::{load, value_size, xfer};
use crate::conv;
use crate::{check_null, ffi_status, ffi_value};
use core::ffi::{c_char, c_void};
use pmix_core::Value;
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
        if !p.is_null() {
            // SAFETY: writable (C contract); all-zero is the constructed state.
            unsafe { core::ptr::write_bytes(p, 0, 1) };
        }
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
        // SAFETY: NULL or an initialised info (C contract).
        unsafe { conv::info_destruct(p) }
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
        // SAFETY: NULL or a malloc'd array of `n` infos (C contract).
        unsafe { conv::info_array_free(p, n) }
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
        if p.is_null() {
            return PMIX_BOOL_FALSE;
        }
        // SAFETY: non-NULL info (C contract).
        unsafe { super::value::PMIx_Value_true(&(*p).value) }
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
        conv::load_key(&mut info.key, &k);
        // SAFETY: `info.value` is a constructed (zeroed) value; `data` is NULL or a datum
        // of `type_` (this export's contract), which is what `load` requires.
        unsafe { load(&mut info.value, data, type_) }
    })
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
        // SAFETY: valid info pointers (C contract).
        unsafe { info_xfer(dest, src) }
    })
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
                if !p.is_null() {
                    // SAFETY: non-NULL info (C contract).
                    unsafe { flag_ops!(@set $how (*p).flags, $flag) };
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
                // SAFETY: non-NULL info (C contract).
                !p.is_null() && flag_ops!(@test $how unsafe { (*p).flags }, $flag)
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
        // SAFETY: an initialised info (C contract).
        match unsafe { conv::info_from_c(val) } {
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
    // SAFETY: all-zero is a valid, constructed pmix_info_t.
    Box::new(unsafe { core::mem::zeroed() })
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
unsafe fn new_item(
    key: *const c_char,
    value: *const c_void,
    t: pmix_data_type_t,
) -> Result<Box<pmix_info_t>, pmix_status_t> {
    let mut it = zeroed_info();
    // SAFETY: `it` is a constructed info; key/value follow the C contract.
    let rc = unsafe { PMIx_Info_load(&mut *it, key, value, t) };
    if rc == PMIX_SUCCESS {
        Ok(it)
    } else {
        Err(rc)
    }
}

/// Build one item from key + a `pmix_value_t` (deep copy).
unsafe fn new_item_value(
    key: *const c_char,
    value: *const pmix_value_t,
) -> Result<Box<pmix_info_t>, pmix_status_t> {
    let k = crate::arg!(key key).map_err(|e| e.status())?;
    if value.is_null() {
        return Err(PMIX_ERR_BAD_PARAM);
    }
    let mut it = zeroed_info();
    conv::load_key(&mut it.key, &k);
    // SAFETY: `value` is an initialised value (C contract).
    match unsafe { xfer(&mut it.value, value) } {
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
        // SAFETY: C contract for key and datum.
        match unsafe { new_item(key, value, type_) } {
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
        // SAFETY: C contract for key and datum.
        match unsafe { new_item(key, value, type_) } {
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
        // SAFETY: C contract for key and value.
        match unsafe { new_item_value(key, value) } {
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
        // SAFETY: C contract for key and value.
        match unsafe { new_item_value(key, value) } {
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
        // SAFETY: C contract for key and datum.
        match unsafe { new_item(key, value, type_) } {
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
        // SAFETY: `info` is an initialised info (C contract); bitwise copy.
        *it = unsafe { *info };
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
        // SAFETY: `info` is initialised (C contract).
        match unsafe { info_xfer(&mut *it, info) } {
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
        // SAFETY: `info` is initialised (C contract).
        match unsafe { info_xfer(&mut *it, info) } {
            PMIX_SUCCESS => {
                if it.flags & PMIX_INFO_PERSISTENT != 0 {
                    // a shared value must not be handed to `add`, which may free it
                    it.flags &= !PMIX_INFO_PERSISTENT;
                    // SAFETY: `info` is initialised; deep copy of its value.
                    let rc = unsafe { xfer(&mut it.value, &(*info).value) };
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
        check_null!(par);
        // SAFETY: writable (C contract).
        unsafe {
            *par = pmix_data_array_t {
                type_: PMIX_INFO,
                size: 0,
                array: core::ptr::null_mut(),
            }
        };
        let l = list_arg!(ptr, or PMIX_ERR_BAD_PARAM);
        if l.items.is_empty() {
            return PMIX_ERR_EMPTY;
        }
        let arr = match conv::elem_array_new(l.items.len(), PMIX_INFO) {
            Ok(a) => a as *mut pmix_info_t,
            Err(e) => return e.status(),
        };
        for (i, it) in l.items.iter().enumerate() {
            // SAFETY: element `i` is a constructed info inside `arr`; `it` is initialised.
            let rc = unsafe { info_xfer(arr.add(i), &**it) };
            if rc != PMIX_SUCCESS {
                // SAFETY: every element is filled or constructed.
                unsafe { conv::info_array_free(arr, l.items.len()) };
                return rc;
            }
        }
        // SAFETY: the last element exists; `par` is writable (C contract).
        unsafe {
            (*arr.add(l.items.len() - 1)).flags |= PMIX_INFO_ARRAY_END;
            (*par).size = l.items.len();
            (*par).array = arr as *mut c_void;
        }
        PMIX_SUCCESS
    })
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
        if !ptr.is_null() {
            // SAFETY: a handle from PMIx_Info_list_start, released once (C contract).
            drop(unsafe { Box::from_raw(ptr as *mut InfoList) });
        }
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
            // SAFETY: `next` is writable (C contract).
            unsafe { *next = core::ptr::null_mut() };
            return core::ptr::null_mut();
        };
        let following = l
            .items
            .get(pos + 1)
            .map_or(core::ptr::null_mut(), |it| &**it as *const _ as *mut c_void);
        // SAFETY: `next` is writable (C contract).
        unsafe { *next = following };
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
        // SAFETY: NULL or a live handle (C contract).
        unsafe { list(ptr) }.map_or(0, |l| l.items.len())
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
