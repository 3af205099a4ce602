"""The dynamic part of the client API from Python: spawn (children that find
their parent, look up what it published and connect back), job control,
groups (construct, invite/join, leave, destruct; blocking and _nb), queries,
and the callback contract of every _nb form. Run as ranks:
``dynamic.py <scenario>``; spawned children run ``dynamic.py child``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    Waiter,
    check,
    check_eq,
    check_progress_thread,
    check_rc,
    info,
    is_pmix_rs,
    main,
)
from pmix import *  # noqa: E402,F401,F403

OPTIONAL = info(PMIX_OPTIONAL, True, PMIX_BOOL)
IMMEDIATE = info(PMIX_IMMEDIATE, True, PMIX_BOOL)
WAIT10 = info(PMIX_TIMEOUT, 10, PMIX_INT)
THIS = os.path.abspath(__file__)


def wild(ns):
    return {"nspace": ns, "rank": PMIX_RANK_WILDCARD}


def value_of(infos, key):
    """The value of the first info named ``key`` (None if absent)."""
    for i in infos or []:
        if isinstance(i, dict) and i.get("key") == key:
            return i.get("value")
    return None


def query_answers(results):
    """The key/value infos of a query's results, whichever shape the library
    uses: master's one PMIX_QUERY_RESULTS data array per query (qualifiers
    first), or the flat list of earlier releases."""
    out = []
    for r in results or []:
        if r.get("key") == PMIX_QUERY_RESULTS and isinstance(r.get("value"), dict):
            out.extend(i for i in r["value"].get("array") or [] if i.get("key") != PMIX_QUERY_QUALIFIERS)
        else:
            out.append(r)
    return out


def child_env():
    """What a spawned Python child needs to import pmix and load the same library."""
    env = ["PY_SPAWN_VAR=from-app"]
    for k in ("PYTHONPATH", "PMIX_LIBRARY", "PMIX_TEST_WATCHDOG"):
        if os.environ.get(k):
            env.append("%s=%s" % (k, os.environ[k]))
    return env


def handler_into(waiter):
    """An event handler recording (status, source, infos) and ending the chain."""

    def hdlr(ref, status, source, infos, results):
        waiter(status, source, infos)
        return PMIX_EVENT_ACTION_COMPLETE, []

    return hdlr


# -- spawn ---------------------------------------------------------------
def _together(ctx, parent_ns, child_ns, nparents, nchildren):
    """Parents and children connect over {parent:*, child:*} (each side lists
    the two in its own order), see each other's job and endpoint data, fence
    across both namespaces and disconnect."""
    foo = ctx.foo
    child = ctx.ns == child_ns
    check_rc(foo, foo.put(PMIX_GLOBAL, "py.ep", {"value": (1000 if child else 0) + ctx.rank, "val_type": PMIX_INT}),
             PMIX_SUCCESS, "put endpoint")
    both = [wild(child_ns), wild(parent_ns)] if child else [wild(parent_ns), wild(child_ns)]
    check_rc(foo, foo.connect(both, None), PMIX_SUCCESS, "connect parents and children")
    other, want = (parent_ns, nparents) if child else (child_ns, nchildren)
    rc, v = foo.get(wild(other), PMIX_JOB_SIZE, [OPTIONAL])
    check_eq((rc, v and v["value"]), (PMIX_SUCCESS, want), "the other job's size with PMIX_OPTIONAL")
    for side, ns, n in ((0, parent_ns, nparents), (1, child_ns, nchildren)):
        for r in range(n):
            if ns == ctx.ns and r == ctx.rank:
                continue
            rc, v = foo.get({"nspace": ns, "rank": r}, "py.ep", [IMMEDIATE])
            check_eq((rc, v), (PMIX_SUCCESS, {"value": side * 1000 + r, "val_type": PMIX_INT}),
                     "endpoint of %s:%d with PMIX_IMMEDIATE" % (ns, r))
    check_rc(foo, foo.fence(both, None), PMIX_SUCCESS, "fence across both namespaces")
    check_rc(foo, foo.disconnect(both, None), PMIX_SUCCESS, "disconnect")


def spawn_connect(ctx):
    """Rank 0 spawns two Python children (PMIX_NOTIFY_COMPLETION) and publishes
    a "port"; the children check PMIX_PARENT_ID / PMIX_SPAWNED / their env,
    look the port up with PMIX_WAIT, then all connect (MPI_Comm_spawn style).
    Rank 0 hears the children's PMIX_EVENT_JOB_END."""
    foo = ctx.foo
    port_key = "py.port." + ctx.ns
    ended = Waiter()
    rc, v = foo.get(wild(ctx.ns), PMIX_SPAWNED, [])
    if rc == PMIX_SUCCESS:
        check_eq(v and v["value"], False, "a parent is not spawned")
    if ctx.rank == 0:
        rc, ref = foo.register_event_handler([PMIX_EVENT_JOB_END], None, handler_into(ended))
        check_rc(foo, rc, PMIX_SUCCESS, "handler for PMIX_EVENT_JOB_END")
        app = {"cmd": sys.executable, "argv": [sys.executable, THIS, "child", port_key], "env": child_env(),
               "maxprocs": 2}
        rc, child_ns = foo.spawn([info(PMIX_NOTIFY_COMPLETION, True, PMIX_BOOL)], [app])
        check_rc(foo, rc, PMIX_SUCCESS, "spawn two Python children")
        check(isinstance(child_ns, str) and child_ns and child_ns != ctx.ns, "a new namespace %r" % child_ns)
        rc, v = foo.get(wild(child_ns or "?"), PMIX_JOB_SIZE, [OPTIONAL])
        check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 2), "the spawn brought the children's job size")
        check_rc(foo, foo.publish([info(port_key, "port-of-" + ctx.ns, PMIX_STRING)]), PMIX_SUCCESS, "publish the port")
        foo.put(PMIX_GLOBAL, "py.child", {"value": child_ns or "", "val_type": PMIX_STRING})
        foo.commit()
    check_rc(foo, foo.fence(None, [info(PMIX_COLLECT_DATA, True, PMIX_BOOL)]), PMIX_SUCCESS, "parents' fence")
    rc, v = foo.get({"nspace": ctx.ns, "rank": 0}, "py.child", [WAIT10])
    child_ns = v["value"] if rc == PMIX_SUCCESS and v else None
    check(bool(child_ns), "the children's namespace from rank 0: %r" % child_ns)
    if not child_ns:
        return
    _together(ctx, ctx.ns, child_ns, ctx.size, 2)
    if ctx.rank == 0:
        check(ended.wait_until(lambda calls: any(c[1] and c[1]["nspace"] == child_ns for c in calls), 30),
              "PMIX_EVENT_JOB_END of the children: %r" % ended.calls)
        check_progress_thread(foo, ended, "the event handler")
        check_rc(foo, foo.unpublish([port_key], None), PMIX_SUCCESS, "unpublish the port")
        check_rc(foo, foo.deregister_event_handler(ref), PMIX_SUCCESS, "deregister")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "parents' last fence")


def child(ctx):
    """A spawned child (argv: child <port key>)."""
    foo = ctx.foo
    port_key = sys.argv[2] if len(sys.argv) > 2 else "?"
    rc, v = foo.get(ctx.me, PMIX_PARENT_ID, [])
    check_rc(foo, rc, PMIX_SUCCESS, "PMIX_PARENT_ID")
    parent = v["value"] if v else {}
    check(v and v["val_type"] == PMIX_PROC and parent.get("rank") == 0 and parent.get("nspace") != ctx.ns,
          "the parent is rank 0 of another namespace: %r" % (v,))
    rc, v = foo.get(wild(ctx.ns), PMIX_SPAWNED, [])
    check_eq((rc, v), (PMIX_SUCCESS, {"value": True, "val_type": PMIX_BOOL}), "PMIX_SPAWNED")
    check_eq(os.environ.get("PY_SPAWN_VAR"), "from-app", "the app's env reached the child")
    rc, res = foo.lookup([port_key], [info(PMIX_WAIT, 0, PMIX_INT), info(PMIX_TIMEOUT, 20, PMIX_INT)])
    check_rc(foo, rc, PMIX_SUCCESS, "lookup of the parent's port (PMIX_WAIT)")
    if res:
        check_eq((res[0]["value"], res[0]["proc"]), ("port-of-%s" % parent.get("nspace"), parent),
                 "the port, published by the parent")
    if not parent.get("nspace"):
        return
    rc, v = foo.get(wild(parent["nspace"]), PMIX_JOB_SIZE, [])
    nparents = v["value"] if rc == PMIX_SUCCESS and v else 0
    check(nparents > 0, "the parent job's size (%d)" % nparents)
    _together(ctx, parent["nspace"], ctx.ns, nparents, ctx.size)


# -- job control -----------------------------------------------------------
def job_control(ctx):
    """Rank 0 spawns sleepers and ends them with PMIX_JOB_CTRL_KILL (blocking)
    and PMIX_JOB_CTRL_TERMINATE (_nb): each one's PMIX_EVENT_JOB_END arrives,
    nothing else ends. An unknown directive is PMIX_ERR_NOT_SUPPORTED."""
    foo = ctx.foo
    if ctx.rank == 0:
        ended = Waiter()
        rc, ref = foo.register_event_handler([PMIX_EVENT_JOB_END], None, handler_into(ended))
        check_rc(foo, rc, PMIX_SUCCESS, "handler for PMIX_EVENT_JOB_END")
        notify = [info(PMIX_NOTIFY_COMPLETION, True, PMIX_BOOL)]
        sleeper = [{"cmd": "/bin/sleep", "argv": ["/bin/sleep", "60"], "maxprocs": 1}]
        rc, ns1 = foo.spawn(notify, sleeper)
        check_rc(foo, rc, PMIX_SUCCESS, "spawn a sleeper")
        rc, res = foo.job_control([wild(ns1 or "?")], [info(PMIX_JOB_CTRL_KILL, True, PMIX_BOOL)])
        check_rc(foo, rc, PMIX_SUCCESS, "job_control(KILL the sleeper)")
        check(isinstance(res, list), "results are a list: %r" % (res,))
        check(ended.wait_until(lambda c: any(x[1] and x[1]["nspace"] == ns1 for x in c), 30),
              "the killed job ended: %r" % ended.calls)
        rc, ns2 = foo.spawn(notify, sleeper)
        check_rc(foo, rc, PMIX_SUCCESS, "spawn another sleeper")
        w = Waiter()
        marker = object()
        rc = foo.job_control_nb([wild(ns2 or "?")], [info(PMIX_JOB_CTRL_TERMINATE, True, PMIX_BOOL)], w, marker)
        check_rc(foo, rc, PMIX_SUCCESS, "job_control_nb(TERMINATE) accepted")
        check(w.wait() and w.calls[0][0] == PMIX_SUCCESS and w.calls[0][2] is marker,
              "job_control_nb callback (SUCCESS, results, cbdata): %r" % w.calls)
        check_progress_thread(foo, w, "the job_control_nb callback")
        check(ended.wait_until(lambda c: any(x[1] and x[1]["nspace"] == ns2 for x in c), 30),
              "the terminated job ended: %r" % ended.calls)
        rc, res = foo.job_control(ctx.wild, [info("py.no.such.directive", True, PMIX_BOOL)])
        check_rc(foo, rc, PMIX_ERR_NOT_SUPPORTED, "an unknown directive")
        check_eq(res, [], "no results")
        check_eq(len(w.settle(0.2)), 1, "the job_control_nb callback ran once")
        foo.deregister_event_handler(ref)
    check_rc(foo, ctx.barrier(), PMIX_SUCCESS, "both ranks still alive")


# -- groups ----------------------------------------------------------------
def groups(ctx):
    """Python version of the C groups scenario (4 ranks): construct (blocking
    and _nb, with context ids and endpoint data), group names as procs,
    invitations accepted/declined (blocking and _nb, from the main thread and
    from the event handler), leave (events), destruct."""
    foo = ctx.foo
    ns, r = ctx.ns, ctx.rank
    if ctx.size != 4:
        check(False, "groups needs 4 ranks, not %d" % ctx.size)
        return
    upd, left = Waiter(), Waiter()
    st = {"invited": Waiter(), "joined": Waiter()}
    inner = {}

    def on_invited(ref, status, source, infos, results):
        grp = value_of(infos, PMIX_GROUP_ID)
        if r == 3:
            # the rule of the pages: no blocking call from a handler
            inner.setdefault("join_in_handler", foo.group_join(grp, source, PMIX_GROUP_DECLINE, None)[0])
            rc = foo.group_join_nb(grp, source, PMIX_GROUP_DECLINE, None, st["joined"], "declined")
            if rc != PMIX_SUCCESS:
                st["joined"](rc, [], "refused")
        st["invited"](status, source, grp)
        return PMIX_EVENT_ACTION_COMPLETE, []

    for code, h in ((PMIX_GROUP_MEMBERSHIP_UPDATE, handler_into(upd)), (PMIX_GROUP_LEFT, handler_into(left)),
                    (PMIX_GROUP_INVITED, on_invited)):
        rc, _ = foo.register_event_handler([code], None, h)
        check_rc(foo, rc, PMIX_SUCCESS, "handler for %s" % foo.error_string(code))
    assign = [info(PMIX_GROUP_ASSIGN_CONTEXT_ID, True, PMIX_BOOL)]

    pair = [{"nspace": ns, "rank": 0}, {"nspace": ns, "rank": 1}]
    check_rc(foo, foo.group_construct(None, pair, None)[0], PMIX_ERR_BAD_PARAM, "a group without a name")
    if r == 3:
        check_rc(foo, foo.group_construct("g0", pair, None)[0], PMIX_ERR_NOT_A_MEMBER, "a group without the caller")
    # endpoint data, never committed: the construct carries it
    foo.put(PMIX_GLOBAL, "grp.ep", {"value": 500 + r, "val_type": PMIX_INT})
    ctx.barrier()

    ctx_a = None
    if r <= 2:
        three = [{"nspace": ns, "rank": i} for i in (range(3) if r % 2 else reversed(range(3)))]
        rc, res = foo.group_construct("gA", three, assign)
        check_rc(foo, rc, PMIX_SUCCESS, "construct gA")
        ctx_a = value_of(res, PMIX_GROUP_CONTEXT_ID)
        members = value_of(res, PMIX_GROUP_MEMBERSHIP)
        check(isinstance(ctx_a, int) and ctx_a > 0, "gA has a context id: %r" % (res,))
        check(isinstance(members, dict) and sorted(p["rank"] for p in members["array"]) == [0, 1, 2],
              "gA's membership: %r" % (members,))
        for i in range(3):
            if i != r:
                rc, v = foo.get({"nspace": ns, "rank": i}, "grp.ep", [IMMEDIATE])
                check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 500 + i), "member %d's endpoint (IMMEDIATE)" % i)
        check(upd.wait_until(len, 10), "PMIX_GROUP_MEMBERSHIP_UPDATE arrived")
    if r >= 2:
        w = Waiter()
        rc = foo.group_construct_nb("gB", [{"nspace": ns, "rank": 3}, {"nspace": ns, "rank": 2}], assign, w, "gB")
        check_rc(foo, rc, PMIX_SUCCESS, "construct_nb gB accepted")
        check(w.wait() and w.calls[0][0] == PMIX_SUCCESS and w.calls[0][2] == "gB", "gB built: %r" % w.calls)
        ctx_b = value_of(w.calls[0][1], PMIX_GROUP_CONTEXT_ID) if w.calls else None
        check(isinstance(ctx_b, int) and ctx_b > 0 and ctx_b != ctx_a, "gB's own context id %r (gA %r)" % (ctx_b, ctx_a))
        check_progress_thread(foo, w, "the group_construct_nb callback")
    ctx.barrier()

    if r <= 2:
        g = [{"nspace": "gA", "rank": PMIX_RANK_WILDCARD}]
        check_rc(foo, foo.fence(g, None), PMIX_SUCCESS, "fence over gA")
        check_rc(foo, foo.connect(g, None), PMIX_SUCCESS, "connect over gA")
        check_rc(foo, foo.disconnect(g, None), PMIX_SUCCESS, "disconnect over gA")
        rc, v = foo.get(ctx.me, PMIX_GROUP_NAMES, [])
        check(rc == PMIX_SUCCESS and v and "gA" in (v["value"].get("array") or []), "PMIX_GROUP_NAMES: %r" % (v,))
    rc, res = foo.query([{"keys": [PMIX_QUERY_NUM_GROUPS]}])
    check_eq((rc, value_of(query_answers(res), PMIX_QUERY_NUM_GROUPS)), (PMIX_SUCCESS, 2), "two groups")
    ctx.barrier()

    # invitations: rank 0 invites 1 and 3, and names itself (only then is it a member,
    # as in OpenPMIx); 1 accepts, 3 declines
    invitees = [{"nspace": ns, "rank": 1}, {"nspace": ns, "rank": 3}, {"nspace": ns, "rank": 0}]
    if r == 0:
        rc, res = foo.group_invite("gI", invitees, None)
        check_rc(foo, rc, PMIX_GROUP_CONSTRUCT_ABORT, "an invitation someone declines")
    if r == 1:
        check(st["invited"].wait(), "invited to gI")
        _, src, grp = st["invited"].calls[0]
        check_eq((src, grp), ({"nspace": ns, "rank": 0}, "gI"), "invitation from rank 0 to gI")
        rc, res = foo.group_join(grp, src, PMIX_GROUP_ACCEPT, None)
        check_rc(foo, rc, PMIX_GROUP_CONSTRUCT_ABORT, "accepting (blocking) a group another declined")
    if r == 3:
        check(st["invited"].wait(), "invited to gI")
        check(st["joined"].wait(), "decline completed")
        check_rc(foo, st["joined"].calls[0][0], PMIX_SUCCESS, "declining")
        check_progress_thread(foo, st["joined"], "the group_join_nb callback")
        if is_pmix_rs(foo):
            check_rc(foo, inner.get("join_in_handler"), PMIX_ERR_WOULD_BLOCK, "a blocking join inside the handler")
    st["invited"], st["joined"] = Waiter(), Waiter()
    ctx.barrier()

    # with PMIX_GROUP_OPTIONAL the group forms from those who accept
    if r == 0:
        w = Waiter()
        rc = foo.group_invite_nb("gJ", invitees, [info(PMIX_GROUP_OPTIONAL, True, PMIX_BOOL)], w, None)
        check_rc(foo, rc, PMIX_SUCCESS, "invite_nb accepted")
        check(w.wait() and w.calls[0][0] == PMIX_SUCCESS, "gJ formed: %r" % w.calls)
        members = value_of(w.calls[0][1], PMIX_GROUP_MEMBERSHIP) if w.calls else None
        check(isinstance(members, dict) and sorted(p["rank"] for p in members["array"]) == [0, 1],
              "gJ is ranks 0 and 1: %r" % (members,))
    if r == 1:
        check(st["invited"].wait(), "invited to gJ")
        w = Waiter()
        _, src, grp = st["invited"].calls[0]
        check_rc(foo, foo.group_join_nb(grp, src, PMIX_GROUP_ACCEPT, None, w, "acc"), PMIX_SUCCESS, "join_nb accepted")
        check(w.wait() and w.calls[0][0] == PMIX_SUCCESS and w.calls[0][2] == "acc", "joined gJ: %r" % w.calls)
    if r == 3:
        check(st["invited"].wait() and st["joined"].wait(), "invited to gJ and declined")
    ctx.barrier()

    if r == 1:
        check_rc(foo, foo.group_leave("gJ", None), PMIX_SUCCESS, "rank 1 leaves gJ")
    if r == 0:
        check(left.wait_until(lambda c: any(x[1] == {"nspace": ns, "rank": 1} for x in c), 10),
              "rank 0 heard PMIX_GROUP_LEFT from rank 1")
        check_rc(foo, foo.group_destruct("gJ", None), PMIX_SUCCESS, "destruct gJ alone")
    ctx.barrier()

    if r == 2:
        w = Waiter()
        check_rc(foo, foo.group_leave_nb("gA", None, w, "bye"), PMIX_SUCCESS, "leave_nb gA accepted")
        check(w.wait() and w.calls[0] == (PMIX_SUCCESS, "bye"), "left gA: %r" % w.calls)
    if r <= 1:
        check(left.wait_until(lambda c: any(x[1] == {"nspace": ns, "rank": 2} for x in c), 10),
              "PMIX_GROUP_LEFT for rank 2 leaving gA: %r" % left.calls)
    ctx.barrier()
    if r <= 1:
        check_rc(foo, foo.group_destruct("gA", None), PMIX_SUCCESS, "destruct gA")
        check_rc(foo, foo.group_destruct("gA", None), PMIX_ERR_NOT_FOUND, "gA is gone")
    if r >= 2:
        w = Waiter()
        check_rc(foo, foo.group_destruct_nb("gB", None, w, r), PMIX_SUCCESS, "destruct_nb gB accepted")
        check(w.wait() and w.calls[0] == (PMIX_SUCCESS, r), "gB destructed: %r" % w.calls)
    ctx.barrier()


# -- queries ---------------------------------------------------------------
def query(ctx):
    """query / query_nb: namespaces, a job-level key with a qualifier, the
    process table, several queries at once, an unknown key."""
    foo = ctx.foo
    rc, res = foo.query([{"keys": [PMIX_QUERY_NAMESPACES], "qualifiers": []}])
    check_rc(foo, rc, PMIX_SUCCESS, "query(PMIX_QUERY_NAMESPACES)")
    nss = value_of(query_answers(res), PMIX_QUERY_NAMESPACES)
    check(isinstance(nss, str) and ctx.ns in nss.split(","), "our namespace listed: %r" % (res,))
    if is_pmix_rs(foo):
        check(len(res) == 1 and res[0]["key"] == PMIX_QUERY_RESULTS and res[0]["val_type"] == PMIX_DATA_ARRAY,
              "one PMIX_QUERY_RESULTS per query (master)")
    q = {"keys": [PMIX_JOB_SIZE], "qualifiers": [info(PMIX_NSPACE, ctx.ns, PMIX_STRING)]}
    rc, res = foo.query([q])
    check_eq((rc, value_of(query_answers(res), PMIX_JOB_SIZE)), (PMIX_SUCCESS, ctx.size), "job size of our namespace")
    if is_pmix_rs(foo) and res:
        quals = value_of(res[0]["value"]["array"], PMIX_QUERY_QUALIFIERS)
        check(quals and value_of(quals["array"], PMIX_NSPACE) == ctx.ns, "the qualifiers come back first: %r" % (res,))
    rc, res = foo.query([{"keys": [PMIX_QUERY_PROC_TABLE], "qualifiers": [info(PMIX_NSPACE, ctx.ns, PMIX_STRING)]}])
    check_rc(foo, rc, PMIX_SUCCESS, "query(PMIX_QUERY_PROC_TABLE)")
    table = value_of(query_answers(res), PMIX_QUERY_PROC_TABLE)
    procs = (table or {}).get("array") or []
    mine = [p for p in procs if p["proc"] == ctx.me]
    check(len(procs) == ctx.size and len(mine) == 1 and mine[0]["pid"] == os.getpid(),
          "a pmix_proc_info_t per rank, ours with our pid: %r" % (procs,))
    rc, res = foo.query([{"keys": [PMIX_QUERY_NAMESPACES]}, {"keys": [PMIX_JOB_SIZE], "qualifiers": q["qualifiers"]}])
    check_rc(foo, rc, PMIX_SUCCESS, "two queries at once")
    got = query_answers(res)
    check(value_of(got, PMIX_QUERY_NAMESPACES) and value_of(got, PMIX_JOB_SIZE) == ctx.size, "both answered: %r" % res)
    rc, res = foo.query([{"keys": ["py.no.such.query"]}])
    check_rc(foo, rc, PMIX_ERR_NOT_FOUND, "an unknown key")
    check_eq(res, [], "no results")
    w = Waiter()
    rc = foo.query_nb([{"keys": [PMIX_QUERY_NAMESPACES]}], w, "q")
    check_rc(foo, rc, PMIX_SUCCESS, "query_nb accepted")
    check(w.wait() and w.calls[0][0] == PMIX_SUCCESS and w.calls[0][2] == "q", "query_nb callback: %r" % w.calls)
    if w.calls:
        check(ctx.ns in (value_of(query_answers(w.calls[0][1]), PMIX_QUERY_NAMESPACES) or ""), "query_nb results")
    check_progress_thread(foo, w, "the query_nb callback")
    ctx.barrier()


# -- every _nb form --------------------------------------------------------
def nb_forms(ctx):
    """Each _nb method: the callback runs iff the call returned PMIX_SUCCESS,
    exactly once, on the progress thread, with cbdata handed back (the same
    object). Those pmixrun supports must be accepted; the rest may be refused
    (then no callback). An info callback that raises is reported."""
    foo = ctx.foo
    key = "py.nb.%d" % ctx.rank
    issued = []  # (name, rc, waiter, cbdata, must_accept, must_succeed)

    def go(name, call, must=True, succeed=True):
        w, marker = Waiter(), object()
        rc = call(w, marker)
        issued.append((name, rc, w, marker, must, must and succeed))
        if rc == PMIX_SUCCESS:
            check(w.wait(30), "%s: callback ran" % name)
        return w

    go("fence_nb", lambda w, m: foo.fence_nb(None, None, w, m))
    go("get_nb", lambda w, m: foo.get_nb(ctx.peer(), PMIX_LOCAL_RANK, [], w, m))
    go("connect_nb", lambda w, m: foo.connect_nb(ctx.wild, None, w, m))
    go("disconnect_nb", lambda w, m: foo.disconnect_nb(ctx.wild, None, w, m))
    go("publish_nb", lambda w, m: foo.publish_nb([info(key, ctx.rank, PMIX_INT)], w, m))
    w = go("lookup_nb", lambda w, m: foo.lookup_nb([key], [WAIT10], w, m))
    if w.calls:
        check_eq(w.calls[0][1][:1], [{"proc": ctx.me, "key": key, "value": ctx.rank, "val_type": PMIX_INT}],
                 "lookup_nb found our own publication")
    go("unpublish_nb", lambda w, m: foo.unpublish_nb([key], None, w, m))
    go("log_nb", lambda w, m: foo.log_nb([info(PMIX_LOG_STDERR, "py nb log %d\n" % ctx.rank, PMIX_STRING)], None, w, m))
    # (whether a query succeeds is the host's business: ORTE answers PMIX_ERROR)
    go("query_nb", lambda w, m: foo.query_nb([{"keys": [PMIX_QUERY_NAMESPACES]}], w, m), succeed=False)
    code = PMIX_EXTERNAL_ERR_BASE - 11
    w = go("register_event_handler", lambda w, m: foo.register_event_handler([code], None, lambda *a: None, w, m)[0])
    ref = w.calls[0][1] if w.calls else -1
    go("deregister_event_handler", lambda w, m: foo.deregister_event_handler(ref, w, m))
    if ctx.rank == 0:
        go("spawn_nb", lambda w, m: foo.spawn_nb(None, [{"cmd": "/bin/true", "maxprocs": 1}], w, m))
    # calls a host may not support: the contract holds whatever the answer
    go("allocation_request_nb", lambda w, m: foo.allocation_request_nb(
        PMIX_ALLOC_NEW, [info(PMIX_ALLOC_NUM_NODES, 1, PMIX_UINT64)], w, m), must=False)
    go("monitor_nb", lambda w, m: foo.monitor_nb(info(PMIX_MONITOR_HEARTBEAT, True, PMIX_BOOL),
                                                 PMIX_MONITOR_HEARTBEAT_ALERT, None, w, m), must=False)
    go("get_credential_nb", lambda w, m: foo.get_credential_nb(None, w, m), must=False)
    go("validate_credential_nb", lambda w, m: foo.validate_credential_nb(b"junk", None, w, m), must=False)

    # an info callback that raises: reported, and the next one still runs
    def bad(status, results, cbdata):
        raise RuntimeError("boom in query_nb callback (expected by the test)")

    check_rc(foo, foo.query_nb([{"keys": [PMIX_QUERY_NAMESPACES]}], bad, None), PMIX_SUCCESS, "raising query_nb")
    go("query_nb (after a raising one)", lambda w, m: foo.query_nb([{"keys": [PMIX_QUERY_NAMESPACES]}], w, m),
       succeed=False)

    issued[-1][2].settle(0.5)  # time for any stray second invocation
    for name, rc, w, marker, must, succeed in issued:
        calls = list(w.calls)
        if must:
            check_rc(foo, rc, PMIX_SUCCESS, "%s accepted" % name)
        if rc == PMIX_SUCCESS:
            check(len(calls) == 1 and calls[0][-1] is marker, "%s: once, with the same cbdata: %r" % (name, calls))
            check_progress_thread(foo, w, "the %s callback" % name)
            if succeed and calls:
                check_rc(foo, calls[0][0], PMIX_SUCCESS, "%s callback status" % name)
        else:
            check(rc < 0 and not calls, "%s refused (%s): no callback (%r)" % (name, foo.error_string(rc), calls))
    ctx.barrier()


def local_event(ctx):
    """A PMIX_RANGE_PROC_LOCAL event: the handler and notify_event's callback
    run on the progress thread, once, with the status, source and infos."""
    foo = ctx.foo
    code = PMIX_EXTERNAL_ERR_BASE - 12
    ev = Waiter()
    rc, ref = foo.register_event_handler([code], None, handler_into(ev))
    check_rc(foo, rc, PMIX_SUCCESS, "register_event_handler")
    done, marker = Waiter(), object()
    rc = foo.notify_event(code, ctx.me, PMIX_RANGE_PROC_LOCAL, [info("py.ev", "x", PMIX_STRING)], done, marker)
    check_rc(foo, rc, PMIX_SUCCESS, "notify_event accepted")
    check(done.wait() and ev.wait(), "callback and handler ran")
    check(ev.calls and ev.calls[0][:2] == (code, ctx.me) and value_of(ev.calls[0][2], "py.ev") == "x",
          "the handler got status, source and info: %r" % ev.calls)
    check(done.calls and done.calls[0] == (PMIX_SUCCESS, marker), "notify_event callback: %r" % done.calls)
    check_progress_thread(foo, ev, "the event handler")
    check_progress_thread(foo, done, "the notify_event callback")
    check_eq((len(ev.settle(0.3)), len(done.calls)), (1, 1), "each ran once")
    check_rc(foo, foo.deregister_event_handler(ref), PMIX_SUCCESS, "deregister")


SCENARIOS = {f.__name__: f for f in (spawn_connect, job_control, groups, query, nb_forms, local_event)}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        sys.exit(main({"child": child}, tag="child "))
    sys.exit(main(SCENARIOS))
