"""The rest of the client API as a Python user sees it: values of every type
through put/get, store_internal, publish/lookup/unpublish, resolve, events,
log, spawn, strings (queries and groups: dynamic.py). Run as ranks: ``client_api.py <scenario>``."""

import os
import socket
import time
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Waiter, check, check_eq, check_rc, info, main  # noqa: E402
from pmix import *  # noqa: E402,F401,F403

WAIT = [info(PMIX_TIMEOUT, 10, PMIX_INT)]

# (key, value dict) posted by every rank; a peer reads each back
TYPED = [
    ("t-bool", {"value": True, "val_type": PMIX_BOOL}),
    ("t-byte", {"value": 255, "val_type": PMIX_BYTE}),
    ("t-string", {"value": "h\u00e9llo w\u00f6rld", "val_type": PMIX_STRING}),
    ("t-size", {"value": 2**40 + 3, "val_type": PMIX_SIZE}),
    ("t-pid", {"value": 12345, "val_type": PMIX_PID}),
    ("t-int", {"value": -42, "val_type": PMIX_INT}),
    ("t-int8", {"value": -128, "val_type": PMIX_INT8}),
    ("t-int16", {"value": -32768, "val_type": PMIX_INT16}),
    ("t-int32", {"value": -(2**31), "val_type": PMIX_INT32}),
    ("t-int64", {"value": -(2**63), "val_type": PMIX_INT64}),
    ("t-uint", {"value": 2**32 - 1, "val_type": PMIX_UINT}),
    ("t-uint8", {"value": 200, "val_type": PMIX_UINT8}),
    ("t-uint16", {"value": 65535, "val_type": PMIX_UINT16}),
    ("t-uint32", {"value": 2**32 - 2, "val_type": PMIX_UINT32}),
    ("t-uint64", {"value": 2**64 - 1, "val_type": PMIX_UINT64}),
    ("t-float", {"value": 0.5, "val_type": PMIX_FLOAT}),
    ("t-double", {"value": -1.25, "val_type": PMIX_DOUBLE}),
    ("t-timeval", {"value": {"sec": 17, "usec": 42}, "val_type": PMIX_TIMEVAL}),
    ("t-time", {"value": 1700000000, "val_type": PMIX_TIME}),
    ("t-status", {"value": PMIX_ERR_TIMEOUT, "val_type": PMIX_STATUS}),
    ("t-rank", {"value": 7, "val_type": PMIX_PROC_RANK}),
    ("t-proc", {"value": {"nspace": "some.nspace", "rank": 3}, "val_type": PMIX_PROC}),
    ("t-bo", {"value": {"bytes": b"\x00\xffbin\x00ary", "size": 9}, "val_type": PMIX_BYTE_OBJECT}),
    ("t-persist", {"value": PMIX_PERSIST_SESSION, "val_type": PMIX_PERSIST}),
    ("t-scope", {"value": PMIX_GLOBAL, "val_type": PMIX_SCOPE}),
    ("t-range", {"value": PMIX_RANGE_NAMESPACE, "val_type": PMIX_DATA_RANGE}),
    ("t-envar", {"value": {"envar": "PATH", "value": "/opt/bin", "separator": ":"}, "val_type": PMIX_ENVAR}),
    ("t-arr-int", {"value": {"type": PMIX_INT, "array": [1, -2, 3]}, "val_type": PMIX_DATA_ARRAY}),
    ("t-arr-str", {"value": {"type": PMIX_STRING, "array": ["a", "bc", ""]}, "val_type": PMIX_DATA_ARRAY}),
    ("t-arr-u64", {"value": {"type": PMIX_UINT64, "array": [2**63, 0]}, "val_type": PMIX_DATA_ARRAY}),
    ("t-arr-proc",
     {"value": {"type": PMIX_PROC, "array": [{"nspace": "x", "rank": 1}, {"nspace": "y", "rank": 2}]},
      "val_type": PMIX_DATA_ARRAY}),
    ("t-arr-info",
     {"value": {"type": PMIX_INFO, "array": [{"key": "in1", "flags": 0, "value": 5, "val_type": PMIX_UINT32},
                                             {"key": "in2", "flags": 0, "value": "s", "val_type": PMIX_STRING}]},
      "val_type": PMIX_DATA_ARRAY}),
]


def put_types(ctx):
    """Every value type survives put -> collecting fence -> a peer's get."""
    foo = ctx.foo
    for key, val in TYPED:
        check_rc(foo, foo.put(PMIX_GLOBAL, key, val), PMIX_SUCCESS, "put %s" % key)
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit")
    check_rc(foo, foo.fence(None, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]), PMIX_SUCCESS, "fence")
    for key, val in TYPED:
        rc, got = foo.get(ctx.peer(), key, WAIT)
        check_eq((rc, got), (PMIX_SUCCESS, val), "peer's %s" % key)
    ctx.barrier()


def store_internal(ctx):
    """store_internal keeps a value that only this process can get."""
    foo = ctx.foo
    val = {"value": "internal-%d" % ctx.rank, "val_type": PMIX_STRING}
    check_rc(foo, foo.store_internal(ctx.me, "ikey", val), PMIX_SUCCESS, "store_internal")
    rc, got = foo.get(ctx.me, "ikey", [info(PMIX_OPTIONAL, True, PMIX_BOOL)])
    check_eq((rc, got), (PMIX_SUCCESS, val), "get(me, ikey)")
    ctx.barrier()


def _publish_lookup(ctx, together):
    foo = ctx.foo
    key = "pykey-%s" % ctx.ns
    if ctx.rank == 0:
        rc = foo.publish([info(key, "published by 0", PMIX_STRING), info(key + "-n", 99, PMIX_INT)])
        check_rc(foo, rc, PMIX_SUCCESS, "publish")
    ctx.barrier()
    if ctx.rank == 1:
        want = [
            {"proc": {"nspace": ctx.ns, "rank": 0}, "key": key, "value": "published by 0", "val_type": PMIX_STRING},
            {"proc": {"nspace": ctx.ns, "rank": 0}, "key": key + "-n", "value": 99, "val_type": PMIX_INT},
        ]
        if together:
            rc, res = foo.lookup([key, {"key": key + "-n"}], [info(PMIX_TIMEOUT, 10, PMIX_INT)])
            check_rc(foo, rc, PMIX_SUCCESS, "lookup of two keys")
            check_eq(res, want, "one entry per key, with the publisher")
        else:
            for k, w in zip((key, {"key": key + "-n"}), want):
                rc, res = foo.lookup([k], [info(PMIX_TIMEOUT, 10, PMIX_INT)])
                check_rc(foo, rc, PMIX_SUCCESS, "lookup %r" % (k,))
                check_eq(res, [w], "the value, with the publisher")
    ctx.barrier()
    if ctx.rank == 0:
        check_rc(foo, foo.unpublish([key, key + "-n"], None), PMIX_SUCCESS, "unpublish")
    ctx.barrier()


def publish_lookup(ctx):
    """publish / lookup (one key per call) / unpublish, blocking forms."""
    _publish_lookup(ctx, False)


def publish_lookup_multi(ctx):
    """lookup of several keys in one call answers one entry per key."""
    _publish_lookup(ctx, True)


def publish_lookup_nb(ctx):
    """publish_nb / lookup_nb / unpublish_nb with callbacks."""
    foo = ctx.foo
    key = "pynb-%s" % ctx.ns
    if ctx.rank == 0:
        w = Waiter()
        rc = foo.publish_nb([info(key, "nb-value", PMIX_STRING)], w, "pub")
        check_rc(foo, rc, PMIX_SUCCESS, "publish_nb accepted")
        check(w.wait() and w.calls[0] == (PMIX_SUCCESS, "pub"), "publish_nb callback: %r" % w.calls)
    ctx.barrier()
    if ctx.rank == 1:
        w = Waiter()
        rc = foo.lookup_nb([key], [info(PMIX_TIMEOUT, 10, PMIX_INT)], w, "look")
        check_rc(foo, rc, PMIX_SUCCESS, "lookup_nb accepted")
        check(w.wait(), "lookup_nb callback ran")
        want = (PMIX_SUCCESS,
                [{"proc": {"nspace": ctx.ns, "rank": 0}, "key": key, "value": "nb-value", "val_type": PMIX_STRING}], "look")
        check_eq(w.calls[:1], [want], "lookup_nb result")
    ctx.barrier()
    if ctx.rank == 0:
        w = Waiter()
        rc = foo.unpublish_nb([key], None, w, None)
        check_rc(foo, rc, PMIX_SUCCESS, "unpublish_nb accepted")
        check(w.wait() and w.calls[0][0] == PMIX_SUCCESS, "unpublish_nb callback")
    ctx.barrier()


def resolve(ctx):
    """resolve_peers and resolve_nodes for the job on this host."""
    foo = ctx.foo
    rc, peers = foo.resolve_peers(None, ctx.ns)
    check_rc(foo, rc, PMIX_SUCCESS, "resolve_peers(None, ns)")
    want = [{"nspace": ctx.ns, "rank": r} for r in range(ctx.size)]
    check_eq(sorted(peers, key=lambda p: p["rank"]), want, "every rank of the job")
    rc, host = foo.get(ctx.me, PMIX_HOSTNAME, [])
    if rc == PMIX_SUCCESS:
        rc, peers2 = foo.resolve_peers(host["value"], ctx.ns)
        check_eq((rc, len(peers2)), (PMIX_SUCCESS, ctx.size), "resolve_peers(my host, ns)")
    rc, nodes = foo.resolve_nodes(ctx.ns)
    check_rc(foo, rc, PMIX_SUCCESS, "resolve_nodes(ns)")
    check(isinstance(nodes, str) and len(nodes.split(",")) == 1, "one node: %r" % nodes)
    if rc == PMIX_SUCCESS and host:
        check(host["value"] in nodes.split(",") or socket.gethostname() in nodes, "our host is listed")


CODE = PMIX_EXTERNAL_ERR_BASE - 7


def _events(ctx, rng, raising=False):
    foo = ctx.foo
    got = []
    seen = threading.Event()

    def hdlr(evhdlr_id, status, source, pyinfo, results):
        got.append((status, source, [(i["key"], i["value"]) for i in pyinfo if i["key"] == "evkey"]))
        seen.set()
        if raising:
            raise KeyError("boom in event handler (expected by the test)")
        return PMIX_EVENT_ACTION_COMPLETE, []

    rc, ref = foo.register_event_handler([CODE], None, hdlr)
    check_rc(foo, rc, PMIX_SUCCESS, "register_event_handler")
    check(isinstance(ref, int) and ref >= 0, "a handler reference (%r)" % ref)
    ctx.barrier()
    if ctx.rank == 0:
        rc = foo.notify_event(CODE, ctx.me, rng, [info("evkey", 5, PMIX_INT)])
        check_rc(foo, rc, PMIX_SUCCESS, "notify_event")
    check(seen.wait(10), "handler ran")
    if got:
        check_eq(got[0], (CODE, ctx.procs0, [("evkey", 5)]), "status, source and info delivered")
    ctx.barrier()
    check_rc(foo, foo.deregister_event_handler(ref), PMIX_SUCCESS, "deregister_event_handler")
    ctx.barrier()


def events_local(ctx):
    """A handler for a custom code sees a PMIX_RANGE_LOCAL notification."""
    ctx.procs0 = {"nspace": ctx.ns, "rank": 0}
    _events(ctx, PMIX_RANGE_LOCAL)


def events_namespace(ctx):
    """Same, with PMIX_RANGE_NAMESPACE."""
    ctx.procs0 = {"nspace": ctx.ns, "rank": 0}
    _events(ctx, PMIX_RANGE_NAMESPACE)


def event_handler_exception(ctx):
    """A raising handler is reported; events and collectives keep working."""
    ctx.procs0 = {"nspace": ctx.ns, "rank": 0}
    _events(ctx, PMIX_RANGE_LOCAL, raising=True)
    check_rc(ctx.foo, ctx.foo.fence(None, None), PMIX_SUCCESS, "fence after a raising handler")


def event_registration_nb(ctx):
    """register_event_handler with a registration callback."""
    foo = ctx.foo
    w = Waiter()
    rc, _ = foo.register_event_handler([CODE - 1], [], lambda *a: None, w, "reg")
    check_rc(foo, rc, PMIX_SUCCESS, "registration accepted")
    check(w.wait(), "registration callback ran")
    if w.calls:
        status, ref, data = w.calls[0]
        check(status == PMIX_SUCCESS and ref >= 0 and data == "reg", "callback (status, refid, cbdata) = %r" % (w.calls[0],))
        w2 = Waiter()
        rc = foo.deregister_event_handler(ref, w2, "dereg")
        check_rc(foo, rc, PMIX_SUCCESS, "deregistration accepted")
        check(w2.wait() and w2.calls[0] == (PMIX_SUCCESS, "dereg"), "deregistration callback: %r" % w2.calls)


def log(ctx):
    """log to stderr (blocking and non-blocking)."""
    foo = ctx.foo
    rc = foo.log([info(PMIX_LOG_STDERR, "pmix python log line from rank %d\n" % ctx.rank, PMIX_STRING)], [])
    check_rc(foo, rc, PMIX_SUCCESS, "log")
    w = Waiter()
    rc = foo.log_nb([info(PMIX_LOG_STDERR, "pmix python log_nb line from rank %d\n" % ctx.rank, PMIX_STRING)], None,
                    w, None)
    check_rc(foo, rc, PMIX_SUCCESS, "log_nb accepted")
    check(w.wait() and w.calls[0][0] == PMIX_SUCCESS, "log_nb callback: %r" % w.calls)
    ctx.barrier()


def spawn(ctx):
    """spawn a child job; it gets a new namespace."""
    foo = ctx.foo
    if ctx.rank == 0:
        rc, ns = foo.spawn([], [{"cmd": "/bin/true", "argv": ["/bin/true"], "maxprocs": 1}])
        check_rc(foo, rc, PMIX_SUCCESS, "spawn /bin/true")
        check(isinstance(ns, str) and ns and ns != ctx.ns, "a new namespace: %r" % ns)
        w = Waiter()
        rc = foo.spawn_nb(None, [{"cmd": "/bin/true", "maxprocs": 1}], w, None)
        check_rc(foo, rc, PMIX_SUCCESS, "spawn_nb accepted")
        check(w.wait(30), "spawn_nb callback ran")
        if w.calls:
            st, ns2, _ = w.calls[0]
            check(st == PMIX_SUCCESS and ns2 and ns2 not in (ns, ctx.ns), "spawn_nb: %r" % (w.calls[0],))
    ctx.barrier()


def strings(ctx):
    """The string helpers answer with str."""
    foo = ctx.foo
    check(foo.error_string(PMIX_ERR_BAD_PARAM), "error_string: %r" % foo.error_string(PMIX_ERR_BAD_PARAM))
    check(foo.error_string(PMIX_SUCCESS), "error_string(SUCCESS)")
    check(foo.data_type_string(PMIX_INT), "data_type_string")
    check(foo.scope_string(PMIX_GLOBAL), "scope_string")
    check(foo.data_range_string(PMIX_RANGE_NAMESPACE), "data_range_string")
    check(foo.proc_state_string(PMIX_PROC_STATE_RUNNING), "proc_state_string")
    check(foo.persistence_string(PMIX_PERSIST_SESSION), "persistence_string")
    for name, arg in (("alloc_directive_string", PMIX_ALLOC_EXTEND), ("iof_channel_string", PMIX_FWD_STDOUT_CHANNEL),
                      ("job_state_string", PMIX_JOB_STATE_RUNNING), ("link_state_string", PMIX_LINK_UP),
                      ("device_type_string", PMIX_DEVTYPE_GPU), ("value_comparison_string", PMIX_EQUAL)):
        s = getattr(foo, name)(arg)
        check(isinstance(s, str) and s, "%s(%d): %r" % (name, arg, s))
    s = foo.info_directives_string(PMIX_INFO_REQD)
    check(isinstance(s, str) and s, "info_directives_string(PMIX_INFO_REQD): %r" % s)
    check_eq(foo.get_attribute_string("PMIX_TIMEOUT"), PMIX_TIMEOUT, "get_attribute_string")
    check_eq(foo.get_attribute_name(PMIX_TIMEOUT), "PMIX_TIMEOUT", "get_attribute_name")
    check_eq(foo.error_code("PMIX_ERR_BAD_PARAM"), PMIX_ERR_BAD_PARAM, "error_code")
    v = foo.get_version()
    check(isinstance(v, str) and v, "get_version: %r" % v)
    check(foo.initialized() is True, "initialized() after init")
    check(foo.progress() is None, "progress() returns")
    rc = foo.heartbeat()
    check(rc in (PMIX_SUCCESS, PMIX_ERR_NOT_SUPPORTED), "heartbeat: %s" % foo.error_string(rc))


def results_shapes(ctx):
    """Calls a host may not support still return well-formed results."""
    foo = ctx.foo
    for name, call in (
        ("job_control", lambda: foo.job_control(ctx.wild, [])),
        ("allocation_request", lambda: foo.allocation_request(PMIX_ALLOC_NEW, [info(PMIX_ALLOC_NUM_NODES, 1, PMIX_UINT64)])),
        ("get_credential", lambda: foo.get_credential([])),
        ("validate_credential", lambda: foo.validate_credential(b"junk", [])),
        ("monitor", lambda: foo.monitor(info(PMIX_MONITOR_HEARTBEAT, True, PMIX_BOOL), PMIX_MONITOR_HEARTBEAT_ALERT, [])),
    ):
        rc, out = call()
        check(isinstance(rc, int) and rc <= 0 and isinstance(out, (list, dict)), "%s -> (%s, %r)" % (name, foo.error_string(rc), type(out).__name__))
    units = [{"type": PMIX_DEVTYPE_GPU, "count": 1}]
    rc = foo.resource_block(PMIX_RESOURCE_BLOCK_DEFINE, "pyblock", units, None)
    check(isinstance(rc, int) and rc <= 0, "resource_block -> %s" % foo.error_string(rc))
    w = Waiter()
    rc = foo.resource_block_nb(PMIX_RESOURCE_BLOCK_DEFINE, "pyblock", units, None, w, None)
    if rc == PMIX_SUCCESS:
        check(w.wait(), "resource_block_nb called back")
    else:
        check(rc < 0 and not w.settle(0.2), "resource_block_nb refused (%s), no callback" % foo.error_string(rc))
    ctx.barrier()


def lifecycle_scenario(foo):
    """initialized() before init, after init and after finalize."""
    check(foo.initialized() is False, "not initialized before init")
    check_rc(foo, foo.fence(None, None), PMIX_ERR_INIT, "fence before init")
    check_rc(foo, foo.get(None, PMIX_JOB_SIZE, None)[0], PMIX_ERR_INIT, "get before init")
    rc, me = foo.init()
    check_rc(foo, rc, PMIX_SUCCESS, "init()")
    check(set(me) == {"nspace", "rank"}, "myproc is a proc dict: %r" % me)
    check(foo.initialized() is True, "initialized after init")
    rc, me2 = foo.init([])
    check_rc(foo, rc, PMIX_SUCCESS, "a second init(dicts=[])")
    check_eq(me2, me, "same identity")
    check_rc(foo, foo.finalize(), PMIX_SUCCESS, "finalize")
    check_rc(foo, foo.finalize([]), PMIX_SUCCESS, "finalize the second init")
    check(foo.initialized() is False, "not initialized after the last finalize")
    check_rc(foo, foo.put(PMIX_GLOBAL, "late", {"value": 1, "val_type": PMIX_INT}), PMIX_ERR_INIT, "put after finalize")
    check_rc(foo, foo.fence_nb(None, None, lambda *a: None), PMIX_ERR_INIT, "fence_nb after finalize")


def abort(ctx):
    """abort from rank 0 ends the job; the others are left blocked in a fence."""
    foo = ctx.foo
    if ctx.rank == 0:
        check(True, "rank 0 aborting")
        rc = foo.abort(3, "python abort test", None)
        # the host may let the call return before it acts
        time.sleep(30)
        check(False, "still alive 30 s after abort (rc %r)" % rc)
    else:
        foo.fence(None, None)
        check(False, "fence returned although rank 0 aborted")


SCENARIOS = {
    f.__name__: f
    for f in (put_types, store_internal, publish_lookup, publish_lookup_multi, publish_lookup_nb, resolve, events_local, events_namespace,
              event_handler_exception, event_registration_nb, log, spawn, strings, results_shapes, abort)
}
NOINIT = {"lifecycle": lifecycle_scenario}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in NOINIT:
        sys.exit(main(NOINIT, init=False))
    sys.exit(main({**SCENARIOS, **NOINIT}) if len(sys.argv) < 2 or sys.argv[1] == "--list" else main(SCENARIOS))
