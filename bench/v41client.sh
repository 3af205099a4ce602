#!/usr/bin/env bash
# v41client.sh: our client against Debian's client, both under Debian's own mpirun (Open
# MPI 4.1.4, its OpenPMIx 4.2.2 server; nothing preloaded into mpirun). The same
# pmix_bench binary (bench/pmix_bench.c, built against Debian's headers) runs as every rank:
#   debian  the ranks load Debian's libpmix.so.2 (as linked)
#   ours    the ranks alone get LD_PRELOAD=our libpmix.so.2 (`env` as the program mpirun
#           starts), so they speak OpenPMIx's protocol to mpirun's server
# RUNS runs of each, interleaved; per operation the median over runs of pmix_bench's own
# median, and the ratio ours/debian (below 1: ours is faster).
#
#   OURS=build/lib/libpmix.so.2 BENCH=build/bench/pmix_bench.debian bench/v41client.sh
# Settings: NPS (default "2 4"), RUNS (3), ITERS (200).
set -uo pipefail
: "${OURS:?}" "${BENCH:?}"
NPS=${NPS:-2 4}
RUNS=${RUNS:-3}
ITERS=${ITERS:-200}
ours=$(readlink -f "$OURS")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MPIRUN=(env -u LD_PRELOAD -u LD_LIBRARY_PATH timeout -s KILL 120 mpirun --allow-run-as-root
        --oversubscribe --bind-to core:overload-allowed)
status=0
for np in $NPS; do
    for run in $(seq "$RUNS"); do
        for lib in debian ours; do
            pre=()
            [ "$lib" = ours ] && pre=(env LD_PRELOAD="$ours")
            out=$tmp/$lib.$np.$run
            if ! "${MPIRUN[@]}" -np "$np" "${pre[@]}" "$BENCH" -s -n "$ITERS" -r 5 >"$out" 2>&1; then
                echo "FAIL v41client bench: $lib -np $np run $run"; tail -20 "$out"; status=1
            fi
        done
    done
done
python3 - "$tmp" "$NPS" "$RUNS" <<'PY'
import re, statistics, sys, glob, os
tmp, nps, runs = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
pat = re.compile(r"^RESULT np=(\d+) op=(.+?) median_us=([0-9.]+)")
def load(lib, np):
    per = {}
    for run in range(1, runs + 1):
        f = os.path.join(tmp, f"{lib}.{np}.{run}")
        if not os.path.exists(f):
            continue
        for line in open(f, errors="replace"):
            m = pat.match(line)
            if m:
                per.setdefault(m.group(2), []).append(float(m.group(3)))
    return {k: statistics.median(v) for k, v in per.items()}
print("| np | operation | Debian's client (us) | our client (us) | ours/Debian |")
print("|---:|---|---:|---:|---:|")
for np in nps:
    d, o = load("debian", np), load("ours", np)
    for op in d:
        if op in o:
            r = o[op] / d[op] if d[op] > 0 else float("nan")
            print(f"| {np} | {op} | {d[op]:.2f} | {o[op]:.2f} | {r:.2f} |")
PY
exit $status
