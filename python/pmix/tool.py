"""PMIxTool: the PMIx tool API for Python (``pmix_tool.h``), over libpmix.so.2.

A tool is a process the server did not start (a debugger, a monitor) that
attaches to a running server::

    from pmix import *
    tool = PMIxTool()
    rc, me = tool.init([{'key': PMIX_SERVER_PIDINFO, 'value': pid, 'val_type': PMIX_PID}])
    rc, res = tool.query([{'keys': [PMIX_QUERY_NAMESPACES], 'qualifiers': []}])
    rc, iofid = tool.iof_pull([{'nspace': ns, 'rank': PMIX_RANK_WILDCARD}],
                              PMIX_FWD_STDOUT_CHANNEL, None, handler)
    tool.finalize()

Once attached, a tool makes the same requests as a client (get, query, log,
spawn, events, iof_pull, ...): PMIxTool inherits them from PMIxClient, with
the same conventions (see client.py). What differs is the life cycle: init
and finalize are PMIx_tool_init/PMIx_tool_finalize, and ``disconnect(server)``
is PMIx_tool_disconnect (OpenPMIx's bindings name it so, hiding the
client's collective disconnect, which a tool has no use for).
"""

import ctypes
from ctypes import POINTER, byref, c_size_t, c_void_p

from . import _constants as C
from ._convert import Keep, StatusError, info_array, proc_ptr, unload_proc
from ._types import pmix_proc_t
from .client import PMIxClient, _api, _check_list, _NOT_SUPPORTED


class PMIxTool(PMIxClient):
    """A PMIx tool. ``PMIxTool(library=None)`` loads libpmix.so.2 on construction."""

    def _finalize_at_exit(self):
        fn = self._fn("PMIx_tool_finalize")
        if self._initialized_here and fn is not None:
            fn()

    @_api({})
    def init(self, dicts=None):
        """PMIx_tool_init (directives such as PMIX_SERVER_PIDINFO,
        PMIX_SERVER_URI, PMIX_TOOL_DO_NOT_CONNECT). Returns ``(rc, myproc)``;
        ``myproc`` is ``{}`` if the library did not name this tool."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        fn = self._fn("PMIx_tool_init")
        if fn is None:
            return _NOT_SUPPORTED, {}
        proc = pmix_proc_t()
        proc.rank = C.PMIX_RANK_UNDEF
        rc = fn(byref(proc), info, n)
        myname = {}
        if rc == C.PMIX_SUCCESS:
            self._myproc = proc
            myname = unload_proc(proc)
            self._track()
        return rc, myname

    @_api()
    def finalize(self, dicts=None):
        """PMIx_tool_finalize (``dicts`` is accepted for symmetry with
        PMIxClient.finalize; the C call takes none)."""
        _check_list(dicts, "dicts")
        fn = self._fn("PMIx_tool_finalize")
        if fn is None:
            return _NOT_SUPPORTED
        rc = fn()
        self._untrack()
        return rc

    def is_connected(self):
        """PMIx_tool_is_connected: True if attached to a server."""
        fn = self._fn("PMIx_tool_is_connected")
        return bool(fn()) if fn is not None else False

    def attach_to_server(self, dicts):
        """PMIx_tool_attach_to_server(directives naming the server). Returns
        ``(rc, myproc, server)``; both procs are None on failure."""
        try:
            _check_list(dicts, "dicts")
            keep = Keep()
            info, n = info_array(dicts, keep, "dicts")
        except StatusError as e:
            return e.status, None, None
        fn = self._fn("PMIx_tool_attach_to_server")
        if fn is None:
            return _NOT_SUPPORTED, None, None
        me = pmix_proc_t()
        srv = pmix_proc_t()
        rc = fn(byref(me), byref(srv), info, n)
        if rc != C.PMIX_SUCCESS:
            return rc, None, None
        self._myproc = me
        self._track()
        return rc, unload_proc(me), unload_proc(srv)

    @_api()
    def disconnect(self, server):
        """PMIx_tool_disconnect(server proc). ``server`` None is passed as NULL."""
        keep = Keep()
        p = proc_ptr(server, keep, "server")
        fn = self._fn("PMIx_tool_disconnect")
        if fn is None:
            return _NOT_SUPPORTED
        return fn(p)

    @_api([])
    def get_servers(self):
        """PMIx_tool_get_servers. Returns ``(rc, [server procs])``."""
        fn = self._fn("PMIx_tool_get_servers")
        if fn is None:
            return _NOT_SUPPORTED, []
        arr = POINTER(pmix_proc_t)()
        n = c_size_t(0)
        rc = fn(byref(arr), byref(n))
        out = []
        if arr:
            if rc == C.PMIX_SUCCESS:
                out = [unload_proc(arr[i]) for i in range(n.value)]
            self._free(ctypes.cast(arr, c_void_p).value)
        return rc, out

    @_api()
    def set_server(self, server, dicts=None):
        """PMIx_tool_set_server(server proc, directives)."""
        _check_list(dicts, "dicts")
        keep = Keep()
        p = proc_ptr(server, keep, "server")
        info, n = info_array(dicts, keep, "dicts")
        fn = self._fn("PMIx_tool_set_server")
        if fn is None:
            return _NOT_SUPPORTED
        return fn(p, info, n)
