#!/usr/bin/env python3
"""soak.py: hang and failure rates of back-to-back jobs, ours and the hosts', side by side.

    bench/soak.py            (make soak; every setting below is an environment variable)

Rows (each job under a per-row bound; the rows are interleaved round by round, so every
row sees the same machine):
  pmixrun-8        pmixrun -n 8 build/tests-c/hello                       1000 jobs
  ompi-8-ours      mpirun -np 8 mpi_hello 8, LD_PRELOAD=our libpmix.so.2   200
  ompi-8-debian    the same with Debian's OpenPMIx 4.2.2 preloaded          200
  ompi-32-ours     mpirun -np 32 mpi_hello 32, ours                          200
  ompi-32-debian   the same, Debian's                                        200
  srun-8           srun -n 8 hello on the private Slurm cluster of tests-slurm/cluster.sh
                   (our library preloaded in every slurmd), when that file exists    200
Phases: "normal" (nothing else started), then "loaded": two CPU burners plus a parallel
compile loop (gcc -O2 of tests-c/*.c, two at a time, in a loop: the load of a build).

A job over its bound is a hang: before it is killed, every process of the job (found by
the SOAK_JOB marker in /proc/PID/environ) has its stacks written by
`gdb -batch -p PID -ex 'thread apply all bt'` into the log directory, and the report says
per process where it was: inside a PMIx_* call of the library (ours or Debian's) or only
in the host's code (mpirun/orted/slurmstepd frames with the library idle). A job that ends
with a non-zero status in time is a failure; its output is kept.

Settings: SOAK_N (every row's job count, e.g. SOAK_N=20 for a short run), SOAK_COUNTS
("pmixrun-8=500 ompi-32-ours=50": per row, after SOAK_N), SOAK_ROWS
(space-separated row names), SOAK_PHASES ("normal loaded"), SOAK_LOG (log directory,
kept; default build/soak/<time>), SOAK_BOUND_SCALE (multiplies every bound), SOAK_ROOT.
Prints one Markdown table (phase, row, jobs, hangs, failures, p50, p99) and the hang
diagnoses; exit status 0 (a hang is a finding, not an error of the harness).
"""

import os
import re
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.environ.get("SOAK_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.realpath(os.path.join(ROOT, "build/lib/libpmix.so.2"))
# The file itself, not the symlink: the ranks prove by /proc/PID/maps which one is mapped.
DEBIAN = os.path.realpath("/usr/lib/x86_64-linux-gnu/libpmix.so.2")
HELLO = os.path.join(ROOT, "build/tests-c/hello")
MPI_HELLO = os.path.join(ROOT, "build/tests-mpi/mpi_hello")
PMIXRUN = os.path.join(ROOT, "build/bin/pmixrun")
CLUSTER_SH = os.path.join(ROOT, "tests-slurm/cluster.sh")
MARK = "SOAK_JOB"
GDB_BOUND = 30


def mpirun_row(np_, lib):
    env = {"LD_PRELOAD": lib, "MPITEST_PMIX_LIB": lib}
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "LD_PRELOAD",
           "-x", "MPITEST_PMIX_LIB", "-x", MARK, "-np", str(np_), MPI_HELLO, str(np_)]
    return cmd, env


def rows_table():
    """name -> (default count, bound in s, command, extra env, library label)."""
    rows = {
        "pmixrun-8": (1000, 20, [PMIXRUN, "-n", "8", HELLO], {}, "ours"),
    }
    for np_, bound in ((8, 40), (32, 90)):
        for label, lib in (("ours", OURS), ("debian", DEBIAN)):
            cmd, env = mpirun_row(np_, lib)
            rows[f"ompi-{np_}-{label}"] = (200, bound, cmd, env, label)
    if os.path.exists(CLUSTER_SH):
        rows["srun-8"] = (200, 40, None, {}, "ours")
    return rows


def marked_pids(job):
    """Pids of the live processes whose environment holds SOAK_JOB=job."""
    want = f"{MARK}={job}".encode()
    me = os.getpid()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if want in f.read().split(b"\0"):
                    pids.append(int(d))
        except OSError:
            continue
    return pids


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def kill_pids(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def dump_stacks(pids, path):
    """gdb backtraces of every thread of every pid, each bounded; returns {pid: text}."""
    out = {}
    with open(path, "w") as log:
        for p in pids:
            name = comm(p)
            try:
                r = subprocess.run(
                    ["gdb", "-batch", "-nx", "-p", str(p), "-ex", "thread apply all bt"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=GDB_BOUND,
                    stdin=subprocess.DEVNULL)
                text = r.stdout.decode(errors="replace")
            except subprocess.TimeoutExpired:
                text = f"(gdb did not finish in {GDB_BOUND} s)"
            out[p] = (name, text)
            log.write(f"===== pid {p} ({name}) =====\n{text}\n")
    return out


def threads(text):
    """Split a gdb 'thread apply all bt' into a list of lists of frame lines."""
    res, cur = [], None
    for line in text.splitlines():
        if line.startswith("Thread "):
            cur = []
            res.append(cur)
        elif cur is not None and line.startswith("#"):
            cur.append(line)
    return res


PMIX_API = re.compile(r"(?:^|::)(PMIx_[A-Za-z_]+)(?:$|::)")
# Frames that say whose code a thread is in (the first such from the top is shown).
TELLING = re.compile(r"^(pmix_core::|pmixrun::|pmix::|orte_|opal_|ompi_|PMPI_|MPI_|PMIx_|"
                     r"pmix_|slurm|stepd|main$)")


def frame_fn(frame):
    """The function name of one gdb frame line."""
    rest = frame.split(None, 1)[1] if " " in frame else frame
    if rest.startswith("0x") and " in " in rest:
        rest = rest.split(" in ", 1)[1]
    return rest.split(" (", 1)[0].strip()


def pmix_call(frames):
    """The outermost PMIx_* API function a thread is inside (of either library), or None."""
    found = None
    for f in frames:
        m = PMIX_API.search(frame_fn(f))
        if m:
            found = m.group(1)
    return found


def summary(frames):
    """Innermost frame and the first telling frame of a thread."""
    if not frames:
        return "?"
    fns = [frame_fn(f) for f in frames]
    tell = next((fn for fn in fns if TELLING.match(fn)), None)
    return fns[0] if tell in (None, fns[0]) else f"{fns[0]} .. {tell}"


def where(name, text, lib_label):
    """One line: where this process was. Returns (line, waits_in_library)."""
    ts = threads(text)
    if not ts:
        return f"{name}: no stacks ({text.strip()[:80]})", False
    calls = sorted({c for c in (pmix_call(t) for t in ts) if c})
    # gdb lists the threads from the highest number down: the main thread is last.
    main = summary(ts[-1])
    if calls:
        return (f"{name}: {len(ts)} threads; inside {', '.join(calls)} of the library "
                f"({lib_label}); main thread: {main}"), True
    return f"{name}: {len(ts)} threads, none inside a PMIx_* call; main thread: {main}", False


def diagnose(stacks, lib_label):
    """Lines per process and a verdict: ours/Debian's library, or the host's."""
    lines, lib_waits = [], []
    for pid, (name, text) in sorted(stacks.items()):
        if "No such process" in text:
            continue
        line, waits = where(name, text, lib_label)
        lines.append(f"  pid {pid} {line}")
        if waits:
            lib_waits.append(name)
    if not stacks:
        verdict = "no process of the job was alive to inspect"
    elif lib_waits:
        verdict = (f"waits in libpmix ({lib_label}): {len(lib_waits)} of {len(stacks)} "
                   f"processes inside a PMIx_* call")
    else:
        verdict = "host's: no process inside a PMIx_* call (library idle)"
    return verdict, lines


class Runner:
    def __init__(self, log_dir, scale):
        self.log_dir = log_dir
        self.scale = scale
        self.seq = 0
        self.hangs = []
        self.extra_pids = None

    def run(self, phase, name, row, cmd):
        """Run one job; returns ("ok"|"fail"|"hang", seconds)."""
        _, bound, _, extra, label = row
        bound *= self.scale
        self.seq += 1
        job = f"soak-{os.getpid()}-{self.seq}"
        env = dict(os.environ, **extra)
        env[MARK] = job
        out_path = os.path.join(self.log_dir, f"{phase}-{name}-{self.seq}.out")
        t0 = time.monotonic()
        with open(out_path, "w") as out:
            p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                rc = p.wait(timeout=bound)
                status = "ok" if rc == 0 else "fail"
            except subprocess.TimeoutExpired:
                status = "hang"
        dt = time.monotonic() - t0
        if status == "hang":
            self.hang(phase, name, label, job, p, out_path, dt)
        kill_pids(marked_pids(job))
        if status == "ok":
            os.unlink(out_path)
        else:
            with open(out_path, "a") as out:
                out.write(f"\n[soak] {status}: exit {p.returncode} after {dt:.1f} s\n")
        return status, dt

    def hang(self, phase, name, label, job, p, out_path, dt):
        pids = set(marked_pids(job)) | {p.pid}
        if self.extra_pids:
            pids |= set(self.extra_pids())
        pids = sorted(pids)
        # Frozen first, so that every stack is of the same moment and none moves on.
        for q in pids:
            try:
                os.kill(q, signal.SIGSTOP)
            except OSError:
                pass
        stk = os.path.join(self.log_dir, f"{phase}-{name}-{self.seq}.stacks")
        stacks = dump_stacks([q for q in pids if os.path.exists(f"/proc/{q}")], stk)
        verdict, lines = diagnose(stacks, label)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        kill_pids(pids)
        p.wait()
        self.hangs.append((phase, name, dt, out_path, stk, verdict, lines))
        print(f"HANG {phase} {name} job {self.seq} after {dt:.0f} s: {verdict} ({stk})",
              flush=True)


class Load:
    """Two CPU burners and a parallel compile loop, started and stopped by pid."""

    def __init__(self, log_dir):
        self.procs = []
        self.log_dir = log_dir

    def start(self):
        for _ in range(2):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-c", "while True: pass"], start_new_session=True))
        objdir = os.path.join(self.log_dir, "load-objs")
        os.makedirs(objdir, exist_ok=True)
        script = (
            'cd "$1"; while :; do find tests-c -name "*.c" | xargs -P2 -I{} '
            'sh -c \'gcc -O2 -w -Iinclude -Itests-c -Itests-c/dynamic -Itests-c/multinode '
            '-c "$1" -o "$2/$(echo "$1" | tr / _).o" 2>/dev/null\' sh {} "$2"; done')
        self.procs.append(subprocess.Popen(
            ["bash", "-c", script, "load", ROOT, objdir], start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
        self.procs = []


def pct(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


class Slurm:
    """The private cluster of tests-slurm/cluster.sh (its own start/stop functions), run by
    a bash that starts it, prints its settings and stops it when its stdin closes."""

    SCRIPT = ('PRELOAD="$1"; source "$2" || exit 1; trap cluster_stop EXIT; '
              'cluster_start >&2 || exit 1; echo "$SLURM_CONF $SD"; read -r _')

    def __init__(self):
        self.proc = None
        self.conf = self.sd = None

    def start(self):
        self.proc = subprocess.Popen(["bash", "-c", self.SCRIPT, "slurm", OURS, CLUSTER_SH],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.proc.stdout.readline().decode().split()
        if len(line) != 2:
            print("soak: the Slurm cluster did not start; srun row skipped", file=sys.stderr)
            self.stop()
            return False
        self.conf, self.sd = line
        return True

    def cmd_env(self):
        cmd = ["srun", "--mpi=pmix", "--time=2", f"--export=ALL,LD_PRELOAD={OURS}",
               "-n", "8", HELLO]
        return cmd, {"SLURM_CONF": self.conf, "SLURM_TEST_TAG": self.sd}

    def steps(self):
        return [int(d) for d in os.listdir("/proc")
                if d.isdigit() and comm(int(d)) == "slurmstepd"]

    def stop(self):
        if self.proc:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=120)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
            self.proc = None


def counts_for(rows, names):
    """Jobs per row: the row's default, or SOAK_N (all rows), or SOAK_COUNTS="row=N ..."."""
    n_env = os.environ.get("SOAK_N")
    counts = {n: int(n_env) if n_env else rows[n][0] for n in names}
    for item in os.environ.get("SOAK_COUNTS", "").split():
        name, _, num = item.partition("=")
        if name in counts:
            counts[name] = int(num)
    return counts


def schedule(counts, names):
    """Round-robin order of row names: every row once per round while it has jobs left."""
    order = []
    for i in range(max(counts.values(), default=0)):
        order.extend(n for n in names if i < counts[n])
    return order


def run_phase(runner, phase, rows, names, counts, slurm):
    res = {n: {"jobs": 0, "hang": 0, "fail": 0, "t": []} for n in names}
    t_phase = time.monotonic()
    for k, name in enumerate(schedule(counts, names)):
        row = rows[name]
        cmd = row[2]
        if name == "srun-8":
            cmd, env = slurm.cmd_env()
            row = (row[0], row[1], cmd, env, row[4])
            runner.extra_pids = slurm.steps
        else:
            runner.extra_pids = None
        status, dt = runner.run(phase, name, row, cmd)
        r = res[name]
        r["jobs"] += 1
        if status == "ok":
            r["t"].append(dt)
        else:
            r[status] += 1
            if status == "fail":
                print(f"FAIL {phase} {name} job {runner.seq} ({dt:.1f} s)", flush=True)
        if (k + 1) % 50 == 0:
            print(f"[soak] {phase}: {k + 1} jobs, {time.monotonic() - t_phase:.0f} s",
                  flush=True)
    return res


def table(results):
    out = ["| phase | row | jobs | hangs | failures | p50 s | p99 s |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for phase, res in results:
        for name, r in res.items():
            out.append(f"| {phase} | {name} | {r['jobs']} | {r['hang']} | {r['fail']} | "
                       f"{pct(r['t'], 0.5):.2f} | {pct(r['t'], 0.99):.2f} |")
    return "\n".join(out)


def main():
    rows = rows_table()
    names = os.environ.get("SOAK_ROWS", " ".join(rows)).split()
    bad = [n for n in names if n not in rows]
    if bad:
        print(f"soak: unknown rows {bad}; known: {' '.join(rows)}", file=sys.stderr)
        return 2
    counts = counts_for(rows, names)
    phases = os.environ.get("SOAK_PHASES", "normal loaded").split()
    log_dir = os.environ.get("SOAK_LOG") or os.path.join(
        ROOT, "build/soak", time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(log_dir, exist_ok=True)
    runner = Runner(log_dir, float(os.environ.get("SOAK_BOUND_SCALE", "1")))
    slurm = Slurm()
    if "srun-8" in names and not slurm.start():
        names.remove("srun-8")
    print(f"soak: rows {' '.join(names)}; phases {' '.join(phases)}; logs in {log_dir}",
          flush=True)
    results = []
    try:
        for phase in phases:
            load = Load(log_dir)
            if phase == "loaded":
                load.start()
            try:
                results.append((phase, run_phase(runner, phase, rows, names, counts, slurm)))
            finally:
                load.stop()
    finally:
        slurm.stop()
    report(results, runner, log_dir)
    return 0


def report(results, runner, log_dir):
    text = [table(results), ""]
    if not runner.hangs:
        text.append("No hangs.")
    for phase, name, dt, out, stk, verdict, lines in runner.hangs:
        text.append(f"HANG {phase} {name} after {dt:.0f} s: {verdict}")
        text.append(f"  output {out}; stacks {stk}")
        text.extend(lines)
    text = "\n".join(text)
    print(text)
    with open(os.path.join(log_dir, "report.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
