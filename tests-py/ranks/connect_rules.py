"""PMIx_Connect / PMIx_Connect_nb page (seeds/001): its Python example and
its rules. Run as ranks: ``connect_rules.py <scenario>``."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Waiter, say, check, check_eq, check_rc, main  # noqa: E402
from pmix import *  # noqa: E402,F401,F403


def _example(ctx, pydirs):
    foo = ctx.foo
    # the peers is a list of Python ``pmix_proc_t`` dictionaries naming all
    # participants (including the caller); a single job has one namespace
    peers = [{"nspace": ctx.ns, "rank": PMIX_RANK_WILDCARD}]
    rc = foo.connect(peers, pydirs)
    check_rc(foo, rc, PMIX_SUCCESS, "connect(peers, %r)" % (pydirs,))
    check_rc(foo, foo.disconnect(peers, []), PMIX_SUCCESS, "disconnect(peers)")

    calls = Waiter()

    def donecb(status, cbdata):
        say("connect completed:", foo.error_string(status))
        calls(status, cbdata)

    cbdata = "mycbdata"
    rc = foo.connect_nb(peers, pydirs, donecb, cbdata)
    check_rc(foo, rc, PMIX_SUCCESS, "connect_nb accepted")
    check(calls.wait(), "donecb ran")
    got = calls.settle()
    check_eq(len(got), 1, "donecb ran exactly once")
    if got:
        check_rc(foo, got[0][0], PMIX_SUCCESS, "donecb status")
        check(got[0][1] is cbdata, "cbdata passed back unmodified")
    check_rc(foo, foo.disconnect(peers, None), PMIX_SUCCESS, "disconnect after connect_nb")


def example(ctx):
    """The page's Python Syntax (PMIX_TIMEOUT directive), own namespace only."""
    _example(ctx, [{"key": PMIX_TIMEOUT, "value": 10, "val_type": PMIX_INT}])


def example_no_directives(ctx):
    """The page's example without the optional PMIX_TIMEOUT directive."""
    _example(ctx, [])


def explicit_list(ctx):
    """All participants listed explicitly, in any order."""
    foo = ctx.foo
    procs = [{"nspace": ctx.ns, "rank": r} for r in range(ctx.size)]
    mine = list(reversed(procs)) if ctx.rank % 2 else procs
    check_rc(foo, foo.connect(mine, None), PMIX_SUCCESS, "connect(explicit list)")
    check_rc(foo, foo.disconnect(mine, None), PMIX_SUCCESS, "disconnect(explicit list)")


def bad_param(ctx):
    """procs must be non-NULL and nprocs > 0: otherwise PMIX_ERR_BAD_PARAM."""
    foo = ctx.foo
    check_rc(foo, foo.connect(None, None), PMIX_ERR_BAD_PARAM, "connect(None)")
    check_rc(foo, foo.connect([], []), PMIX_ERR_BAD_PARAM, "connect([])")
    calls = Waiter()
    rc = foo.connect_nb([], None, calls, None)
    check_rc(foo, rc, PMIX_ERR_BAD_PARAM, "connect_nb([])")
    check_eq(len(calls.settle()), 0, "no callback after a refused connect_nb")
    check_rc(foo, foo.disconnect([], None), PMIX_ERR_BAD_PARAM, "disconnect([])")
    ctx.barrier()


def not_a_member(ctx):
    """The caller must be among the named participants."""
    foo = ctx.foo
    if ctx.rank == 0:
        check(True, "rank 0 only waits")
    else:
        rc = foo.connect([{"nspace": ctx.ns, "rank": 0}], None)
        check_rc(foo, rc, PMIX_ERR_NOT_A_MEMBER, "rank %d connecting {rank 0}" % ctx.rank)
        calls = Waiter()
        rc = foo.connect_nb([{"nspace": ctx.ns, "rank": 0}], None, calls, None)
        check_rc(foo, rc, PMIX_ERR_NOT_A_MEMBER, "connect_nb as a non-member")
        check_eq(len(calls.settle()), 0, "no callback")
    ctx.barrier()


def nb_cbdata(ctx):
    """connect_nb/disconnect_nb hand back any Python object as cbdata."""
    foo = ctx.foo
    marker = object()
    calls = Waiter()
    rc = foo.connect_nb(ctx.wild, None, calls, marker)
    check_rc(foo, rc, PMIX_SUCCESS, "connect_nb accepted")
    check(calls.wait(), "callback ran")
    got = calls.settle()
    check(len(got) == 1 and got[0][0] == PMIX_SUCCESS and got[0][1] is marker, "once, SUCCESS, same object: %r" % got)
    calls2 = Waiter()
    rc = foo.disconnect_nb(ctx.wild, None, calls2, marker)
    check_rc(foo, rc, PMIX_SUCCESS, "disconnect_nb accepted")
    check(calls2.wait(), "disconnect callback ran")
    got = calls2.settle()
    check(len(got) == 1 and got[0][0] == PMIX_SUCCESS and got[0][1] is marker, "once, SUCCESS, same object: %r" % got)


def would_block(ctx):
    """A blocking connect from a callback returns PMIX_ERR_WOULD_BLOCK."""
    foo = ctx.foo
    inner = {}
    calls = Waiter()

    def donecb(status, cbdata):
        t = time.monotonic()
        inner["connect"] = foo.connect(ctx.wild, None)
        inner["disconnect"] = foo.disconnect(ctx.wild, None)
        inner["elapsed"] = time.monotonic() - t
        calls(status)

    rc = foo.connect_nb(ctx.wild, None, donecb, None)
    check_rc(foo, rc, PMIX_SUCCESS, "connect_nb accepted")
    check(calls.wait(30), "callback completed (no deadlock)")
    check_rc(foo, inner.get("connect"), PMIX_ERR_WOULD_BLOCK, "connect inside a callback")
    check_rc(foo, inner.get("disconnect"), PMIX_ERR_WOULD_BLOCK, "disconnect inside a callback")
    check(inner.get("elapsed", 99) < 5.0, "returned immediately")
    check_rc(foo, foo.disconnect(ctx.wild, None), PMIX_SUCCESS, "disconnect from the main thread")


SCENARIOS = {
    f.__name__: f
    for f in (example, example_no_directives, explicit_list, bad_param, not_a_member, nb_cbdata, would_block)
}

if __name__ == "__main__":
    sys.exit(main(SCENARIOS))
