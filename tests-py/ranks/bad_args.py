"""Bad arguments from Python, on an initialized client: a clear exception or
the status the pages name, never a crash; the client keeps working after.
Run as ranks: ``bad_args.py <scenario>``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Waiter, check, check_rc, info, main  # noqa: E402
from pmix import *  # noqa: E402,F401,F403
from pmix import _callbacks  # noqa: E402


def raises(exc, fn, what):
    try:
        fn()
    except exc as e:
        return check(True, "%s raises %s (%s)" % (what, exc.__name__, e))
    except BaseException as e:  # noqa: B902
        return check(False, "%s raised %r, want %s" % (what, e, exc.__name__))
    return check(False, "%s did not raise %s" % (what, exc.__name__))


def exceptions(ctx):
    foo = ctx.foo
    me = ctx.me
    ok_dirs = [info(PMIX_TIMEOUT, 5, PMIX_INT)]
    raises(TypeError, lambda: foo.get("not-a-dict", "k", []), "get(proc=str)")
    raises(KeyError, lambda: foo.get({"nspace": ctx.ns}, "k", []), "get(proc without 'rank')")
    raises(KeyError, lambda: foo.get({"rank": 0}, "k", []), "get(proc without 'nspace')")
    raises(ValueError, lambda: foo.get({"nspace": "x" * 256, "rank": 0}, "k", []), "get(nspace of 256 bytes)")
    raises(ValueError, lambda: foo.get({"nspace": ctx.ns, "rank": -1}, "k", []), "get(rank -1)")
    raises(TypeError, lambda: foo.get({"nspace": ctx.ns, "rank": "0"}, "k", []), "get(rank '0')")
    raises(TypeError, lambda: foo.get(me, 42, []), "get(key=int)")
    raises(ValueError, lambda: foo.get(me, "a\0b", []), "get(key with NUL)")
    raises(TypeError, lambda: foo.get(me, "k", "not-a-list"), "get(dicts=str)")
    raises(TypeError, lambda: foo.get(me, "k", [42]), "get(dicts=[int])")
    raises(KeyError, lambda: foo.get(me, "k", [{"key": PMIX_TIMEOUT, "value": 5}]), "info without 'val_type'")
    raises(KeyError, lambda: foo.get(me, "k", [{"value": 5, "val_type": PMIX_INT}]), "info without 'key'")
    raises(TypeError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, 5, "int")]), "val_type as a str")
    raises(ValueError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, 5, 9999)]), "unknown val_type 9999")
    raises(TypeError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, "ten", PMIX_INT)]), "'ten' as PMIX_INT")
    raises(TypeError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, 1.5, PMIX_INT)]), "1.5 as PMIX_INT")
    raises(ValueError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, 300, PMIX_UINT8)]), "300 as PMIX_UINT8")
    raises(ValueError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, 2**31, PMIX_INT32)]), "2**31 as PMIX_INT32")
    raises(ValueError, lambda: foo.get(me, "k", [info(PMIX_TIMEOUT, -1, PMIX_UINT64)]), "-1 as PMIX_UINT64")
    raises(TypeError, lambda: foo.get(me, "k", [info(PMIX_OPTIONAL, "maybe", PMIX_BOOL)]), "'maybe' as PMIX_BOOL")
    raises(TypeError, lambda: foo.get(me, "k", [info(PMIX_OPTIONAL, 3, PMIX_STRING)]), "3 as PMIX_STRING")
    raises(KeyError, lambda: foo.get(me, "k", [info("k2", {"bytes_": b""}, PMIX_BYTE_OBJECT)]),
           "byte object dict without 'bytes'")
    raises(KeyError, lambda: foo.get(me, "k", [info("k2", {"type": PMIX_INT}, PMIX_DATA_ARRAY)]),
           "data array without 'array'")
    raises(TypeError, lambda: foo.get(me, "k", [info("k2", {"type": PMIX_INT, "array": ["x"]}, PMIX_DATA_ARRAY)]),
           "data array of PMIX_INT holding a str")
    raises(KeyError, lambda: foo.put(PMIX_GLOBAL, "k", {"val_type": PMIX_INT}), "put(value without 'value')")
    raises(TypeError, lambda: foo.put(PMIX_GLOBAL, "k", 42), "put(value=int)")
    raises(TypeError, lambda: foo.fence("not-a-list", None), "fence(peers=str)")
    raises(TypeError, lambda: foo.fence([{"nspace": ctx.ns, "rank": 0}, "x"], None), "fence(peers=[dict, str])")
    raises(TypeError, lambda: foo.fence_nb(None, None, "not-callable"), "fence_nb(cbfunc=str)")
    raises(TypeError, lambda: foo.get_nb(me, "k", [], 42), "get_nb(cbfunc=int)")
    raises(TypeError, lambda: foo.register_event_handler([PMIX_ERR_TIMEOUT], None, "no"), "register_event_handler(hdlr=str)")
    raises(TypeError, lambda: foo.lookup_nb("key", None, lambda *a: None), "lookup_nb(keys=str)")
    raises(KeyError, lambda: foo.spawn(None, [{"argv": ["x"]}]), "spawn(app without 'cmd')")
    raises(KeyError, lambda: foo.query([{"qualifiers": []}]), "query(query without 'keys')")
    # the rest of the API
    noop = lambda *a: None  # noqa: E731
    raises(TypeError, lambda: foo.group_construct(42, ctx.wild, None), "group_construct(grp=int)")
    raises(TypeError, lambda: foo.group_construct("g", "not-a-list", None), "group_construct(peers=str)")
    raises(KeyError, lambda: foo.group_join("g", {"nspace": ctx.ns}, PMIX_GROUP_ACCEPT), "group_join(leader without 'rank')")
    raises(TypeError, lambda: foo.group_invite_nb("g", [me], None, 42), "group_invite_nb(cbfunc=int)")
    raises(TypeError, lambda: foo.group_leave("g", "not-a-list"), "group_leave(dicts=str)")
    raises(TypeError, lambda: foo.spawn(None, "not-a-list"), "spawn(apps=str)")
    raises(TypeError, lambda: foo.spawn(None, [{"cmd": 5}]), "spawn(cmd=int)")
    raises(TypeError, lambda: foo.spawn(None, [{"cmd": "/bin/true", "maxprocs": "2"}]), "spawn(maxprocs=str)")
    raises(TypeError, lambda: foo.spawn(None, [{"cmd": "/bin/true", "argv": "/bin/true"}]), "spawn(argv=str)")
    raises(TypeError, lambda: foo.spawn_nb(None, [{"cmd": "/bin/true"}], "no"), "spawn_nb(cbfunc=str)")
    raises(TypeError, lambda: foo.query("not-a-list"), "query(str)")
    raises(TypeError, lambda: foo.query([{"keys": "not-a-list"}]), "query(keys=str)")
    raises(TypeError, lambda: foo.query([{"keys": [42]}]), "query(keys=[int])")
    raises(TypeError, lambda: foo.notify_event(PMIX_ERR_TIMEOUT, "src", PMIX_RANGE_LOCAL, None), "notify_event(source=str)")
    raises(TypeError, lambda: foo.register_event_handler(["x"], None, noop), "register_event_handler(codes=[str])")
    raises(TypeError, lambda: foo.register_event_handler(PMIX_ERR_TIMEOUT, None, noop), "register_event_handler(codes=int)")
    raises(TypeError, lambda: foo.resolve_peers(None, 42), "resolve_peers(nspace=int)")
    raises(TypeError, lambda: foo.resolve_nodes(42), "resolve_nodes(nspace=int)")
    raises(TypeError, lambda: foo.job_control("not-a-list", None), "job_control(targets=str)")
    raises(KeyError, lambda: foo.publish([{"key": "k", "value": 1}]), "publish(info without 'val_type')")
    raises(TypeError, lambda: foo.lookup([42]), "lookup([int])")
    raises(TypeError, lambda: foo.unpublish("key"), "unpublish(keys=str)")
    raises(TypeError, lambda: foo.log("not-a-list"), "log(data=str)")
    raises(TypeError, lambda: foo.connect_nb(ctx.wild, None, "no"), "connect_nb(cbfunc=str)")
    raises(TypeError, lambda: foo.store_internal(me, "k", "not-a-value-dict"), "store_internal(value=str)")
    raises(TypeError, lambda: foo.abort("3", "msg", None), "abort(status=str)")
    raises(TypeError, lambda: foo.error_string("x"), "error_string(str)")
    raises(ValueError, lambda: foo.error_string(2**40), "error_string(2**40)")
    raises(ValueError, lambda: foo.put(300, "k", {"value": 1, "val_type": PMIX_INT}), "put(scope=300)")
    raises(ValueError, lambda: foo.notify_event(PMIX_ERR_TIMEOUT, me, 999, None), "notify_event(range=999)")
    raises(ValueError, lambda: foo.deregister_event_handler(-1), "deregister_event_handler(-1)")
    raises(TypeError, lambda: foo.scope_string(None), "scope_string(None)")
    check(len(_callbacks.registry) == 0, "no request left registered by the failed calls (%d)" % len(_callbacks.registry))
    # statuses the pages name
    long_key = "k" * (PMIX_MAX_KEYLEN + 1)
    check_rc(foo, foo.get(me, long_key, ok_dirs)[0], PMIX_ERR_BAD_PARAM, "get(over-length key)")
    check_rc(foo, foo.get(me, "k", [info(long_key, 1, PMIX_INT)])[0], PMIX_ERR_BAD_PARAM, "directive with an over-length key")
    check_rc(foo, foo.put(PMIX_GLOBAL, long_key, {"value": 1, "val_type": PMIX_INT}), PMIX_ERR_BAD_PARAM, "put(over-length key)")
    check_rc(foo, foo.store_internal(me, long_key, {"value": 1, "val_type": PMIX_INT}), PMIX_ERR_BAD_PARAM,
             "store_internal(over-length key)")
    check_rc(foo, foo.publish([info(long_key, 1, PMIX_INT)]), PMIX_ERR_BAD_PARAM, "publish(over-length key)")
    check_rc(foo, foo.lookup([long_key])[0], PMIX_ERR_BAD_PARAM, "lookup(over-length key)")
    check_rc(foo, foo.unpublish([long_key]), PMIX_ERR_BAD_PARAM, "unpublish(over-length key)")
    check_rc(foo, foo.spawn([info(long_key, 1, PMIX_INT)], [{"cmd": "/bin/true"}])[0], PMIX_ERR_BAD_PARAM,
             "spawn(job info with an over-length key)")
    check_rc(foo, foo.query([{"keys": [PMIX_QUERY_NAMESPACES], "qualifiers": [info(long_key, 1, PMIX_INT)]}])[0],
             PMIX_ERR_BAD_PARAM, "query(over-length qualifier key)")
    check_rc(foo, foo.register_event_handler(None, [info(long_key, 1, PMIX_INT)], lambda *a: None)[0],
             PMIX_ERR_BAD_PARAM, "register_event_handler(over-length directive key)")
    check_rc(foo, foo.group_construct("g", ctx.wild, [info(long_key, 1, PMIX_INT)])[0], PMIX_ERR_BAD_PARAM,
             "group_construct(over-length directive key)")
    w = Waiter()
    check_rc(foo, foo.fence_nb(None, [info(long_key, True, PMIX_BOOL)], w, None), PMIX_ERR_BAD_PARAM,
             "fence_nb(over-length directive key)")
    check(len(w.settle(0.2)) == 0, "no callback")
    # and the client is still healthy
    check_rc(foo, foo.put(PMIX_GLOBAL, "after", {"value": ctx.rank, "val_type": PMIX_INT}), PMIX_SUCCESS, "put after")
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit after")
    check_rc(foo, foo.fence(None, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]), PMIX_SUCCESS, "fence after")
    rc, v = foo.get(ctx.peer(), "after", ok_dirs)
    check(rc == PMIX_SUCCESS and v == {"value": ctx.peer()["rank"], "val_type": PMIX_INT}, "get after: %r" % ((rc, v),))


SCENARIOS = {"exceptions": exceptions}

if __name__ == "__main__":
    sys.exit(main(SCENARIOS))
