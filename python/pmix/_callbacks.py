"""C callbacks for the non-blocking APIs and event handlers.

One C trampoline per callback type, created once and kept for the life of
the process. The ``cbdata`` we give the library is a small integer: the key
of an entry in a registry that holds the user's Python callback, the user's
cbdata object and every buffer the library may still read (the procs, infos,
keys of the request). The trampoline takes the entry out (so a callback runs
at most once), converts the C arguments to Python, and calls the user's
function.

The trampolines run on the PMIx progress thread. An exception raised by the
user's function is printed with its traceback and swallowed: it must never
unwind into C, and the progress thread must keep running.
"""

import sys
import threading
import traceback
from ctypes import c_void_p, string_at

from . import _constants as C
from ._convert import _unload_bo, unload_info_array, unload_pdata, unload_proc, unload_value
from ._types import (
    pmix_credential_cbfunc_t,
    pmix_hdlr_reg_cbfunc_t,
    pmix_info_cbfunc_t,
    pmix_iof_cbfunc_t,
    pmix_lookup_cbfunc_t,
    pmix_notification_fn_t,
    pmix_op_cbfunc_t,
    pmix_spawn_cbfunc_t,
    pmix_validation_cbfunc_t,
    pmix_value_cbfunc_t,
)


class Entry:
    __slots__ = ("cbfunc", "cbdata", "keep", "what")

    def __init__(self, cbfunc, cbdata, keep, what):
        self.cbfunc = cbfunc
        self.cbdata = cbdata
        self.keep = keep
        self.what = what


class Registry:
    """In-flight requests, keyed by the integer passed to C as cbdata."""

    def __init__(self):
        self._lock = threading.Lock()
        self._next = 0
        self._entries = {}

    def add(self, entry):
        with self._lock:
            self._next += 1
            key = self._next
            self._entries[key] = entry
        return key

    def take(self, key):
        if key is None:
            return None
        with self._lock:
            return self._entries.pop(key, None)

    def __len__(self):
        with self._lock:
            return len(self._entries)


registry = Registry()

# Buffers handed to a non-blocking call made without a callback: the library
# gives no sign of when it is done with them, so they are never released.
orphans = []


def report(where):
    """Print the current exception as coming from a callback; never raises."""
    try:
        sys.stderr.write("pmix: exception in %s (ignored; the PMIx progress thread continues):\n" % where)
        traceback.print_exc()
        sys.stderr.flush()
    except BaseException:
        pass


_inside = threading.local()


def in_callback():
    """True while this thread runs a user callback or handler (the PMIx
    progress thread): a binding method that would wait must not wait there."""
    return getattr(_inside, "depth", 0) > 0


def _run_user(fn, *args):
    _inside.depth = getattr(_inside, "depth", 0) + 1
    try:
        return fn(*args)
    finally:
        _inside.depth -= 1


def call_user(entry, *args):
    try:
        _run_user(entry.cbfunc, *args)
    except BaseException:
        report("the %s callback %r" % (entry.what, getattr(entry.cbfunc, "__name__", entry.cbfunc)))


def _lost(key, what):
    try:
        sys.stderr.write("pmix: %s callback for unknown request %r (already completed?); ignored\n" % (what, key))
    except BaseException:
        pass


# --- trampolines ----------------------------------------------------------
def _op(status, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "op")
            return
        call_user(e, int(status), e.cbdata)
    except BaseException:
        report("the op callback trampoline")


def _value(status, kv, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "value")
            return
        value = None
        if status == C.PMIX_SUCCESS and kv:
            value = unload_value(kv.contents)
        call_user(e, int(status), value, e.cbdata)
    except BaseException:
        report("the value callback trampoline")


def _info(status, info, ninfo, cbdata, release_fn, release_cbdata):
    try:
        try:
            e = registry.take(cbdata)
            results = unload_info_array(info, ninfo) if info else []
        finally:
            # the library's data has been copied (or is not needed): let it go
            if release_fn:
                release_fn(release_cbdata)
        if e is None:
            _lost(cbdata, "info")
            return
        call_user(e, int(status), results, e.cbdata)
    except BaseException:
        report("the info callback trampoline")


def _lookup(status, pdata, ndata, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "lookup")
            return
        out = []
        if pdata and ndata:
            out = [unload_pdata(pdata[i]) for i in range(ndata)]
        call_user(e, int(status), out, e.cbdata)
    except BaseException:
        report("the lookup callback trampoline")


def _spawn(status, nspace, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "spawn")
            return
        ns = None
        if status == C.PMIX_SUCCESS and nspace:
            ns = string_at(nspace).decode("utf-8", "replace")
        call_user(e, int(status), ns, e.cbdata)
    except BaseException:
        report("the spawn callback trampoline")


def _hdlr_reg(status, refid, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "event registration")
            return
        call_user(e, int(status), int(refid), e.cbdata)
    except BaseException:
        report("the event-registration callback trampoline")


def _credential(status, cred, info, ninfo, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "credential")
            return
        c = {"bytes": b"", "size": 0}
        if cred and cred.contents.bytes and cred.contents.size:
            c = {"bytes": string_at(cred.contents.bytes, cred.contents.size), "size": int(cred.contents.size)}
        call_user(e, int(status), c, unload_info_array(info, ninfo) if info else [], e.cbdata)
    except BaseException:
        report("the credential callback trampoline")


def _validation(status, info, ninfo, cbdata):
    try:
        e = registry.take(cbdata)
        if e is None:
            _lost(cbdata, "validation")
            return
        call_user(e, int(status), unload_info_array(info, ninfo) if info else [], e.cbdata)
    except BaseException:
        report("the validation callback trampoline")


def _release(status, cbdata):
    # the library is done with results we passed to an event completion
    try:
        registry.take(cbdata)
    except BaseException:
        report("the release callback trampoline")


OP_CB = pmix_op_cbfunc_t(_op)
VALUE_CB = pmix_value_cbfunc_t(_value)
INFO_CB = pmix_info_cbfunc_t(_info)
LOOKUP_CB = pmix_lookup_cbfunc_t(_lookup)
SPAWN_CB = pmix_spawn_cbfunc_t(_spawn)
HDLR_REG_CB = pmix_hdlr_reg_cbfunc_t(_hdlr_reg)
CREDENTIAL_CB = pmix_credential_cbfunc_t(_credential)
VALIDATION_CB = pmix_validation_cbfunc_t(_validation)
RELEASE_CB = pmix_op_cbfunc_t(_release)


def make_event_handler(hdlr, info_array_fn):
    """A C notification function calling the Python ``hdlr``.

    ``hdlr(evhdlr_id, status, source, info, results)`` returns
    ``(status, results)`` or None (= PMIX_EVENT_NO_ACTION_TAKEN, no results).
    The library's completion callback is always invoked, so the event chain
    goes on even when the handler raises.
    """

    def _evhdlr(ref, status, source, info, ninfo, results, nresults, cbfunc, cbdata):
        ret = getattr(C, "PMIX_EVENT_NO_ACTION_TAKEN", C.PMIX_SUCCESS)
        out_ptr, nout, key = None, 0, None
        try:
            src = unload_proc(source.contents) if source else None
            pyinfo = unload_info_array(info, ninfo) if info else []
            pyres = unload_info_array(results, nresults) if results else []
            try:
                r = _run_user(hdlr, int(ref), int(status), src, pyinfo, pyres)
                if r is not None:
                    if isinstance(r, tuple) and len(r) == 2:
                        ret, newres = r
                    else:
                        ret, newres = r, None
                    ret = int(ret)
                    if newres:
                        from ._convert import Keep

                        keep = Keep()
                        out_ptr, nout = info_array_fn(newres, keep, "event handler results")
                        key = registry.add(Entry(None, None, keep, "event results"))
            except BaseException:
                report("the event handler %r" % getattr(hdlr, "__name__", hdlr))
                ret = getattr(C, "PMIX_EVENT_NO_ACTION_TAKEN", C.PMIX_SUCCESS)
                out_ptr, nout = None, 0
                if key is not None:
                    registry.take(key)
                    key = None
        except BaseException:
            report("the event handler trampoline")
        try:
            if cbfunc:
                cbfunc(ret, out_ptr, nout, RELEASE_CB if key is not None else pmix_op_cbfunc_t(),
                       c_void_p(key) if key is not None else None, cbdata)
            elif key is not None:
                registry.take(key)
        except BaseException:
            report("completing an event")

    return pmix_notification_fn_t(_evhdlr)


def make_iof_handler(hdlr):
    """A C pmix_iof_cbfunc_t calling the Python ``hdlr``.

    ``hdlr(iofhdlr_id, channel, source, payload, info)`` runs on the progress
    thread for each chunk of forwarded output: ``source`` a proc dict,
    ``payload`` ``{'bytes': bytes, 'size': int}`` (copied: the library's
    buffer is gone when the C callback returns), ``info`` a list of info
    dicts (a stream's end is an empty payload with PMIX_IOF_COMPLETE). One C
    function per pull, so a chunk that arrives before the registration
    completes still finds its handler.
    """

    def _iof(ref, channel, source, payload, info, ninfo):
        try:
            src = unload_proc(source.contents) if source else None
            data = _unload_bo(payload.contents) if payload else {"bytes": b"", "size": 0}
            pyinfo = unload_info_array(info, ninfo) if info else []
            try:
                _run_user(hdlr, int(ref), int(channel), src, data, pyinfo)
            except BaseException:
                report("the IOF handler %r" % getattr(hdlr, "__name__", hdlr))
        except BaseException:
            report("the IOF handler trampoline")

    return pmix_iof_cbfunc_t(_iof)
