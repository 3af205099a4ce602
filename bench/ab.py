#!/usr/bin/env python3
"""A/B: pmix_bench under Open MPI's mpirun with each of several libpmix.so.2 builds
(LD_PRELOAD, so each build is both the server in mpirun and the client in the ranks),
runs interleaved, medians over runs. Used for the before/after numbers in docs/PERF.md.

  BENCH=build/bench/pmix_bench.debian python3 bench/ab.py NAME=LIB NAME=LIB ...

A LIB of the form opx:PMIXRUN runs the same binary on the library it links (Debian's
OpenPMIx 4.2.2 client) under that pmixrun build instead, ranks pinned by bench/bind.sh
as `make bench` does: OpenPMIx clients under each of several builds of our server
(`NAME=libpmix.so.2` beside it is then Debian's own server for comparison).

Environment: BENCH, NPS ("2 8"), RUNS (5), ITERS (200), OPS (substrings of op names to
show; default all).
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("PMIXRUN", "-")
os.environ.setdefault("OURS", "/dev/null")
os.environ.setdefault("DEBIAN", "/dev/null")
os.environ.setdefault("BIND", "-")
import run as R  # noqa: E402


def main():
    libs = [a.split("=", 1) for a in sys.argv[1:]]
    nps = [int(x) for x in os.environ.get("NPS", "2 8").split()]
    runs = int(os.environ.get("RUNS", "5"))
    ops_filter = os.environ.get("OPS", "")
    res = {}
    for r in range(runs):
        for np in nps:
            for name, lib in libs:
                args = [R.BENCH, "-s", "-n", R.ITERS, "-r", "5"]
                if lib.startswith("opx:"):
                    env = R.env_with()
                    env.pop("LD_PRELOAD", None)
                    bind = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bind.sh")
                    cmd = [lib[4:], "-n", str(np), bind] + args
                else:
                    cmd = R.MPIRUN + ["-x", "LD_PRELOAD", "--bind-to", "core:overload-allowed",
                                      "-np", str(np)] + args
                    env = R.env_with(LD_PRELOAD=os.path.realpath(lib))
                rc, out, secs = R.run(cmd, env)
                if rc != 0:
                    print("%s np=%d run %d failed (exit %d)" % (name, np, r + 1, rc))
                    continue
                for line in out.splitlines():
                    m = R.RESULT.match(line)
                    if m:
                        res.setdefault((name, int(m.group(1)), m.group(2)), []).append(
                            float(m.group(3)))
    ops = []
    for (_, _, op) in res:
        if op not in ops and (not ops_filter or any(f in op for f in ops_filter.split(","))):
            ops.append(op)
    names = [n for n, _ in libs]
    print("| op | np | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for op in ops:
        for np in nps:
            cells = [R.fmt(R.median(res.get((n, np, op), []))) for n in names]
            print("| %s | %d | %s |" % (op, np, " | ".join(cells)))
    print("(median of %d runs each, interleaved; load average %s)" % (runs, R.load()))


if __name__ == "__main__":
    main()
