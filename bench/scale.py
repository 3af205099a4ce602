#!/usr/bin/env python3
"""Scale on one machine (make scale): bench/scale.c (PMIx_Init, Put of a 64-byte value,
collecting fence, Get of the next 8 ranks' keys, Finalize: the hello of issue 21) under
pmixrun -n N for each N given, one table row per N: wall time, pmixrun's peak resident
memory (VmHWM) and the most descriptors it held (both sampled from /proc every 20 ms),
the least memory the machine had available meanwhile (MemAvailable), pmixrun's own
CPU time (all its threads, not the ranks; last sample, up to 20 ms short), the ranks' median
fence time and peak RSS as rank 0 prints them, their median Private_Dirty (what each
rank costs the machine alone) before Init, after Init and after the first fence, and
whether every value read was right.

    PMIXRUN=build/bin/pmixrun SCALE=build/bench/scale python3 bench/scale.py 256 1024 ...
    SCALE_ARGS="64 0"   bench/scale.c's arguments (value bytes, peers read; 0 = all)

Exit status 1 if a run failed (a wrong value, a rank that did not finish, the timeout).
"""
import os
import re
import subprocess
import sys
import time

PMIXRUN = os.environ.get("PMIXRUN", "build/bin/pmixrun")
SCALE = os.environ.get("SCALE", "build/bench/scale")
JOB_TIMEOUT = int(os.environ.get("SCALE_TIMEOUT", "240"))
SCALE_ARGS = os.environ.get("SCALE_ARGS", "64 8").split()
# A job that leaves the machine less than this (MiB) is killed (its ranks die with
# pmixrun) rather than driving a shared machine into the OOM killer.
MIN_AVAIL = int(os.environ.get("SCALE_MIN_AVAIL_MIB", "1536"))


def mem_available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_s(pid):
    """The CPU time (user + system, all threads, not its children) of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def nfds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def run(np):
    cmd = [PMIXRUN, "--timeout", str(JOB_TIMEOUT), "-n", str(np), SCALE] + SCALE_ARGS
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    hwm = fds = 0
    cpu = 0.0
    avail = start_avail = mem_available_mib()
    low = False
    # The output is small (rank 0's summary) and read at the end; sample meanwhile.
    while p.poll() is None:
        h = status_kib(p.pid, "VmHWM:")
        n = nfds(p.pid)
        hwm = max(hwm, h or 0)
        fds = max(fds, n or 0)
        cpu = max(cpu, cpu_s(p.pid) or 0.0)
        avail = min(avail, mem_available_mib())
        if avail < MIN_AVAIL and not low:
            low = True
            p.kill()
        time.sleep(0.02)
    wall = time.monotonic() - t0
    out = p.stdout.read()
    fence = re.search(r"collecting fence us\s+median\s+(\d+)", out)
    rank_hwm = re.search(r"peak RSS \(VmHWM\) KiB\s+median\s+(\d+)", out)
    dirty = [re.search(r"Private_Dirty %s KiB\s+median\s+(\d+)" % w, out)
             for w in ("before init", "after init", "after the fence")]
    ok = p.returncode == 0 and "scale: ok" in out
    if low:
        out += f"scale.py: killed: the machine had less than {MIN_AVAIL} MiB available\n"
    return {
        "np": np,
        "wall": wall,
        "hwm_mib": hwm / 1024,
        "fds": fds,
        "cpu": cpu,
        "machine_mib": start_avail - avail,
        "fence_ms": int(fence.group(1)) / 1000 if fence else float("nan"),
        "rank_mib": int(rank_hwm.group(1)) / 1024 if rank_hwm else float("nan"),
        "dirty": "/".join(m.group(1) if m else "-" for m in dirty),
        "ok": ok,
        "out": out,
        "rc": p.returncode,
    }


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [256, 1024, 2048, 4096]
    print(f"{'ranks':>6} {'wall s':>7} {'pmixrun MiB':>11} {'fds':>6} {'fds/rank':>8} "
          f"{'machine MiB':>11} {'pmixrun CPU s':>13} {'fence ms':>9} {'rank MiB':>8} {'dirty KiB 0/init/fence':>22}"
          "  result")
    failed = False
    for np in sizes:
        r = run(np)
        print(f"{r['np']:>6} {r['wall']:>7.2f} {r['hwm_mib']:>11.1f} {r['fds']:>6} "
              f"{r['fds'] / np:>8.2f} {r['machine_mib']:>11} {r['cpu']:>13.2f} {r['fence_ms']:>9.0f} "
              f"{r['rank_mib']:>8.1f} {r['dirty']:>22}  "
              f"{'ok' if r['ok'] else 'FAILED (status %d)' % r['rc']}", flush=True)
        if not r["ok"]:
            failed = True
            sys.stdout.write("".join(r["out"].splitlines(True)[-20:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
