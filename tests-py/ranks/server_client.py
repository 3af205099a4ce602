"""The Python clients of hosts/pyhost.py (a PMIxServer in Python): started by
that host with the environment its setup_fork made, not by a launcher.

    python3 server_client.py py | abort

The host's callables answer what the server cannot: the fence (data
collected), publish/lookup/unpublish, events leaving the node, IOF pulls,
abort. See hosts/pyhost.py for the other side of each step.
"""

import os
import sys
import time

from common import Waiter, check, check_eq, check_rc, info, main, say
from pmix import *  # noqa: F401,F403

EV_FROM_CLIENT = -7771
EV_FROM_HOST = -7772  # the host's PMIx_Notify_event, delivered to every client of the namespace
NLOCAL = 3  # ranks 0-2 run here; rank 3 is on another node and never starts


def _job_info(ctx):
    foo = ctx.foo
    rc, v = foo.get(ctx.wild[0], PMIX_JOB_SIZE, [])
    check(rc == PMIX_SUCCESS and v["value"] == NLOCAL + 1, "job size from the host's register_nspace (%r)" % (v,))
    rc, v = foo.get(ctx.wild[0], "pyhost.jobkey", [])
    check_eq(v and v["value"], "from the python host", "a job key of the host's register_nspace")
    rc, v = foo.get(ctx.wild[0], PMIX_CLUSTER_ID, [])
    check_eq(v and v["value"], "pyhost-cluster", "PMIX_CLUSTER_ID from the host's register_resources")
    rc, v = foo.get(ctx.wild[0], "pyhost.res", [])
    check_eq(v and v["value"], 5, "a custom key of the host's register_resources")


def _exchange(ctx):
    foo = ctx.foo
    mine = {"value": "value of rank %d" % ctx.rank, "val_type": PMIX_STRING}
    check_rc(foo, foo.put(PMIX_GLOBAL, "py.rank", mine), PMIX_SUCCESS, "put")
    check_rc(foo, foo.commit(), PMIX_SUCCESS, "commit")
    rc = foo.fence(None, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)])
    check_rc(foo, rc, PMIX_SUCCESS, "fence with PMIX_COLLECT_DATA through the host's fencenb")
    peer = {"nspace": ctx.ns, "rank": (ctx.rank + 1) % NLOCAL}
    rc, v = foo.get(peer, "py.rank", [info(PMIX_IMMEDIATE, True, PMIX_BOOL)])
    check_eq(v and v["value"], "value of rank %d" % peer["rank"], "the peer's key is here after the fence")
    rc, v = foo.get({"nspace": ctx.ns, "rank": NLOCAL}, "py.rank", [info(PMIX_TIMEOUT, 10, PMIX_INT)])
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "the remote rank's key: the host's directmodex finds nothing")


def _name_service(ctx):
    foo = ctx.foo
    if ctx.rank == 0:
        rc = foo.publish([info("py.pub", "published by rank 0", PMIX_STRING)])
        check_rc(foo, rc, PMIX_SUCCESS, "publish through the host (completed from a timer thread)")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "second fence")
    rc, pd = foo.lookup(["py.pub"])
    check(rc == PMIX_SUCCESS and pd and pd[0]["value"] == "published by rank 0"
          and pd[0]["proc"] == {"nspace": ctx.ns, "rank": 0}, "lookup answered by the host (%d, %r)" % (rc, pd))
    rc, pd = foo.lookup(["py.raise"])
    check_rc(foo, rc, PMIX_ERROR, "a lookup whose host callable raises")
    rc, pd = foo.lookup(["py.badresult"])
    check_rc(foo, rc, PMIX_ERROR, "a lookup whose host callable returns a malformed result")
    rc, ns = foo.spawn([], [{"cmd": "/bin/true", "maxprocs": 1}])
    check_rc(foo, rc, PMIX_ERR_NOT_SUPPORTED, "spawn: not in the host's module")


def _requests(ctx):
    """Rank 0's query, log and job control, answered by the host's callables."""
    foo = ctx.foo
    rc, res = foo.query([{"keys": ["pyhost.question"], "qualifiers": []}])
    answers = []
    for r in res:
        if r["key"] == PMIX_QUERY_RESULTS and isinstance(r["value"], dict):
            answers.extend(i for i in r["value"]["array"] or [] if i["key"] == "pyhost.question")
        elif r["key"] == "pyhost.question":
            answers.append(r)
    check(rc == PMIX_SUCCESS and [a["value"] for a in answers] == ["the host's answer to pyhost.question"],
          "query answered by the host's callable (%d, %r)" % (rc, res))
    rc = foo.log([info(PMIX_LOG_STDERR, "a line for the python host", PMIX_STRING)], [])
    check_rc(foo, rc, PMIX_SUCCESS, "log through the host's (void) log callable")
    rc, res = foo.job_control([{"nspace": ctx.ns, "rank": NLOCAL}], [info("pyhost.ctl", True, PMIX_BOOL)])
    check(rc == PMIX_SUCCESS and [(r["key"], r["value"]) for r in res] == [("pyhost.ctl.done", 1)],
          "job control completed later by the host, with its results (%d, %r)" % (rc, res))


def _retracted(ctx):
    foo = ctx.foo
    t0 = time.monotonic()
    while True:
        rc, v = foo.get(ctx.wild[0], PMIX_CLUSTER_ID, [])
        if rc == PMIX_ERR_NOT_FOUND or time.monotonic() - t0 > 10:
            break
        time.sleep(0.05)
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "the host's deregister_resources retracted PMIX_CLUSTER_ID")
    rc, v = foo.get(ctx.wild[0], "pyhost.res", [])
    check_rc(foo, rc, PMIX_SUCCESS, "the other resource stays")


def py(ctx):
    foo = ctx.foo
    _job_info(ctx)
    hostev = Waiter()

    def on_host_event(hid, status, source, infos, results):
        hostev(status, source)
        return (PMIX_EVENT_ACTION_COMPLETE, [])

    rc, _ = foo.register_event_handler([EV_FROM_HOST], None, on_host_event)
    check(rc == PMIX_SUCCESS, "register a handler for the host's event (%d)" % rc)
    iof = Waiter()
    if ctx.rank == 1:
        rc, iofid = foo.iof_pull([{"nspace": ctx.ns, "rank": 0}], PMIX_FWD_STDOUT_CHANNEL, None,
                                 lambda *a: iof(*a))
        check_rc(foo, rc, PMIX_SUCCESS, "iof_pull of rank 0's stdout (the host's iofpull)")
    _exchange(ctx)
    _name_service(ctx)
    if ctx.rank == 0:
        _requests(ctx)
    _retracted(ctx)
    rc = foo.notify_event(EV_FROM_CLIENT, None, PMIX_RANGE_SESSION, [])
    check_rc(foo, rc, PMIX_SUCCESS, "notify_event beyond the node (the host's notifyevent)")
    if ctx.rank == 1:
        ok = iof.wait_until(lambda calls: any(b"delivered by the python host" in c[3]["bytes"] for c in calls))
        check(ok, "the host's IOF_deliver reached the pulling client")
    ok = hostev.wait_until(lambda calls: any(c[0] == EV_FROM_HOST for c in calls))
    check(ok, "the host's PMIx_Notify_event reached this client")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "third fence")
    if ctx.rank == 0:
        check_rc(foo, foo.unpublish(["py.pub"]), PMIX_SUCCESS, "unpublish through the host")


def abort(ctx):
    foo = ctx.foo
    if ctx.rank == 0:
        say("[0] waiting in a fence rank 1 never joins")
        foo.fence(None, None)
        check(False, "rank 0 was not killed")
        return
    rc = foo.abort(3, "pyhost abort test", [{"nspace": ctx.ns, "rank": 0}])
    check_rc(foo, rc, PMIX_SUCCESS, "abort returned once the host's abort completed")
    sys.stdout.flush()
    os._exit(3)


if __name__ == "__main__":
    sys.exit(main({"py": py, "abort": abort}))
