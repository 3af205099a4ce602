"""PMIxServer: the PMIx server API for Python (``pmix_server.h``), over libpmix.so.2.

A server is the "host" of the PMIx clients it starts (a launcher, a resource
manager daemon). As in OpenPMIx's bindings it is a subclass of PMIxClient and
gets its upcalls from a dict of Python callables::

    from pmix import *

    def fence(args, cbfunc, cbdata):            # one server: hand the data back
        return PMIX_SUCCESS, args['data']        # or: cbfunc(PMIX_SUCCESS, args['data'], cbdata)
                                                 #     return PMIX_SUCCESS
    srv = PMIxServer()
    rc = srv.init([], {'fencenb': fence, 'clientfinalized': finalized})
    rc = srv.register_nspace("job", 2, [{'key': PMIX_JOB_SIZE, 'value': 2, 'val_type': PMIX_UINT32}])
    rc = srv.register_client({'nspace': "job", 'rank': 0}, os.getuid(), os.getgid())
    env = dict(os.environ)
    rc = srv.setup_fork({'nspace': "job", 'rank': 0}, env)   # env gains the PMIX_* variables
    ...
    srv.finalize()

See ``_upcalls.py`` for the names of the module's functions, their
arguments and how a function completes now or later. The methods follow the
conventions of client.py; those with ``cbfunc=None, cbdata=None`` are blocking
without a callback and non-blocking with ``cbfunc(status, cbdata)``, the only
form usable from inside an upcall (which runs on the progress thread, where a
blocking call returns PMIX_ERR_WOULD_BLOCK).
"""

import ctypes
import threading
import time
from ctypes import byref, c_size_t, c_void_p, string_at

from . import _constants as C
from . import _upcalls
from ._callbacks import INFO_CB, OP_CB, Entry, in_callback, registry, report
from ._convert import (
    Keep,
    argv,
    byte_object,
    cstr_arg,
    info_array,
    proc_array,
    proc_ptr,
    read_cstr,
    unload_argv,
    unload_info_array,
)
from ._types import (
    MAX_NSLEN,
    pmix_data_buffer_t,
    pmix_dmodex_response_fn_t,
    pmix_regex2_t,
    pmix_setup_application_cbfunc_t,
)
from .client import _NOT_SUPPORTED, PMIxClient, _api, _cb_args, _check_list, _int_arg, _settle


def _nspace(ns, what="nspace"):
    """A namespace argument as bytes (over-length -> PMIX_ERR_BAD_PARAM)."""
    b = cstr_arg(ns, what)
    if b is None:
        raise TypeError("%s must be a str, not None" % what)
    if len(b) > MAX_NSLEN:
        from ._convert import StatusError

        raise StatusError(C.PMIX_ERR_BAD_PARAM, "%s is longer than PMIX_MAX_NSLEN" % what)
    return b


def _op_args(cbfunc, cbdata, keep, what):
    """(C callback, C cbdata, registry key) of a server call whose callback
    is optional: without one the call blocks until the library is done with
    the arguments, so they need not outlive it (unlike a client ``_nb`` call
    made with a NULL callback)."""
    if cbfunc is None:
        return type(OP_CB)(), None, None
    return _cb_args(cbfunc, cbdata, keep, what, OP_CB)


def _required_proc(proc, keep, what="proc"):
    if proc is None:
        raise TypeError("%s must be a {'nspace', 'rank'} dict, not None" % what)
    return proc_ptr(proc, keep, what)


# --- the C callbacks of the blocking calls that wait for one ----------------
def _dmodex(status, data, size, cbdata):
    try:
        e = registry.take(cbdata)
        if e is not None:
            e.cbfunc(int(status), string_at(data, size) if data and size else b"")
    except BaseException:
        report("the dmodex response callback")


def _setup_app(status, info, ninfo, _provided, cbfunc, cbdata):
    try:
        try:
            e = registry.take(_provided)
            results = unload_info_array(info, ninfo) if info else []
        finally:
            # the library keeps the infos until we say we are done with them
            if cbfunc:
                cbfunc(C.PMIX_SUCCESS, cbdata)
        if e is not None:
            e.cbfunc(int(status), results)
    except BaseException:
        report("the setup_application callback")


DMODEX_CB = pmix_dmodex_response_fn_t(_dmodex)
SETUP_APP_CB = pmix_setup_application_cbfunc_t(_setup_app)


class PMIxServer(PMIxClient):
    """A PMIx server. ``PMIxServer(library=None)`` loads libpmix.so.2 on construction."""

    def __init__(self, library=None):
        super().__init__(library)
        self._module = None

    def _finalize_at_exit(self):
        fn = self._fn("PMIx_server_finalize")
        if self._initialized_here and fn is not None:
            fn()

    def _wait(self, start, what, keep=None, timeout=None):
        """Run ``start(c_cbdata)`` (a call whose static C callback hands
        registry entry ``c_cbdata`` the result) and wait for the result, at
        most ``timeout`` seconds if given (then PMIX_ERR_TIMEOUT; the entry,
        and the buffers in ``keep``, stay for the late callback). Returns
        ``(rc, result tuple or None)``."""
        if timeout is not None:
            timeout = float(timeout)
        if in_callback():
            return C.PMIX_ERR_WOULD_BLOCK, None
        done = threading.Event()
        box = []

        def got(*result):
            box.append(result)
            done.set()

        key = registry.add(Entry(got, None, keep, what))
        rc = start(c_void_p(key))
        if rc != C.PMIX_SUCCESS:
            registry.take(key)
            return rc, None
        deadline = None if timeout is None else time.monotonic() + timeout
        while not done.wait(1.0 if deadline is None else max(min(1.0, deadline - time.monotonic()), 0)):
            if deadline is not None and time.monotonic() >= deadline:
                return C.PMIX_ERR_TIMEOUT, None
        return C.PMIX_SUCCESS, box[0]

    # -- lifecycle -----------------------------------------------------
    @_api()
    def init(self, dicts=None, map=None):
        """PMIx_server_init(infos, module). ``map`` is a dict of callables
        keyed by OpenPMIx's bindings' names ('clientconnected',
        'clientfinalized', 'abort', 'fencenb', 'directmodex', 'publish',
        'lookup', 'unpublish', 'spawn', 'connect', 'disconnect',
        'registerevents', 'deregisterevents', 'notifyevent', 'query',
        'toolconnected', 'log', 'allocate', 'jobcontrol', 'monitor',
        'getcredential', 'validatecredential', 'iofpull', 'pushstdin',
        'group', 'fabric', 'clientconnected2', 'toolconnected2', 'log2',
        'sessioncontrol', 'resourceblock') or by the C slot names; None or {}
        = no upcalls. An unknown key or a value that is not callable is
        PMIX_ERR_BAD_PARAM."""
        _check_list(dicts, "dicts")
        rc, module, late, handlers = _upcalls.build_module(map)
        if rc != C.PMIX_SUCCESS:
            return rc
        dicts = list(dicts or [])
        if late and not any(isinstance(d, dict) and d.get("key") == C.PMIX_SERVER_MODULE_V7 for d in dicts):
            # the table has all 32 slots: say so, or slots 29-32 are not read
            dicts.append({"key": C.PMIX_SERVER_MODULE_V7, "value": True, "val_type": C.PMIX_BOOL})
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        # installed before the call (the library may call up as soon as it
        # runs); a failed init (e.g. a second one) leaves the running server's
        previous = _upcalls.install(handlers)
        rc = self._lib.PMIx_server_init(byref(module), info, n)
        if rc == C.PMIX_SUCCESS:
            self._module = module
            self._track()
        else:
            _upcalls.install(previous)
        return rc

    def finalize(self):
        """PMIx_server_finalize."""
        rc = self._lib.PMIx_server_finalize()
        self._untrack()
        return rc

    # -- namespaces and clients -----------------------------------------
    @_api()
    def register_nspace(self, ns, nlocalprocs, dicts, cbfunc=None, cbdata=None):
        """PMIx_server_register_nspace(nspace, local procs, job/app/node/proc infos)."""
        _check_list(dicts, "dicts")
        keep = Keep()
        b = _nspace(ns)
        keep.append(b)
        nlocal = _int_arg("PMIx_server_register_nspace", 1, nlocalprocs, "nlocalprocs")
        info, n = info_array(dicts, keep, "dicts")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "register_nspace")
        return _settle(self._lib.PMIx_server_register_nspace(b, nlocal, info, n, cb, cd), key)

    @_api()
    def deregister_nspace(self, ns, cbfunc=None, cbdata=None):
        """PMIx_server_deregister_nspace (the C call returns nothing: SUCCESS)."""
        keep = Keep()
        b = _nspace(ns)
        keep.append(b)
        cb, cd, _key = _op_args(cbfunc, cbdata, keep, "deregister_nspace")
        self._lib.PMIx_server_deregister_nspace(b, cb, cd)
        return C.PMIX_SUCCESS

    @_api()
    def register_client(self, proc, uid, gid, cbfunc=None, cbdata=None):
        """PMIx_server_register_client(proc, uid, gid) (no server object)."""
        keep = Keep()
        p = _required_proc(proc, keep)
        u = _int_arg("PMIx_server_register_client", 1, uid, "uid")
        g = _int_arg("PMIx_server_register_client", 2, gid, "gid")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "register_client")
        return _settle(self._lib.PMIx_server_register_client(p, u, g, None, cb, cd), key)

    @_api()
    def deregister_client(self, proc, cbfunc=None, cbdata=None):
        """PMIx_server_deregister_client (the C call returns nothing: SUCCESS)."""
        keep = Keep()
        p = _required_proc(proc, keep)
        cb, cd, _key = _op_args(cbfunc, cbdata, keep, "deregister_client")
        self._lib.PMIx_server_deregister_client(p, cb, cd)
        return C.PMIX_SUCCESS

    @_api({})
    def setup_fork(self, proc, envin=None):
        """PMIx_server_setup_fork. As in OpenPMIx's bindings, ``envin`` (a
        dict, e.g. a copy of os.environ) gains the variables the client needs
        and ``rc`` is returned; without ``envin``, returns ``(rc, {variables})``."""
        if envin is not None and not isinstance(envin, dict):
            raise TypeError("envin must be a dict, not %s" % type(envin).__name__)
        keep = Keep()
        p = _required_proc(proc, keep)
        env = c_void_p()
        rc = self._lib.PMIx_server_setup_fork(p, byref(env))
        out = {}
        if env.value:
            for item in unload_argv(env.value):
                k, sep, v = (item if isinstance(item, str) else item.decode("utf-8", "replace")).partition("=")
                if sep:
                    out[k] = v
            self._free_argv(env.value)
        if rc != C.PMIX_SUCCESS:
            out = {}
        if envin is None:
            return rc, out
        envin.update(out)
        return rc

    def _free_argv(self, addr):
        i = 0
        while True:
            s = c_void_p.from_address(addr + i * ctypes.sizeof(c_void_p)).value
            if not s:
                break
            self._free(s)
            i += 1
        self._free(addr)

    @_api((None, 0))
    def dmodex_request(self, proc, dataout=None, timeout=None):
        """PMIx_server_dmodex_request: the data ``proc`` (a local client) has
        committed, once it has. Returns ``(rc, (bytes, size))`` as OpenPMIx's
        bindings do; a ``dataout`` dict also receives 'bytes' and 'size'. The
        library answers only once ``proc`` has committed (never for a process
        that does not exist): ``timeout`` (seconds) bounds the wait, after
        which the result is PMIX_ERR_TIMEOUT."""
        keep = Keep()
        p = _required_proc(proc, keep)
        rc, got = self._wait(lambda cd: self._lib.PMIx_server_dmodex_request(p, DMODEX_CB, cd), "dmodex_request",
                             keep, timeout)
        if rc != C.PMIX_SUCCESS:
            return rc, (None, 0)
        status, data = got
        if status != C.PMIX_SUCCESS:
            return status, (None, 0)
        if isinstance(dataout, dict):
            dataout["bytes"] = data
            dataout["size"] = len(data)
        return status, (data, len(data))

    # -- launch support ------------------------------------------------
    @_api([])
    def setup_application(self, ns, dicts):
        """PMIx_server_setup_application. Returns ``(rc, [info dicts])``."""
        _check_list(dicts, "dicts")
        keep = Keep()
        b = _nspace(ns)
        keep.append(b)
        info, n = info_array(dicts, keep, "dicts")
        rc, got = self._wait(lambda cd: self._lib.PMIx_server_setup_application(b, info, n, SETUP_APP_CB, cd),
                             "setup_application", keep)
        if rc != C.PMIX_SUCCESS:
            return rc, []
        return got[0], got[1]

    @_api()
    def setup_local_support(self, ns, ilist, cbfunc=None, cbdata=None):
        """PMIx_server_setup_local_support(nspace, what setup_application produced)."""
        _check_list(ilist, "ilist")
        keep = Keep()
        b = _nspace(ns)
        keep.append(b)
        info, n = info_array(ilist, keep, "ilist")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "setup_local_support")
        return _settle(self._lib.PMIx_server_setup_local_support(b, info, n, cb, cd), key)

    def _resources(self, name, directives, cbfunc, cbdata):
        _check_list(directives, "directives")
        keep = Keep()
        info, n = info_array(directives, keep, "directives")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, name)
        return _settle(getattr(self._lib, name)(info, n, cb, cd), key)

    @_api()
    def register_resources(self, directives, cbfunc=None, cbdata=None):
        """PMIx_server_register_resources (blocking: PMIX_OPERATION_SUCCEEDED)."""
        return self._resources("PMIx_server_register_resources", directives, cbfunc, cbdata)

    @_api()
    def deregister_resources(self, directives, cbfunc=None, cbdata=None):
        """PMIx_server_deregister_resources (blocking: PMIX_OPERATION_SUCCEEDED)."""
        return self._resources("PMIx_server_deregister_resources", directives, cbfunc, cbdata)

    # -- I/O forwarding ------------------------------------------------
    @_api()
    def iof_deliver(self, pysrc, pychannel, pydata, pydirs=None, cbfunc=None, cbdata=None):
        """PMIx_server_IOF_deliver(source proc, channel, data, directives):
        ``pydata`` is ``{'bytes': ...}``, bytes or str."""
        _check_list(pydirs, "pydirs")
        keep = Keep()
        src = _required_proc(pysrc, keep, "pysrc")
        chan = _int_arg("PMIx_server_IOF_deliver", 1, pychannel, "pychannel")
        bo = None if pydata is None else byref(byte_object(pydata, keep, "pydata"))
        info, n = info_array(pydirs, keep, "pydirs")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "iof_deliver")
        return _settle(self._lib.PMIx_server_IOF_deliver(src, chan, bo, info, n, cb, cd), key)

    IOF_deliver = iof_deliver

    @_api()
    def iof_flow_control(self, pysrc, pychannel, pyxoff, pydirs=None, cbfunc=None, cbdata=None):
        """PMIx_server_IOF_flow_control (``pysrc`` None = every source)."""
        _check_list(pydirs, "pydirs")
        fn = self._fn("PMIx_server_IOF_flow_control")
        if fn is None:
            return _NOT_SUPPORTED
        keep = Keep()
        src = proc_ptr(pysrc, keep, "pysrc")
        chan = _int_arg("PMIx_server_IOF_flow_control", 1, pychannel, "pychannel")
        info, n = info_array(pydirs, keep, "pydirs")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "iof_flow_control")
        return _settle(fn(src, chan, bool(pyxoff), info, n, cb, cd), key)

    # -- process sets, attributes, inventory ---------------------------
    @_api()
    def define_process_set(self, members, name):
        """PMIx_server_define_process_set(member procs, set name)."""
        keep = Keep()
        procs, n = proc_array(members, keep, "members")
        return self._lib.PMIx_server_define_process_set(procs, n, cstr_arg(name, "name"))

    @_api()
    def delete_process_set(self, name):
        """PMIx_server_delete_process_set(set name)."""
        return self._lib.PMIx_server_delete_process_set(cstr_arg(name, "name"))

    @_api()
    def register_attributes(self, function, attrs):
        """PMIx_Register_attributes(API function name, [attribute names])."""
        if function is None:
            return C.PMIX_ERR_BAD_PARAM
        keep = Keep()
        a = argv(list(attrs) if attrs else None, keep, "attrs")
        return self._lib.PMIx_Register_attributes(cstr_arg(function, "function"), a)

    @_api([])
    def collect_inventory(self, pydirs=None):
        """PMIx_server_collect_inventory. Returns ``(rc, [info dicts])``."""
        _check_list(pydirs, "pydirs")
        fn = self._fn("PMIx_server_collect_inventory")
        if fn is None:
            return _NOT_SUPPORTED, []
        keep = Keep()
        info, n = info_array(pydirs, keep, "pydirs")

        # the info trampoline calls back with (status, results, cbdata)
        rc, got = self._wait(lambda cd: fn(info, n, INFO_CB, cd), "collect_inventory", keep)
        if rc != C.PMIX_SUCCESS:
            return rc, []
        return got[0], got[1]

    @_api()
    def deliver_inventory(self, pyinfo, pydirs=None, cbfunc=None, cbdata=None):
        """PMIx_server_deliver_inventory(inventory infos, directives)."""
        _check_list(pyinfo, "pyinfo")
        _check_list(pydirs, "pydirs")
        fn = self._fn("PMIx_server_deliver_inventory")
        if fn is None:
            return _NOT_SUPPORTED
        keep = Keep()
        info, n = info_array(pyinfo, keep, "pyinfo")
        dirs, nd = info_array(pydirs, keep, "pydirs")
        cb, cd, key = _op_args(cbfunc, cbdata, keep, "deliver_inventory")
        return _settle(fn(info, n, dirs, nd, cb, cd), key)

    @_api({"bytes": b"", "size": 0})
    def collect_job_info(self, peers):
        """PMIx_server_collect_job_info(procs). Returns ``(rc, {'bytes', 'size'})``."""
        empty = {"bytes": b"", "size": 0}
        fn = self._fn("PMIx_server_collect_job_info")
        if fn is None:
            return _NOT_SUPPORTED, empty
        if not peers:
            return C.PMIX_ERR_BAD_PARAM, empty
        keep = Keep()
        procs, n = proc_array(peers, keep, "peers")
        buf = pmix_data_buffer_t()
        rc = fn(procs, n, byref(buf))
        out = empty
        if rc == C.PMIX_SUCCESS and buf.bytes_used:
            blob, size = c_void_p(), c_size_t(0)
            self._lib.PMIx_Data_buffer_unload(byref(buf), byref(blob), byref(size))
            if blob.value:
                out = {"bytes": string_at(blob.value, size.value), "size": int(size.value)}
                self._free(blob.value)
        self._lib.PMIx_Data_buffer_destruct(byref(buf))
        return rc, out

    # -- regular expressions ---------------------------------------------
    def _regex(self, name, text):
        out = c_void_p()
        rc = getattr(self._lib, name)(cstr_arg(text, "input"), byref(out))
        s = None
        if out.value:
            if rc == C.PMIX_SUCCESS:
                s = read_cstr(out.value)
            self._free(out.value)
        return rc, s

    @_api(None)
    def generate_regex(self, hosts):
        """PMIx_generate_regex(list of node names). Returns ``(rc, regex str)``."""
        return self._regex("PMIx_generate_regex", ",".join(hosts) if isinstance(hosts, (list, tuple)) else hosts)

    @_api(None)
    def generate_ppn(self, procs):
        """PMIx_generate_ppn(list of per-node rank lists, e.g. ["0,1", "2,3"])."""
        return self._regex("PMIx_generate_ppn", ";".join(procs) if isinstance(procs, (list, tuple)) else procs)

    @_api(None)
    def generate_regex2(self, hosts, dicts=None):
        """PMIx_generate_regex2. Returns ``(rc, {'type', 'bytes', 'len'})``."""
        _check_list(dicts, "dicts")
        fn = self._fn("PMIx_generate_regex2")
        if fn is None:
            return _NOT_SUPPORTED, None
        text = ",".join(hosts) if isinstance(hosts, (list, tuple)) else hosts
        keep = Keep()
        info, n = info_array(dicts, keep, "dicts")
        rx = pmix_regex2_t()
        rc = fn(cstr_arg(text, "hosts"), info, n, byref(rx))
        out = None
        if rc == C.PMIX_SUCCESS:
            data = string_at(rx.bytes, rx.len) if rx.bytes and rx.len else b""
            out = {"type": read_cstr(rx.type), "bytes": data, "len": len(data)}
        self._lib.PMIx_Regex2_destruct(byref(rx))
        return rc, out

    @_api([])
    def parse_regex2(self, pyregex, dicts=None):
        """PMIx_parse_regex2({'type', 'bytes', 'len'}). Returns ``(rc, [names])``."""
        _check_list(dicts, "dicts")
        fn = self._fn("PMIx_parse_regex2")
        if fn is None:
            return _NOT_SUPPORTED, []
        if not isinstance(pyregex, dict) or "type" not in pyregex or "bytes" not in pyregex:
            raise TypeError("pyregex must be a {'type', 'bytes', 'len'} dict")
        keep = Keep()
        kind = ctypes.create_string_buffer(cstr_arg(pyregex["type"], "pyregex['type']"))
        bo = byte_object(pyregex["bytes"], keep, "pyregex['bytes']")
        rx = pmix_regex2_t(ctypes.addressof(kind), bo.bytes, bo.size)
        info, n = info_array(dicts, keep, "dicts")
        out = c_void_p()
        rc = fn(byref(rx), info, n, byref(out))
        names = []
        if out.value:
            if rc == C.PMIX_SUCCESS:
                txt = read_cstr(out.value) or ""
                names = txt.split(",") if txt else []
            self._free(out.value)
        return rc, names


__all__ = ["PMIxServer"]
