"""The server module of a Python host: C upcalls that call Python functions.

``PMIxServer.init(dicts, map)`` takes ``map``, a dict of Python callables keyed
by the names of OpenPMIx's bindings (``'fencenb'``, ``'clientfinalized'``, ...;
the C slot names such as ``'fence_nb'`` are accepted too). Each becomes one
slot of the ``pmix_server_module_t`` the library receives; the others stay
NULL, which the library reports to clients as PMIX_ERR_NOT_SUPPORTED.

When the library makes an upcall, a trampoline here (on the library's
progress thread) converts the C arguments to Python (procs and infos as dicts,
keys as str, payloads as bytes) and calls ``handler(args, cbfunc, cbdata)``,
as OpenPMIx's bindings do (``clientconnected``/``clientfinalized`` get the
proc dict instead of ``args``). The handler answers in one of three ways:

* it returns ``PMIX_SUCCESS`` after calling, or promising to call later from
  any thread, ``cbfunc(status, <results>, cbdata)`` exactly once;
* it returns a tuple ``(status, <results>)``: the binding calls ``cbfunc``
  with it before the upcall returns (synchronous completion);
* it returns another status: ``PMIX_OPERATION_SUCCEEDED`` (done, nothing to
  report) or an error, and ``cbfunc`` must not be called.

``<results>`` depends on the slot: nothing (op), a list of info dicts
(query, allocate, job control, monitor, group, fabric, session control),
bytes (fence, direct modex), a list of pdata dicts (lookup), a namespace
(spawn), a proc dict (tool connection), a credential and infos
(get_credential) or infos (validate_credential).

A handler that raises, or returns something else, is reported on stderr
with its traceback and the upcall fails with PMIX_ERROR; a completion called
twice, or after the upcall failed, is reported and ignored. Nothing the
handler does can make the library lose or double-complete a request.
"""

import ctypes
import sys
import threading
from ctypes import addressof, byref, string_at

from . import _constants as C
from . import _lib
from ._callbacks import Entry, _run_user, registry, report
from ._convert import (
    Keep,
    _load_bo,
    info_array,
    load_proc,
    pdata_results,
    read_cstr,
    unload_app_array,
    unload_argv,
    unload_bo_at,
    unload_info_array,
    unload_proc_array,
    unload_proc_at,
    unload_query_array,
    unload_units,
)
from ._types import (
    SERVER_SLOT_TYPES,
    SERVER_SLOTS,
    SERVER_SLOTS_V4,
    pmix_byte_object_t,
    pmix_proc_t,
    pmix_release_cbfunc_t,
    pmix_server_module_t,
)

# OpenPMIx's binding's names for the slots (pmix.pyx, server_module_init)
BINDING_KEYS = {
    "clientconnected": "client_connected",
    "clientfinalized": "client_finalized",
    "abort": "abort",
    "fencenb": "fence_nb",
    "directmodex": "direct_modex",
    "publish": "publish",
    "lookup": "lookup",
    "unpublish": "unpublish",
    "spawn": "spawn",
    "connect": "connect",
    "disconnect": "disconnect",
    "registerevents": "register_events",
    "deregisterevents": "deregister_events",
    "notifyevent": "notify_event",
    "query": "query",
    "toolconnected": "tool_connected",
    "log": "log",
    "allocate": "allocate",
    "jobcontrol": "job_control",
    "monitor": "monitor",
    "getcredential": "get_credential",
    "validatecredential": "validate_credential",
    "iofpull": "iof_pull",
    "pushstdin": "push_stdin",
    "group": "group",
    "fabric": "fabric",
    "clientconnected2": "client_connected2",
    "toolconnected2": "tool_connected2",
    "log2": "log2",
    "sessioncontrol": "session_control",
    "resourceblock": "resource_block",
}

_PENDING, _DONE, _DEAD = 0, 1, 2

# slot -> the Python callable (replaced as a whole by install())
_handlers = {}


def _warn(msg):
    try:
        sys.stderr.write("pmix: %s\n" % msg)
        sys.stderr.flush()
    except BaseException:
        pass


def _status(x, what):
    if isinstance(x, bool) or not isinstance(x, int) or not -2**31 <= x < 2**31:
        _warn("%s: status %r is not a pmix_status_t; PMIX_ERROR reported instead" % (what, x))
        return C.PMIX_ERROR
    return x


class Completion:
    """The ``cbdata`` a handler receives: completes one upcall, at most once,
    from any thread (through the ``cbfunc`` it came with)."""

    __slots__ = ("what", "status", "_finish", "_lock", "_state")

    def __init__(self, what, finish):
        self.what = what
        self.status = None
        self._finish = finish  # None: the library passed no callback
        self._lock = threading.Lock()
        self._state = _PENDING

    @property
    def done(self):
        return self._state == _DONE

    def complete(self, status, *results):
        with self._lock:
            state = self._state
            if state == _PENDING:
                self._state = _DONE
        if state != _PENDING:
            why = "twice" if state == _DONE else "after the upcall returned an error"
            _warn("the %s upcall's completion was called %s; ignored" % (self.what, why))
            return C.PMIX_ERR_BAD_PARAM
        status = _status(status, "the %s completion" % self.what)
        self.status = status
        if self._finish is None:
            return C.PMIX_SUCCESS
        try:
            self._finish(status, *results)
        except BaseException:
            # the wrong number of results, a status C cannot take: the
            # library's callback was not reached, so fail the request
            report("completing the %s upcall" % self.what)
            try:
                self._finish(C.PMIX_ERROR)
            except BaseException:
                report("failing the %s upcall" % self.what)
            return C.PMIX_ERROR
        return C.PMIX_SUCCESS

    def settle(self, rc, void):
        """The code the upcall returns to the library, given the handler's
        verdict ``rc``. A void slot (log, tool_connected) has no return code:
        unless the handler completes, it is completed here with ``rc``."""
        with self._lock:
            if self._state == _DONE:
                if rc not in (C.PMIX_SUCCESS, C.PMIX_OPERATION_SUCCEEDED):
                    _warn("the %s handler returned %d after completing; the completion stands" % (self.what, rc))
                if self._finish is None:
                    return self.status
                return C.PMIX_SUCCESS
            if rc == C.PMIX_SUCCESS:
                return rc
            if not void:
                self._state = _DEAD
                return rc
        self.complete(C.PMIX_SUCCESS if rc == C.PMIX_OPERATION_SUCCEEDED else rc)
        return rc


# --- turning a handler's results into the C completion ----------------------
def _convert(status, what, build):
    """``build()`` -> C data; a conversion error becomes PMIX_ERROR, no data."""
    try:
        return status, build()
    except Exception:
        report("converting the results of the %s upcall" % what)
        return (C.PMIX_ERROR if status == C.PMIX_SUCCESS else status), None


def _release(cbdata):
    # the library is done with results we lent it
    try:
        registry.take(cbdata)
    except BaseException:
        report("the upcall release callback")


RELEASE_CB = pmix_release_cbfunc_t(_release)


def _lend(keep):
    """(release callback, its cbdata) for buffers the library releases."""
    key = registry.add(Entry(None, None, keep, "upcall results"))
    return RELEASE_CB, key


def _fin_op(cb, cbdata, what):
    def fin(status):
        cb(status, cbdata)

    return fin


def _fin_info(cb, cbdata, what):
    def fin(status, results=None):
        keep = Keep()
        status, got = _convert(status, what, lambda: info_array(results, keep, "results"))
        ptr, n = got if got else (None, 0)
        rel, key = _lend(keep)
        cb(status, ptr, n, cbdata, rel, key)

    return fin


def _fin_modex(cb, cbdata, what):
    def fin(status, data=None):
        keep = Keep()

        def build():
            bo = pmix_byte_object_t()
            _load_bo(bo, data, keep, "data")
            return bo.bytes, bo.size

        status, got = _convert(status, what, build)
        ptr, n = got if got else (None, 0)
        rel, key = _lend(keep)
        cb(status, ptr, n, cbdata, rel, key)

    return fin


def _fin_lookup(cb, cbdata, what):
    def fin(status, pdata=None):
        keep = Keep()
        status, got = _convert(status, what, lambda: pdata_results(pdata, keep, "pdata"))
        arr, n = got if got else (None, 0)
        cb(status, arr, n, cbdata)  # the library copies them during the call

    return fin


def _fin_spawn(cb, cbdata, what):
    def fin(status, nspace=None):
        def build():
            if nspace is None:
                return None
            ns = nspace.encode("utf-8") if isinstance(nspace, str) else bytes(nspace)
            if len(ns) > C.PMIX_MAX_NSLEN or b"\0" in ns:
                raise ValueError("the spawned namespace %r is not a valid nspace" % (nspace,))
            return ctypes.create_string_buffer(ns, C.PMIX_MAX_NSLEN + 1)

        status, buf = _convert(status, what, build)
        cb(status, addressof(buf) if buf is not None else None, cbdata)

    return fin


def _fin_tool(cb, cbdata, what):
    def fin(status, proc=None):
        def build():
            if proc is None:
                return None
            p = pmix_proc_t()
            load_proc(p, proc, "proc")
            return p

        status, p = _convert(status, what, build)
        cb(status, ctypes.pointer(p) if p is not None else None, cbdata)

    return fin


def _fin_credential(cb, cbdata, what):
    def fin(status, cred=None, info=None):
        keep = Keep()

        def build():
            bo = pmix_byte_object_t()
            _load_bo(bo, cred, keep, "credential")
            return bo, info_array(info, keep, "info")

        status, got = _convert(status, what, build)
        if got is None:
            cb(status, None, None, 0, cbdata)
            return
        bo, (ptr, n) = got
        cb(status, byref(bo), ptr, n, cbdata)

    return fin


def _fin_validation(cb, cbdata, what):
    def fin(status, info=None):
        keep = Keep()
        status, got = _convert(status, what, lambda: info_array(info, keep, "info"))
        ptr, n = got if got else (None, 0)
        cb(status, ptr, n, cbdata)

    return fin


_FINISHERS = {
    "op": _fin_op,
    "info": _fin_info,
    "modex": _fin_modex,
    "lookup": _fin_lookup,
    "spawn": _fin_spawn,
    "tool": _fin_tool,
    "credential": _fin_credential,
    "validation": _fin_validation,
}


# --- the cbfunc a handler calls: cbfunc(status, <results>, cbdata) ---------
def _check_cbdata(cbdata, fn):
    if not isinstance(cbdata, Completion):
        raise TypeError("%s: cbdata must be the cbdata the upcall handler received, not %r" % (fn, cbdata))
    return cbdata


def op_cbfunc(status, cbdata):
    return _check_cbdata(cbdata, "op_cbfunc").complete(status)


def info_cbfunc(status, info, cbdata):
    return _check_cbdata(cbdata, "info_cbfunc").complete(status, info)


def modex_cbfunc(status, data, cbdata):
    return _check_cbdata(cbdata, "modex_cbfunc").complete(status, data)


def lookup_cbfunc(status, pdata, cbdata):
    return _check_cbdata(cbdata, "lookup_cbfunc").complete(status, pdata)


def spawn_cbfunc(status, nspace, cbdata):
    return _check_cbdata(cbdata, "spawn_cbfunc").complete(status, nspace)


def tool_connection_cbfunc(status, proc, cbdata):
    return _check_cbdata(cbdata, "tool_connection_cbfunc").complete(status, proc)


def credential_cbfunc(status, cred, info, cbdata):
    return _check_cbdata(cbdata, "credential_cbfunc").complete(status, cred, info)


def validation_cbfunc(status, *rest):
    """``validation_cbfunc(status, info, cbdata)``; OpenPMIx's binding's
    ``(status, credential, info, cbdata)`` form is accepted too."""
    if len(rest) == 3:
        rest = rest[1:]
    if len(rest) != 2:
        raise TypeError("validation_cbfunc(status, info, cbdata)")
    return _check_cbdata(rest[1], "validation_cbfunc").complete(status, rest[0])


_PY_CB = {
    "op": op_cbfunc,
    "info": info_cbfunc,
    "modex": modex_cbfunc,
    "lookup": lookup_cbfunc,
    "spawn": spawn_cbfunc,
    "tool": tool_connection_cbfunc,
    "credential": credential_cbfunc,
    "validation": validation_cbfunc,
}


# --- dispatching one upcall ---------------------------------------------------
def _verdict(slot, comp, r):
    """The handler's answer as an upcall status (completing a tuple answer)."""
    if isinstance(r, tuple):
        if not r:
            _warn("the %s handler returned an empty tuple; PMIX_ERROR" % slot)
            return C.PMIX_ERROR
        comp.complete(*r)
        return C.PMIX_SUCCESS
    if isinstance(r, int) and not isinstance(r, bool):
        return _status(r, "the %s handler" % slot)
    if r is None and comp.done:
        return C.PMIX_SUCCESS
    _warn("the %s handler returned %r: expected a status, or a (status, results) tuple; PMIX_ERROR" % (slot, r))
    return C.PMIX_ERROR


def _dispatch(slot, build_args, kind, cbfunc, cbdata, void=False):
    """Run the handler of ``slot`` for one upcall; returns the upcall's status."""
    try:
        handler = _handlers.get(slot)
        finish = _FINISHERS[kind](cbfunc, cbdata, slot) if cbfunc else None
        comp = Completion(slot, finish)
        if handler is None:
            return comp.settle(C.PMIX_ERR_NOT_SUPPORTED, void)
        try:
            args = build_args()
        except BaseException:
            report("converting the arguments of the %s upcall" % slot)
            return comp.settle(C.PMIX_ERROR, void)
        try:
            r = _run_user(handler, args, _PY_CB[kind], comp)
        except BaseException:
            report("the server module's %s function %r" % (slot, getattr(handler, "__name__", handler)))
            r = C.PMIX_ERROR
        return comp.settle(_verdict(slot, comp, r), void)
    except BaseException:
        report("the %s upcall trampoline" % slot)
        return C.PMIX_ERROR


def _fence_blob(data, ndata):
    """The fence contribution as a bytearray; the blob is the host's, so it is
    freed here whatever happens next."""
    try:
        return bytearray(string_at(data, ndata)) if data and ndata else bytearray()
    finally:
        if data:
            _lib.libc().free(data)


def _monitor_info(addr):
    got = unload_info_array(addr, 1)
    return got[0] if got else None


# one function per slot, with the slot's C arguments
def _t_client_connected(proc, _obj, cbfunc, cbdata):
    return _dispatch("client_connected", lambda: unload_proc_at(proc), "op", cbfunc, cbdata)


def _t_client_connected2(proc, _obj, info, ninfo, cbfunc, cbdata):
    return _dispatch("client_connected2", lambda: {
        "proc": unload_proc_at(proc), "directives": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


def _t_client_finalized(proc, _obj, cbfunc, cbdata):
    return _dispatch("client_finalized", lambda: unload_proc_at(proc), "op", cbfunc, cbdata)


def _t_abort(proc, _obj, status, msg, procs, nprocs, cbfunc, cbdata):
    return _dispatch("abort", lambda: {
        "caller": unload_proc_at(proc), "status": int(status), "msg": read_cstr(msg),
        "targets": unload_proc_array(procs, nprocs)}, "op", cbfunc, cbdata)


def _t_fence_nb(procs, nprocs, info, ninfo, data, ndata, cbfunc, cbdata):
    try:
        blob = _fence_blob(data, ndata)
    except BaseException:
        report("reading the fence contribution")
        blob = None
    return _dispatch("fence_nb", lambda: {
        "procs": unload_proc_array(procs, nprocs), "directives": unload_info_array(info, ninfo),
        "data": blob if blob is not None else bytearray()}, "modex", cbfunc, cbdata)


def _t_direct_modex(proc, info, ninfo, cbfunc, cbdata):
    return _dispatch("direct_modex", lambda: {
        "proc": unload_proc_at(proc), "directives": unload_info_array(info, ninfo)}, "modex", cbfunc, cbdata)


def _t_publish(proc, info, ninfo, cbfunc, cbdata):
    return _dispatch("publish", lambda: {
        "proc": unload_proc_at(proc), "directives": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


def _t_lookup(proc, keys, info, ninfo, cbfunc, cbdata):
    return _dispatch("lookup", lambda: {
        "proc": unload_proc_at(proc), "keys": unload_argv(keys),
        "directives": unload_info_array(info, ninfo)}, "lookup", cbfunc, cbdata)


def _t_unpublish(proc, keys, info, ninfo, cbfunc, cbdata):
    return _dispatch("unpublish", lambda: {
        "proc": unload_proc_at(proc), "keys": unload_argv(keys),
        "directives": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


def _t_spawn(proc, jinfo, ninfo, apps, napps, cbfunc, cbdata):
    return _dispatch("spawn", lambda: {
        "proc": unload_proc_at(proc), "jobinfo": unload_info_array(jinfo, ninfo),
        "apps": unload_app_array(apps, napps)}, "spawn", cbfunc, cbdata)


def _procs_dirs(procs, nprocs, info, ninfo):
    return {"procs": unload_proc_array(procs, nprocs), "directives": unload_info_array(info, ninfo)}


def _t_connect(procs, nprocs, info, ninfo, cbfunc, cbdata):
    return _dispatch("connect", lambda: _procs_dirs(procs, nprocs, info, ninfo), "op", cbfunc, cbdata)


def _t_disconnect(procs, nprocs, info, ninfo, cbfunc, cbdata):
    return _dispatch("disconnect", lambda: _procs_dirs(procs, nprocs, info, ninfo), "op", cbfunc, cbdata)


def _codes(codes, ncodes):
    return list((ctypes.c_int * ncodes).from_address(codes)) if codes and ncodes else []


def _t_register_events(codes, ncodes, info, ninfo, cbfunc, cbdata):
    return _dispatch("register_events", lambda: {
        "codes": _codes(codes, ncodes), "directives": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


def _t_deregister_events(codes, ncodes, cbfunc, cbdata):
    return _dispatch("deregister_events", lambda: {"codes": _codes(codes, ncodes)}, "op", cbfunc, cbdata)


def _t_notify_event(code, source, rng, info, ninfo, cbfunc, cbdata):
    return _dispatch("notify_event", lambda: {
        "code": int(code), "source": unload_proc_at(source), "range": int(rng),
        "directives": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


def _t_query(proc, queries, nqueries, cbfunc, cbdata):
    return _dispatch("query", lambda: {
        "source": unload_proc_at(proc), "queries": unload_query_array(queries, nqueries)}, "info", cbfunc, cbdata)


def _t_tool_connected(info, ninfo, cbfunc, cbdata):
    _dispatch("tool_connected", lambda: {"directives": unload_info_array(info, ninfo)}, "tool", cbfunc, cbdata,
              void=True)


def _log_args(proc, data, ndata, dirs, ndirs):
    return {"source": unload_proc_at(proc), "data": unload_info_array(data, ndata),
            "directives": unload_info_array(dirs, ndirs)}


def _t_log(proc, data, ndata, dirs, ndirs, cbfunc, cbdata):
    _dispatch("log", lambda: _log_args(proc, data, ndata, dirs, ndirs), "op", cbfunc, cbdata, void=True)


def _t_allocate(proc, action, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("allocate", lambda: {
        "source": unload_proc_at(proc), "action": int(action),
        "directives": unload_info_array(dirs, ndirs)}, "info", cbfunc, cbdata)


def _t_job_control(proc, targets, ntargets, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("job_control", lambda: {
        "source": unload_proc_at(proc), "targets": unload_proc_array(targets, ntargets),
        "directives": unload_info_array(dirs, ndirs)}, "info", cbfunc, cbdata)


def _t_monitor(proc, monitor, error, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("monitor", lambda: {
        "source": unload_proc_at(proc), "monitor": _monitor_info(monitor), "error": int(error),
        "directives": unload_info_array(dirs, ndirs)}, "info", cbfunc, cbdata)


def _t_get_credential(proc, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("get_credential", lambda: {
        "source": unload_proc_at(proc), "directives": unload_info_array(dirs, ndirs)}, "credential", cbfunc, cbdata)


def _t_validate_credential(proc, cred, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("validate_credential", lambda: {
        "source": unload_proc_at(proc), "credential": unload_bo_at(cred),
        "directives": unload_info_array(dirs, ndirs)}, "validation", cbfunc, cbdata)


def _t_iof_pull(procs, nprocs, dirs, ndirs, channels, cbfunc, cbdata):
    return _dispatch("iof_pull", lambda: {
        "sources": unload_proc_array(procs, nprocs), "directives": unload_info_array(dirs, ndirs),
        "channels": int(channels)}, "op", cbfunc, cbdata)


def _t_push_stdin(source, targets, ntargets, dirs, ndirs, bo, cbfunc, cbdata):
    return _dispatch("push_stdin", lambda: {
        "source": unload_proc_at(source), "targets": unload_proc_array(targets, ntargets),
        "directives": unload_info_array(dirs, ndirs), "payload": unload_bo_at(bo)}, "op", cbfunc, cbdata)


def _t_group(op, grp, procs, nprocs, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("group", lambda: {
        "op": int(op), "group": read_cstr(grp), "procs": unload_proc_array(procs, nprocs),
        "directives": unload_info_array(dirs, ndirs)}, "info", cbfunc, cbdata)


def _t_fabric(proc, op, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("fabric", lambda: {
        "source": unload_proc_at(proc), "op": int(op), "directives": unload_info_array(dirs, ndirs)},
        "info", cbfunc, cbdata)


def _t_tool_connected2(info, ninfo, cbfunc, cbdata):
    return _dispatch("tool_connected2", lambda: {"directives": unload_info_array(info, ninfo)}, "tool",
                     cbfunc, cbdata)


def _t_log2(proc, data, ndata, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("log2", lambda: _log_args(proc, data, ndata, dirs, ndirs), "op", cbfunc, cbdata)


def _t_session_control(proc, session, dirs, ndirs, cbfunc, cbdata):
    return _dispatch("session_control", lambda: {
        "requestor": unload_proc_at(proc), "sessionID": int(session),
        "directives": unload_info_array(dirs, ndirs)}, "info", cbfunc, cbdata)


def _t_resource_block(proc, directive, block, units, nunits, info, ninfo, cbfunc, cbdata):
    return _dispatch("resource_block", lambda: {
        "requestor": unload_proc_at(proc), "directive": int(directive), "block": read_cstr(block),
        "units": unload_units(units, nunits), "info": unload_info_array(info, ninfo)}, "op", cbfunc, cbdata)


# the C function of every slot but the listener (a Python host never watches
# the library's socket itself), made once and kept for the life of the process
TRAMPOLINES = {
    slot: SERVER_SLOT_TYPES[slot](fn)
    for slot, fn in (
        (name, globals().get("_t_" + name)) for name, _ in SERVER_SLOTS
    )
    if fn is not None
}


def build_module(fnmap):
    """(status, module struct, whether slots past OpenPMIx 4.2.2's 28 are
    set, {slot: handler}) for a map of callables. An unknown key, a key given
    twice (under both of its names) or a value that is not callable is
    PMIX_ERR_BAD_PARAM, with a line on stderr saying which."""
    module = pmix_server_module_t()
    handlers = {}
    if fnmap is None:
        fnmap = {}
    if not isinstance(fnmap, dict):
        _warn("PMIxServer.init: map must be a dict of callables, not %s" % type(fnmap).__name__)
        return C.PMIX_ERR_BAD_PARAM, None, False, None
    for key, fn in fnmap.items():
        slot = BINDING_KEYS.get(key, key if key in TRAMPOLINES else None)
        if slot is None:
            _warn("PMIxServer.init: %r is not a server module function (known: %s)"
                  % (key, ", ".join(sorted(BINDING_KEYS))))
            return C.PMIX_ERR_BAD_PARAM, None, False, None
        if not callable(fn):
            _warn("PMIxServer.init: the %r entry is not callable (%r)" % (key, fn))
            return C.PMIX_ERR_BAD_PARAM, None, False, None
        if slot in handlers:
            _warn("PMIxServer.init: the %s function is given twice" % slot)
            return C.PMIX_ERR_BAD_PARAM, None, False, None
        handlers[slot] = fn
        setattr(module, slot, TRAMPOLINES[slot])
    names = [name for name, _ in SERVER_SLOTS]
    late = any(slot in handlers for slot in names[SERVER_SLOTS_V4:])
    return C.PMIX_SUCCESS, module, late, handlers


def install(handlers):
    """Make ``handlers`` the functions the trampolines call; returns the
    previous ones."""
    global _handlers
    previous = _handlers
    _handlers = dict(handlers or {})
    return previous
