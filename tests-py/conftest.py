"""Launch the rank programs of tests-py/ranks under a PMIx launcher.

Environment:
  PMIX_TEST_LAUNCHER  pmixrun (default: build/bin/pmixrun, or $PMIXRUN) or mpirun
  PMIX_LIBRARY        the libpmix.so.2 the ranks load (default: build/lib/libpmix.so.2
                      under pmixrun, the system's under mpirun)
  PMIX_PY_INSTALLED   1 = test the installed ``pmix`` package, not python/
  PMIX_TEST_TIMEOUT   seconds before a launch is killed (default 60)
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RANKS = Path(__file__).resolve().parent / "ranks"
PYTHON = sys.executable
LAUNCHER = os.environ.get("PMIX_TEST_LAUNCHER", "pmixrun")
TIMEOUT = int(os.environ.get("PMIX_TEST_TIMEOUT", "60"))
PYPATH = None if os.environ.get("PMIX_PY_INSTALLED") == "1" else str(REPO / "python")

if LAUNCHER not in ("pmixrun", "mpirun"):
    raise pytest.UsageError("PMIX_TEST_LAUNCHER must be pmixrun or mpirun, not %r" % LAUNCHER)

if PYPATH:
    sys.path.insert(0, PYPATH)


def library():
    lib = os.environ.get("PMIX_LIBRARY")
    if lib:
        # the ranks may run elsewhere than here: a relative path would move
        return os.path.abspath(lib) if "/" in lib else lib
    if LAUNCHER == "pmixrun":
        return str(REPO / "build" / "lib" / "libpmix.so.2")
    return None


def rank_env(extra=None):
    """Variables handed to every rank (through ``env`` on the command line)."""
    env = {}
    if library():
        env["PMIX_LIBRARY"] = library()
    if PYPATH:
        env["PYTHONPATH"] = PYPATH + (":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
    env["PMIX_TEST_WATCHDOG"] = str(max(TIMEOUT - 15, 10))
    env.update(extra or {})
    return env


def _version():
    env = dict(os.environ)
    env.update(rank_env())
    try:
        r = subprocess.run([PYTHON, "-c", "from pmix import PMIxClient; print(PMIxClient().get_version())"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    except subprocess.SubprocessError:
        return None
    return r.stdout.strip() if r.returncode == 0 else None


LIB_VERSION = _version()
IS_PMIX_RS = bool(LIB_VERSION) and "pmix-rs" in LIB_VERSION
LIB_NAME = (LIB_VERSION or "unknown library").split(" (")[0]


def pmix_rs_only(why):
    """Rules Debian's OpenPMIx 4.2.2 does not follow (research notes openpmix.md §4)."""
    return pytest.mark.skipif(not IS_PMIX_RS, reason="%s: %s" % (LIB_NAME, why))


def pmixrun_only(why):
    """Things Open MPI 4.1.4's mpirun (ORTE, the PMIx host) cannot do."""
    return pytest.mark.skipif(LAUNCHER != "pmixrun", reason="mpirun (ORTE 4.1.4) as the PMIx host: %s" % why)


def launcher_cmd(np):
    if LAUNCHER == "mpirun":
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(np)]
    pmixrun = os.environ.get("PMIXRUN") or str(REPO / "build" / "bin" / "pmixrun")
    return [pmixrun, "-n", str(np)]


class Run:
    def __init__(self, cmd, proc):
        self.cmd = cmd
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def lines(self, kind):
        return [ln for ln in self.stdout.splitlines() if (" %s - " % kind) in ln]

    def report(self):
        return "command: %s\nexit status: %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(self.cmd), self.returncode, self.stdout[-6000:], self.stderr[-6000:])


def _require_runtime():
    if LAUNCHER == "pmixrun":
        pmixrun = launcher_cmd(1)[0]
        if not (os.path.exists(pmixrun) or shutil.which(pmixrun)):
            pytest.fail("PMIX_TEST_LAUNCHER=pmixrun but %s is missing (run make first)" % pmixrun)
    elif not shutil.which("mpirun"):
        pytest.fail("PMIX_TEST_LAUNCHER=mpirun but mpirun is not installed")
    if LIB_VERSION is None:
        pytest.fail("cannot load the PMIx library (%s) from Python" % (library() or "libpmix.so.2"))


def run_ranks(prog, scenario, np=2, extra_env=None, timeout=None):
    """Run ``ranks/<prog> <scenario>`` as ``np`` ranks; never hangs."""
    _require_runtime()
    timeout = timeout or TIMEOUT
    env = rank_env(dict({"PMIX_TEST_NP": str(np)}, **(extra_env or {})))
    cmd = (["timeout", "-s", "KILL", str(timeout)] + launcher_cmd(np) + ["env"]
           + ["%s=%s" % kv for kv in sorted(env.items())] + [PYTHON, str(RANKS / prog), scenario])
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout + 15,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail("launch hung beyond %ds: %s\n%s" % (timeout, " ".join(cmd), e.stdout))
    return Run(cmd, proc)


def run_alone(prog, scenario, timeout=None):
    """Run a rank program with no launcher (a singleton)."""
    if LIB_VERSION is None:
        pytest.fail("cannot load the PMIx library (%s) from Python" % (library() or "libpmix.so.2"))
    timeout = timeout or TIMEOUT
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("PMIX_") or k.startswith("OMPI_") or k.startswith("PRTE_"))}
    env.update(rank_env())
    cmd = ["timeout", "-s", "KILL", str(timeout), PYTHON, str(RANKS / prog), scenario]
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout + 15, stdin=subprocess.DEVNULL)
    return Run(cmd, proc)


def assert_ok(run, np):
    """Every rank passed every check and finalized; the launch exited 0."""
    fails = run.lines("FAIL")
    assert not fails and run.returncode == 0, "\n".join(fails) + "\n" + run.report()
    for r in range(np):
        assert ("[%d] ok - finalize" % r) in run.stdout, "rank %d did not finalize\n%s" % (r, run.report())
