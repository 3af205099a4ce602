"""PMIx_Fence / PMIx_Fence_nb page (seeds/002): its Python example and its
rules, one scenario per rule. Run as ranks: ``fence_rules.py <scenario>``;
the ``singleton_*`` scenarios run without a launcher."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Waiter, say, check, check_eq, check_rc, info, main  # noqa: E402
from pmix import *  # noqa: E402,F401,F403

COLLECT = info(PMIX_COLLECT_DATA, True, PMIX_BOOL)


def _nb_outcome(foo, rc, calls, what, want_status=PMIX_SUCCESS, cbdata=None):
    """The page's contract for a non-blocking collective: SUCCESS -> exactly
    one callback; PMIX_OPERATION_SUCCEEDED -> done already, no callback."""
    if rc == PMIX_SUCCESS:
        check(calls.wait(), "%s: callback ran" % what)
        got = calls.settle()
        check_eq(len(got), 1, "%s: callback ran exactly once" % what)
        if got:
            check_rc(foo, got[0][0], want_status, "%s: callback status" % what)
            check(got[0][1] is cbdata, "%s: cbdata passed back unmodified" % what)
    else:
        check_rc(foo, rc, PMIX_OPERATION_SUCCEEDED, "%s accepted (SUCCESS) or done (OPERATION_SUCCEEDED)" % what)
        check_eq(len(calls.settle()), 0, "%s: no callback after OPERATION_SUCCEEDED" % what)


def example(ctx):
    """The page's Python Syntax, with the job's own namespace for "testnspace"."""
    foo = ctx.foo
    foo.put(PMIX_GLOBAL, "fkey", {"value": ctx.rank, "val_type": PMIX_INT})
    foo.commit()
    # the peers is a list of Python ``pmix_proc_t`` dictionaries
    peers = [{"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}]
    # the directives is a list of Python ``pmix_info_t`` dictionaries
    pydirs = [{"key": PMIX_COLLECT_DATA, "value": True, "val_type": PMIX_BOOL}]
    rc = foo.fence(peers, pydirs)
    check_rc(foo, rc, PMIX_SUCCESS, "fence(peers, COLLECT_DATA)")

    calls = Waiter()

    def donecb(status, cbdata):
        say("fence completed:", foo.error_string(status))
        calls(status, cbdata)

    cbdata = "mycbdata"
    rc = foo.fence_nb(peers, pydirs, donecb, cbdata)
    _nb_outcome(foo, rc, calls, "fence_nb", cbdata=cbdata)
    rc, v = foo.get(ctx.peer(), "fkey", [info(PMIX_TIMEOUT, 10, PMIX_INT)])
    check_eq((rc, v), (PMIX_SUCCESS, {"value": ctx.peer()["rank"], "val_type": PMIX_INT}), "peer's data after the fence")


def null_procs(ctx):
    """NULL procs: the fence spans the caller's namespace."""
    foo = ctx.foo
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence(None, None)")
    check_rc(foo, foo.fence([], []), PMIX_SUCCESS, "fence([], [])")
    foo.put(PMIX_GLOBAL, "nkey", {"value": "n%d" % ctx.rank, "val_type": PMIX_STRING})
    foo.commit()
    check_rc(foo, foo.fence(None, [COLLECT]), PMIX_SUCCESS, "fence(None, COLLECT_DATA)")
    for r in range(ctx.size):
        rc, v = foo.get({"nspace": ctx.ns, "rank": r}, "nkey", [info(PMIX_IMMEDIATE, True, PMIX_BOOL)])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, "n%d" % r), "rank %d's data collected by a NULL-procs fence" % r)


def collect_data(ctx):
    """COLLECT_DATA makes every participant's committed data available:
    PMIX_IMMEDIATE (no request to the host) finds it afterwards."""
    foo = ctx.foo
    val = {"value": b"\x00\x01bytes-of-%d" % ctx.rank, "val_type": PMIX_BYTE_OBJECT}
    check_rc(foo, foo.put(PMIX_GLOBAL, "ckey", val), PMIX_SUCCESS, "put GLOBAL byte object")
    foo.put(PMIX_GLOBAL, "gkey", {"value": 3.5 + ctx.rank, "val_type": PMIX_DOUBLE})
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit")
    check_rc(foo, foo.fence(ctx.wild, [COLLECT]), PMIX_SUCCESS, "collecting fence")
    for r in range(ctx.size):
        if r == ctx.rank:
            continue
        p = {"nspace": ctx.ns, "rank": r}
        rc, v = foo.get(p, "gkey", [info(PMIX_IMMEDIATE, True, PMIX_BOOL)])
        check_eq((rc, v), (PMIX_SUCCESS, {"value": 3.5 + r, "val_type": PMIX_DOUBLE}), "rank %d's GLOBAL double" % r)
        rc, v = foo.get(p, "ckey", [info(PMIX_IMMEDIATE, True, PMIX_BOOL)])
        want = b"\x00\x01bytes-of-%d" % r
        check_eq((rc, v and v["value"]["bytes"]), (PMIX_SUCCESS, want), "rank %d's byte object" % r)
    ctx.barrier()


def explicit_list(ctx):
    """Every participant listing all processes explicitly."""
    foo = ctx.foo
    procs = [{"nspace": ctx.ns, "rank": r} for r in range(ctx.size)]
    check_rc(foo, foo.fence(procs, None), PMIX_SUCCESS, "fence over the explicit list")
    # ordering has no significance
    check_rc(foo, foo.fence(list(reversed(procs)) if ctx.rank % 2 else procs, None), PMIX_SUCCESS, "fence, orders differ")


def nb(ctx):
    """fence_nb: callback iff accepted, exactly once, cbdata untouched."""
    foo = ctx.foo
    calls = Waiter()
    marker = {"mine": ctx.rank}
    rc = foo.fence_nb(None, [COLLECT], calls, marker)
    _nb_outcome(foo, rc, calls, "fence_nb(None, COLLECT)", cbdata=marker)
    calls2 = Waiter()
    rc = foo.fence_nb(ctx.wild, None, calls2, None)
    _nb_outcome(foo, rc, calls2, "fence_nb(wildcard)")


def nb_null_cbfunc(ctx):
    """fence_nb with a NULL cbfunc blocks until the fence completes."""
    foo = ctx.foo
    # start together, so that rank 1's delay is measured from a common point
    ctx.barrier()
    if ctx.rank == 1:
        time.sleep(1.5)
    t = time.monotonic()
    rc = foo.fence_nb(None, None, None)
    dt = time.monotonic() - t
    check_rc(foo, rc, PMIX_SUCCESS, "fence_nb(NULL cbfunc) returns the fence's result")
    if ctx.rank == 0 and ctx.size > 1:
        check(dt >= 1.0, "it waited for the late rank (%.2fs)" % dt)


def not_a_member(ctx):
    """A caller absent from procs gets PMIX_ERR_NOT_A_MEMBER."""
    foo = ctx.foo
    only0 = [{"nspace": ctx.ns, "rank": 0}]
    rc = foo.fence(only0, None)
    if ctx.rank == 0:
        check_rc(foo, rc, PMIX_SUCCESS, "rank 0 alone fencing over {rank 0}")
    else:
        check_rc(foo, rc, PMIX_ERR_NOT_A_MEMBER, "rank %d fencing over {rank 0}" % ctx.rank)
        calls = Waiter()
        rc = foo.fence_nb(only0, None, calls, None)
        check_rc(foo, rc, PMIX_ERR_NOT_A_MEMBER, "fence_nb as a non-member")
        check_eq(len(calls.settle()), 0, "no callback")
    ctx.barrier()


def would_block(ctx):
    """A blocking fence from a callback returns PMIX_ERR_WOULD_BLOCK."""
    foo = ctx.foo
    inner = {}
    calls = Waiter()

    def donecb(status, cbdata):
        t = time.monotonic()
        inner["fence"] = foo.fence(None, None)
        inner["fence_nb_null"] = foo.fence_nb(None, None, None)
        inner["get"] = foo.get(ctx.peer(), PMIX_LOCAL_RANK, [])[0]
        inner["elapsed"] = time.monotonic() - t
        calls(status, cbdata)

    rc = foo.fence_nb(None, None, donecb, None)
    if rc == PMIX_OPERATION_SUCCEEDED:
        # completed inline: exercise the rule from a get_nb callback instead
        rc = foo.get_nb(ctx.me, PMIX_LOCAL_RANK, [], lambda s, v, d: donecb(s, d), None)
    check_rc(foo, rc, PMIX_SUCCESS, "non-blocking call accepted")
    check(calls.wait(30), "callback completed (no deadlock)")
    check_rc(foo, inner.get("fence"), PMIX_ERR_WOULD_BLOCK, "fence inside a callback")
    check_rc(foo, inner.get("fence_nb_null"), PMIX_ERR_WOULD_BLOCK, "fence_nb(NULL cbfunc) inside a callback")
    check_rc(foo, inner.get("get"), PMIX_ERR_WOULD_BLOCK, "get inside a callback")
    check(inner.get("elapsed", 99) < 5.0, "returned immediately (%.2fs)" % inner.get("elapsed", 99))
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence from the main thread afterwards")


def callback_exception(ctx):
    """A raising fence_nb callback is reported; later collectives still work."""
    foo = ctx.foo
    ran = Waiter()

    def bad(status, cbdata):
        ran(status)
        raise ValueError("boom in donecb (expected by the test)")

    rc = foo.fence_nb(None, None, bad, None)
    if rc == PMIX_SUCCESS:
        check(ran.wait(), "raising callback ran")
    else:
        check_rc(foo, rc, PMIX_OPERATION_SUCCEEDED, "fence_nb done inline")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "a later fence completes")


# -- singletons (no launcher) ---------------------------------------------
def _singleton_init(foo):
    rc, me = foo.init()
    check(rc == PMIX_SUCCESS or (rc == PMIX_ERR_UNREACH and foo.initialized()),
          "singleton init: %s, initialized=%s" % (foo.error_string(rc), foo.initialized()))
    return me


def singleton_fence(foo):
    """A singleton has no peers: the blocking fence succeeds at once."""
    me = _singleton_init(foo)
    t = time.monotonic()
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "singleton fence(None)")
    check_rc(foo, foo.fence([{"nspace": me["nspace"], "rank": PMIX_RANK_WILDCARD}], [COLLECT]), PMIX_SUCCESS,
             "singleton collecting fence(wildcard)")
    check(time.monotonic() - t < 5.0, "immediately")
    check_rc(foo, foo.finalize(), PMIX_SUCCESS, "finalize")


def singleton_fence_nb(foo):
    """A singleton's fence_nb returns PMIX_OPERATION_SUCCEEDED; no callback."""
    _singleton_init(foo)
    calls = Waiter()
    rc = foo.fence_nb(None, None, calls, None)
    check_rc(foo, rc, PMIX_OPERATION_SUCCEEDED, "singleton fence_nb")
    check_eq(len(calls.settle()), 0, "no callback")
    check_rc(foo, foo.finalize(), PMIX_SUCCESS, "finalize")


SCENARIOS = {
    f.__name__: f
    for f in (example, null_procs, collect_data, explicit_list, nb, nb_null_cbfunc, not_a_member, would_block,
              callback_exception)
}
SINGLETON = {f.__name__: f for f in (singleton_fence, singleton_fence_nb)}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in SINGLETON:
        sys.exit(main(SINGLETON, init=False))
    sys.exit(main({**SCENARIOS, **SINGLETON}) if len(sys.argv) < 2 or sys.argv[1] == "--list" else main(SCENARIOS))
