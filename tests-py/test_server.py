"""PMIxServer: a PMIx host written in Python (hosts/pyhost.py) serving real C
and Python clients it starts itself, and the completion rules of the server
module's upcalls (exercised directly, without the library)."""

import ctypes
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, TIMEOUT, LIB_VERSION, Run, library, pmix_rs_only, rank_env

from pmix import _callbacks as CB
from pmix import _constants as C
from pmix import _convert as cv
from pmix import _lib
from pmix import _types as T
from pmix import _upcalls as U

HOST = Path(__file__).resolve().parent / "hosts" / "pyhost.py"
C_CLIENT = os.environ.get("PMIX_PY_SRV_CLIENT") or str(REPO / "build" / "tests-py" / "srv_client")


def run_host(scenario, *cmd):
    """Run the Python host for ``scenario``; never hangs."""
    if LIB_VERSION is None:
        pytest.fail("cannot load the PMIx library (%s) from Python" % (library() or "libpmix.so.2"))
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PMIX_") or k.startswith("OMPI_") or k.startswith("PRTE_"))}
    env.update(rank_env())
    args = ["timeout", "-s", "KILL", str(TIMEOUT), PYTHON, str(HOST), scenario] + list(cmd)
    try:
        proc = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=TIMEOUT + 15, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail("the host hung beyond %ds: %s\n%s" % (TIMEOUT, " ".join(args), e.stdout))
    return Run(args, proc)


def counts_of(run):
    for line in run.stdout.splitlines():
        if line.startswith("counts "):
            return json.loads(line[len("counts "):])
    pytest.fail("the host printed no counts\n" + run.report())


def assert_host_ok(run, finalized=()):
    fails = run.lines("FAIL")
    assert not fails and run.returncode == 0, "\n".join(fails) + "\n" + run.report()
    assert "[host] ok - PMIxServer.finalize" in run.stdout, run.report()
    for tag in finalized:
        assert "%s ok - finalize" % tag in run.stdout, "%s did not finalize\n%s" % (tag, run.report())


# Debian's OpenPMIx 4.2.2 as the server of a Python host: its clients' PMIx_Init fails
# here (dstore NOT-FOUND) even with an empty module; and the C client links our library
needs_pmix_rs = pmix_rs_only("the Python host's checks pin pmix-rs's answers; not run against OpenPMIx's server")


@needs_pmix_rs
def test_python_host_serves_python_clients():
    run = run_host("py")
    assert_host_ok(run, ["[0]", "[1]", "[2]"])
    n = counts_of(run)
    # the host's callables did the work the clients saw
    assert n.get("clientconnected") == 3 and n.get("clientfinalized") == 3, n
    assert n.get("fencenb") == 3, n
    assert n.get("publish") == 1 and n.get("unpublish") == 1, n
    assert n.get("lookup") == 9, n  # py.pub, py.raise and py.badresult from each client
    assert n.get("iofpull", 0) >= 1 and n.get("notifyevent", 0) >= 3, n
    assert n.get("query") == 1 and n.get("log") == 1 and n.get("jobcontrol") == 1 and n.get("directmodex", 0) >= 1, n
    assert "spawn" not in n and "abort" not in n, n
    # the raising callable's traceback, and the malformed result, were reported
    assert "RuntimeError: the host's lookup raised on purpose" in run.stderr, run.report()
    assert "converting the results of the lookup upcall" in run.stderr, run.report()


@needs_pmix_rs
def test_python_host_serves_c_clients():
    if not os.path.exists(C_CLIENT):
        pytest.fail("%s is missing (make python-check builds it)" % C_CLIENT)
    run = run_host("c", C_CLIENT)
    assert_host_ok(run, ["[c0]", "[c1]"])
    n = counts_of(run)
    assert n.get("fencenb") == 2 and n.get("publish") == 1 and n.get("lookup") == 2, n
    assert n.get("clientfinalized") == 2, n


@needs_pmix_rs
def test_python_host_abort_kills_the_targets():
    run = run_host("abort")
    fails = run.lines("FAIL")
    assert not fails and run.returncode == 0, "\n".join(fails) + "\n" + run.report()
    assert "[1] ok - abort returned" in run.stdout, run.report()
    assert counts_of(run).get("abort") == 1, run.report()


@needs_pmix_rs
def test_a_python_tool_attaches_to_the_python_host():
    run = run_host("tool")
    assert_host_ok(run)
    assert "[tool] ok - tool finalize" in run.stdout, run.report()
    assert counts_of(run) == {"toolconnected": 1, "query": 1}, run.report()


@needs_pmix_rs
def test_python_host_calls_without_clients():
    assert_host_ok(run_host("support"))


def test_bad_module_is_refused():
    run = run_host("bad")
    fails = run.lines("FAIL")
    assert not fails and run.returncode == 0, "\n".join(fails) + "\n" + run.report()
    assert "'no_such_slot' is not a server module function" in run.stderr, run.report()


# --- the completion rules, with a stand-in for the library's callback --------
class CCallback:
    """Plays the library's pmix_op_cbfunc_t: records (status, cbdata)."""

    def __init__(self):
        self.calls = []

    def __call__(self, status, cbdata):
        self.calls.append((status, cbdata))

    def __bool__(self):
        return True


@pytest.fixture
def handlers():
    yield
    U.install({})


def dispatch(handler, void=False):
    U.install({"publish": handler})
    cb = CCallback()
    rc = U._dispatch("publish", lambda: {"proc": None, "directives": []}, "op", cb, 1234, void=void)
    return rc, cb.calls


def test_completion_inside_the_upcall(handlers):
    def h(args, cbfunc, cbdata):
        cbfunc(C.PMIX_SUCCESS, cbdata)
        return C.PMIX_SUCCESS

    assert dispatch(h) == (C.PMIX_SUCCESS, [(C.PMIX_SUCCESS, 1234)])


def test_a_returned_tuple_completes_synchronously(handlers):
    assert dispatch(lambda a, f, d: (C.PMIX_ERR_NOT_FOUND,)) == (C.PMIX_SUCCESS, [(C.PMIX_ERR_NOT_FOUND, 1234)])


def test_a_returned_status_means_no_callback(handlers):
    assert dispatch(lambda a, f, d: C.PMIX_OPERATION_SUCCEEDED) == (C.PMIX_OPERATION_SUCCEEDED, [])
    assert dispatch(lambda a, f, d: C.PMIX_ERR_NOT_SUPPORTED) == (C.PMIX_ERR_NOT_SUPPORTED, [])


def test_completion_later_from_another_thread(handlers):
    saved = []

    def h(args, cbfunc, cbdata):
        saved.append((cbfunc, cbdata))
        return C.PMIX_SUCCESS

    rc, calls = dispatch(h)
    assert rc == C.PMIX_SUCCESS and calls == []
    cbfunc, cbdata = saved[0]
    t = threading.Thread(target=cbfunc, args=(C.PMIX_SUCCESS, cbdata))
    t.start()
    t.join()
    assert cbfunc(C.PMIX_SUCCESS, cbdata) == C.PMIX_ERR_BAD_PARAM  # a second completion is ignored


def test_an_exception_is_pmix_error_and_later_completions_are_ignored(handlers, capsys):
    saved = []

    def h(args, cbfunc, cbdata):
        saved.append((cbfunc, cbdata))
        raise ValueError("boom")

    assert dispatch(h) == (C.PMIX_ERROR, [])
    cbfunc, cbdata = saved[0]
    assert cbfunc(C.PMIX_SUCCESS, cbdata) == C.PMIX_ERR_BAD_PARAM
    err = capsys.readouterr().err
    assert "ValueError: boom" in err and "after the upcall returned an error" in err


def test_an_exception_after_completing_keeps_the_completion(handlers):
    def h(args, cbfunc, cbdata):
        cbfunc(C.PMIX_SUCCESS, cbdata)
        raise ValueError("late")

    assert dispatch(h) == (C.PMIX_SUCCESS, [(C.PMIX_SUCCESS, 1234)])


def test_none_or_junk_without_completing_is_pmix_error(handlers):
    assert dispatch(lambda a, f, d: None) == (C.PMIX_ERROR, [])
    assert dispatch(lambda a, f, d: "yes") == (C.PMIX_ERROR, [])
    assert dispatch(lambda a, f, d: ()) == (C.PMIX_ERROR, [])
    assert dispatch(lambda a, f, d: 2**31) == (C.PMIX_ERROR, [])
    assert dispatch(lambda a, f, d: True) == (C.PMIX_ERROR, [])


def test_a_void_slot_is_always_completed(handlers):
    # log and tool_connected return nothing to the library: it waits for the callback
    assert dispatch(lambda a, f, d: C.PMIX_ERR_NOT_SUPPORTED, void=True)[1] == [(C.PMIX_ERR_NOT_SUPPORTED, 1234)]
    assert dispatch(lambda a, f, d: 1 / 0, void=True)[1] == [(C.PMIX_ERROR, 1234)]
    assert dispatch(lambda a, f, d: C.PMIX_OPERATION_SUCCEEDED, void=True)[1] == [(C.PMIX_SUCCESS, 1234)]


def test_a_bad_argument_conversion_is_pmix_error(handlers):
    U.install({"publish": lambda a, f, d: C.PMIX_SUCCESS})
    cb = CCallback()

    def bad():
        raise ValueError("cannot read")

    assert U._dispatch("publish", bad, "op", cb, 1, void=False) == C.PMIX_ERROR and cb.calls == []


def test_module_keys_follow_openpmix_and_the_c_slots():
    rc, module, late, got = U.build_module({"fencenb": print, "direct_modex": print})
    assert rc == C.PMIX_SUCCESS and not late and sorted(got) == ["direct_modex", "fence_nb"]
    assert module.fence_nb and module.direct_modex and not module.publish
    rc, module, late, got = U.build_module({"resourceblock": print})
    assert rc == C.PMIX_SUCCESS and late  # slot 32: the table's length must be announced
    assert U.build_module({"listener": print})[0] == C.PMIX_ERR_BAD_PARAM
    assert U.build_module([print])[0] == C.PMIX_ERR_BAD_PARAM


# --- the C trampolines, called as the library calls them ----------------------

def trampoline(slot, handler):
    U.install({slot: handler})
    return U.TRAMPOLINES[slot]


def test_fence_trampoline_hands_the_contribution_over_and_the_result_back(handlers):
    libc = _lib.libc()
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    blob = libc.malloc(7)
    ctypes.memmove(blob, b"contrib", 7)
    seen, got = [], []

    def fence(args, cbfunc, cbdata):
        seen.append(args)
        return C.PMIX_SUCCESS, bytes(args["data"]) + b"+remote"

    def modex_cb(status, data, ndata, cbdata, release_fn, release_cbdata):
        got.append((status, ctypes.string_at(data, ndata), cbdata))
        release_fn(release_cbdata)

    keep = cv.Keep()
    procs, n = cv.proc_array([{"nspace": "ns", "rank": C.PMIX_RANK_WILDCARD}], keep)
    info, ni = cv.info_array([{"key": C.PMIX_COLLECT_DATA, "value": True, "val_type": C.PMIX_BOOL}], keep)
    cb = T.pmix_modex_cbfunc_t(modex_cb)
    rc = trampoline("fence_nb", fence)(ctypes.cast(procs, ctypes.c_void_p), n, ctypes.cast(info, ctypes.c_void_p),
                                       ni, blob, 7, cb, 77)
    assert rc == C.PMIX_SUCCESS and got == [(C.PMIX_SUCCESS, b"contrib+remote", 77)]
    assert seen[0]["procs"] == [{"nspace": "ns", "rank": C.PMIX_RANK_WILDCARD}] and seen[0]["data"] == b"contrib"
    assert seen[0]["directives"][0]["key"] == C.PMIX_COLLECT_DATA


def test_lookup_spawn_query_and_tool_trampolines_return_their_results(handlers):
    keep = cv.Keep()
    me = cv.proc_ptr({"nspace": "ns", "rank": 1}, keep)
    me = ctypes.cast(me, ctypes.c_void_p)
    got = []
    # lookup: keys in, pdata out
    lookup_cb = T.pmix_lookup_cbfunc_t(lambda st, pd, n, cd: got.append((st, [cv.unload_pdata(pd[i]) for i in range(n)])))
    keys = cv.argv(["k1", "k2"], keep)
    rc = trampoline("lookup", lambda a, f, d: (C.PMIX_SUCCESS, [
        {"proc": a["proc"], "key": k, "value": i, "val_type": C.PMIX_INT} for i, k in enumerate(a["keys"])]))(
        me, keys, None, 0, lookup_cb, 1)
    assert rc == C.PMIX_SUCCESS and got.pop() == (C.PMIX_SUCCESS, [
        {"proc": {"nspace": "ns", "rank": 1}, "key": "k1", "value": 0, "val_type": C.PMIX_INT},
        {"proc": {"nspace": "ns", "rank": 1}, "key": "k2", "value": 1, "val_type": C.PMIX_INT}])
    # spawn: apps in, a namespace out
    apps, napps = cv.app_array([{"cmd": "/bin/echo", "argv": ["echo", "hi"], "maxprocs": 2}], keep)
    spawn_cb = T.pmix_spawn_cbfunc_t(lambda st, ns, cd: got.append((st, ctypes.string_at(ns))))
    seen = []
    rc = trampoline("spawn", lambda a, f, d: (seen.append(a["apps"]), (C.PMIX_SUCCESS, "child-ns"))[1])(
        me, None, 0, ctypes.cast(apps, ctypes.c_void_p), napps, spawn_cb, 2)
    assert rc == C.PMIX_SUCCESS and got.pop() == (C.PMIX_SUCCESS, b"child-ns")
    assert seen[0][0]["cmd"] == "/bin/echo" and seen[0][0]["argv"] == ["echo", "hi"] and seen[0][0]["maxprocs"] == 2
    # query: queries in, infos out (released through release_fn)
    q, nq = cv.query_array([{"keys": [C.PMIX_QUERY_NAMESPACES], "qualifiers": []}], keep)

    def info_cb(st, info, n, cd, release_fn, release_cbdata):
        got.append((st, cv.unload_info_array(info, n)))
        release_fn(release_cbdata)

    icb = T.pmix_info_cbfunc_t(info_cb)
    before = len(CB.registry)
    rc = trampoline("query", lambda a, f, d: (C.PMIX_SUCCESS, [
        {"key": a["queries"][0]["keys"][0], "value": "ns", "val_type": C.PMIX_STRING}]))(
        me, ctypes.cast(q, ctypes.c_void_p), nq, icb, 3)
    status, infos = got.pop()
    assert rc == C.PMIX_SUCCESS and status == C.PMIX_SUCCESS and infos[0]["value"] == "ns"
    assert len(CB.registry) == before  # the results were released
    # tool_connected (void slot): a proc out
    tcb = T.pmix_tool_connection_cbfunc_t(lambda st, p, cd: got.append((st, cv.unload_proc(p.contents))))
    trampoline("tool_connected", lambda a, f, d: (C.PMIX_SUCCESS, {"nspace": "tool-ns", "rank": 0}))(None, 0, tcb, 4)
    assert got.pop() == (C.PMIX_SUCCESS, {"nspace": "tool-ns", "rank": 0})


def test_a_bad_result_still_completes_the_request_with_pmix_error(handlers, capsys):
    got = []
    spawn_cb = T.pmix_spawn_cbfunc_t(lambda st, ns, cd: got.append((st, ns)))
    rc = trampoline("spawn", lambda a, f, d: (C.PMIX_SUCCESS, "x" * 300))(None, None, 0, None, 0, spawn_cb, 5)
    assert rc == C.PMIX_SUCCESS and got == [(C.PMIX_ERROR, None)]
    assert "not a valid nspace" in capsys.readouterr().err


def test_a_completion_the_library_cannot_take_fails_the_request(handlers, capsys):
    # too many results for an op slot, a status beyond C's int: still exactly one callback
    assert dispatch(lambda a, f, d: (C.PMIX_SUCCESS, "unexpected")) == (C.PMIX_SUCCESS, [(C.PMIX_ERROR, 1234)])
    assert dispatch(lambda a, f, d: (2**40,)) == (C.PMIX_SUCCESS, [(C.PMIX_ERROR, 1234)])
    err = capsys.readouterr().err
    assert "completing the publish upcall" in err and "is not a pmix_status_t" in err
