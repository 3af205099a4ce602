"""PMIxClient: the PMIx client API for Python, over libpmix.so.2 via ctypes.

Conventions (those of OpenPMIx's own bindings):
  * a proc is ``{'nspace': str, 'rank': int}``; an info is
    ``{'key': str, 'value': ..., 'val_type': PMIX_*}``; a value is
    ``{'value': ..., 'val_type': PMIX_*}``;
  * every method returns the status as an int ``rc``; methods that produce
    something return ``(rc, result)``;
  * a non-blocking method ``x_nb(..., cbfunc, cbdata=None)`` returns ``rc``;
    ``cbfunc`` is then called on the PMIx progress thread if and only if
    ``rc == PMIX_SUCCESS``, exactly once, with ``cbdata`` passed back
    unchanged. It must not make a blocking PMIx call (the library answers
    PMIX_ERR_WOULD_BLOCK). An exception it raises is printed and ignored.
    ``cbfunc=None`` passes a NULL callback, whose meaning the library defines
    (e.g. ``fence_nb`` then blocks, ``get_nb`` returns PMIX_ERR_BAD_PARAM);
  * ``None`` (or ``[]``) for procs, directives or keys is passed as NULL, so
    the library's own rule applies (``get(None, ...)`` asks about the caller,
    ``fence(None)`` spans the caller's namespace, ``connect([])`` is
    PMIX_ERR_BAD_PARAM);
  * malformed arguments raise TypeError/KeyError/ValueError before anything
    reaches C; a key longer than PMIX_MAX_KEYLEN in a directive returns
    PMIX_ERR_BAD_PARAM; a function the loaded library lacks returns
    PMIX_ERR_NOT_SUPPORTED.
"""

import atexit
import ctypes
import functools
import threading
from ctypes import POINTER, byref, c_size_t, c_void_p, string_at

from . import _constants as C
from . import _lib
from ._callbacks import (
    CREDENTIAL_CB,
    HDLR_REG_CB,
    INFO_CB,
    LOOKUP_CB,
    OP_CB,
    SPAWN_CB,
    VALIDATION_CB,
    VALUE_CB,
    Entry,
    in_callback,
    make_event_handler,
    make_iof_handler,
    orphans,
    registry,
)
from ._convert import (
    _I32,
    _I64,
    _U8,
    _U16,
    _U32,
    _U64,
    Keep,
    StatusError,
    app_array,
    byte_object,
    cstr_arg,
    key_arg,
    info_array,
    keys_argv,
    pdata_array,
    proc_array,
    proc_ptr,
    query_array,
    unload_info_array,
    unload_pdata,
    unload_proc,
    unload_value,
    units_array,
    value_ptr,
)
from ._convert import _check_int
from ._types import pmix_byte_object_t, pmix_info_t, pmix_proc_t, pmix_value_t

_NOT_SUPPORTED = C.PMIX_ERR_NOT_SUPPORTED

# storage directives of the C PMIx_Get: from Python the value is always
# returned as a copy, so the binding consumes them itself
_STORAGE_KEYS = {getattr(C, n) for n in ("PMIX_GET_POINTER_VALUES", "PMIX_GET_STATIC_VALUES") if hasattr(C, n)}

_RC = object()  # marker: the method returns a bare rc

# the range of each integer parameter type, so that a Python int that does not
# fit (or a str, a float) raises instead of being truncated or converted by ctypes
_RANGES = {
    ctypes.c_uint8: _U8,
    ctypes.c_uint16: _U16,
    ctypes.c_uint32: _U32,
    ctypes.c_uint64: _U64,
    ctypes.c_size_t: _U64,
    ctypes.c_int: _I32,
}


def _int_arg(fn, index, value, what):
    """``value`` checked against the C type of parameter ``index`` of ``fn``."""
    proto = _lib.PROTOTYPES.get(fn)
    ctype = proto[1][index] if proto else None
    return _check_int(value, _RANGES.get(ctype, _I64), what)


def _api(default=_RC):
    """Turn a StatusError raised while converting arguments into the return
    value of the right shape: ``rc`` or ``(rc, default)``."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            try:
                return fn(self, *args, **kwargs)
            except StatusError as e:
                return e.status if default is _RC else (e.status, _fresh(default))

        return wrapper

    return deco


def _fresh(default):
    return list(default) if isinstance(default, list) else default


def _cb_args(cbfunc, cbdata, keep, what, tramp):
    """(c callback, c cbdata, registry key) for a non-blocking call."""
    if cbfunc is None:
        # a NULL callback: the library may use our buffers after returning
        # without telling us when it stops, so they are never released
        if keep:
            orphans.append(keep)
        return type(tramp)(), None, None
    if not callable(cbfunc):
        raise TypeError("cbfunc must be callable or None, not %s" % type(cbfunc).__name__)
    key = registry.add(Entry(cbfunc, cbdata, keep, what))
    return tramp, c_void_p(key), key


def _settle(rc, key):
    """The callback runs only if the call was accepted: forget it otherwise."""
    if key is not None and rc != C.PMIX_SUCCESS:
        registry.take(key)
    return rc


def _check_list(x, what):
    if x is not None and not isinstance(x, (list, tuple)):
        raise TypeError("%s must be a list or None, not %s" % (what, type(x).__name__))


_clients_lock = threading.Lock()
_live_clients = []


def _finalize_at_exit():
    # Stop the progress thread before the interpreter goes away, so that no
    # callback can enter Python while it is being torn down.
    with _clients_lock:
        clients = list(_live_clients)
    for c in clients:
        try:
            c._finalize_at_exit()
        except BaseException:
            pass


atexit.register(_finalize_at_exit)


class PMIxClient:
    """A PMIx client. ``PMIxClient(library=None)`` loads libpmix.so.2 (see
    ``pmix._lib`` for the lookup order) on construction."""

    def __init__(self, library=None):
        self._lib = _lib.load(library)
        self._myproc = pmix_proc_t()
        self._myproc.rank = C.PMIX_RANK_UNDEF
        self._initialized_here = False
        self._handlers = {}  # refid -> C notification function (kept alive)
        self._iof_handlers = {}  # iofhdlr id -> C IOF function (kept alive)
        self._pending_handlers = []

    # -- helpers -------------------------------------------------------
    def _fn(self, name):
        return getattr(self._lib, name, None)

    def _free(self, addr):
        if addr:
            _lib.libc().free(addr)

    def _free_value(self, vptr):
        # a pmix_value_t the library allocated (PMIX_VALUE_RELEASE)
        if vptr:
            self._lib.PMIx_Value_destruct(vptr)
            self._free(ctypes.cast(vptr, c_void_p).value)

    def _free_infos(self, iptr, n):
        # an info array the library allocated (PMIX_INFO_FREE)
        if not iptr:
            return
        arr = (pmix_info_t * n).from_address(ctypes.cast(iptr, c_void_p).value)
        persistent = getattr(C, "PMIX_INFO_PERSISTENT", 0x10)
        for i in range(n):
            if not (arr[i].flags & persistent):
                self._lib.PMIx_Value_destruct(byref(arr[i].value))
        self._free(ctypes.cast(iptr, c_void_p).value)

    def _results(self, rc, iptr, n):
        out = []
        if iptr and n.value:
            if rc == C.PMIX_SUCCESS:
                out = unload_info_array(iptr, n.value)
            self._free_infos(iptr, n.value)
        return out

    # -- lifecycle -----------------------------------------------------
    def initialized(self):
        """True if the library is initialized (PMIx_Initialized)."""
        return bool(self._lib.PMIx_Initialized())

    def get_version(self):
        v = self._lib.PMIx_Get_version()
        return v.decode("utf-8", "replace") if v else None

    @_api({})
    def init(self, dicts=None):
        """PMIx_Init. Returns ``(rc, myproc)``; ``myproc`` is ``{}`` if the
        library did not name this process."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        proc = pmix_proc_t()
        proc.rank = C.PMIX_RANK_UNDEF
        rc = self._lib.PMIx_Init(byref(proc), info, n)
        myname = {}
        if rc == C.PMIX_SUCCESS or proc.nspace:
            self._myproc = proc
            myname = unload_proc(proc)
        if rc == C.PMIX_SUCCESS or self._lib.PMIx_Initialized():
            self._track()
        return rc, myname

    def _track(self):
        self._initialized_here = True
        with _clients_lock:
            if self not in _live_clients:
                _live_clients.append(self)

    def _untrack(self):
        self._initialized_here = False
        with _clients_lock:
            if self in _live_clients:
                _live_clients.remove(self)

    def _finalize_at_exit(self):
        if self._initialized_here and self._lib.PMIx_Initialized():
            self._lib.PMIx_Finalize(None, 0)

    @_api()
    def finalize(self, dicts=None):
        """PMIx_Finalize."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        rc = self._lib.PMIx_Finalize(info, n)
        self._untrack()
        return rc

    @_api()
    def abort(self, status, msg, peers=None):
        """PMIx_Abort. ``peers`` None = the caller's namespace (library rule)."""
        keep = Keep()
        procs, n = proc_array(peers, keep, "peers")
        return self._lib.PMIx_Abort(_int_arg("PMIx_Abort", 0, status, "status"), cstr_arg(msg, "msg"), procs, n)

    # -- data ----------------------------------------------------------
    @_api()
    def put(self, scope, key, value):
        """PMIx_Put(scope, key, value dict). ``value`` None (for a PMIX_DEL_*
        scope, which ignores it) passes an empty PMIX_UNDEF value rather than
        NULL, which some libraries dereference."""
        keep = Keep()
        if value is None:
            value = {"value": None, "val_type": C.PMIX_UNDEF}
        v = value_ptr(value, keep)
        return self._lib.PMIx_Put(_int_arg("PMIx_Put", 0, scope, "scope"), key_arg(key), v)

    def commit(self):
        """PMIx_Commit."""
        return self._lib.PMIx_Commit()

    @_api()
    def store_internal(self, proc, key, value):
        """PMIx_Store_internal(proc, key, value dict). ``proc`` None = self."""
        keep = Keep()
        p = proc_ptr(proc, keep)
        if p is None:
            p = byref(self._myproc)
        v = value_ptr(value, keep)
        return self._lib.PMIx_Store_internal(p, key_arg(key), v)

    def _get_args(self, proc, key, dicts, keep):
        _check_list(dicts, "dicts")
        p = proc_ptr(proc, keep)
        k = key_arg(key, allow_none=True)
        if dicts:
            dicts = [d for d in dicts if not (isinstance(d, dict) and d.get("key") in _STORAGE_KEYS)]
        info, n = info_array(dicts, keep, "dicts")
        return p, k, info, n

    @_api(None)
    def get(self, proc, key, dicts=None):
        """PMIx_Get. ``proc`` None = the caller; ``key`` None = all data.
        Returns ``(rc, value dict or None)``."""
        keep = Keep()
        p, k, info, n = self._get_args(proc, key, dicts, keep)
        val = POINTER(pmix_value_t)()
        rc = self._lib.PMIx_Get(p, k, info, n, byref(val))
        out = None
        if val:
            if rc == C.PMIX_SUCCESS:
                out = unload_value(val.contents)
            self._free_value(val)
        return rc, out

    @_api()
    def get_nb(self, proc, key, dicts, cbfunc, cbdata=None):
        """PMIx_Get_nb: ``cbfunc(status, value or None, cbdata)``."""
        keep = Keep()
        p, k, info, n = self._get_args(proc, key, dicts, keep)
        if k is not None:
            keep.append(k)
        cb, cd, key_ = _cb_args(cbfunc, cbdata, keep, "get_nb", VALUE_CB)
        return _settle(self._lib.PMIx_Get_nb(p, k, info, n, cb, cd), key_)

    # -- collectives ---------------------------------------------------
    def _procs_infos(self, peers, dicts, keep):
        _check_list(dicts, "dicts")
        procs, np_ = proc_array(peers, keep, "peers")
        info, n = info_array(dicts, keep, "dicts")
        return procs, np_, info, n

    @_api()
    def fence(self, peers=None, dicts=None):
        """PMIx_Fence. ``peers`` None/[] = the caller's namespace."""
        keep = Keep()
        return self._lib.PMIx_Fence(*self._procs_infos(peers, dicts, keep))

    @_api()
    def fence_nb(self, peers, dicts, cbfunc, cbdata=None):
        """PMIx_Fence_nb: ``cbfunc(status, cbdata)``."""
        keep = Keep()
        args = self._procs_infos(peers, dicts, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "fence_nb", OP_CB)
        return _settle(self._lib.PMIx_Fence_nb(*args, cb, cd), key)

    @_api()
    def connect(self, peers, dicts=None):
        """PMIx_Connect."""
        keep = Keep()
        return self._lib.PMIx_Connect(*self._procs_infos(peers, dicts, keep))

    @_api()
    def connect_nb(self, peers, dicts, cbfunc, cbdata=None):
        """PMIx_Connect_nb: ``cbfunc(status, cbdata)``."""
        keep = Keep()
        args = self._procs_infos(peers, dicts, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "connect_nb", OP_CB)
        return _settle(self._lib.PMIx_Connect_nb(*args, cb, cd), key)

    @_api()
    def disconnect(self, peers, dicts=None):
        """PMIx_Disconnect."""
        keep = Keep()
        return self._lib.PMIx_Disconnect(*self._procs_infos(peers, dicts, keep))

    @_api()
    def disconnect_nb(self, peers, dicts, cbfunc, cbdata=None):
        """PMIx_Disconnect_nb: ``cbfunc(status, cbdata)``."""
        keep = Keep()
        args = self._procs_infos(peers, dicts, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "disconnect_nb", OP_CB)
        return _settle(self._lib.PMIx_Disconnect_nb(*args, cb, cd), key)

    # -- publish / lookup ----------------------------------------------
    @_api()
    def publish(self, dicts):
        """PMIx_Publish(list of info dicts)."""
        _check_list(dicts, "dicts")
        keep = Keep()
        return self._lib.PMIx_Publish(*info_array(dicts, keep, "dicts"))

    @_api()
    def publish_nb(self, dicts, cbfunc, cbdata=None):
        """PMIx_Publish_nb: ``cbfunc(status, cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "publish_nb", OP_CB)
        return _settle(self._lib.PMIx_Publish_nb(info, n, cb, cd), key)

    @_api([])
    def lookup(self, pdata, dicts=None):
        """PMIx_Lookup. ``pdata`` is a list of keys or of ``{'key': k}``
        dicts; returns ``(rc, [{'proc', 'key', 'value', 'val_type'}, ...])``
        with one entry per requested key."""
        _check_list(dicts, "dicts")
        keep = Keep()
        arr, np_ = pdata_array(pdata, keep, "pdata")
        info, n = info_array(dicts, keep, "dicts")
        rc = self._lib.PMIx_Lookup(arr, np_, info, n)
        out = []
        if arr is not None:
            for i in range(np_):
                if rc == C.PMIX_SUCCESS:
                    out.append(unload_pdata(arr[i]))
                if arr[i].value.type != C.PMIX_UNDEF:
                    self._lib.PMIx_Value_destruct(byref(arr[i].value))
        return rc, out

    @_api()
    def lookup_nb(self, keys, dicts, cbfunc, cbdata=None):
        """PMIx_Lookup_nb: ``cbfunc(status, [pdata dicts], cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        k = keys_argv(keys, keep)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "lookup_nb", LOOKUP_CB)
        return _settle(self._lib.PMIx_Lookup_nb(k, info, n, cb, cd), key)

    @_api()
    def unpublish(self, keys=None, dicts=None):
        """PMIx_Unpublish. ``keys`` None = everything this process published."""
        _check_list(dicts, "dicts")
        keep = Keep()
        k = keys_argv(keys, keep)
        info, n = info_array(dicts, keep, "dicts")
        return self._lib.PMIx_Unpublish(k, info, n)

    @_api()
    def unpublish_nb(self, keys, dicts, cbfunc, cbdata=None):
        """PMIx_Unpublish_nb: ``cbfunc(status, cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        k = keys_argv(keys, keep)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "unpublish_nb", OP_CB)
        return _settle(self._lib.PMIx_Unpublish_nb(k, info, n, cb, cd), key)

    # -- spawn ---------------------------------------------------------
    @_api(None)
    def spawn(self, job_info, apps):
        """PMIx_Spawn. ``apps``: list of ``{'cmd', 'argv', 'env', 'cwd',
        'maxprocs', 'info'}``. Returns ``(rc, nspace or None)``."""
        _check_list(job_info, "job_info")
        keep = Keep()
        info, n = info_array(job_info, keep, "job_info")
        a, na = app_array(apps, keep)
        ns = ctypes.create_string_buffer(C.PMIX_MAX_NSLEN + 1)
        rc = self._lib.PMIx_Spawn(info, n, a, na, ns)
        return rc, (ns.value.decode("utf-8", "replace") if rc == C.PMIX_SUCCESS else None)

    @_api()
    def spawn_nb(self, job_info, apps, cbfunc, cbdata=None):
        """PMIx_Spawn_nb: ``cbfunc(status, nspace or None, cbdata)``."""
        _check_list(job_info, "job_info")
        keep = Keep()
        info, n = info_array(job_info, keep, "job_info")
        a, na = app_array(apps, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "spawn_nb", SPAWN_CB)
        return _settle(self._lib.PMIx_Spawn_nb(info, n, a, na, cb, cd), key)

    # -- resolution ----------------------------------------------------
    @_api([])
    def resolve_peers(self, nodename, nspace):
        """PMIx_Resolve_peers. Returns ``(rc, [procs])``."""
        procs = POINTER(pmix_proc_t)()
        n = c_size_t(0)
        rc = self._lib.PMIx_Resolve_peers(cstr_arg(nodename, "nodename"), cstr_arg(nspace, "nspace"), byref(procs), byref(n))
        out = []
        if procs:
            if rc == C.PMIX_SUCCESS:
                out = [unload_proc(procs[i]) for i in range(n.value)]
            self._free(ctypes.cast(procs, c_void_p).value)
        return rc, out

    @_api(None)
    def resolve_nodes(self, nspace):
        """PMIx_Resolve_nodes. Returns ``(rc, comma-separated node list)``."""
        nodes = c_void_p()
        rc = self._lib.PMIx_Resolve_nodes(cstr_arg(nspace, "nspace"), byref(nodes))
        out = None
        if nodes.value:
            if rc == C.PMIX_SUCCESS:
                out = string_at(nodes.value).decode("utf-8", "replace")
            self._free(nodes.value)
        return rc, out

    # -- query, log, allocation, job control, monitoring ---------------
    @_api([])
    def query(self, queries):
        """PMIx_Query_info. ``queries``: list of ``{'keys': [...],
        'qualifiers': [info dicts]}``. Returns ``(rc, [info dicts])``."""
        keep = Keep()
        q, nq = query_array(queries, keep)
        res = POINTER(pmix_info_t)()
        n = c_size_t(0)
        rc = self._lib.PMIx_Query_info(q, nq, byref(res), byref(n))
        return rc, self._results(rc, res, n)

    @_api()
    def query_nb(self, queries, cbfunc, cbdata=None):
        """PMIx_Query_info_nb: ``cbfunc(status, [info dicts], cbdata)``."""
        keep = Keep()
        q, nq = query_array(queries, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "query_nb", INFO_CB)
        return _settle(self._lib.PMIx_Query_info_nb(q, nq, cb, cd), key)

    @_api()
    def log(self, data, directives=None):
        """PMIx_Log(data infos, directive infos)."""
        _check_list(data, "data")
        _check_list(directives, "directives")
        keep = Keep()
        d, nd = info_array(data, keep, "data")
        r, nr = info_array(directives, keep, "directives")
        return self._lib.PMIx_Log(d, nd, r, nr)

    @_api()
    def log_nb(self, data, directives, cbfunc, cbdata=None):
        """PMIx_Log_nb: ``cbfunc(status, cbdata)``."""
        _check_list(data, "data")
        _check_list(directives, "directives")
        keep = Keep()
        d, nd = info_array(data, keep, "data")
        r, nr = info_array(directives, keep, "directives")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "log_nb", OP_CB)
        return _settle(self._lib.PMIx_Log_nb(d, nd, r, nr, cb, cd), key)

    @_api([])
    def allocation_request(self, directive, dicts):
        """PMIx_Allocation_request. Returns ``(rc, [info dicts])``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = self._lib.PMIx_Allocation_request(_int_arg("PMIx_Allocation_request", 0, directive, "directive"), info, n, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    @_api()
    def allocation_request_nb(self, directive, dicts, cbfunc, cbdata=None):
        """PMIx_Allocation_request_nb: ``cbfunc(status, [info dicts], cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "allocation_request_nb", INFO_CB)
        return _settle(self._lib.PMIx_Allocation_request_nb(_int_arg("PMIx_Allocation_request_nb", 0, directive, "directive"), info, n, cb, cd), key)

    @_api([])
    def job_control(self, targets, directives):
        """PMIx_Job_control. Returns ``(rc, [info dicts])``."""
        keep = Keep()
        t, nt, d, nd = self._procs_infos(targets, directives, keep)
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = self._lib.PMIx_Job_control(t, nt, d, nd, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    @_api()
    def job_control_nb(self, targets, directives, cbfunc, cbdata=None):
        """PMIx_Job_control_nb: ``cbfunc(status, [info dicts], cbdata)``."""
        keep = Keep()
        args = self._procs_infos(targets, directives, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "job_control_nb", INFO_CB)
        return _settle(self._lib.PMIx_Job_control_nb(*args, cb, cd), key)

    def _monitor_args(self, monitor, directives, keep):
        _check_list(directives, "directives")
        m, nm = info_array([monitor] if monitor is not None else None, keep, "monitor")
        d, nd = info_array(directives, keep, "directives")
        return m, d, nd

    @_api([])
    def monitor(self, monitor, error, directives=None):
        """PMIx_Process_monitor(monitor info dict, error code, directives)."""
        keep = Keep()
        m, d, nd = self._monitor_args(monitor, directives, keep)
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = self._lib.PMIx_Process_monitor(m, _int_arg("PMIx_Process_monitor", 1, error, "error"), d, nd, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    process_monitor = monitor

    @_api()
    def monitor_nb(self, monitor, error, directives, cbfunc, cbdata=None):
        """PMIx_Process_monitor_nb: ``cbfunc(status, [info dicts], cbdata)``."""
        keep = Keep()
        m, d, nd = self._monitor_args(monitor, directives, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "monitor_nb", INFO_CB)
        return _settle(self._lib.PMIx_Process_monitor_nb(m, _int_arg("PMIx_Process_monitor_nb", 1, error, "error"), d, nd, cb, cd), key)

    process_monitor_nb = monitor_nb

    def heartbeat(self):
        """PMIx_Heartbeat (a no-op returning NOT_SUPPORTED if the library lacks it)."""
        fn = self._fn("PMIx_Heartbeat")
        if fn is None:
            return _NOT_SUPPORTED
        fn()
        return C.PMIX_SUCCESS

    # -- credentials ---------------------------------------------------
    @_api({})
    def get_credential(self, dicts=None):
        """PMIx_Get_credential. Returns ``(rc, {'bytes', 'size'})``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        bo = pmix_byte_object_t()
        rc = self._lib.PMIx_Get_credential(info, n, byref(bo))
        out = {}
        if bo.bytes:
            if rc == C.PMIX_SUCCESS:
                out = {"bytes": string_at(bo.bytes, bo.size), "size": int(bo.size)}
            self._free(bo.bytes)
        return rc, out

    @_api()
    def get_credential_nb(self, dicts, cbfunc, cbdata=None):
        """PMIx_Get_credential_nb: ``cbfunc(status, cred, [infos], cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "get_credential_nb", CREDENTIAL_CB)
        return _settle(self._lib.PMIx_Get_credential_nb(info, n, cb, cd), key)

    @_api([])
    def validate_credential(self, cred, dicts=None):
        """PMIx_Validate_credential(cred bytes or {'bytes'}). Returns ``(rc, [infos])``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        bo = byte_object(cred, keep)
        info, n = info_array(dicts, keep, "dicts")
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = self._lib.PMIx_Validate_credential(byref(bo), info, n, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    @_api()
    def validate_credential_nb(self, cred, dicts, cbfunc, cbdata=None):
        """PMIx_Validate_credential_nb: ``cbfunc(status, [infos], cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        bo = byte_object(cred, keep)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "validate_credential_nb", VALIDATION_CB)
        return _settle(self._lib.PMIx_Validate_credential_nb(byref(bo), info, n, cb, cd), key)

    # -- groups --------------------------------------------------------
    def _group_blocking(self, name, grp, peers, dicts):
        keep = Keep()
        g = cstr_arg(grp, "group")
        procs, np_, info, n = self._procs_infos(peers, dicts, keep)
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = getattr(self._lib, name)(g, procs, np_, info, n, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    def _group_nb(self, name, grp, peers, dicts, cbfunc, cbdata):
        keep = Keep()
        g = cstr_arg(grp, "group")
        keep.append(g)
        procs, np_, info, n = self._procs_infos(peers, dicts, keep)
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, name, INFO_CB)
        return _settle(getattr(self._lib, name)(g, procs, np_, info, n, cb, cd), key)

    @_api([])
    def group_construct(self, grp, peers, dicts=None):
        """PMIx_Group_construct. Returns ``(rc, [info dicts])``."""
        return self._group_blocking("PMIx_Group_construct", grp, peers, dicts)

    @_api()
    def group_construct_nb(self, grp, peers, dicts, cbfunc, cbdata=None):
        """PMIx_Group_construct_nb: ``cbfunc(status, [infos], cbdata)``."""
        return self._group_nb("PMIx_Group_construct_nb", grp, peers, dicts, cbfunc, cbdata)

    @_api([])
    def group_invite(self, grp, peers, dicts=None):
        """PMIx_Group_invite. Returns ``(rc, [info dicts])``."""
        return self._group_blocking("PMIx_Group_invite", grp, peers, dicts)

    @_api()
    def group_invite_nb(self, grp, peers, dicts, cbfunc, cbdata=None):
        """PMIx_Group_invite_nb: ``cbfunc(status, [infos], cbdata)``."""
        return self._group_nb("PMIx_Group_invite_nb", grp, peers, dicts, cbfunc, cbdata)

    @_api([])
    def group_join(self, grp, leader, opt, dicts=None):
        """PMIx_Group_join(grp, leader proc, PMIX_GROUP_ACCEPT/DECLINE, dicts)."""
        keep = Keep()
        g = cstr_arg(grp, "group")
        ld = proc_ptr(leader, keep, "leader")
        _check_list(dicts, "dicts")
        info, n = info_array(dicts, keep, "dicts")
        res = POINTER(pmix_info_t)()
        nres = c_size_t(0)
        rc = self._lib.PMIx_Group_join(g, ld, _int_arg("PMIx_Group_join", 2, opt, "opt"), info, n, byref(res), byref(nres))
        return rc, self._results(rc, res, nres)

    @_api()
    def group_join_nb(self, grp, leader, opt, dicts, cbfunc, cbdata=None):
        """PMIx_Group_join_nb: ``cbfunc(status, [infos], cbdata)``."""
        keep = Keep()
        g = cstr_arg(grp, "group")
        keep.append(g)
        ld = proc_ptr(leader, keep, "leader")
        _check_list(dicts, "dicts")
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "group_join_nb", INFO_CB)
        return _settle(self._lib.PMIx_Group_join_nb(g, ld, _int_arg("PMIx_Group_join_nb", 2, opt, "opt"), info, n, cb, cd), key)

    @_api()
    def group_leave(self, grp, dicts=None):
        """PMIx_Group_leave."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        return self._lib.PMIx_Group_leave(cstr_arg(grp, "group"), info, n)

    @_api()
    def group_leave_nb(self, grp, dicts, cbfunc, cbdata=None):
        """PMIx_Group_leave_nb: ``cbfunc(status, cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        g = cstr_arg(grp, "group")
        keep.append(g)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "group_leave_nb", OP_CB)
        return _settle(self._lib.PMIx_Group_leave_nb(g, info, n, cb, cd), key)

    @_api()
    def group_destruct(self, grp, dicts=None):
        """PMIx_Group_destruct."""
        _check_list(dicts, "dicts")
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        return self._lib.PMIx_Group_destruct(cstr_arg(grp, "group"), info, n)

    @_api()
    def group_destruct_nb(self, grp, dicts, cbfunc, cbdata=None):
        """PMIx_Group_destruct_nb: ``cbfunc(status, cbdata)``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        g = cstr_arg(grp, "group")
        keep.append(g)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "group_destruct_nb", OP_CB)
        return _settle(self._lib.PMIx_Group_destruct_nb(g, info, n, cb, cd), key)

    # -- events --------------------------------------------------------
    @_api(-1)
    def register_event_handler(self, codes, dicts, hdlr, cbfunc=None, cbdata=None):
        """PMIx_Register_event_handler.

        ``hdlr(evhdlr_id, status, source, [infos], [results])`` runs on the
        progress thread and returns ``(status, [result infos])`` (e.g.
        ``(PMIX_EVENT_ACTION_COMPLETE, [])``) or None. ``codes`` None = all
        events. Blocking form (``cbfunc`` None): returns ``(rc, refid)``.
        With ``cbfunc(status, refid, cbdata)``: returns ``(rc, -1)``.
        """
        if not callable(hdlr):
            raise TypeError("hdlr must be callable")
        _check_list(codes, "codes")
        _check_list(dicts, "dicts")
        keep = Keep()
        codes_arr, ncodes = None, 0
        if codes:
            for c in codes:
                if isinstance(c, bool) or not isinstance(c, int):
                    raise TypeError("codes must be a list of int status codes")
            codes_arr = (ctypes.c_int * len(codes))(*codes)
            ncodes = len(codes)
            keep.append(codes_arr)
        info, n = info_array(dicts, keep, "dicts")
        cfn = make_event_handler(hdlr, info_array)
        # the handler (and the arrays the library may still hold) must
        # outlive the registration: keep them for the client's life
        self._pending_handlers.append((cfn, keep))
        if cbfunc is None:
            rc = self._lib.PMIx_Register_event_handler(codes_arr, ncodes, info, n, cfn, type(HDLR_REG_CB)(), None)
            if rc < 0:
                return rc, -1
            self._handlers[rc] = cfn
            return C.PMIX_SUCCESS, rc
        if not callable(cbfunc):
            raise TypeError("cbfunc must be callable or None")
        key = registry.add(Entry(cbfunc, cbdata, keep, "register_event_handler"))
        rc = self._lib.PMIx_Register_event_handler(codes_arr, ncodes, info, n, cfn, HDLR_REG_CB, c_void_p(key))
        if rc < 0:
            registry.take(key)
        return rc, -1

    @_api()
    def deregister_event_handler(self, ref, cbfunc=None, cbdata=None):
        """PMIx_Deregister_event_handler."""
        keep = Keep()
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "deregister_event_handler", OP_CB)
        return _settle(self._lib.PMIx_Deregister_event_handler(_int_arg("PMIx_Deregister_event_handler", 0, ref, "ref"), cb, cd), key)

    @_api()
    def notify_event(self, status, source, range, dicts, cbfunc=None, cbdata=None):
        """PMIx_Notify_event(status, source proc or None, range, infos)."""
        _check_list(dicts, "dicts")
        keep = Keep()
        src = proc_ptr(source, keep, "source")
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "notify_event", OP_CB)
        return _settle(self._lib.PMIx_Notify_event(_int_arg("PMIx_Notify_event", 0, status, "status"), src, _int_arg("PMIx_Notify_event", 2, range, "range"), info, n, cb, cd), key)

    # -- I/O forwarding ------------------------------------------------
    @_api(-1)
    def iof_pull(self, procs, channels, directives, hdlr):
        """PMIx_IOF_pull: receive the output of ``procs`` on ``channels`` (an
        OR of PMIX_FWD_STDOUT_CHANNEL, PMIX_FWD_STDERR_CHANNEL, ...).

        ``hdlr(iofhdlr_id, channel, source, payload, info)`` runs on the
        progress thread for each chunk; ``payload`` is ``{'bytes', 'size'}``
        and a stream ends with an empty payload whose ``info`` holds
        PMIX_IOF_COMPLETE. Blocks until the registration completes and returns
        ``(rc, iofhdlr_id)`` (``(rc, -1)`` on failure; PMIX_ERR_WOULD_BLOCK
        from inside a callback). ``procs`` None/[] is passed as NULL
        (PMIX_ERR_BAD_PARAM).
        """
        if not callable(hdlr):
            raise TypeError("hdlr must be callable")
        _check_list(directives, "directives")
        chan = _int_arg("PMIx_IOF_pull", 4, channels, "channels")
        keep = Keep()
        procs_arr, np_ = proc_array(procs, keep, "procs")
        info, n = info_array(directives, keep, "directives")
        fn = self._fn("PMIx_IOF_pull")
        if fn is None:
            return _NOT_SUPPORTED, -1
        if in_callback():
            return C.PMIX_ERR_WOULD_BLOCK, -1
        cfn = make_iof_handler(hdlr)
        # the library may deliver output until deregistration (and the
        # arrays may be read until the registration completes): keep both
        self._pending_handlers.append((cfn, keep))
        done = threading.Event()
        result = []

        def registered(status, refid, _cbdata):
            result.append((status, refid))
            done.set()

        key = registry.add(Entry(registered, None, keep, "iof_pull registration"))
        rc = fn(procs_arr, np_, info, n, chan, cfn, HDLR_REG_CB, c_void_p(key))
        if rc != C.PMIX_SUCCESS:
            registry.take(key)
            return rc, -1
        while not done.wait(1.0):
            pass
        status, refid = result[0]
        if status != C.PMIX_SUCCESS:
            return status, -1
        self._iof_handlers[refid] = cfn
        return C.PMIX_SUCCESS, refid

    @_api()
    def iof_deregister(self, iofhdlr, directives=None, cbfunc=None, cbdata=None):
        """PMIx_IOF_deregister(iofhdlr_id from iof_pull). Blocking unless
        ``cbfunc(status, cbdata)`` is given."""
        _check_list(directives, "directives")
        ref = _int_arg("PMIx_IOF_deregister", 0, iofhdlr, "iofhdlr")
        fn = self._fn("PMIx_IOF_deregister")
        if fn is None:
            return _NOT_SUPPORTED
        keep = Keep()
        info, n = info_array(directives, keep, "directives")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "iof_deregister", OP_CB)
        return _settle(fn(ref, info, n, cb, cd), key)

    @_api()
    def iof_push(self, targets, data, directives=None, cbfunc=None, cbdata=None):
        """PMIx_IOF_push: ``data`` (``{'bytes': ...}``, bytes or str; None =
        no data) to the stdin of ``targets``. Blocking unless
        ``cbfunc(status, cbdata)`` is given."""
        _check_list(directives, "directives")
        fn = self._fn("PMIx_IOF_push")
        if fn is None:
            return _NOT_SUPPORTED
        keep = Keep()
        t, nt = proc_array(targets, keep, "targets")
        bo = None if data is None else byref(byte_object(data, keep, "data"))
        info, n = info_array(directives, keep, "directives")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "iof_push", OP_CB)
        return _settle(fn(t, nt, bo, info, n, cb, cd), key)

    # -- resource blocks (newer libraries only) -------------------------
    @_api()
    def resource_block(self, directive, block, units, dicts=None):
        """PMIx_Resource_block (NOT_SUPPORTED if the library lacks it)."""
        fn = self._fn("PMIx_Resource_block")
        if fn is None:
            return _NOT_SUPPORTED
        _check_list(dicts, "dicts")
        keep = Keep()
        u, nu = units_array(units, keep)
        info, n = info_array(dicts, keep, "dicts")
        return fn(_int_arg("PMIx_Resource_block", 0, directive, "directive"), cstr_arg(block, "block"), u, nu, info, n)

    @_api()
    def resource_block_nb(self, directive, block, units, dicts, cbfunc, cbdata=None):
        """PMIx_Resource_block_nb: ``cbfunc(status, cbdata)``."""
        fn = self._fn("PMIx_Resource_block_nb")
        if fn is None:
            return _NOT_SUPPORTED
        _check_list(dicts, "dicts")
        keep = Keep()
        b = cstr_arg(block, "block")
        keep.append(b)
        u, nu = units_array(units, keep)
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _cb_args(cbfunc, cbdata, keep, "resource_block_nb", OP_CB)
        return _settle(fn(_int_arg("PMIx_Resource_block_nb", 0, directive, "directive"), b, u, nu, info, n, cb, cd), key)

    def progress(self):
        """PMIx_Progress."""
        fn = self._fn("PMIx_Progress")
        if fn is not None:
            fn()

    # -- strings -------------------------------------------------------
    def _string(self, name, arg, text=False):
        if not text:
            arg = _int_arg(name, 0, arg, "the argument of %s" % name)
        fn = self._fn(name)
        if fn is None:
            return None
        s = fn(arg)
        return s.decode("utf-8", "replace") if s is not None else None

    def error_string(self, status):
        """PMIx_Error_string."""
        return self._string("PMIx_Error_string", status)

    def error_code(self, name):
        """PMIx_Error_code, or the generated constant of that name."""
        fn = self._fn("PMIx_Error_code")
        if fn is not None:
            return fn(cstr_arg(name, "name"))
        v = getattr(C, name, None)
        return v if isinstance(v, int) else C.PMIX_ERROR

    def proc_state_string(self, state):
        return self._string("PMIx_Proc_state_string", state)

    def scope_string(self, scope):
        return self._string("PMIx_Scope_string", scope)

    def persistence_string(self, persist):
        return self._string("PMIx_Persistence_string", persist)

    def data_range_string(self, rng):
        return self._string("PMIx_Data_range_string", rng)

    def data_type_string(self, dtype):
        return self._string("PMIx_Data_type_string", dtype)

    def alloc_directive_string(self, directive):
        return self._string("PMIx_Alloc_directive_string", directive)

    def iof_channel_string(self, channel):
        return self._string("PMIx_IOF_channel_string", channel)

    def job_state_string(self, state):
        return self._string("PMIx_Job_state_string", state)

    def link_state_string(self, state):
        return self._string("PMIx_Link_state_string", state)

    def device_type_string(self, dtype):
        return self._string("PMIx_Device_type_string", dtype)

    def value_comparison_string(self, cmp):
        return self._string("PMIx_Value_comparison_string", cmp)

    def get_attribute_string(self, name):
        return self._string("PMIx_Get_attribute_string", cstr_arg(name, "name"), text=True)

    def get_attribute_name(self, attr):
        return self._string("PMIx_Get_attribute_name", cstr_arg(attr, "attribute"), text=True)

    def info_directives_string(self, directives):
        fn = self._fn("PMIx_Info_directives_string")
        if fn is None:
            return None
        p = fn(_int_arg("PMIx_Info_directives_string", 0, directives, "directives"))
        if not p:
            return None
        s = string_at(p).decode("utf-8", "replace")
        self._free(p)
        return s
