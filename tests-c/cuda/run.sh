#!/usr/bin/env bash
# run.sh: the CUDA communications-object scenarios (see mk/cuda.mk). One ok/FAIL line per
# case, the output of a failing case below it, and "cuda: N passed, M failed". The exit
# status is the verdict; every command runs under $TIMEOUT, so a hang is a failure.
#
# Environment: PMIXRUN (the launcher), CT (directory of the built scenarios),
#              BENCH (cuda_bench, "" = skip), TIMEOUT (e.g. "timeout -s KILL").
set -u
: "${PMIXRUN:?}" "${CT:?}" "${TIMEOUT:?}"
BENCH=${BENCH:-}
pass=0
fail=0
PR=("$PMIXRUN" --timeout 50)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

verdict() {
    if [ -z "$2" ]; then
        pass=$((pass + 1))
        echo "ok   $1"
    else
        fail=$((fail + 1))
        echo "FAIL $1: $2"
        grep -E '^FAIL|panicked|error' "$out" | head -n 20 | sed 's/^/    | /'
        tail -n 30 "$out" | sed 's/^/    | /'
    fi
}

# check NAME WANT_STATUS -- COMMAND...: the exit status must be WANT_STATUS, no line may
# start with FAIL, and the checks' summary lines must all say "0 failed".
check() {
    local name=$1 want=$2
    shift 3
    $TIMEOUT 60 "$@" >"$out" 2>&1
    local rc=$? why=""
    if [ "$rc" -ne "$want" ]; then
        why="exit status $rc, want $want"
    elif grep -q '^FAIL' "$out"; then
        why="a check failed"
    elif grep -E 'checks, [0-9]+ failed' "$out" | grep -vq ' 0 failed'; then
        why="a rank reported failures"
    fi
    verdict "$name" "$why"
}

check "header layout, enum table, singleton object" 0 -- \
    env -i PATH="$PATH" HOME="${HOME:-/}" "$CT/header"
check "after a CUDA 13.4 cuda.h: its types, not ours" 0 -- "$CT/fake_cuda_13040"
check "after a CUDA 12.8 cuda.h: our types" 0 -- "$CT/fake_cuda_12080"

for n in 1 2 4 8; do
    check "every method, opposite orders, 120 outstanding, $n rank(s)" 0 -- \
        "${PR[@]}" -n "$n" "$CT/comms"
    got=$(grep -c 'checks, 0 failed' "$out")
    why=""
    [ "$got" -eq "$n" ] || why="$got of $n ranks reported all checks passed"
    verdict "  ... all $n rank(s) ran every check" "$why"
done

# Across simulated nodes (one PMIx server per node, joined by pmixrun as a host would):
# the tagged fences and allgathers cross servers through the host's fence.
for n in 2 4; do
    check "every method across 2 nodes, $n ranks" 0 -- \
        "${PR[@]}" --nodes 2 -n "$n" "$CT/comms"
    got=$(grep -c 'checks, 0 failed' "$out")
    why=""
    [ "$got" -eq "$n" ] || why="$got of $n ranks reported all checks passed"
    verdict "  ... all $n ranks ran every check (2 nodes)" "$why"
done

for n in 2 4 8; do
    check "member killed mid-barrier, $n ranks: no hang, pmixrun reports it" 137 -- \
        "${PR[@]}" -n "$n" "$CT/kill"
    seen=$(grep -c 'async error seen' "$out")
    why=""
    [ "$seen" -eq $((n - 1)) ] || why="$seen of $((n - 1)) survivors saw the async error"
    verdict "  ... every survivor saw it ($n ranks)" "$why"
done

if [ -n "$BENCH" ]; then
    check "cuda_bench smoke run, 2 ranks" 0 -- "${PR[@]}" -n 2 "$BENCH" -i 50
fi

echo "cuda: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
