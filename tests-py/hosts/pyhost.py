"""A PMIx host written in Python: PMIxServer with a module of Python callables.

    python3 pyhost.py <scenario> [client command ...]

It registers a namespace of N ranks on this node, registers and starts each
client (``setup_fork`` gives it the environment), serves its requests through
the callables below (they count every call), and prints one ``ok - ...`` or
``FAIL - ...`` line per check, prefixed ``[host]``, then ``counts {json}``.
Its exit status is the verdict. Scenarios:

  py     3 Python clients (ranks/server_client.py py): Put/Commit, a collecting
         Fence (the host's fence hands the contributions back), peer keys, job
         info and resources, publish/lookup (the host's dict), a lookup whose
         callable raises, an event leaving the node, IOF_deliver to a client that pulled,
         deregister_resources seen by the running clients, dmodex_request
  c      the same data exchange with 2 C clients (the client command)
  abort  2 Python clients: rank 1 aborts rank 0; the host's abort kills it
  support  the calls that need no client (setup_application, process sets, ...)
  tool   a Python tool attaches (the host's toolconnected names it, query answers it)
  bad    init with a bad module, and the binding's refusals (no client)
"""

import faulthandler
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from pmix import *  # noqa: F401,F403
from pmix import PMIxServer

WATCHDOG = float(os.environ.get("PMIX_TEST_WATCHDOG", "45"))
HERE = os.path.dirname(os.path.abspath(__file__))
PY_CLIENT = os.path.join(os.path.dirname(HERE), "ranks", "server_client.py")

EV_FROM_CLIENT = -7771
EV_FROM_HOST = -7772  # the host notifies its clients (PMIx_Notify_event in a server process)  # a client notifies beyond its server (the host's notifyevent)
REMOTE_NODE = "pyhost-elsewhere"

_lock = threading.Lock()
_failures = 0
counts = {}
seen = {}  # what the callables received, for the checks
published = {}


def say(line):
    with _lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def check(cond, what):
    global _failures
    if not cond:
        _failures += 1
    say("[host] %s - %s" % ("ok" if cond else "FAIL", what))
    return bool(cond)


def count(name, args=None):
    with _lock:
        counts[name] = counts.get(name, 0) + 1
        if args is not None:
            seen.setdefault(name, []).append(args)


def wait_for(pred, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _lock:
            if pred():
                return True
        time.sleep(0.02)
    return False


# --- the server module: each style of completion is used at least once -----
def clientconnected(proc, cbfunc, cbdata):
    count("clientconnected")
    return PMIX_OPERATION_SUCCEEDED


def clientfinalized(proc, cbfunc, cbdata):
    count("clientfinalized", proc)
    if SRV is not None and proc["rank"] == 0:
        # inside an upcall (the progress thread): the blocking form is refused,
        # the callback form works
        seen["inside_blocking"] = SRV.register_resources([{"key": "pyhost.inside", "value": 1, "val_type": PMIX_INT}])
        seen["inside_nb"] = SRV.register_resources([{"key": "pyhost.inside", "value": 1, "val_type": PMIX_INT}],
                                                   lambda st, cd: count("inside_cb", {"status": st, "cbdata": cd}),
                                                   "mine")
    cbfunc(PMIX_SUCCESS, cbdata)  # completed from inside the upcall
    return PMIX_SUCCESS


def thread_name():
    try:
        with open("/proc/self/task/%d/comm" % threading.get_native_id()) as f:
            return f.read().strip()
    except OSError:
        return None


def fencenb(args, cbfunc, cbdata):
    # one server: the node's contribution is everybody's, handed back at once
    count("fencenb", {"procs": args["procs"], "ndata": len(args["data"]), "thread": thread_name(),
                      "collect": any(d["key"] == PMIX_COLLECT_DATA for d in args["directives"])})
    return PMIX_SUCCESS, args["data"]


def directmodex(args, cbfunc, cbdata):
    # the remote rank never ran: there is nothing to fetch
    count("directmodex", args["proc"])
    return (PMIX_ERR_NOT_FOUND, None)


def publish(args, cbfunc, cbdata):
    count("publish", args)
    for d in args["directives"]:
        if not d["key"].startswith("pmix."):
            published[d["key"]] = {"proc": args["proc"], "value": d["value"], "val_type": d["val_type"]}
    # completed later, from another thread
    threading.Timer(0.05, cbfunc, [PMIX_SUCCESS, cbdata]).start()
    return PMIX_SUCCESS


def lookup(args, cbfunc, cbdata):
    count("lookup", args)
    if "py.raise" in args["keys"]:
        raise RuntimeError("the host's lookup raised on purpose")
    if "py.badresult" in args["keys"]:
        return PMIX_SUCCESS, [{"key": "py.badresult", "value": "x"}]  # no val_type
    found = [dict(published[k], key=k) for k in args["keys"] if k in published]
    if not found:
        return PMIX_ERR_NOT_FOUND
    cbfunc(PMIX_SUCCESS, found, cbdata)
    return PMIX_SUCCESS


def unpublish(args, cbfunc, cbdata):
    count("unpublish", args)
    for k in args["keys"]:
        published.pop(k, None)
    return PMIX_OPERATION_SUCCEEDED


def notifyevent(args, cbfunc, cbdata):
    count("notifyevent", {"code": args["code"], "source": args["source"], "range": args["range"]})
    return (PMIX_SUCCESS,)


def iofpull(args, cbfunc, cbdata):
    count("iofpull", {"sources": args["sources"], "channels": args["channels"]})
    return (PMIX_SUCCESS,)


def query(args, cbfunc, cbdata):
    count("query", {"source": args["source"], "keys": [k for q in args["queries"] for k in q["keys"]]})
    answers = [{"key": k, "value": "the host's answer to " + k, "val_type": PMIX_STRING}
               for q in args["queries"] for k in q["keys"]]
    return PMIX_SUCCESS, answers


def log(args, cbfunc, cbdata):
    # a void slot: the binding completes it with what the callable returns
    count("log", {"source": args["source"], "data": [(d["key"], d["value"]) for d in args["data"]]})
    return PMIX_OPERATION_SUCCEEDED


def jobcontrol(args, cbfunc, cbdata):
    count("jobcontrol", {"targets": args["targets"], "keys": [d["key"] for d in args["directives"]]})
    done = [{"key": "pyhost.ctl.done", "value": len(args["targets"]), "val_type": PMIX_UINT32}]
    threading.Timer(0.05, cbfunc, [PMIX_SUCCESS, done, cbdata]).start()
    return PMIX_SUCCESS


def toolconnected(args, cbfunc, cbdata):
    # a void slot: the identity goes back through cbfunc, here from inside
    count("toolconnected", {"directives": [d["key"] for d in args["directives"]]})
    cbfunc(PMIX_SUCCESS, {"nspace": "pyhost-tools", "rank": 7}, cbdata)


def abort(args, cbfunc, cbdata):
    count("abort", {k: args[k] for k in ("caller", "status", "msg", "targets")})
    for t in args["targets"]:
        pid = pids.get(t["rank"])
        if pid:
            os.kill(pid, signal.SIGKILL)
    return (PMIX_SUCCESS,)


MODULE = {
    "clientconnected": clientconnected,
    "clientfinalized": clientfinalized,
    "fencenb": fencenb,
    "directmodex": directmodex,
    "publish": publish,
    "lookup": lookup,
    "unpublish": unpublish,
    "notifyevent": notifyevent,
    "iofpull": iofpull,
    "abort": abort,
    "query": query,
    "log": log,
    "jobcontrol": jobcontrol,
    "toolconnected": toolconnected,
}

pids = {}  # rank -> pid
SRV = None  # the server, for the callables that call it
# a blocking server call that worked (pmix-rs: SUCCESS; OpenPMIx 4.2.2: OPERATION_SUCCEEDED)
DONE = (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED)


def register_job(srv, ns, n):
    """Ranks 0..n-1 here and rank n on another node (never started): a fence
    spanning the job then needs the host (the server calls fencenb), and the
    remote rank's data is the host's to find (directmodex)."""
    host = socket.gethostname()
    rc, nodes = srv.generate_regex([host, REMOTE_NODE])
    check(rc == PMIX_SUCCESS and nodes, "generate_regex (%d)" % rc)
    rc, ppn = srv.generate_ppn([",".join(str(r) for r in range(n)), str(n)])
    check(rc == PMIX_SUCCESS and ppn, "generate_ppn (%d)" % rc)
    infos = [
        {"key": PMIX_JOB_SIZE, "value": n + 1, "val_type": PMIX_UINT32},
        {"key": PMIX_UNIV_SIZE, "value": n + 1, "val_type": PMIX_UINT32},
        {"key": PMIX_NODE_MAP, "value": nodes, "val_type": PMIX_STRING},
        {"key": PMIX_PROC_MAP, "value": ppn, "val_type": PMIX_STRING},
        {"key": "pyhost.jobkey", "value": "from the python host", "val_type": PMIX_STRING},
    ]
    rc = srv.register_nspace(ns, n, infos)
    check(rc in DONE, "register_nspace %s with %d ranks here (%d)" % (ns, n, rc))


def start_clients(srv, ns, n, cmd):
    procs = []
    for r in range(n):
        proc = {"nspace": ns, "rank": r}
        rc = srv.register_client(proc, os.getuid(), os.getgid())
        check(rc in DONE, "register_client rank %d (%d)" % (r, rc))
        env = dict(os.environ)
        rc = srv.setup_fork(proc, env)
        check(rc == PMIX_SUCCESS and env.get("PMIX_NAMESPACE") == ns, "setup_fork rank %d gives the client "
              "its namespace (%d, %r)" % (r, rc, env.get("PMIX_NAMESPACE")))
        p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)
        pids[r] = p.pid
        procs.append(p)
    return procs


def wait_clients(procs, timeout=40.0):
    codes = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            codes.append(p.wait(max(deadline - time.monotonic(), 0.1)))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
            check(False, "client pid %d hung (killed)" % p.pid)
    return codes


def serve_py(srv, ns, n):
    """The host's side of ranks/server_client.py py, while the clients run."""
    # rank 1 pulled rank 0's stdout: deliver some output of ours as rank 0's
    check(wait_for(lambda: counts.get("iofpull", 0) >= 1), "the iofpull callable was called")
    rc = srv.iof_deliver({"nspace": ns, "rank": 0}, PMIX_FWD_STDOUT_CHANNEL,
                         {"bytes": b"delivered by the python host\n"}, [])
    check(rc in (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED), "IOF_deliver (%d)" % rc)
    # after the second fence every client has seen the resources: retract one
    check(wait_for(lambda: counts.get("fencenb", 0) >= 2), "the second fence reached the host")
    rc = srv.deregister_resources([{"key": PMIX_CLUSTER_ID, "value": "", "val_type": PMIX_STRING}])
    check(rc in (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED), "deregister_resources (%d)" % rc)
    rc = srv.notify_event(EV_FROM_HOST, {"nspace": ns, "rank": PMIX_RANK_WILDCARD}, PMIX_RANGE_NAMESPACE, [])
    check(rc == PMIX_SUCCESS, "notify_event from the host to its clients (%d)" % rc)
    rc, (data, size) = srv.dmodex_request({"nspace": ns, "rank": 1}, {}, timeout=20)
    check(rc == PMIX_SUCCESS and size > 0 and b"py.rank" in data,
          "dmodex_request: rank 1's committed data (%d, %d bytes)" % (rc, size))


def check_py_counts(n):
    check(counts.get("fencenb") == 3, "fencenb called once per fence (%r)" % counts.get("fencenb"))
    f = seen.get("fencenb", [{}])[0]
    check(f.get("collect") and f.get("procs") == [{"nspace": "pyhost-py", "rank": PMIX_RANK_WILDCARD}]
          and f.get("ndata", 0) > 0,
          "the collecting fence's arguments (%r)" % f)
    pub = (seen.get("publish") or [{}])[0]
    check(counts.get("publish") == 1 and pub.get("proc") == {"nspace": "pyhost-py", "rank": 0}
          and [d["key"] for d in pub.get("directives", [])].count("py.pub") == 1,
          "publish got rank 0's py.pub (%r)" % pub)
    check(counts.get("lookup", 0) == 3 * n, "lookup called %d times (%r)" % (3 * n, counts.get("lookup")))
    check(counts.get("unpublish") == 1 and "py.pub" not in published, "unpublish removed py.pub")
    evs = [e for e in seen.get("notifyevent", []) if e["code"] == EV_FROM_CLIENT]
    check(len(evs) == n, "notifyevent got every client's event (%r)" % evs)
    check(f.get("thread") == "pmix-progress", "the callables run on the library's progress thread (%r)"
          % f.get("thread"))
    q = (seen.get("query") or [{}])[0]
    check(counts.get("query") == 1 and q.get("keys") == ["pyhost.question"]
          and q.get("source") == {"nspace": "pyhost-py", "rank": 0}, "query got rank 0's question (%r)" % q)
    lg = (seen.get("log") or [{}])[0]
    check(counts.get("log") == 1 and lg.get("data") == [(PMIX_LOG_STDERR, "a line for the python host")],
          "log got rank 0's data (%r)" % lg)
    jc = (seen.get("jobcontrol") or [{}])[0]
    check(counts.get("jobcontrol") == 1 and jc.get("targets") == [{"nspace": "pyhost-py", "rank": n}]
          and "pyhost.ctl" in jc.get("keys", []), "jobcontrol got rank 0's request (%r)" % jc)
    check(seen.get("directmodex") and seen["directmodex"][0] == {"nspace": "pyhost-py", "rank": n},
          "directmodex asked for the remote rank (%r)" % seen.get("directmodex"))
    check(counts.get("clientfinalized") == n, "clientfinalized for each client (%r)" % counts.get("clientfinalized"))
    check(seen.get("inside_blocking") == PMIX_ERR_WOULD_BLOCK and seen.get("inside_nb") == PMIX_SUCCESS
          and seen.get("inside_cb") == [{"status": PMIX_SUCCESS, "cbdata": "mine"}],
          "from inside an upcall: blocking register_resources would block, the callback form works (%r %r %r)"
          % (seen.get("inside_blocking"), seen.get("inside_nb"), seen.get("inside_cb")))


def check_c_counts(n):
    check(counts.get("fencenb") == 2, "fencenb called once per fence (%r)" % counts.get("fencenb"))
    check(counts.get("publish") == 1, "publish called once (%r)" % counts.get("publish"))
    check(counts.get("lookup") == n, "lookup called by each client (%r)" % counts.get("lookup"))
    check(counts.get("clientfinalized") == n, "clientfinalized for each client (%r)" % counts.get("clientfinalized"))


def scenario_bad(srv):
    check(srv.init([], {"fencenb": fencenb, "no_such_slot": fencenb}) == PMIX_ERR_BAD_PARAM,
          "init with an unknown module key is PMIX_ERR_BAD_PARAM")
    check(srv.init([], {"fencenb": 42}) == PMIX_ERR_BAD_PARAM, "init with a value that is not callable")
    check(srv.init([], {"fencenb": fencenb, "fence_nb": fencenb}) == PMIX_ERR_BAD_PARAM,
          "init with one slot under both of its names")
    check(not srv.initialized(), "none of them initialized the library")
    check(srv.register_nspace("x", 1, []) == PMIX_ERR_INIT, "register_nspace before init is PMIX_ERR_INIT")


def scenario_support(srv):
    """The server calls that need no client, with the status pmix-rs gives."""
    ns = "pyhost-support"
    rc, info = srv.setup_application(ns, [])
    check(rc == PMIX_SUCCESS and info == [], "setup_application (%d, %r)" % (rc, info))
    rc = srv.setup_local_support(ns, info)
    check(rc in (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED), "setup_local_support (%d)" % rc)
    done = threading.Event()
    got = []

    def opcb(status, cbdata):
        got.append((status, cbdata))
        done.set()

    rc = srv.register_nspace(ns, 2, [{"key": PMIX_JOB_SIZE, "value": 2, "val_type": PMIX_UINT32}], opcb, "nscb")
    check(rc == PMIX_SUCCESS and done.wait(10) and got == [(PMIX_SUCCESS, "nscb")],
          "register_nspace with a callback (%d, %r)" % (rc, got))
    rc, env = srv.setup_fork({"nspace": ns, "rank": 1})
    check(rc == PMIX_SUCCESS and env.get("PMIX_NAMESPACE") == ns and env.get("PMIX_RANK") == "1",
          "setup_fork(proc) returns the variables (%d)" % rc)
    t0 = time.monotonic()
    rc, dm = srv.dmodex_request({"nspace": "pyhost-nowhere", "rank": 0}, None, timeout=0.5)
    check(rc == PMIX_ERR_TIMEOUT and dm == (None, 0) and time.monotonic() - t0 < 5,
          "dmodex_request of a process that never commits times out (%d)" % rc)
    members = [{"nspace": ns, "rank": 0}, {"nspace": ns, "rank": 1}]
    check(srv.define_process_set(members, "pyhost-set") == PMIX_SUCCESS, "define_process_set")
    check(srv.delete_process_set("pyhost-set") == PMIX_SUCCESS, "delete_process_set")
    check(srv.register_attributes("PMIx_Get", [PMIX_TIMEOUT]) == PMIX_SUCCESS, "register_attributes")
    rc, rx = srv.generate_regex2(["pyn1", "pyn2"])
    rc2, names = srv.parse_regex2(rx) if rx else (rc, [])
    check(rc == PMIX_SUCCESS and rc2 == PMIX_SUCCESS and names == ["pyn1", "pyn2"],
          "generate_regex2/parse_regex2 round trip (%d %d %r %r)" % (rc, rc2, rx, names))
    # what docs/STATUS.md lists as not supported
    check(srv.collect_inventory([])[0] == PMIX_ERR_NOT_SUPPORTED, "collect_inventory is NOT_SUPPORTED")
    check(srv.deliver_inventory([], []) == PMIX_ERR_NOT_SUPPORTED, "deliver_inventory is NOT_SUPPORTED")
    check(srv.collect_job_info(members)[0] == PMIX_ERR_NOT_SUPPORTED, "collect_job_info is NOT_SUPPORTED")
    check(srv.iof_flow_control(None, PMIX_FWD_STDIN_CHANNEL, True) == PMIX_ERR_NOT_SUPPORTED,
          "iof_flow_control is NOT_SUPPORTED")
    done.clear()
    check(srv.deregister_nspace(ns, opcb, "dereg") == PMIX_SUCCESS and done.wait(10)
          and got[-1] == (PMIX_SUCCESS, "dereg"), "deregister_nspace with a callback (%r)" % got)


def scenario_tool(srv):
    """A Python tool attaches to this host by its pid (ranks/server_tool.py)."""
    tool = os.path.join(os.path.dirname(PY_CLIENT), "server_tool.py")
    p = subprocess.Popen([sys.executable, tool, str(os.getpid())], stdin=subprocess.DEVNULL)
    codes = wait_clients([p])
    check(codes == [0], "the tool passed (%r)" % codes)
    t = (seen.get("toolconnected") or [{}])[0]
    check(counts.get("toolconnected") == 1 and counts.get("query") == 1,
          "toolconnected and query were called once each (%r)" % counts)
    check(PMIX_USERID in t.get("directives", []), "toolconnected got the tool's infos (%r)" % t)


def run(scenario, cmd):
    global SRV
    srv = PMIxServer()
    if scenario == "bad":
        scenario_bad(srv)
        return
    opts = [{"key": PMIX_SERVER_TOOL_SUPPORT, "value": True, "val_type": PMIX_BOOL}] if scenario == "tool" else []
    rc = srv.init(opts, MODULE)
    if not check(rc == PMIX_SUCCESS, "PMIxServer.init (%s)" % srv.error_string(rc)):
        return
    SRV = srv
    rc = srv.init([], {"fencenb": lambda a, f, d: PMIX_ERR_NOT_SUPPORTED})
    check(rc != PMIX_SUCCESS, "a second init fails (%d) and keeps the first one's module" % rc)
    if scenario in ("support", "tool"):
        (scenario_support if scenario == "support" else scenario_tool)(srv)
        check(srv.finalize() == PMIX_SUCCESS, "PMIxServer.finalize")
        return
    ns = "pyhost-" + scenario
    n = {"py": 3, "c": 2, "abort": 2}[scenario]
    res = [{"key": PMIX_CLUSTER_ID, "value": "pyhost-cluster", "val_type": PMIX_STRING},
           {"key": "pyhost.res", "value": 5, "val_type": PMIX_INT}]
    rc = srv.register_resources(res)
    check(rc in (PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED), "register_resources (%d)" % rc)
    register_job(srv, ns, n)
    if cmd is None:
        cmd = [sys.executable, PY_CLIENT, scenario]
    procs = start_clients(srv, ns, n, cmd)
    if scenario == "py":
        serve_py(srv, ns, n)
    codes = wait_clients(procs)
    if scenario == "abort":
        a = (seen.get("abort") or [{}])[0]
        check(counts.get("abort") == 1 and a.get("status") == 3 and a.get("msg") == "pyhost abort test"
              and a.get("caller") == {"nspace": ns, "rank": 1} and a.get("targets") == [{"nspace": ns, "rank": 0}],
              "the abort callable got the caller, status, message and targets (%r)" % a)
        check(codes == [-signal.SIGKILL, 3], "rank 0 was killed by the host, rank 1 exited 3 (%r)" % codes)
    else:
        check(codes == [0] * n, "every client exited 0 (%r)" % codes)
        (check_py_counts if scenario == "py" else check_c_counts)(n)
    for r in range(n):
        srv.deregister_client({"nspace": ns, "rank": r})
    check(srv.deregister_nspace(ns) == PMIX_SUCCESS, "deregister_nspace")
    check(srv.finalize() == PMIX_SUCCESS, "PMIxServer.finalize")


def main():
    faulthandler.dump_traceback_later(WATCHDOG, exit=True)
    scenario = sys.argv[1] if len(sys.argv) > 1 else "py"
    cmd = sys.argv[2:] or None
    try:
        run(scenario, cmd)
    except BaseException:
        import traceback

        traceback.print_exc()
        check(False, "the host raised")
    say("counts " + json.dumps(counts, sort_keys=True))
    faulthandler.cancel_dump_traceback_later()
    return 1 if _failures else 0


if __name__ == "__main__":
    sys.exit(main())
