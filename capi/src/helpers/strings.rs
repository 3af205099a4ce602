//! The string converters: `PMIx_Error_string`, `PMIx_Error_code`, `PMIx_Get_version`,
//! the `*_string` printers for enums (static strings owned by the library) and the
//! printers of structs (`PMIx_Value_string`, `PMIx_Info_string`, `PMIx_Proc_string`,
//! `PMIx_App_string`, `PMIx_Resource_unit_string`, `PMIx_Info_directives_string`:
//! malloc'd strings the caller frees with `free()`), and `PMIx_Data_print`.

use super::print;
use crate::conv::{self, alloc};
use crate::{ffi_status, ffi_value};
use core::ffi::{c_char, CStr};
use once_cell::sync::Lazy;
use pmix_sys::*;
use std::ffi::CString;

/// Status code → (name, text) with NUL-terminated copies of the status table.
static STATUS_STRINGS: Lazy<Vec<(pmix_status_t, CString, CString)>> = Lazy::new(|| {
    STATUS_TABLE
        .iter()
        .filter_map(|s| {
            Some((
                s.code,
                CString::new(s.name).ok()?,
                CString::new(s.text).ok()?,
            ))
        })
        .collect()
});

/// Attribute name and key string as C strings, from the attribute table.
static ATTR_STRINGS: Lazy<Vec<(CString, CString)>> = Lazy::new(|| {
    attrs::ATTR_TABLE
        .iter()
        .filter_map(|a| Some((CString::new(a.name).ok()?, CString::new(a.key).ok()?)))
        .collect()
});

/// Names of the data types, as `PMIx_Data_type_string` returns them.
pub(crate) const DATA_TYPE_NAMES: &[(pmix_data_type_t, &CStr)] = &[
    (PMIX_UNDEF, c"PMIX_UNDEF"),
    (PMIX_BOOL, c"PMIX_BOOL"),
    (PMIX_BYTE, c"PMIX_BYTE"),
    (PMIX_STRING, c"PMIX_STRING"),
    (PMIX_SIZE, c"PMIX_SIZE"),
    (PMIX_PID, c"PMIX_PID"),
    (PMIX_INT, c"PMIX_INT"),
    (PMIX_INT8, c"PMIX_INT8"),
    (PMIX_INT16, c"PMIX_INT16"),
    (PMIX_INT32, c"PMIX_INT32"),
    (PMIX_INT64, c"PMIX_INT64"),
    (PMIX_UINT, c"PMIX_UINT"),
    (PMIX_UINT8, c"PMIX_UINT8"),
    (PMIX_UINT16, c"PMIX_UINT16"),
    (PMIX_UINT32, c"PMIX_UINT32"),
    (PMIX_UINT64, c"PMIX_UINT64"),
    (PMIX_FLOAT, c"PMIX_FLOAT"),
    (PMIX_DOUBLE, c"PMIX_DOUBLE"),
    (PMIX_TIMEVAL, c"PMIX_TIMEVAL"),
    (PMIX_TIME, c"PMIX_TIME"),
    (PMIX_STATUS, c"PMIX_STATUS"),
    (PMIX_VALUE, c"PMIX_VALUE"),
    (PMIX_PROC, c"PMIX_PROC"),
    (PMIX_APP, c"PMIX_APP"),
    (PMIX_INFO, c"PMIX_INFO"),
    (PMIX_PDATA, c"PMIX_PDATA"),
    (PMIX_BUFFER, c"PMIX_BUFFER"),
    (PMIX_BYTE_OBJECT, c"PMIX_BYTE_OBJECT"),
    (PMIX_KVAL, c"PMIX_KVAL"),
    (PMIX_PERSIST, c"PMIX_PERSIST"),
    (PMIX_POINTER, c"PMIX_POINTER"),
    (PMIX_SCOPE, c"PMIX_SCOPE"),
    (PMIX_DATA_RANGE, c"PMIX_DATA_RANGE"),
    (PMIX_COMMAND, c"PMIX_COMMAND"),
    (PMIX_INFO_DIRECTIVES, c"PMIX_INFO_DIRECTIVES"),
    (PMIX_DATA_TYPE, c"PMIX_DATA_TYPE"),
    (PMIX_PROC_STATE, c"PMIX_PROC_STATE"),
    (PMIX_PROC_INFO, c"PMIX_PROC_INFO"),
    (PMIX_DATA_ARRAY, c"PMIX_DATA_ARRAY"),
    (PMIX_PROC_RANK, c"PMIX_PROC_RANK"),
    (PMIX_QUERY, c"PMIX_QUERY"),
    (PMIX_COMPRESSED_STRING, c"PMIX_COMPRESSED_STRING"),
    (PMIX_ALLOC_DIRECTIVE, c"PMIX_ALLOC_DIRECTIVE"),
    (PMIX_IOF_CHANNEL, c"PMIX_IOF_CHANNEL"),
    (PMIX_ENVAR, c"PMIX_ENVAR"),
    (PMIX_COORD, c"PMIX_COORD"),
    (PMIX_REGATTR, c"PMIX_REGATTR"),
    (PMIX_REGEX, c"PMIX_REGEX"),
    (PMIX_JOB_STATE, c"PMIX_JOB_STATE"),
    (PMIX_LINK_STATE, c"PMIX_LINK_STATE"),
    (PMIX_PROC_CPUSET, c"PMIX_PROC_CPUSET"),
    (PMIX_GEOMETRY, c"PMIX_GEOMETRY"),
    (PMIX_DEVICE_DIST, c"PMIX_DEVICE_DIST"),
    (PMIX_ENDPOINT, c"PMIX_ENDPOINT"),
    (PMIX_TOPO, c"PMIX_TOPO"),
    (PMIX_DEVTYPE, c"PMIX_DEVTYPE"),
    (PMIX_LOCTYPE, c"PMIX_LOCTYPE"),
    (PMIX_COMPRESSED_BYTE_OBJECT, c"PMIX_COMPRESSED_BYTE_OBJECT"),
    (PMIX_PROC_NSPACE, c"PMIX_PROC_NSPACE"),
    (PMIX_DATA_BUFFER, c"PMIX_DATA_BUFFER"),
    (PMIX_STOR_MEDIUM, c"PMIX_STOR_MEDIUM"),
    (PMIX_STOR_ACCESS, c"PMIX_STOR_ACCESS"),
    (PMIX_STOR_PERSIST, c"PMIX_STOR_PERSIST"),
    (PMIX_STOR_ACCESS_TYPE, c"PMIX_STOR_ACCESS_TYPE"),
    (PMIX_DEVICE, c"PMIX_DEVICE"),
    (PMIX_RESBLOCK_DIRECTIVE, c"PMIX_RESBLOCK_DIRECTIVE"),
    (PMIX_RESOURCE_UNIT, c"PMIX_RESOURCE_UNIT"),
    (PMIX_NODE_PID, c"PMIX_NODE_PID"),
    (PMIX_REGEX2, c"PMIX_REGEX2"),
    (PMIX_ALLOC_INHERIT, c"PMIX_ALLOC_INHERIT"),
];

/// Name of a data type (`"UNKNOWN"` if unknown).
pub(crate) fn data_type_name(t: pmix_data_type_t) -> &'static CStr {
    DATA_TYPE_NAMES
        .iter()
        .find(|(c, _)| *c == t)
        .map_or(c"UNKNOWN", |(_, n)| n)
}

/// Text of an `pmix_device_type_t` (exact single-bit values only).
pub(crate) fn device_type_name(t: pmix_device_type_t) -> &'static CStr {
    match t {
        PMIX_DEVTYPE_UNKNOWN => c"UNKNOWN",
        PMIX_DEVTYPE_BLOCK => c"BLOCK",
        PMIX_DEVTYPE_GPU => c"GPU",
        PMIX_DEVTYPE_NETWORK => c"NETWORK",
        PMIX_DEVTYPE_OPENFABRICS => c"OPENFABRICS",
        PMIX_DEVTYPE_DMA => c"DMA",
        PMIX_DEVTYPE_COPROC => c"COPROCESSOR",
        PMIX_DEVTYPE_MEMORY => c"MEMORY",
        PMIX_DEVTYPE_CORE => c"CORE",
        PMIX_DEVTYPE_HWT => c"HWT",
        PMIX_DEVTYPE_CPU => c"CPU",
        PMIX_DEVTYPE_NODE => c"NODE",
        _ => c"UNKNOWN",
    }
}

/// The string for a rank, as OpenPMIx prints ranks.
pub(crate) fn rank_text(r: pmix_rank_t) -> String {
    match r {
        PMIX_RANK_UNDEF => "UNDEF".into(),
        PMIX_RANK_WILDCARD => "WILDCARD".into(),
        PMIX_RANK_LOCAL_NODE => "LOCAL_NODE".into(),
        PMIX_RANK_LOCAL_PEERS => "LOCAL_PEERS".into(),
        PMIX_RANK_INVALID => "INVALID".into(),
        r => r.to_string(),
    }
}

/// Hand a Rust string to C as a malloc'd C string (NULL if it cannot be allocated).
pub(crate) fn to_c_string(s: &str) -> *mut c_char {
    // Interior NULs would truncate the text; replace them so the printout stays whole.
    let cleaned: Vec<u8> = s.bytes().map(|b| if b == 0 { b'?' } else { b }).collect();
    alloc::strdup_bytes(&cleaned).unwrap_or(core::ptr::null_mut())
}

/// The version string (static).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_version() -> *const c_char {
    ffi_value!(PMIx_Get_version, PMIX_VERSION_STRING.as_ptr(), {
        PMIX_VERSION_STRING.as_ptr()
    })
}

/// Static text for a status code; unknown codes give `"ERROR STRING NOT FOUND"`.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    ffi_value!(PMIx_Error_string, c"ERROR STRING NOT FOUND".as_ptr(), {
        STATUS_STRINGS
            .iter()
            .find(|(c, _, _)| *c == status)
            .map_or(c"ERROR STRING NOT FOUND".as_ptr(), |(_, _, text)| {
                text.as_ptr()
            })
    })
}

/// The code whose name (e.g. `"PMIX_ERR_NOT_FOUND"`) matches `errname`,
/// case-insensitively; `INT32_MIN` when no status has that name.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `errname` is NULL or a NUL-terminated string the library only reads.
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_code(errname: *const c_char) -> pmix_status_t {
    ffi_value!(PMIx_Error_code, i32::MIN, {
        // SAFETY: NULL or a C string (C caller's contract).
        let Some(name) = crate::arg!(cbytes errname) else {
            return i32::MIN;
        };
        STATUS_STRINGS
            .iter()
            .find(|(_, n, _)| n.to_bytes().eq_ignore_ascii_case(name))
            .map_or(i32::MIN, |(c, _, _)| *c)
    })
}

macro_rules! static_printer {
    ($(#[$doc:meta])* fn $name:ident($arg:ident: $ty:ty) else $default:expr; { $($val:pat => $text:expr,)* }) => {
        $(#[$doc])*
        /// # Safety
        /// No pointer arguments: nothing the caller passes can make the call unsound.
        /// The returned string belongs to the library (static): the caller must not free or
        /// write it.
        #[no_mangle]
        pub unsafe extern "C" fn $name($arg: $ty) -> *const c_char {
            ffi_value!($name, $default.as_ptr(), {
                let s: &'static CStr = match $arg { $($val => $text,)* _ => $default };
                s.as_ptr()
            })
        }
    };
}

static_printer! {
    /// Static text of a process state.
    fn PMIx_Proc_state_string(state: pmix_proc_state_t) else c"UNKNOWN STATE"; {
        PMIX_PROC_STATE_UNDEF => c"UNDEFINED",
        PMIX_PROC_STATE_PREPPED => c"PREPPED FOR LAUNCH",
        PMIX_PROC_STATE_LAUNCH_UNDERWAY => c"LAUNCH UNDERWAY",
        PMIX_PROC_STATE_RESTART => c"PROC READY FOR RESTART",
        PMIX_PROC_STATE_TERMINATE => c"PROC MARKED FOR TERMINATION",
        PMIX_PROC_STATE_RUNNING => c"PROC EXECUTING",
        PMIX_PROC_STATE_CONNECTED => c"PROC HAS CONNECTED TO LOCAL PMIX SERVER",
        PMIX_PROC_STATE_UNTERMINATED => c"PROC HAS NOT TERMINATED",
        PMIX_PROC_STATE_TERMINATED => c"PROC HAS TERMINATED",
        PMIX_PROC_STATE_ERROR => c"PROC ERROR",
        PMIX_PROC_STATE_KILLED_BY_CMD => c"PROC KILLED BY CMD",
        PMIX_PROC_STATE_ABORTED => c"PROC ABNORMALLY ABORTED",
        PMIX_PROC_STATE_FAILED_TO_START => c"PROC FAILED TO START",
        PMIX_PROC_STATE_ABORTED_BY_SIG => c"PROC ABORTED BY SIGNAL",
        PMIX_PROC_STATE_TERM_WO_SYNC => c"PROC TERMINATED WITHOUT CALLING PMIx_Finalize",
        PMIX_PROC_STATE_COMM_FAILED => c"PROC LOST COMMUNICATION",
        PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED => c"PROC SENSOR BOUND EXCEEDED",
        PMIX_PROC_STATE_CALLED_ABORT => c"PROC CALLED PMIx_Abort",
        PMIX_PROC_STATE_HEARTBEAT_FAILED => c"PROC FAILED TO REPORT HEARTBEAT",
        PMIX_PROC_STATE_MIGRATING => c"PROC WAITING TO MIGRATE",
        PMIX_PROC_STATE_CANNOT_RESTART => c"PROC CANNOT BE RESTARTED",
        PMIX_PROC_STATE_TERM_NON_ZERO => c"PROC TERMINATED WITH NON-ZERO STATUS",
        PMIX_PROC_STATE_FAILED_TO_LAUNCH => c"PROC FAILED TO LAUNCH",
    }
}

static_printer! {
    /// Static text of a data scope.
    fn PMIx_Scope_string(scope: pmix_scope_t) else c"UNKNOWN SCOPE"; {
        PMIX_SCOPE_UNDEF => c"UNDEFINED",
        PMIX_LOCAL => c"SHARE ON LOCAL NODE ONLY",
        PMIX_REMOTE => c"SHARE ON REMOTE NODES ONLY",
        PMIX_GLOBAL => c"SHARE ACROSS ALL NODES",
        PMIX_INTERNAL => c"STORE INTERNALLY",
        PMIX_DEL_LOCAL => c"DELETE FROM LOCAL NODE SCOPE",
        PMIX_DEL_REMOTE => c"DELETE FROM REMOTE NODE SCOPE",
        PMIX_DEL_GLOBAL => c"DELETE FROM ALL SCOPES",
        PMIX_DEL_INTERNAL => c"DELETE FROM INTERNAL STORE",
    }
}

static_printer! {
    /// Static text of a persistence.
    fn PMIx_Persistence_string(persist: pmix_persistence_t) else c"UNKNOWN PERSISTENCE"; {
        PMIX_PERSIST_INDEF => c"INDEFINITE",
        PMIX_PERSIST_FIRST_READ => c"DELETE ON FIRST ACCESS",
        PMIX_PERSIST_PROC => c"RETAIN UNTIL PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_APP => c"RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_SESSION => c"RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES",
        PMIX_PERSIST_INVALID => c"INVALID",
    }
}

static_printer! {
    /// Static text of a data range.
    fn PMIx_Data_range_string(range: pmix_data_range_t) else c"UNKNOWN"; {
        PMIX_RANGE_UNDEF => c"UNDEFINED",
        PMIX_RANGE_RM => c"INTENDED FOR HOST RESOURCE MANAGER ONLY",
        PMIX_RANGE_LOCAL => c"AVAIL ON LOCAL NODE ONLY",
        PMIX_RANGE_NAMESPACE => c"AVAIL TO PROCESSES IN SAME JOB ONLY",
        PMIX_RANGE_SESSION => c"AVAIL TO PROCESSES IN SAME ALLOCATION ONLY",
        PMIX_RANGE_GLOBAL => c"AVAIL TO ANYONE WITH AUTHORIZATION",
        PMIX_RANGE_CUSTOM => c"AVAIL AS SPECIFIED IN DIRECTIVES",
        PMIX_RANGE_PROC_LOCAL => c"AVAIL ON LOCAL PROC ONLY",
        PMIX_RANGE_INVALID => c"INVALID",
    }
}

static_printer! {
    /// Static text of an allocation directive.
    fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) else c"UNSPECIFIED"; {
        PMIX_ALLOC_NEW => c"NEW",
        PMIX_ALLOC_EXTEND => c"EXTEND",
        PMIX_ALLOC_RELEASE => c"RELEASE",
        PMIX_ALLOC_REAQUIRE => c"REACQUIRE",
        PMIX_ALLOC_REQ_CANCEL => c"CANCEL REQUEST",
    }
}

static_printer! {
    /// Static text of a resource-block directive.
    fn PMIx_Resource_block_directive_string(directive: pmix_resource_block_directive_t) else c"UNSPECIFIED"; {
        PMIX_RESOURCE_BLOCK_DEFINE => c"DEFINE",
        PMIX_RESOURCE_BLOCK_EXTEND => c"EXTEND",
        PMIX_RESOURCE_BLOCK_REMOVE => c"REMOVE",
        PMIX_RESOURCE_BLOCK_DELETE => c"DELETE",
    }
}

static_printer! {
    /// Static text of an allocation inheritance.
    fn PMIx_Alloc_inheritance_string(inheritance: pmix_alloc_inheritance_t) else c"UNSPECIFIED"; {
        PMIX_ALLOC_INHERIT_NONE => c"NONE",
        PMIX_ALLOC_INHERIT_CHILD => c"CHILD",
        PMIX_ALLOC_INHERIT_DEFAULT => c"DEFAULT",
        PMIX_ALLOC_INHERIT_CHILD_DEFAULT => c"CHILD_DEFAULT",
    }
}

static_printer! {
    /// Static text of a job state.
    fn PMIx_Job_state_string(state: pmix_job_state_t) else c"UNKNOWN"; {
        PMIX_JOB_STATE_UNDEF => c"UNDEFINED",
        PMIX_JOB_STATE_AWAITING_ALLOC => c"AWAITING ALLOCATION",
        PMIX_JOB_STATE_LAUNCH_UNDERWAY => c"LAUNCHING",
        PMIX_JOB_STATE_RUNNING => c"RUNNING",
        PMIX_JOB_STATE_SUSPENDED => c"SUSPENDED",
        PMIX_JOB_STATE_CONNECTED => c"CONNECTED",
        PMIX_JOB_STATE_UNTERMINATED => c"UNTERMINATED",
        PMIX_JOB_STATE_TERMINATED => c"TERMINATED",
        PMIX_JOB_STATE_TERMINATED_WITH_ERROR => c"TERMINATED WITH ERROR",
    }
}

static_printer! {
    /// Static text of a link state.
    fn PMIx_Link_state_string(state: pmix_link_state_t) else c"UNKNOWN"; {
        PMIX_LINK_STATE_UNKNOWN => c"UNKNOWN",
        PMIX_LINK_DOWN => c"INACTIVE",
        PMIX_LINK_UP => c"ACTIVE",
    }
}

static_printer! {
    /// Static text of a value comparison result.
    fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) else c"UNKNOWN VALUE"; {
        PMIX_EQUAL => c"EQUAL",
        PMIX_VALUE1_GREATER => c"VALUE1 GREATER",
        PMIX_VALUE2_GREATER => c"VALUE2 GREATER",
        PMIX_VALUE_TYPE_DIFFERENT => c"DIFFERENT TYPES",
        PMIX_VALUE_COMPARISON_NOT_AVAIL => c"COMPARISON NOT AVAILABLE",
        PMIX_VALUE_INCOMPATIBLE_OBJECTS => c"INCOMPATIBLE OBJECTS",
    }
}

static_printer! {
    /// Static text of a group operation.
    fn PMIx_Group_operation_string(op: pmix_group_operation_t) else c"UNKNOWN VALUE"; {
        PMIX_GROUP_CONSTRUCT => c"CONSTRUCT",
        PMIX_GROUP_DESTRUCT => c"DESTRUCT",
        PMIX_GROUP_NONE => c"NONE",
        PMIX_GROUP_CANCEL => c"CANCEL",
    }
}

/// Static name of a data type (`"UNKNOWN"` for unknown codes).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    ffi_value!(PMIx_Data_type_string, c"UNKNOWN".as_ptr(), {
        data_type_name(type_).as_ptr()
    })
}

/// Static name of a device type.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    ffi_value!(PMIx_Device_type_string, c"UNKNOWN".as_ptr(), {
        device_type_name(type_).as_ptr()
    })
}

/// The sixteen channel combinations, built once: thread-safe static strings.
static IOF_STRINGS: Lazy<Vec<CString>> = Lazy::new(|| {
    (0u16..16)
        .map(|c| {
            let mut s = String::new();
            for (bit, name) in [
                (1, "STDIN "),
                (2, "STDOUT "),
                (4, "STDERR "),
                (8, "STDDIAG "),
            ] {
                if c & bit != 0 {
                    s.push_str(name);
                }
            }
            if s.is_empty() {
                s.push_str("NONE");
            }
            CString::new(s).unwrap_or_default()
        })
        .collect()
});

/// Static text naming the channels set in `channel` (e.g. `"STDOUT STDERR "`).
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    ffi_value!(PMIx_IOF_channel_string, c"NONE".as_ptr(), {
        IOF_STRINGS
            .get((channel & 0xf) as usize)
            .map_or(c"NONE".as_ptr(), |s| s.as_ptr())
    })
}

/// The key string of an attribute name (`"PMIX_JOB_SIZE"` → `"pmix.job.size"`); an
/// unknown name is returned unchanged (the caller's pointer).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `attribute` is NULL or a NUL-terminated string the library only reads.
///
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    ffi_value!(PMIx_Get_attribute_string, attribute, {
        // SAFETY: NULL or a C string (C caller's contract).
        let Some(name) = crate::arg!(cbytes attribute) else {
            return attribute;
        };
        ATTR_STRINGS
            .iter()
            .find(|(n, _)| n.to_bytes() == name)
            .map_or(attribute, |(_, k)| k.as_ptr())
    })
}

/// The attribute name of a key string (`"pmix.job.size"` → `"PMIX_JOB_SIZE"`); an
/// unknown key is returned unchanged.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `attrstring` is NULL or a NUL-terminated string the library only reads.
///
/// The returned string belongs to the library (static): the caller must not free or write
/// it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    ffi_value!(PMIx_Get_attribute_name, attrstring, {
        // SAFETY: NULL or a C string (C caller's contract).
        let Some(key) = crate::arg!(cbytes attrstring) else {
            return attrstring;
        };
        ATTR_STRINGS
            .iter()
            .find(|(_, k)| k.to_bytes() == key)
            .map_or(attrstring, |(n, _)| n.as_ptr())
    })
}

/// The directive flags as text, e.g. `"REQUIRED:END"`; malloc'd, the caller frees it.
///
/// # Safety
/// No pointer arguments: nothing the caller passes can make the call unsound.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_directives_string(
    directives: pmix_info_directives_t,
) -> *mut c_char {
    ffi_value!(PMIx_Info_directives_string, core::ptr::null_mut(), {
        to_c_string(&print::directives_text(directives))
    })
}

/// A description of the value; malloc'd, the caller frees it (NULL on error).
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `value` is NULL or points to an initialised `pmix_value_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    ffi_value!(PMIx_Value_string, core::ptr::null_mut(), {
        match crate::arg!(value value) {
            Ok(v) => to_c_string(&format!("PMIX_VALUE: {}", print::value_text(&v))),
            Err(_) => core::ptr::null_mut(),
        }
    })
}

/// A description of the info (key, directives, value); malloc'd, the caller frees it.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `info` is NULL or points to an initialised `pmix_info_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    ffi_value!(PMIx_Info_string, core::ptr::null_mut(), {
        // SAFETY: NULL or a valid info (C caller's contract).
        match crate::arg!(info info) {
            Ok(i) => to_c_string(&format!("{}\n", print::info_text(&i))),
            Err(_) => core::ptr::null_mut(),
        }
    })
}

/// `"[nspace,rank]"`; malloc'd, the caller frees it. NULL gives `"[NO-NAME]"`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `proc_` is NULL or points to an initialised `pmix_proc_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_string(proc_: *const pmix_proc_t) -> *mut c_char {
    ffi_value!(PMIx_Proc_string, core::ptr::null_mut(), {
        if proc_.is_null() {
            return to_c_string("[NO-NAME]");
        }
        match conv::proc_from_c(crate::try_arg!(ref proc_; else core::ptr::null_mut())) {
            Ok(p) => to_c_string(&print::proc_text(&p)),
            Err(_) => core::ptr::null_mut(),
        }
    })
}

/// A multi-line description of the app; malloc'd, the caller frees it.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `app` is NULL or points to an initialised `pmix_app_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_string(app: *const pmix_app_t) -> *mut c_char {
    ffi_value!(PMIx_App_string, core::ptr::null_mut(), {
        // SAFETY: NULL or a valid app (C caller's contract).
        match crate::arg!(app app) {
            Ok(a) => to_c_string(&print::app_text(&a)),
            Err(_) => core::ptr::null_mut(),
        }
    })
}

/// `"TYPE: <device type>  COUNT: <n>"`; malloc'd, the caller frees it.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `unit` is NULL or points to an initialised `pmix_resource_unit_t` (only read).
///
/// What the pointers lead to is read (copied) during the call and may be released once it
/// returns, unless stated above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resource_unit_string(
    unit: *const pmix_resource_unit_t,
) -> *mut c_char {
    ffi_value!(PMIx_Resource_unit_string, core::ptr::null_mut(), {
        if unit.is_null() {
            return core::ptr::null_mut();
        }
        let u = crate::try_arg!(ref unit; else core::ptr::null_mut());
        to_c_string(&format!(
            "TYPE: {}  COUNT: {}",
            device_type_name(u.type_).to_string_lossy(),
            u.count
        ))
    })
}

/// Print one datum of `type_` at `src` (read as `PMIx_Value_load` reads its data)
/// into a malloc'd `*output`, prefixed with `prefix`.
///
/// # Returns
/// `PMIX_SUCCESS`; `PMIX_ERR_BAD_PARAM` for NULL `output`/`src`;
/// `PMIX_ERR_UNKNOWN_DATA_TYPE`; `PMIX_ERR_NOMEM`.
///
/// # Safety
/// The C contract (what makes the call sound):
/// - `output` is NULL or a writable `char *` slot;
/// - `prefix` is NULL or a NUL-terminated string.
///
/// What the library hands back is malloc'd and the caller's to release, unless stated
/// above.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_print(
    output: *mut *mut c_char,
    prefix: *mut c_char,
    src: *mut core::ffi::c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    ffi_status!(PMIx_Data_print, {
        crate::check_null!(output, src);
        // SAFETY: `src` points to a datum of `type_` (C caller's contract).
        let v = match crate::arg!(datum src, type_) {
            Ok(v) => v,
            Err(e) => return e.status(),
        };
        // SAFETY: NULL or a C string.
        let pre = crate::arg!(cbytes prefix)
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let text = if type_ == PMIX_VALUE {
            format!("{}PMIX_VALUE: {}", pre, print::value_text(&v))
        } else {
            format!("{}{}", pre, print::value_text(&v))
        };
        let p = to_c_string(&text);
        if p.is_null() {
            return PMIX_ERR_NOMEM;
        }
        crate::arg!(set output, p);
        PMIX_SUCCESS
    })
}
