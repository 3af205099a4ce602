#!/usr/bin/env python3
"""make bench: pmix_bench side by side, Debian's OpenPMIx 4.2.2 against pmix-rs.

Runs the same pmix_bench binary (bench/pmix_bench.c, built against Debian's headers and
library by mk/bench.mk) in three ways, several times each, interleaved so that load drift hits all three
alike:

  debian   Open MPI 4.1.4 mpirun, LD_PRELOAD=Debian's libpmix.so.2 (server and ranks)
  ours     the same mpirun, LD_PRELOAD=our libpmix.so.2 (server and ranks)
  pmixrun  our launcher, ranks LD_PRELOAD=our libpmix.so.2

and two mixed pairs (issue 16), each against `debian` (pure OpenPMIx):

  v41ours  the same mpirun with nothing preloaded into it (Debian's OpenPMIx server); only
           the ranks get LD_PRELOAD=our libpmix.so.2, so our client speaks OpenPMIx's
           protocol to it (goal: ours no slower than Debian's client there, every operation)
  opx      our launcher, the ranks on Debian's libpmix as linked (OpenPMIx 4.2.2 clients of
           our server; goal: no slower than under their own server)
  debhash  as debian, with PMIX_MCA_gds=hash (server and ranks): OpenPMIx's own server
           handing job data over as ours does, in messages to the client's hash store,
           instead of in its ds21 shared-memory store (not in the default MODES; when
           given, the mixed table adds opx's ratio to it: docs/PERF.md "Job-level Gets")

Each run is `pmix_bench -s` (solo: only rank 0 runs the put/commit/get loops), ranks bound
to cores (mpirun --bind-to core:overload-allowed; under pmixrun bench/bind.sh pins rank r
to core r mod ncores). A run's value per operation is the median over the bench's
repetitions; the table shows the median over runs and the ratio ours/Debian.
It also times `pmixrun -n 2 hello` and `mpirun -np 8 mpi_hello` with each library.

Environment: PMIXRUN, OURS, DEBIAN (library paths), BENCH, HELLO, MPI_HELLO, BIND (the
binaries), MODES (default "debian ours pmixrun v41ours opx"), NPS (default "2 8"), RUNS (3), E2E_RUNS (5), ITERS (200), OUT (optional file that
receives the table in Markdown as well), CHRT (e.g. "-f 50": every command runs under
`chrt CHRT`, real-time scheduling, so that other work on a shared machine does not
interleave with the measured processes; all three modes alike; root only).
"""
import os
import re
import statistics
import signal
import subprocess
import sys
import time

ENV = os.environ
PMIXRUN = ENV["PMIXRUN"]
OURS = os.path.realpath(ENV["OURS"])
DEBIAN = os.path.realpath(ENV["DEBIAN"])
BENCH = ENV["BENCH"]
HELLO = ENV.get("HELLO", "")
MPI_HELLO = ENV.get("MPI_HELLO", "")
BIND = ENV["BIND"]
NPS = [int(x) for x in ENV.get("NPS", "2 8").split()]
MODES = ENV.get("MODES", "debian ours pmixrun v41ours opx").split()
RUNS = int(ENV.get("RUNS", "3"))
E2E_RUNS = int(ENV.get("E2E_RUNS", "5"))
ITERS = ENV.get("ITERS", "200")
OUT = ENV.get("OUT", "")
CHRT = ENV.get("CHRT", "").split()
TIMEOUT = 60
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]

# (label, bench op name, goal ratio ours/Debian or None, which np values to show)
ROWS = [
    ("Get job info (JOB_SIZE, wildcard)", "get(JOB_SIZE, wildcard)", 0.01, "all"),
    ("Get job info (LOCAL_RANK, self)", "get(LOCAL_RANK, self)", 0.01, "all"),
    ("Get peer key, first access", "get(peer key, first access)", 0.1, "all"),
    ("Get peer key, repeated", "get(peer key, repeated)", 0.02, "all"),
    ("Put 64 B", "put64 (no commit)", 0.03, "all"),
    ("Commit after 1 put", "commit (after 1 put)", 0.1, "all"),
    ("Fence without data", "fence(no data)", 0.4, "all"),
    ("Collecting fence 10x64 B/rank", "fence(collect, 10x64B/rank)", 0.3, "all"),
    # The commit before it, to the fence's end: where a library's commit does not wait
    # for the server (ours), the server's handling of every rank's commit falls into the
    # fence above; this is what both pay between the last Put and the fence's return.
    ("Commit + collecting fence", "commit+fence(collect)", None, "all"),
    ("PMIx_Init (median over ranks)", "init", 0.1, "all"),
    ("PMIx_Finalize (rank 0)", "finalize", None, "all"),
]

RESULT = re.compile(r"^RESULT np=(\d+) op=(.*?) median_us=([0-9.]+)")


def run(cmd, env=None, timeout=TIMEOUT):
    """Run cmd in its own session; kill the whole group on timeout. (rc, out, secs)."""
    if CHRT:
        cmd = ["chrt"] + CHRT + list(cmd)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                         text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return 124, out, time.monotonic() - t0
    return p.returncode, out, time.monotonic() - t0


def env_with(**kw):
    e = dict(ENV)
    e.update(kw)
    return e


def bench_cmd(mode, np):
    args = ["-s", "-n", ITERS, "-r", "5"]
    if mode == "pmixrun":
        return ([PMIXRUN, "-x", "LD_PRELOAD=" + OURS, "-n", str(np), BIND, BENCH] + args,
                env_with())
    if mode == "opx":
        e = env_with()
        e.pop("LD_PRELOAD", None)
        return [PMIXRUN, "-n", str(np), BIND, BENCH] + args, e
    if mode == "v41ours":
        e = env_with()
        e.pop("LD_PRELOAD", None)
        return (MPIRUN + ["--bind-to", "core:overload-allowed", "-np", str(np), "env",
                          "LD_PRELOAD=" + OURS, BENCH] + args, e)
    if mode == "debhash":
        return (MPIRUN + ["-x", "LD_PRELOAD", "-x", "PMIX_MCA_gds", "--bind-to",
                          "core:overload-allowed", "-np", str(np), BENCH] + args,
                env_with(LD_PRELOAD=DEBIAN, PMIX_MCA_gds="hash"))
    lib = DEBIAN if mode == "debian" else OURS
    return (MPIRUN + ["-x", "LD_PRELOAD", "--bind-to", "core:overload-allowed", "-np",
                      str(np), BENCH] + args, env_with(LD_PRELOAD=lib))


def check_lib(mode, out):
    """The bench's header names the library that answered; it must be the one we meant."""
    first = next((l for l in out.splitlines() if l.startswith("# pmix_bench:")), "")
    want = "OpenPMIx 4.2.2" if mode in ("debian", "opx", "debhash") else "pmix-rs"
    return want in first


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(x):
    if x is None:
        return "-"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.3f" % x


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def collect():
    """Every mode at every np, RUNS times, interleaved. (results, failures)."""
    res = {}  # (mode, np, op) -> [values]
    fails = {}
    for r in range(RUNS):
        for np in NPS:
            for mode in MODES:
                cmd, env = bench_cmd(mode, np)
                rc, out, secs = run(cmd, env)
                ok = rc == 0 and check_lib(mode, out)
                tag = "%s np=%d run %d/%d" % (mode, np, r + 1, RUNS)
                if not ok:
                    fails[(mode, np)] = fails.get((mode, np), 0) + 1
                    why = "exit %d" % rc if rc else "wrong library answered"
                    print("  %-24s FAILED (%s, %.1f s)" % (tag, why, secs), flush=True)
                    sys.stdout.write("".join("    | " + l + "\n"
                                             for l in out.splitlines()[-15:]))
                    continue
                n = 0
                for line in out.splitlines():
                    m = RESULT.match(line)
                    if m:
                        res.setdefault((mode, int(m.group(1)), m.group(2)), []).append(
                            float(m.group(3)))
                        n += 1
                print("  %-24s ok (%.1f s, %d results)" % (tag, secs, n), flush=True)
    return res, fails


def side_table(res):
    """Ours against Debian's, each library alone in the job (the native path)."""
    lines = ["| operation | np | Debian 4.2.2 (mpirun) µs | pmix-rs (mpirun) µs "
             "| ratio | goal | pmix-rs (pmixrun) µs |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, op, goal, _ in ROWS:
        for np in NPS:
            d = median(res.get(("debian", np, op), []))
            o = median(res.get(("ours", np, op), []))
            p = median(res.get(("pmixrun", np, op), []))
            ratio = "%.3f" % (o / d) if d and o is not None else "-"
            met = ""
            if goal is not None and d and o is not None:
                met = " ✓" if o / d <= goal else " ✗"
            lines.append("| %s | %d | %s | %s | %s%s | %s | %s |" % (
                label, np, fmt(d), fmt(o), ratio, met,
                "≤ %g" % goal if goal is not None else "", fmt(p)))
    return lines


def mixed_table(res):
    """The mixed pairs against pure OpenPMIx (Debian's client under Debian's mpirun):
    our client under Debian's server, and Debian's client under our pmixrun; the goal of
    both ratios is 1 (no slower than pure OpenPMIx)."""
    if "v41ours" not in MODES and "opx" not in MODES:
        return []
    hashed = "debhash" in MODES
    lines = ["| operation | np | OpenPMIx client, OpenPMIx server µs "
             "| our client, OpenPMIx server µs | ratio | OpenPMIx client, our server µs "
             "| ratio |" + (" OpenPMIx server, gds=hash µs | our server ÷ that |"
                            if hashed else ""),
             "|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if hashed else "")]
    def ratio(x, d):
        if not d or x is None:
            return "-"
        return "%.2f%s" % (x / d, " ✓" if x / d <= 1.0 else " ✗")
    for label, op, _, _ in ROWS:
        for np in NPS:
            d = median(res.get(("debian", np, op), []))
            v = median(res.get(("v41ours", np, op), []))
            x = median(res.get(("opx", np, op), []))
            row = "| %s | %d | %s | %s | %s | %s | %s |" % (
                label, np, fmt(d), fmt(v), ratio(v, d), fmt(x), ratio(x, d))
            if hashed:
                h = median(res.get(("debhash", np, op), []))
                row += " %s | %s |" % (fmt(h), ratio(x, h))
            lines.append(row)
    return lines


def end_to_end():
    e2e = []
    if HELLO:
        ts = []
        for _ in range(E2E_RUNS):
            rc, out, secs = run([PMIXRUN, "-n", "2", HELLO])
            if rc == 0:
                ts.append(secs * 1000)
        e2e.append("| `pmixrun -n 2 hello` | %s ms | %d/%d ok | goal ≤ 10 ms |"
                   % (fmt(median(ts)), len(ts), E2E_RUNS))
    if MPI_HELLO:
        tsd, tso = [], []
        for i in range(E2E_RUNS + 1):
            for lib, ts in ((DEBIAN, tsd), (OURS, tso)):
                rc, out, secs = run(MPIRUN + ["-x", "LD_PRELOAD", "-x", "MPITEST_PMIX_LIB",
                                              "-np", "8", MPI_HELLO, "8"],
                                    env_with(LD_PRELOAD=lib, MPITEST_PMIX_LIB=lib))
                if rc == 0 and i > 0:  # the first round warms caches up
                    ts.append(secs * 1000)
        d, o = median(tsd), median(tso)
        e2e.append("| `mpirun -np 8 mpi_hello` | Debian %s ms, pmix-rs %s ms (ratio %s) "
                   "| %d+%d/%d ok | goal: not slower |"
                   % (fmt(d), fmt(o), "%.2f" % (o / d) if d and o else "-", len(tsd),
                      len(tso), 2 * E2E_RUNS))
    return e2e


def main():
    print("# make bench: %d runs per cell, pmix_bench -s -n %s -r 5, np %s, modes %s; "
          "load %s%s" % (RUNS, ITERS, NPS, " ".join(MODES), load(),
                         "; chrt " + " ".join(CHRT) if CHRT else ""), flush=True)
    res, fails = collect()
    lines = side_table(res)
    mixed = mixed_table(res)
    e2e = end_to_end()
    print()
    print("Median over %d runs of each run's median (µs per operation); load average now %s."
          % (RUNS, load()))
    for l in lines:
        print(l)
    if mixed:
        print()
        print("Mixed pairs (issue 16): ratios to pure OpenPMIx, goal ≤ 1.")
        for l in mixed:
            print(l)
    if e2e:
        print()
        print("| end to end | median wall time | runs | |")
        print("|---|---|---|---|")
        for l in e2e:
            print(l)
    if fails:
        print()
        print("failed runs: " + ", ".join("%s np=%d: %d" % (m, n, c)
                                          for (m, n), c in sorted(fails.items())))
    if OUT:
        with open(OUT, "w") as f:
            f.write("\n".join(lines + [""] + mixed + [""] + e2e) + "\n")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
