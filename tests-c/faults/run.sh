#!/usr/bin/env bash
# run.sh: the fault scenarios (see mk/faults.mk): ranks SIGKILLed in the middle of a
# fence, a connect and a Get, on one and on two simulated nodes; a client leaving in the
# middle of a frame; a C host whose callbacks never come. One ok/FAIL line per case, the
# output of a failing case below it, and "N passed, M failed". The exit status is the
# verdict; every command runs under $TIMEOUT, so a hang fails.
#
# Environment (set by mk/faults.mk): PMIXRUN, FAULTS (directory of the built programs),
# TIMEOUT (e.g. "timeout -s KILL"); FAULTS_REPEAT runs every case that many times.
set -u
: "${PMIXRUN:?}" "${FAULTS:?}" "${TIMEOUT:?}"
repeat=${FAULTS_REPEAT:-1}
pass=0
fail=0
PR=("$PMIXRUN" --timeout 50 --enable-recovery)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

now() { date +%s.%N; }

verdict() {
    if [ -z "$2" ]; then
        pass=$((pass + 1))
        echo "ok   $1"
    else
        fail=$((fail + 1))
        echo "FAIL $1: $2"
        tail -n 60 "$out" | sed 's/^/    | /'
    fi
}

# check NAME WANT_STATUS PATTERN NLINES MAX_SECONDS -- COMMAND...
# PATTERN must match at least NLINES lines of the output (stdout and stderr together).
check() {
    local name=$1 want=$2 pattern=$3 nlines=$4 max=$5
    shift 6
    local i t0 t1 rc why
    for ((i = 1; i <= repeat; i++)); do
        why=""
        t0=$(now)
        $TIMEOUT 60 "$@" >"$out" 2>&1
        rc=$?
        t1=$(now)
        if [ "$rc" -ne "$want" ]; then
            why="exit status $rc, want $want"
        elif [ "$(grep -Ec -- "$pattern" "$out")" -lt "$nlines" ]; then
            why="fewer than $nlines lines match /$pattern/"
        elif grep -q '^FAIL' "$out"; then
            why="a check failed"
        elif awk -v a="$t0" -v b="$t1" -v m="$max" 'BEGIN { exit !(b - a > m) }'; then
            why="took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, limit $max s"
        fi
        [ -n "$why" ] && break
    done
    [ "$repeat" -gt 1 ] && name="$name (x$repeat)"
    verdict "$name" "$why"
}

KILLED='rank [0-9]+ was killed by SIGKILL \(9\).*continuing \(--enable-recovery\)'

# --- a rank SIGKILLed in the middle of an operation; the survivors get an error, not a hang
for op in fence connect get; do
    for how in self peer; do
        check "$op: victim killed ($how), 4 ranks" 137 \
            "rank [0-2]: $op failed with [A-Z-]+ after" 3 30 -- \
            "${PR[@]}" -n 4 "$FAULTS/rankdeath" "$op" "$how"
    done
done
check "pmixrun names the killed rank and goes on" 137 "$KILLED" 1 30 -- \
    "${PR[@]}" -n 3 "$FAULTS/rankdeath" fence self

# --- the same across two simulated nodes (the victim on the other node's server)
for op in fence connect get; do
    check "$op across 2 nodes: victim on node 1 killed (self), 3 ranks" 137 \
        "rank [0-1]: $op failed with [A-Z-]+ after" 2 40 -- \
        "${PR[@]}" --nodes 2 -n 3 "$FAULTS/rankdeath" "$op" self
done
check "fence across 2 nodes: victim killed by its peer, 4 ranks" 137 \
    "rank [0-2]: fence failed with [A-Z-]+ after" 3 40 -- \
    "${PR[@]}" --nodes 2 -n 4 "$FAULTS/rankdeath" fence peer

# --- without --enable-recovery the job still ends at the first failure
check "without recovery a killed rank ends the job" 137 \
    'rank 2 was killed by SIGKILL \(9\).*; killing the job' 1 30 -- \
    "$PMIXRUN" --timeout 50 -n 3 "$FAULTS/rankdeath" fence self

# --- a client leaving in the middle of a frame
check "a client leaving mid-frame costs only its connection" 1 \
    'completed after rank 1 left mid-frame' 2 30 -- \
    "${PR[@]}" -n 3 "$FAULTS/halfframe"
check "a client leaving mid-frame, 2 nodes" 1 \
    'completed after rank 1 left mid-frame' 2 40 -- \
    "${PR[@]}" --nodes 2 -n 3 "$FAULTS/halfframe"

# --- host callbacks that never come (a C host, no pmixrun)
check "fence and direct modex the host never answers: PMIX_TIMEOUT" 0 \
    'hostcb.c: [0-9]+ checks, 0 failed' 1 30 -- "$FAULTS/hostcb"

echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
