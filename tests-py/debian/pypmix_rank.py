#!/usr/bin/python3
"""A rank of Debian's python3-pmix (OpenPMIx 4.2.2's Cython binding, built for
/usr/bin/python3 only) under pmixrun: Init, Get of the job size, Put/Commit, a
collecting Fence, a Get of a peer's key, Finalize. Prints one PASS/FAIL line.

Run by tests-c/v41tools/run.sh (make v41tools-check). Debian's module is named `pmix`,
as is our own ctypes package (python/): Debian's directory goes first on sys.path and
the module's path is checked, so ours can never stand in for it.
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


if not pmix.__file__.startswith(DEBIAN):
    print("FAIL pmix is not Debian's python3-pmix:", pmix.__file__)
    sys.exit(1)

c = pmix.PMIxClient()
rc, me = c.init([])
if rc != pmix.PMIX_SUCCESS:
    print("FAIL init:", rc)
    sys.exit(1)
ns, rank = me["nspace"], me["rank"]
rc, size = c.get({"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
check(rc == pmix.PMIX_SUCCESS and isinstance(size, dict), "get job size: %s %r" % (rc, size))
n = size["value"] if isinstance(size, dict) else 0
rc = c.put(pmix.PMIX_GLOBAL, "py.key", {"value": "v%d" % rank, "val_type": pmix.PMIX_STRING})
check(rc == pmix.PMIX_SUCCESS, "put: %s" % rc)
check(c.commit() == pmix.PMIX_SUCCESS, "commit")
collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True, "val_type": pmix.PMIX_BOOL}]
rc = c.fence([{"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}], collect)
check(rc == pmix.PMIX_SUCCESS, "fence: %s" % rc)
peer = (rank + 1) % max(n, 1)
rc, v = c.get({"nspace": ns, "rank": peer}, "py.key", [])
got = v.get("value") if isinstance(v, dict) else None
check(rc == pmix.PMIX_SUCCESS and got == "v%d" % peer, "get py.key of %d: %s %r" % (peer, rc, v))
rc = c.finalize([])
check(rc == pmix.PMIX_SUCCESS, "finalize: %s" % rc)
if fails:
    sys.exit(1)
# One write: the ranks' lines reach pmixrun's output whole, whatever the buffering.
os.write(1, b"PASS python3-pmix rank %d of %d: job size, put/commit, fence, peer %d's key, "
         b"finalize\n" % (rank, n, peer))
