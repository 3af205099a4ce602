"""Locating libpmix.so.2 and declaring the prototypes of the functions we call.

Lookup order:
  1. the ``PMIX_LIBRARY`` environment variable (a path to a libpmix.so.2);
  2. ``libpmix.so.2`` next to this package (``make install`` puts a link there);
  3. ``libpmix.so.2`` through the dynamic linker (LD_LIBRARY_PATH, ld cache).

The library is loaded on first use, not at import, so ``from pmix import *``
works (constants only) on a machine without libpmix.
"""

import ctypes
import os
import threading
from ctypes import POINTER, c_bool, c_char_p, c_int, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

from ._types import (
    pmix_app_t,
    pmix_byte_object_t,
    pmix_credential_cbfunc_t,
    pmix_data_buffer_t,
    pmix_dmodex_response_fn_t,
    pmix_hdlr_reg_cbfunc_t,
    pmix_info_cbfunc_t,
    pmix_info_t,
    pmix_iof_cbfunc_t,
    pmix_lookup_cbfunc_t,
    pmix_notification_fn_t,
    pmix_op_cbfunc_t,
    pmix_pdata_t,
    pmix_proc_t,
    pmix_query_t,
    pmix_regex2_t,
    pmix_resource_unit_t,
    pmix_server_module_t,
    pmix_setup_application_cbfunc_t,
    pmix_spawn_cbfunc_t,
    pmix_status_t,
    pmix_validation_cbfunc_t,
    pmix_value_cbfunc_t,
    pmix_value_t,
)

_st = pmix_status_t
_proc_p = POINTER(pmix_proc_t)
_info_p = POINTER(pmix_info_t)
_info_pp = POINTER(_info_p)
_value_p = POINTER(pmix_value_t)
_size_p = POINTER(c_size_t)

# name: (restype, [argtypes]). Pointers to arrays the binding builds are
# passed as the element pointer type; NULL is None.
PROTOTYPES = {
    # pmix.h: client
    "PMIx_Init": (_st, [_proc_p, _info_p, c_size_t]),
    "PMIx_Finalize": (_st, [_info_p, c_size_t]),
    "PMIx_Initialized": (c_int, []),
    "PMIx_Abort": (_st, [c_int, c_char_p, _proc_p, c_size_t]),
    "PMIx_Put": (_st, [c_uint8, c_char_p, _value_p]),
    "PMIx_Commit": (_st, []),
    "PMIx_Fence": (_st, [_proc_p, c_size_t, _info_p, c_size_t]),
    "PMIx_Fence_nb": (_st, [_proc_p, c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Get": (_st, [_proc_p, c_char_p, _info_p, c_size_t, POINTER(_value_p)]),
    "PMIx_Get_nb": (_st, [_proc_p, c_char_p, _info_p, c_size_t, pmix_value_cbfunc_t, c_void_p]),
    "PMIx_Publish": (_st, [_info_p, c_size_t]),
    "PMIx_Publish_nb": (_st, [_info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Lookup": (_st, [POINTER(pmix_pdata_t), c_size_t, _info_p, c_size_t]),
    "PMIx_Lookup_nb": (_st, [c_void_p, _info_p, c_size_t, pmix_lookup_cbfunc_t, c_void_p]),
    "PMIx_Unpublish": (_st, [c_void_p, _info_p, c_size_t]),
    "PMIx_Unpublish_nb": (_st, [c_void_p, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Spawn": (_st, [_info_p, c_size_t, POINTER(pmix_app_t), c_size_t, c_void_p]),
    "PMIx_Spawn_nb": (_st, [_info_p, c_size_t, POINTER(pmix_app_t), c_size_t, pmix_spawn_cbfunc_t, c_void_p]),
    "PMIx_Connect": (_st, [_proc_p, c_size_t, _info_p, c_size_t]),
    "PMIx_Connect_nb": (_st, [_proc_p, c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Disconnect": (_st, [_proc_p, c_size_t, _info_p, c_size_t]),
    "PMIx_Disconnect_nb": (_st, [_proc_p, c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Resolve_peers": (_st, [c_char_p, c_char_p, POINTER(_proc_p), _size_p]),
    "PMIx_Resolve_nodes": (_st, [c_char_p, POINTER(c_void_p)]),
    "PMIx_Query_info": (_st, [POINTER(pmix_query_t), c_size_t, _info_pp, _size_p]),
    "PMIx_Query_info_nb": (_st, [POINTER(pmix_query_t), c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Log": (_st, [_info_p, c_size_t, _info_p, c_size_t]),
    "PMIx_Log_nb": (_st, [_info_p, c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Allocation_request": (_st, [c_uint8, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Allocation_request_nb": (_st, [c_uint8, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Job_control": (_st, [_proc_p, c_size_t, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Job_control_nb": (_st, [_proc_p, c_size_t, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Process_monitor": (_st, [_info_p, _st, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Process_monitor_nb": (_st, [_info_p, _st, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Heartbeat": (None, []),
    "PMIx_Get_credential": (_st, [_info_p, c_size_t, POINTER(pmix_byte_object_t)]),
    "PMIx_Get_credential_nb": (_st, [_info_p, c_size_t, pmix_credential_cbfunc_t, c_void_p]),
    "PMIx_Validate_credential": (_st, [POINTER(pmix_byte_object_t), _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Validate_credential_nb": (
        _st,
        [POINTER(pmix_byte_object_t), _info_p, c_size_t, pmix_validation_cbfunc_t, c_void_p],
    ),
    "PMIx_Group_construct": (_st, [c_char_p, _proc_p, c_size_t, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Group_construct_nb": (_st, [c_char_p, _proc_p, c_size_t, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Group_invite": (_st, [c_char_p, _proc_p, c_size_t, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Group_invite_nb": (_st, [c_char_p, _proc_p, c_size_t, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Group_join": (_st, [c_char_p, _proc_p, c_int, _info_p, c_size_t, _info_pp, _size_p]),
    "PMIx_Group_join_nb": (_st, [c_char_p, _proc_p, c_int, _info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_Group_leave": (_st, [c_char_p, _info_p, c_size_t]),
    "PMIx_Group_leave_nb": (_st, [c_char_p, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Group_destruct": (_st, [c_char_p, _info_p, c_size_t]),
    "PMIx_Group_destruct_nb": (_st, [c_char_p, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Register_event_handler": (
        _st,
        [POINTER(_st), c_size_t, _info_p, c_size_t, pmix_notification_fn_t, pmix_hdlr_reg_cbfunc_t, c_void_p],
    ),
    "PMIx_Deregister_event_handler": (_st, [c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Notify_event": (_st, [_st, _proc_p, c_uint8, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Resource_block": (_st, [c_uint8, c_char_p, POINTER(pmix_resource_unit_t), c_size_t, _info_p, c_size_t]),
    "PMIx_Resource_block_nb": (
        _st,
        [c_uint8, c_char_p, POINTER(pmix_resource_unit_t), c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p],
    ),
    "PMIx_Progress": (None, []),
    "PMIx_Store_internal": (_st, [_proc_p, c_char_p, _value_p]),
    "PMIx_Get_version": (c_char_p, []),
    # pmix_tool.h: tools and I/O forwarding
    "PMIx_tool_init": (_st, [_proc_p, _info_p, c_size_t]),
    "PMIx_tool_finalize": (_st, []),
    "PMIx_tool_is_connected": (c_bool, []),
    "PMIx_tool_attach_to_server": (_st, [_proc_p, _proc_p, _info_p, c_size_t]),
    "PMIx_tool_disconnect": (_st, [_proc_p]),
    "PMIx_tool_get_servers": (_st, [POINTER(_proc_p), _size_p]),
    "PMIx_tool_set_server": (_st, [_proc_p, _info_p, c_size_t]),
    "PMIx_IOF_pull": (
        _st,
        [_proc_p, c_size_t, _info_p, c_size_t, c_uint16, pmix_iof_cbfunc_t, pmix_hdlr_reg_cbfunc_t, c_void_p],
    ),
    "PMIx_IOF_deregister": (_st, [c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_IOF_push": (
        _st,
        [_proc_p, c_size_t, POINTER(pmix_byte_object_t), _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p],
    ),
    # pmix_server.h: the server (host) API
    "PMIx_server_init": (_st, [POINTER(pmix_server_module_t), _info_p, c_size_t]),
    "PMIx_server_finalize": (_st, []),
    "PMIx_server_register_nspace": (_st, [c_char_p, c_int, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_deregister_nspace": (None, [c_char_p, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_register_client": (_st, [_proc_p, c_uint32, c_uint32, c_void_p, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_deregister_client": (None, [_proc_p, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_setup_fork": (_st, [_proc_p, POINTER(c_void_p)]),
    "PMIx_server_dmodex_request": (_st, [_proc_p, pmix_dmodex_response_fn_t, c_void_p]),
    "PMIx_server_setup_application": (_st, [c_char_p, _info_p, c_size_t, pmix_setup_application_cbfunc_t, c_void_p]),
    "PMIx_server_setup_local_support": (_st, [c_char_p, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_IOF_deliver": (
        _st,
        [_proc_p, c_uint16, POINTER(pmix_byte_object_t), _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p],
    ),
    "PMIx_server_IOF_flow_control": (_st, [_proc_p, c_uint16, c_bool, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_collect_inventory": (_st, [_info_p, c_size_t, pmix_info_cbfunc_t, c_void_p]),
    "PMIx_server_deliver_inventory": (_st, [_info_p, c_size_t, _info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_Register_attributes": (_st, [c_char_p, c_void_p]),
    "PMIx_server_define_process_set": (_st, [_proc_p, c_size_t, c_char_p]),
    "PMIx_server_delete_process_set": (_st, [c_char_p]),
    "PMIx_server_register_resources": (_st, [_info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_deregister_resources": (_st, [_info_p, c_size_t, pmix_op_cbfunc_t, c_void_p]),
    "PMIx_server_collect_job_info": (_st, [_proc_p, c_size_t, POINTER(pmix_data_buffer_t)]),
    "PMIx_generate_regex": (_st, [c_char_p, POINTER(c_void_p)]),
    "PMIx_generate_ppn": (_st, [c_char_p, POINTER(c_void_p)]),
    "PMIx_generate_regex2": (_st, [c_char_p, _info_p, c_size_t, POINTER(pmix_regex2_t)]),
    "PMIx_parse_regex2": (_st, [POINTER(pmix_regex2_t), _info_p, c_size_t, POINTER(c_void_p)]),
    "PMIx_Data_buffer_unload": (None, [POINTER(pmix_data_buffer_t), POINTER(c_void_p), _size_p]),
    "PMIx_Data_buffer_destruct": (None, [POINTER(pmix_data_buffer_t)]),
    "PMIx_Regex2_destruct": (None, [POINTER(pmix_regex2_t)]),
    # string helpers
    "PMIx_Error_string": (c_char_p, [_st]),
    "PMIx_Error_code": (_st, [c_char_p]),
    "PMIx_Proc_state_string": (c_char_p, [c_uint8]),
    "PMIx_Scope_string": (c_char_p, [c_uint8]),
    "PMIx_Persistence_string": (c_char_p, [c_uint8]),
    "PMIx_Data_range_string": (c_char_p, [c_uint8]),
    "PMIx_Data_type_string": (c_char_p, [c_uint16]),
    "PMIx_Alloc_directive_string": (c_char_p, [c_uint8]),
    "PMIx_IOF_channel_string": (c_char_p, [c_uint16]),
    "PMIx_Job_state_string": (c_char_p, [c_uint8]),
    "PMIx_Get_attribute_string": (c_char_p, [c_char_p]),
    "PMIx_Get_attribute_name": (c_char_p, [c_char_p]),
    "PMIx_Link_state_string": (c_char_p, [c_uint8]),
    "PMIx_Device_type_string": (c_char_p, [c_uint64]),
    "PMIx_Value_comparison_string": (c_char_p, [c_int]),
    "PMIx_Info_directives_string": (c_void_p, [c_uint32]),
    # releasing what the library hands back
    "PMIx_Value_destruct": (None, [_value_p]),
}


class LibraryNotFound(OSError):
    """No libpmix.so.2 could be loaded."""


class _Lib:
    """The loaded library: one attribute per declared function (None when the
    library does not export it)."""

    def __init__(self, cdll, path):
        self._cdll = cdll
        self.path = path
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                setattr(self, name, None)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)


_lock = threading.Lock()
_lib = None
_libc = None


def _candidates():
    env = os.environ.get("PMIX_LIBRARY")
    if env:
        return [env], True
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpmix.so.2")
    out = []
    if os.path.exists(here):
        out.append(here)
    out.append("libpmix.so.2")
    return out, False


def load(path=None):
    """Load (once) and return the library. ``path`` overrides the lookup."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        if path is not None:
            names, strict = [path], True
        else:
            names, strict = _candidates()
        errors = []
        for name in names:
            try:
                # RTLD_GLOBAL: OpenPMIx loads plugins that resolve symbols
                # against the library itself
                cdll = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            except OSError as e:
                errors.append("%s: %s" % (name, e))
                if strict:
                    break
                continue
            _lib = _Lib(cdll, name)
            return _lib
        raise LibraryNotFound(
            "pmix: cannot load libpmix.so.2 (%s). Set PMIX_LIBRARY to its path, "
            "or put its directory in LD_LIBRARY_PATH." % "; ".join(errors)
        )


def libc():
    """The C library, for free() on memory the PMIx library hands over."""
    global _libc
    if _libc is None:
        c = ctypes.CDLL(None)
        c.free.restype = None
        c.free.argtypes = [c_void_p]
        _libc = c
    return _libc
