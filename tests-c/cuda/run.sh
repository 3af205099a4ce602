#!/usr/bin/env bash
# run.sh: the CUDA communications-object scenarios (see mk/cuda.mk). One ok/FAIL line per
# case, the output of a failing case below it, and "cuda: N passed, M failed". The exit
# status is the verdict; every case runs
# through tools/harness.sh: a hang is a failure, reported before it is killed.
#
# Environment: PMIXRUN (the launcher), CT (directory of the built scenarios),
#              BENCH (cuda_bench, "" = skip), TIMEOUT (e.g. "timeout -s KILL").
set -u
: "${PMIXRUN:?}" "${CT:?}" "${TIMEOUT:?}"
AREA=cuda
. "$(dirname "$0")/../../tools/harness.sh"
BENCH=${BENCH:-}
PR=("$PMIXRUN" --timeout 50)

check "header layout, enum table, singleton object" 0 '' 60 -- \
    env -i PATH="$PATH" HOME="${HOME:-/}" "$(harness_mark)" "$CT/header"
check "after a CUDA 13.4 cuda.h: its types, not ours" 0 '' 60 -- "$CT/fake_cuda_13040"
check "after a CUDA 12.8 cuda.h: our types" 0 '' 60 -- "$CT/fake_cuda_12080"

for n in 1 2 4 8; do
    check "every method, opposite orders, 120 outstanding, $n rank(s)" 0 '' 60 -- \
        "${PR[@]}" -n "$n" "$CT/comms"
    got=$(grep -c 'checks, 0 failed' "$out")
    why=""
    [ "$got" -eq "$n" ] || why="$got of $n ranks reported all checks passed"
    verdict "  ... all $n rank(s) ran every check" "$why"
done

# Across simulated nodes (one PMIx server per node, joined by pmixrun as a host would):
# the tagged fences and allgathers cross servers through the host's fence.
for n in 2 4; do
    check "every method across 2 nodes, $n ranks" 0 '' 60 -- \
        "${PR[@]}" --nodes 2 -n "$n" "$CT/comms"
    got=$(grep -c 'checks, 0 failed' "$out")
    why=""
    [ "$got" -eq "$n" ] || why="$got of $n ranks reported all checks passed"
    verdict "  ... all $n ranks ran every check (2 nodes)" "$why"
done

for n in 2 4 8; do
    check "member killed mid-barrier, $n ranks: no hang, pmixrun reports it" 137 '' 60 -- \
        "${PR[@]}" -n "$n" "$CT/kill"
    seen=$(grep -c 'async error seen' "$out")
    why=""
    [ "$seen" -eq $((n - 1)) ] || why="$seen of $((n - 1)) survivors saw the async error"
    verdict "  ... every survivor saw it ($n ranks)" "$why"
done

if [ -n "$BENCH" ]; then
    check "cuda_bench smoke run, 2 ranks" 0 '' 60 -- "${PR[@]}" -n 2 "$BENCH" -i 50
fi

harness_end
