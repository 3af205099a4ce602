"""PMIxServer: a PMIx host written in Python (hosts/pyhost.py) serving real C
and Python clients it starts itself, and the completion rules of the server
module's upcalls (exercised directly, without the library)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, TIMEOUT, LIB_VERSION, Run, library, pmix_rs_only, rank_env

from pmix import _constants as C
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
    import threading

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
