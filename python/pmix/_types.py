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

pmix_modex_cbfunc_t = CFUNCTYPE(
    None, pmix_status_t, c_void_p, c_size_t, c_void_p, pmix_release_cbfunc_t, c_void_p
)
pmix_tool_connection_cbfunc_t = CFUNCTYPE(None, pmix_status_t, POINTER(pmix_proc_t), c_void_p)
pmix_dmodex_response_fn_t = CFUNCTYPE(None, pmix_status_t, c_void_p, c_size_t, c_void_p)
pmix_setup_application_cbfunc_t = CFUNCTYPE(
    None, pmix_status_t, POINTER(pmix_info_t), c_size_t, c_void_p, pmix_op_cbfunc_t, c_void_p
)


class pmix_data_buffer_t(Structure):
    _fields_ = [
        ("base_ptr", c_void_p),
        ("pack_ptr", c_void_p),
        ("unpack_ptr", c_void_p),
        ("bytes_allocated", c_size_t),
        ("bytes_used", c_size_t),
    ]


class pmix_regex2_t(Structure):
    _fields_ = [("type", c_void_p), ("bytes", c_void_p), ("len", c_size_t)]


# --- the server module (pmix_server.h) ------------------------------------
# Pointer arguments the upcall trampolines read themselves are c_void_p (an
# int or None in Python); the completion callbacks keep their C types so
# that ctypes can call them.
_v = c_void_p
_sz = c_size_t
_st = pmix_status_t
_op = pmix_op_cbfunc_t
_info_cb = pmix_info_cbfunc_t

# slot name -> the C prototype of that slot, in the table's order
SERVER_SLOTS = [
    ("client_connected", CFUNCTYPE(_st, _v, _v, _op, _v)),
    ("client_finalized", CFUNCTYPE(_st, _v, _v, _op, _v)),
    ("abort", CFUNCTYPE(_st, _v, _v, c_int, _v, _v, _sz, _op, _v)),
    ("fence_nb", CFUNCTYPE(_st, _v, _sz, _v, _sz, _v, _sz, pmix_modex_cbfunc_t, _v)),
    ("direct_modex", CFUNCTYPE(_st, _v, _v, _sz, pmix_modex_cbfunc_t, _v)),
    ("publish", CFUNCTYPE(_st, _v, _v, _sz, _op, _v)),
    ("lookup", CFUNCTYPE(_st, _v, _v, _v, _sz, pmix_lookup_cbfunc_t, _v)),
    ("unpublish", CFUNCTYPE(_st, _v, _v, _v, _sz, _op, _v)),
    ("spawn", CFUNCTYPE(_st, _v, _v, _sz, _v, _sz, pmix_spawn_cbfunc_t, _v)),
    ("connect", CFUNCTYPE(_st, _v, _sz, _v, _sz, _op, _v)),
    ("disconnect", CFUNCTYPE(_st, _v, _sz, _v, _sz, _op, _v)),
    ("register_events", CFUNCTYPE(_st, _v, _sz, _v, _sz, _op, _v)),
    ("deregister_events", CFUNCTYPE(_st, _v, _sz, _op, _v)),
    ("listener", CFUNCTYPE(_st, c_int, _v, _v)),
    ("notify_event", CFUNCTYPE(_st, _st, _v, c_uint8, _v, _sz, _op, _v)),
    ("query", CFUNCTYPE(_st, _v, _v, _sz, _info_cb, _v)),
    ("tool_connected", CFUNCTYPE(None, _v, _sz, pmix_tool_connection_cbfunc_t, _v)),
    ("log", CFUNCTYPE(None, _v, _v, _sz, _v, _sz, _op, _v)),
    ("allocate", CFUNCTYPE(_st, _v, c_uint8, _v, _sz, _info_cb, _v)),
    ("job_control", CFUNCTYPE(_st, _v, _v, _sz, _v, _sz, _info_cb, _v)),
    ("monitor", CFUNCTYPE(_st, _v, _v, _st, _v, _sz, _info_cb, _v)),
    ("get_credential", CFUNCTYPE(_st, _v, _v, _sz, pmix_credential_cbfunc_t, _v)),
    ("validate_credential", CFUNCTYPE(_st, _v, _v, _v, _sz, pmix_validation_cbfunc_t, _v)),
    ("iof_pull", CFUNCTYPE(_st, _v, _sz, _v, _sz, c_uint16, _op, _v)),
    ("push_stdin", CFUNCTYPE(_st, _v, _v, _sz, _v, _sz, _v, _op, _v)),
    ("group", CFUNCTYPE(_st, c_int, _v, _v, _sz, _v, _sz, _info_cb, _v)),
    ("fabric", CFUNCTYPE(_st, _v, c_uint8, _v, _sz, _info_cb, _v)),
    ("client_connected2", CFUNCTYPE(_st, _v, _v, _v, _sz, _op, _v)),
    ("tool_connected2", CFUNCTYPE(_st, _v, _sz, pmix_tool_connection_cbfunc_t, _v)),
    ("log2", CFUNCTYPE(_st, _v, _v, _sz, _v, _sz, _op, _v)),
    ("session_control", CFUNCTYPE(_st, _v, c_uint32, _v, _sz, _info_cb, _v)),
    ("resource_block", CFUNCTYPE(_st, _v, c_uint8, _v, _v, _sz, _v, _sz, _op, _v)),
]
SERVER_SLOT_TYPES = dict(SERVER_SLOTS)
# OpenPMIx 4.2.2's table ends with client_connected2: the later slots are read
# only when PMIx_server_init is told the table is complete (PMIX_SERVER_MODULE_V7)
SERVER_SLOTS_V4 = 28


class pmix_server_module_t(Structure):
    _fields_ = [(name, proto) for name, proto in SERVER_SLOTS]



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
    (sizeof(pmix_data_buffer_t), 40),
    (sizeof(pmix_regex2_t), 24),
    (sizeof(pmix_server_module_t), 256),
    (_offset(pmix_server_module_t, "client_connected2"), 216),
    (_offset(pmix_server_module_t, "resource_block"), 248),
]
for _got, _want in _LAYOUT:
    if _got != _want:
        raise ImportError(
            "pmix: struct layout mismatch (%d != %d); these bindings need the LP64 "
            "x86-64 layout of OpenPMIx's headers" % (_got, _want)
        )
del _got, _want

__all__ = [n for n in dir() if n.startswith("pmix_")] + ["MAX_NSLEN", "MAX_KEYLEN", "timeval", "c_char_p"]
