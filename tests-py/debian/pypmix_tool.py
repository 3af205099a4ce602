#!/usr/bin/python3
"""What OpenPMIx's pquery does, through Debian's python3-pmix (OpenPMIx 4.2.2's Cython
binding) as a tool attached to a pmixrun job over its OpenPMIx listener:
PMIx_tool_init by the server's pid, then PMIx_Query_info of the running namespaces
(PMIX_QUERY_NAMESPACES), the job's size (PMIX_JOB_SIZE qualified by the namespace) and
its process table (PMIX_QUERY_PROC_TABLE, idem), then PMIx_tool_finalize. Prints one
PASS/FAIL line.

    pypmix_tool.py PID NSPACE NPROCS

Debian's pquery itself cannot be tested: 4.2.2's pquery dies of SIGFPE before it
connects (docs/STATUS.md), and the Open MPI 5 wheel ships only pquery's help text, not
the program. Run by tests-c/v41tools/run.sh (make v41tools-check) through attach.sh.
"""
import os
import sys

DEBIAN = "/usr/lib/python3/dist-packages"
sys.path.insert(0, DEBIAN)
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import pmix  # noqa: E402

fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL", what, flush=True)


def value(results, key):
    """The value of `key` among the query's results (None: absent)."""
    if isinstance(key, bytes):
        key = key.decode()
    for r in results:
        if isinstance(r, dict) and r.get("key") == key:
            return r.get("value")
    return None


if not pmix.__file__.startswith(DEBIAN):
    print("FAIL pmix is not Debian's python3-pmix:", pmix.__file__)
    sys.exit(1)
pid, ns, nprocs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])

t = pmix.PMIxTool()
r = t.init([{"key": pmix.PMIX_SERVER_PIDINFO, "value": pid, "val_type": pmix.PMIX_PID}])
# 4.2.2's binding answers (status, name); later ones the status alone.
rc, me = r if isinstance(r, tuple) else (r, None)
if rc != pmix.PMIX_SUCCESS:
    print("FAIL tool init by pid %d: %s" % (pid, rc))
    sys.exit(1)
qual = [{"key": pmix.PMIX_NSPACE, "value": ns, "val_type": pmix.PMIX_STRING}]

rc, res = t.query([{"keys": [pmix.PMIX_QUERY_NAMESPACES], "qualifiers": []}])
names = value(res, pmix.PMIX_QUERY_NAMESPACES)
check(rc == pmix.PMIX_SUCCESS and isinstance(names, str) and ns in names.split(","),
      "query namespaces: %s %r" % (rc, res))

rc, res = t.query([{"keys": [pmix.PMIX_JOB_SIZE], "qualifiers": qual}])
check(rc == pmix.PMIX_SUCCESS and value(res, pmix.PMIX_JOB_SIZE) == nprocs,
      "query job size of %s: %s %r" % (ns, rc, res))

rc, res = t.query([{"keys": [pmix.PMIX_QUERY_PROC_TABLE], "qualifiers": qual}])
table = value(res, pmix.PMIX_QUERY_PROC_TABLE)
procs = table.get("array", []) if isinstance(table, dict) else []
ranks = sorted(p.get("proc", {}).get("rank") for p in procs)
pids = [p.get("pid", 0) for p in procs]
check(rc == pmix.PMIX_SUCCESS and ranks == list(range(nprocs)) and all(x > 0 for x in pids),
      "query proc table of %s: %s %r" % (ns, rc, res))

rc = t.finalize()
check(rc == pmix.PMIX_SUCCESS, "tool finalize: %s" % rc)
if fails:
    sys.exit(1)
os.write(1, b"PASS python3-pmix tool: namespaces, job size %d, proc table of %s\n"
         % (nprocs, ns.encode()))
