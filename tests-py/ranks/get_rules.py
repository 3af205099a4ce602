"""PMIx_Get / PMIx_Get_nb page (seeds/000): its Python example and its rules,
one scenario per rule. Run as ranks: ``get_rules.py <scenario>``."""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    Waiter,
    say,
    check,
    check_eq,
    check_rc,
    info,
    main,
)
from pmix import *  # noqa: E402,F401,F403

OPTIONAL = info(PMIX_OPTIONAL, True, PMIX_BOOL)
IMMEDIATE = info(PMIX_IMMEDIATE, True, PMIX_BOOL)


def _post(ctx, key="mykey", scope=PMIX_GLOBAL):
    foo = ctx.foo
    val = {"value": "value-of-%d" % ctx.rank, "val_type": PMIX_STRING}
    check_rc(foo, foo.put(scope, key, val), PMIX_SUCCESS, "put %s" % key)
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit")
    rc = foo.fence(ctx.wild, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)])
    check_rc(foo, rc, PMIX_SUCCESS, "collecting fence")


def example(ctx):
    """The page's Python Syntax, with the job's own namespace for "testnspace"."""
    foo = ctx.foo
    _post(ctx)
    # the proc is a Python ``pmix_proc_t`` dictionary
    proc = {"nspace": ctx.ns, "rank": 0}
    # the directives is a list of Python ``pmix_info_t`` dictionaries
    pydirs = [{"key": PMIX_TIMEOUT, "value": 10, "val_type": PMIX_INT}]
    rc, value = foo.get(proc, "mykey", pydirs)
    check_rc(foo, rc, PMIX_SUCCESS, "get(rank 0, mykey)")
    check_eq(value, {"value": "value-of-0", "val_type": PMIX_STRING}, "value is a pmix_value_t dict")

    calls = Waiter()

    def valuecb(status, value, cbdata):
        say("get completed:", foo.error_string(status), value)
        calls(status, value, cbdata)

    cbdata = "mycbdata"
    rc = foo.get_nb(proc, "mykey", pydirs, valuecb, cbdata)
    check_rc(foo, rc, PMIX_SUCCESS, "get_nb accepted")
    check(calls.wait(), "valuecb ran")
    got = calls.settle()
    check_eq(len(got), 1, "valuecb ran exactly once")
    if got:
        status, value, data = got[0]
        check_rc(foo, status, PMIX_SUCCESS, "valuecb status")
        check_eq(value, {"value": "value-of-0", "val_type": PMIX_STRING}, "valuecb value")
        check(data is cbdata, "cbdata passed back unmodified (same object)")
        check(calls.thread_ids[0] != threading.main_thread().ident, "valuecb ran on the progress thread, not ours")
    ctx.barrier()


def null_proc(ctx):
    """A NULL proc is the caller's own identifier."""
    foo = ctx.foo
    mine = {"value": 4200 + ctx.rank, "val_type": PMIX_INT}
    check_rc(foo, foo.put(PMIX_LOCAL, "selfkey", mine), PMIX_SUCCESS, "put selfkey")
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit")
    rc, v = foo.get(None, "selfkey", [])
    check_rc(foo, rc, PMIX_SUCCESS, "get(None, selfkey)")
    check_eq(v, mine, "get(None) returns the caller's own value")
    rc1, v1 = foo.get(None, PMIX_LOCAL_RANK, [])
    rc2, v2 = foo.get(ctx.me, PMIX_LOCAL_RANK, [])
    check_rc(foo, rc1, PMIX_SUCCESS, "get(None, PMIX_LOCAL_RANK)")
    check(rc1 == rc2 and v1 == v2, "get(None, LOCAL_RANK) == get(me, LOCAL_RANK) (%r vs %r)" % (v1, v2))
    ctx.barrier()


def wildcard(ctx):
    """A rank of PMIX_RANK_WILDCARD retrieves job-level information."""
    foo = ctx.foo
    want = int(os.environ.get("PMIX_TEST_NP", "0"))
    rc, v = foo.get({"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
    check_rc(foo, rc, PMIX_SUCCESS, "get(WILDCARD, PMIX_JOB_SIZE)")
    check_eq(v, {"value": want, "val_type": PMIX_UINT32}, "job size is the number of ranks launched")
    rc, v = foo.get({"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}, PMIX_NSPACE, [])
    if rc == PMIX_SUCCESS:
        check_eq(v and v["value"], ctx.ns, "PMIX_NSPACE at WILDCARD is the namespace")
    ctx.barrier()


def self_referential(ctx):
    """PMIX_RANK and PMIX_PROCID are asked by leaving part of proc unspecified."""
    foo = ctx.foo
    rc, v = foo.get({"nspace": ctx.ns, "rank": PMIX_RANK_INVALID}, PMIX_RANK, [])
    check_rc(foo, rc, PMIX_SUCCESS, "get({own ns, RANK_INVALID}, PMIX_RANK)")
    check_eq(v, {"value": ctx.rank, "val_type": PMIX_PROC_RANK}, "own rank as a PMIX_PROC_RANK")
    rc, v = foo.get(None, PMIX_PROCID, [])
    check_rc(foo, rc, PMIX_SUCCESS, "get(None, PMIX_PROCID)")
    check_eq(v, {"value": ctx.me, "val_type": PMIX_PROC}, "own proc id as a PMIX_PROC")
    for who, proc in (("self", ctx.me), ("peer", ctx.peer())):
        rc, v = foo.get(proc, PMIX_RANK, [])
        check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "get(%s fully specified, PMIX_RANK)" % who)
        check(v is None, "no value with NOT_FOUND")
        rc, v = foo.get(proc, PMIX_PROCID, [])
        check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "get(%s fully specified, PMIX_PROCID)" % who)
    ctx.barrier()


def reserved_keys(ctx):
    """Commonly available reserved keys, with the types the page gives:
    process-level ones for the proc, job-level ones at PMIX_RANK_WILDCARD
    (every rank runs on one node here)."""
    foo = ctx.foo
    n = int(os.environ.get("PMIX_TEST_NP", "0"))
    wild = {"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}
    got = {}
    for who, proc, key, vt in (
        ("proc", ctx.me, PMIX_LOCAL_RANK, PMIX_UINT16),
        ("proc", ctx.me, PMIX_NODE_RANK, PMIX_UINT16),
        ("proc", ctx.me, PMIX_HOSTNAME, PMIX_STRING),
        ("proc", ctx.me, PMIX_GLOBAL_RANK, PMIX_PROC_RANK),
        ("proc", ctx.me, PMIX_NODEID, PMIX_UINT32),
        ("proc", ctx.me, PMIX_APPNUM, PMIX_UINT32),
        ("peer", ctx.peer(), PMIX_LOCAL_RANK, PMIX_UINT16),
        ("job", wild, PMIX_JOB_SIZE, PMIX_UINT32),
        ("job", wild, PMIX_LOCAL_SIZE, PMIX_UINT32),
        ("job", wild, PMIX_LOCAL_PEERS, PMIX_STRING),
        ("job", wild, PMIX_UNIV_SIZE, PMIX_UINT32),
        ("job", wild, PMIX_NUM_NODES, PMIX_UINT32),
        ("job", wild, PMIX_NODE_LIST, PMIX_STRING),
        ("job", wild, PMIX_MAX_PROCS, PMIX_UINT32),
    ):
        rc, v = foo.get(proc, key, [])
        check(rc == PMIX_SUCCESS and v is not None and v["val_type"] == vt,
              "%s %s: %s %r (want type %d)" % (who, key, foo.error_string(rc), v, vt))
        if rc == PMIX_SUCCESS and v:
            got[(who, key)] = v["value"]
    want = {
        ("proc", PMIX_LOCAL_RANK): ctx.rank,
        ("proc", PMIX_NODE_RANK): ctx.rank,
        ("proc", PMIX_GLOBAL_RANK): ctx.rank,
        ("proc", PMIX_APPNUM): 0,
        ("peer", PMIX_LOCAL_RANK): ctx.peer()["rank"],
        ("job", PMIX_JOB_SIZE): n,
        ("job", PMIX_LOCAL_SIZE): n,
        ("job", PMIX_NUM_NODES): 1,
    }
    for k, w in want.items():
        check_eq(got.get(k), w, "%s %s" % k)
    peers = got.get(("job", PMIX_LOCAL_PEERS))
    check(peers is not None and sorted(int(x) for x in peers.split(",")) == list(range(n)), "local peers %r" % peers)
    check(got.get(("job", PMIX_NODE_LIST)) == got.get(("proc", PMIX_HOSTNAME)), "the node list is our host")
    # slots, not processes: an oversubscribed launch may have fewer
    check(got.get(("job", PMIX_UNIV_SIZE), 0) >= 1 and got.get(("job", PMIX_MAX_PROCS), 0) >= 1, "slot counts >= 1")
    ctx.barrier()


def level_directives(ctx):
    """PMIX_JOB_INFO / PMIX_NODE_INFO / PMIX_SESSION_INFO select the level."""
    foo = ctx.foo
    n = int(os.environ.get("PMIX_TEST_NP", "0"))
    wild = {"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}
    for key, level in ((PMIX_JOB_SIZE, PMIX_JOB_INFO), (PMIX_LOCAL_SIZE, PMIX_NODE_INFO),
                       (PMIX_UNIV_SIZE, PMIX_SESSION_INFO)):
        rc, v = foo.get(wild, key, [info(level, True, PMIX_BOOL)])
        check(rc == PMIX_SUCCESS and v and v["value"] >= (1 if level == PMIX_SESSION_INFO else n), "%s with %s: %s %r" % (key, level, foo.error_string(rc), v))
    ctx.barrier()


def storage_directives(ctx):
    """From Python every value is a copy: POINTER/STATIC directives are accepted."""
    foo = ctx.foo
    _post(ctx)
    want = {"value": "value-of-%d" % ctx.peer()["rank"], "val_type": PMIX_STRING}
    for d in (PMIX_GET_POINTER_VALUES, PMIX_GET_STATIC_VALUES):
        for _ in range(3):
            rc, v = foo.get(ctx.peer(), "mykey", [info(d, True, PMIX_BOOL)])
        check_eq((rc, v), (PMIX_SUCCESS, want), "get with %s" % d)
    rc, v = foo.get(ctx.peer(), "mykey", [])
    check_eq((rc, v), (PMIX_SUCCESS, want), "the store is intact afterwards")
    ctx.barrier()


def deleted_key(ctx):
    """A key retracted with a PMIX_DEL_* scope is NOT_FOUND once the removal
    has been committed and carried by a collecting fence."""
    foo = ctx.foo
    collect = [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]
    foo.put(PMIX_GLOBAL, "delkey", {"value": ctx.rank, "val_type": PMIX_INT})
    foo.commit()
    foo.fence(None, collect)
    rc, v = foo.get(ctx.peer(), "delkey", [info(PMIX_TIMEOUT, 10, PMIX_INT)])
    check_eq((rc, v and v["value"]), (PMIX_SUCCESS, ctx.peer()["rank"]), "peer's key before the deletion")
    foo.fence(None, None)
    check_rc(foo, foo.put(PMIX_DEL_GLOBAL, "delkey", None), PMIX_SUCCESS, "put(PMIX_DEL_GLOBAL, key, None)")
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit the deletion")
    foo.fence(None, collect)
    rc, v = foo.get(ctx.peer(), "delkey", [info(PMIX_IMMEDIATE, True, PMIX_BOOL)])
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "peer's key after the deletion")
    rc, v = foo.get(ctx.me, "delkey", [info(PMIX_OPTIONAL, True, PMIX_BOOL)])
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "own key after the deletion")
    ctx.barrier()


def version_numeric(ctx):
    """PMIX_VERSION_NUMERIC reports the library's version and ignores proc."""
    foo = ctx.foo
    results = []
    for proc in (None, ctx.me, ctx.peer(), {"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}):
        rc, v = foo.get(proc, PMIX_VERSION_NUMERIC, [])
        check_rc(foo, rc, PMIX_SUCCESS, "get(%r, PMIX_VERSION_NUMERIC)" % (proc,))
        results.append(v)
    check(results[0] is not None and all(r == results[0] for r in results), "same answer for every proc: %r" % results)


def optional(ctx):
    """PMIX_OPTIONAL: look only in the local store."""
    foo = ctx.foo
    _post(ctx)
    t = time.monotonic()
    rc, v = foo.get(ctx.peer(), "never-posted", [OPTIONAL])
    dt = time.monotonic() - t
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "OPTIONAL get of a key nobody posted")
    check(v is None, "no value")
    check(dt < 5.0, "answered without waiting (%.2fs)" % dt)
    rc, v = foo.get(ctx.me, "mykey", [OPTIONAL])
    check_rc(foo, rc, PMIX_SUCCESS, "OPTIONAL get of the caller's own key")
    check_eq(v, {"value": "value-of-%d" % ctx.rank, "val_type": PMIX_STRING}, "own value")
    ctx.barrier()


def immediate(ctx):
    """PMIX_IMMEDIATE: the server answers from its store, at once."""
    foo = ctx.foo
    _post(ctx)
    t = time.monotonic()
    rc, v = foo.get(ctx.peer(), "never-posted", [IMMEDIATE])
    dt = time.monotonic() - t
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "IMMEDIATE get of a key nobody posted")
    check(dt < 5.0, "answered without waiting (%.2fs)" % dt)
    rc, v = foo.get(ctx.peer(), "mykey", [IMMEDIATE])
    check_rc(foo, rc, PMIX_SUCCESS, "IMMEDIATE get of a collected key")
    check_eq(v, {"value": "value-of-%d" % ctx.peer()["rank"], "val_type": PMIX_STRING}, "peer's value")
    ctx.barrier()


def timeout(ctx):
    """PMIX_TIMEOUT bounds a get that can never be satisfied."""
    foo = ctx.foo
    t = time.monotonic()
    rc, v = foo.get(ctx.peer(), "never-posted-%d" % ctx.rank, [info(PMIX_TIMEOUT, 1, PMIX_INT)])
    dt = time.monotonic() - t
    check_rc(foo, rc, PMIX_ERR_TIMEOUT, "get with PMIX_TIMEOUT=1 of a key nobody posts")
    check(v is None, "no value")
    check(0.5 <= dt < 10.0, "returned after about a second (%.2fs)" % dt)
    ctx.barrier()


def overlong_key(ctx):
    """A key longer than PMIX_MAX_KEYLEN is PMIX_ERR_BAD_PARAM."""
    foo = ctx.foo
    long_key = "k" * (PMIX_MAX_KEYLEN + 1)
    rc, v = foo.get(ctx.me, long_key, [])
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "get with a %d-byte key" % len(long_key))
    check(v is None, "no value")
    rc, v = foo.get(ctx.me, "k" * PMIX_MAX_KEYLEN, [OPTIONAL])
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "a key of exactly PMIX_MAX_KEYLEN is legal (not found)")
    calls = Waiter()
    rc = foo.get_nb(ctx.me, long_key, [], calls, None)
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "get_nb with an over-length key")
    check_eq(len(calls.settle()), 0, "no callback after a rejected get_nb")
    rc = foo.put(PMIX_GLOBAL, long_key, {"value": 1, "val_type": PMIX_INT})
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "put with an over-length key")
    rc, v = foo.get(ctx.me, "mykey", [info(long_key, True, PMIX_BOOL)])
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "a directive with an over-length key")
    ctx.barrier()


def nb_not_found(ctx):
    """get_nb: callback iff SUCCESS, exactly once, value None when not found."""
    foo = ctx.foo
    calls = Waiter()
    marker = object()
    rc = foo.get_nb(ctx.peer(), "never-posted", [OPTIONAL], calls, marker)
    if rc == PMIX_SUCCESS:
        check(calls.wait(), "callback ran after an accepted get_nb")
        got = calls.settle()
        check_eq(len(got), 1, "callback ran exactly once")
        if got:
            status, value, data = got[0]
            check_rc(foo, status, PMIX_ERR_NOT_FOUND, "callback status")
            check(value is None, "value is None when the key was not found (%r)" % (value,))
            check(data is marker, "cbdata passed back unmodified")
    else:
        check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "get_nb refused at once")
        check_eq(len(calls.settle()), 0, "no callback when get_nb did not return SUCCESS")
    ctx.barrier()


def nb_null_cbfunc(ctx):
    """get_nb has no way to hand back a value without a callback: BAD_PARAM."""
    foo = ctx.foo
    rc = foo.get_nb(ctx.me, PMIX_LOCAL_RANK, [], None)
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "get_nb with a NULL cbfunc")
    ctx.barrier()


def null_key(ctx):
    """A NULL key requests all data posted by the process."""
    foo = ctx.foo
    _post(ctx)
    rc, v = foo.get(ctx.peer(), None, [])
    check_rc(foo, rc, PMIX_SUCCESS, "get(peer, None)")
    check(v is not None and v["val_type"] == PMIX_DATA_ARRAY, "a data array (%r)" % (v and v["val_type"]))
    if v and v["val_type"] == PMIX_DATA_ARRAY:
        arr = v["value"]
        check_eq(arr["type"], PMIX_INFO, "of infos")
        found = [x for x in arr["array"] if x["key"] == "mykey"]
        check(len(found) == 1 and found[0]["value"] == "value-of-%d" % ctx.peer()["rank"], "holding the peer's mykey")
    ctx.barrier()


def refresh_cache(ctx):
    """PMIX_GET_REFRESH_CACHE picks up a value re-posted after the first read."""
    foo = ctx.foo
    if ctx.size < 2:
        check(False, "needs two ranks")
        return
    fence_collect = [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]
    if ctx.rank == 1:
        foo.put(PMIX_GLOBAL, "rkey", {"value": 1, "val_type": PMIX_INT})
        foo.commit()
    check_rc(foo, foo.fence(None, fence_collect), PMIX_SUCCESS, "fence 1")
    if ctx.rank == 0:
        rc, v = foo.get({"nspace": ctx.ns, "rank": 1}, "rkey", [])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 1), "first read")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence 2")
    if ctx.rank == 1:
        foo.put(PMIX_GLOBAL, "rkey", {"value": 2, "val_type": PMIX_INT})
        foo.commit()
        check(True, "re-posted rkey")
    check_rc(foo, foo.fence(None, fence_collect), PMIX_SUCCESS, "fence 3")
    if ctx.rank == 0:
        rc, v = foo.get({"nspace": ctx.ns, "rank": 1}, "rkey", [info(PMIX_GET_REFRESH_CACHE, True, PMIX_BOOL)])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 2), "read with PMIX_GET_REFRESH_CACHE")
    ctx.barrier()


def cached_value(ctx):
    """Values from another process are cached: a re-post is not seen without a refresh."""
    foo = ctx.foo
    fence_collect = [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]
    if ctx.rank == 1:
        foo.put(PMIX_GLOBAL, "ckey", {"value": 1, "val_type": PMIX_INT})
        foo.commit()
    foo.fence(None, fence_collect)
    if ctx.rank == 0:
        rc, v = foo.get({"nspace": ctx.ns, "rank": 1}, "ckey", [])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 1), "first read")
    foo.fence(None, None)
    if ctx.rank == 1:
        foo.put(PMIX_GLOBAL, "ckey", {"value": 2, "val_type": PMIX_INT})
        foo.commit()
        check(True, "re-posted ckey")
    foo.fence(None, fence_collect)
    if ctx.rank == 0:
        rc, v = foo.get({"nspace": ctx.ns, "rank": 1}, "ckey", [])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 1), "second read answers from the cache")
    ctx.barrier()


def outside_scope(ctx):
    """A key posted in a scope that excludes the requester: every rank runs on
    one node, so a PMIX_REMOTE key is outside the scope of its local peers."""
    foo = ctx.foo
    foo.put(PMIX_REMOTE, "remote-only", {"value": 1, "val_type": PMIX_INT})
    foo.put(PMIX_GLOBAL, "everywhere", {"value": 2, "val_type": PMIX_INT})
    foo.commit()
    foo.fence(None, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)])
    rc, v = foo.get(ctx.peer(), "everywhere", [info(PMIX_TIMEOUT, 5, PMIX_INT)])
    check_rc(foo, rc, PMIX_SUCCESS, "a local peer's GLOBAL key")
    rc, v = foo.get(ctx.peer(), "remote-only", [info(PMIX_TIMEOUT, 5, PMIX_INT)])
    check_rc(foo, rc, PMIX_ERR_EXISTS_OUTSIDE_SCOPE, "a local peer's REMOTE key")
    check(v is None, "no value")
    ctx.barrier()


def would_block(ctx):
    """A blocking call from a callback (the progress thread) is WOULD_BLOCK."""
    foo = ctx.foo
    _post(ctx)
    inner = {}
    calls = Waiter()

    def cb(status, value, cbdata):
        t = time.monotonic()
        inner["get"] = foo.get(ctx.me, "mykey", [])
        inner["fence"] = foo.fence(None, None)
        inner["fence_nb_null"] = foo.fence_nb(None, None, None)
        inner["connect"] = foo.connect(ctx.wild, [])
        inner["elapsed"] = time.monotonic() - t
        calls(status, value, cbdata)

    rc = foo.get_nb(ctx.peer(), "mykey", [], cb, None)
    check_rc(foo, rc, PMIX_SUCCESS, "get_nb accepted")
    check(calls.wait(30), "callback completed (no deadlock)")
    rc, v = inner.get("get", (None, None))
    check_rc(foo, rc, PMIX_ERR_WOULD_BLOCK, "blocking get inside a callback")
    check(v is None, "no value")
    check_rc(foo, inner.get("fence"), PMIX_ERR_WOULD_BLOCK, "blocking fence inside a callback")
    check_rc(foo, inner.get("fence_nb_null"), PMIX_ERR_WOULD_BLOCK, "fence_nb with NULL cbfunc inside a callback")
    check_rc(foo, inner.get("connect"), PMIX_ERR_WOULD_BLOCK, "blocking connect inside a callback")
    check(inner.get("elapsed", 99) < 5.0, "returned immediately (%.2fs)" % inner.get("elapsed", 99))
    # the library is still fully usable from the main thread
    rc, v = foo.get(ctx.peer(), "mykey", [])
    check_rc(foo, rc, PMIX_SUCCESS, "blocking get from the main thread afterwards")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence afterwards")


def callback_exception(ctx):
    """An exception in a callback is reported and the progress thread lives on."""
    foo = ctx.foo
    _post(ctx)
    ran = Waiter()

    def bad(status, value, cbdata):
        ran(status)
        raise RuntimeError("boom in callback (expected by the test)")

    rc = foo.get_nb(ctx.peer(), "mykey", [], bad, None)
    check_rc(foo, rc, PMIX_SUCCESS, "get_nb accepted")
    check(ran.wait(), "the raising callback ran")
    good = Waiter()
    rc = foo.get_nb(ctx.peer(), "mykey", [], good, "again")
    check_rc(foo, rc, PMIX_SUCCESS, "second get_nb accepted")
    check(good.wait(), "a later callback still runs")
    rc, v = foo.get(ctx.peer(), "mykey", [])
    check_rc(foo, rc, PMIX_SUCCESS, "blocking get still works")
    ctx.barrier()


SCENARIOS = {
    f.__name__: f
    for f in (
        example,
        null_proc,
        wildcard,
        self_referential,
        reserved_keys,
        level_directives,
        storage_directives,
        deleted_key,
        version_numeric,
        optional,
        immediate,
        timeout,
        overlong_key,
        nb_not_found,
        nb_null_cbfunc,
        null_key,
        refresh_cache,
        cached_value,
        outside_scope,
        would_block,
        callback_exception,
    )
}

if __name__ == "__main__":
    sys.exit(main(SCENARIOS))
