"""ctypes mirrors of the PMIx structs the client API passes (x86-64 / LP64).

The layouts are OpenPMIx's (the ABI every libpmix.so.2 shares); their sizes
and key offsets are asserted below, at import, so a mismatch fails loudly
instead of corrupting memory. Pointers that the binding manages itself are
declared ``c_void_p`` so that ctypes never converts or frees them behind our
back.
"""

import ctypes
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    Union,
    c_bool,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int8,
    c_int16,
    c_int32,
    c_int64,
    c_long,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
    sizeof,
)

MAX_NSLEN = 255
MAX_KEYLEN = 511

pmix_status_t = c_int
pmix_rank_t = c_uint32
pmix_data_type_t = c_uint16


class pmix_proc_t(Structure):
    _fields_ = [("nspace", c_char * (MAX_NSLEN + 1)), ("rank", pmix_rank_t)]


class pmix_byte_object_t(Structure):
    _fields_ = [("bytes", c_void_p), ("size", c_size_t)]


class pmix_data_array_t(Structure):
    _fields_ = [("type", pmix_data_type_t), ("size", c_size_t), ("array", c_void_p)]


class pmix_envar_t(Structure):
    _fields_ = [("envar", c_void_p), ("value", c_void_p), ("separator", c_char)]


class pmix_coord_t(Structure):
    _fields_ = [("view", c_uint8), ("coord", c_void_p), ("dims", c_size_t)]


class timeval(Structure):
    _fields_ = [("tv_sec", c_long), ("tv_usec", c_long)]


class pmix_proc_info_t(Structure):
    _fields_ = [
        ("proc", pmix_proc_t),
        ("hostname", c_void_p),
        ("executable_name", c_void_p),
        ("pid", c_int32),
        ("exit_code", c_int),
        ("state", c_uint8),
    ]


class pmix_geometry_t(Structure):
    _fields_ = [
        ("fabric", c_size_t),
        ("uuid", c_void_p),
        ("osname", c_void_p),
        ("coordinates", c_void_p),
        ("ncoords", c_size_t),
    ]


class pmix_device_t(Structure):
    _fields_ = [("uuid", c_void_p), ("osname", c_void_p), ("type", c_uint64)]


class pmix_device_distance_t(Structure):
    _fields_ = [
        ("uuid", c_void_p),
        ("osname", c_void_p),
        ("type", c_uint64),
        ("mindist", c_uint16),
        ("maxdist", c_uint16),
    ]


class pmix_endpoint_t(Structure):
    _fields_ = [("uuid", c_void_p), ("osname", c_void_p), ("endpt", pmix_byte_object_t)]


class pmix_resource_unit_t(Structure):
    _fields_ = [("type", c_uint64), ("count", c_size_t)]


class pmix_node_pid_t(Structure):
    _fields_ = [("hostname", c_void_p), ("nodeid", c_uint32), ("pid", c_int32)]


class pmix_value_data(Union):
    _fields_ = [
        ("flag", c_bool),
        ("byte", c_uint8),
        ("string", c_void_p),
        ("size", c_size_t),
        ("pid", c_int32),
        ("integer", c_int),
        ("int8", c_int8),
        ("int16", c_int16),
        ("int32", c_int32),
        ("int64", c_int64),
        ("uint", c_uint),
        ("uint8", c_uint8),
        ("uint16", c_uint16),
        ("uint32", c_uint32),
        ("uint64", c_uint64),
        ("fval", c_float),
        ("dval", c_double),
        ("tv", timeval),
        ("time", c_long),
        ("status", pmix_status_t),
        ("rank", pmix_rank_t),
        ("ptr", c_void_p),
        ("bo", pmix_byte_object_t),
        ("envar", pmix_envar_t),
        ("u16", c_uint16),
        ("u64", c_uint64),
    ]


class pmix_value_t(Structure):
    _fields_ = [("type", pmix_data_type_t), ("data", pmix_value_data)]


class pmix_info_t(Structure):
    _fields_ = [("key", c_char * (MAX_KEYLEN + 1)), ("flags", c_uint32), ("value", pmix_value_t)]


class pmix_pdata_t(Structure):
    _fields_ = [("proc", pmix_proc_t), ("key", c_char * (MAX_KEYLEN + 1)), ("value", pmix_value_t)]


class pmix_app_t(Structure):
    _fields_ = [
        ("cmd", c_void_p),
        ("argv", c_void_p),
        ("env", c_void_p),
        ("cwd", c_void_p),
        ("maxprocs", c_int),
        ("info", c_void_p),
        ("ninfo", c_size_t),
    ]


class pmix_query_t(Structure):
    _fields_ = [("keys", c_void_p), ("qualifiers", c_void_p), ("nqual", c_size_t)]


# --- callback types (pmix_common.h) -------------------------------------
pmix_release_cbfunc_t = CFUNCTYPE(None, c_void_p)
pmix_op_cbfunc_t = CFUNCTYPE(None, pmix_status_t, c_void_p)
pmix_value_cbfunc_t = CFUNCTYPE(None, pmix_status_t, POINTER(pmix_value_t), c_void_p)
pmix_info_cbfunc_t = CFUNCTYPE(
    None, pmix_status_t, POINTER(pmix_info_t), c_size_t, c_void_p, pmix_release_cbfunc_t, c_void_p
)
pmix_lookup_cbfunc_t = CFUNCTYPE(None, pmix_status_t, POINTER(pmix_pdata_t), c_size_t, c_void_p)
# pmix_nspace_t decays to a char pointer in a parameter list
pmix_spawn_cbfunc_t = CFUNCTYPE(None, pmix_status_t, c_void_p, c_void_p)
pmix_hdlr_reg_cbfunc_t = CFUNCTYPE(None, pmix_status_t, c_size_t, c_void_p)
pmix_iof_channel_t = c_uint16
pmix_iof_cbfunc_t = CFUNCTYPE(
    None, c_size_t, pmix_iof_channel_t, POINTER(pmix_proc_t), POINTER(pmix_byte_object_t), POINTER(pmix_info_t), c_size_t
)
pmix_credential_cbfunc_t = CFUNCTYPE(
    None, pmix_status_t, POINTER(pmix_byte_object_t), POINTER(pmix_info_t), c_size_t, c_void_p
)
pmix_validation_cbfunc_t = CFUNCTYPE(None, pmix_status_t, POINTER(pmix_info_t), c_size_t, c_void_p)
pmix_event_notification_cbfunc_fn_t = CFUNCTYPE(
    None, pmix_status_t, POINTER(pmix_info_t), c_size_t, pmix_op_cbfunc_t, c_void_p, c_void_p
)
pmix_notification_fn_t = CFUNCTYPE(
    None,
    c_size_t,
    pmix_status_t,
    POINTER(pmix_proc_t),
    POINTER(pmix_info_t),
    c_size_t,
    POINTER(pmix_info_t),
    c_size_t,
    pmix_event_notification_cbfunc_fn_t,
    c_void_p,
)


def _offset(cls, field):
    return getattr(cls, field).offset


# Layout facts of OpenPMIx's ABI on x86-64: checked at import.
_LAYOUT = [
    (sizeof(pmix_proc_t), 260),
    (_offset(pmix_proc_t, "rank"), 256),
    (ctypes.alignment(pmix_proc_t), 4),
    (sizeof(pmix_byte_object_t), 16),
    (sizeof(pmix_data_array_t), 24),
    (_offset(pmix_data_array_t, "array"), 16),
    (sizeof(pmix_envar_t), 24),
    (sizeof(pmix_value_data), 24),
    (sizeof(pmix_value_t), 32),
    (_offset(pmix_value_t, "data"), 8),
    (sizeof(pmix_info_t), 552),
    (_offset(pmix_info_t, "flags"), 512),
    (_offset(pmix_info_t, "value"), 520),
    (sizeof(pmix_pdata_t), 808),
    (_offset(pmix_pdata_t, "key"), 260),
    (_offset(pmix_pdata_t, "value"), 776),
    (sizeof(pmix_app_t), 56),
    (_offset(pmix_app_t, "ninfo"), 48),
    (sizeof(pmix_query_t), 24),
    (sizeof(pmix_coord_t), 24),
    (sizeof(pmix_proc_info_t), 296),
    (_offset(pmix_proc_info_t, "state"), 288),
    (sizeof(pmix_geometry_t), 40),
    (sizeof(pmix_device_t), 24),
    (sizeof(pmix_device_distance_t), 32),
    (_offset(pmix_device_distance_t, "maxdist"), 26),
    (sizeof(pmix_endpoint_t), 32),
    (sizeof(pmix_resource_unit_t), 16),
    (sizeof(pmix_node_pid_t), 16),
    (_offset(pmix_node_pid_t, "pid"), 12),
]
for _got, _want in _LAYOUT:
    if _got != _want:
        raise ImportError(
            "pmix: struct layout mismatch (%d != %d); these bindings need the LP64 "
            "x86-64 layout of OpenPMIx's headers" % (_got, _want)
        )
del _got, _want

__all__ = [n for n in dir() if n.startswith("pmix_")] + ["MAX_NSLEN", "MAX_KEYLEN", "timeval", "c_char_p"]
