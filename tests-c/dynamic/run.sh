#!/usr/bin/env bash
# run.sh: every dynamic-operation scenario under pmixrun (see mk/dynamic.mk). One ok/FAIL
# line per case, the output of a failing case below it, and "N passed, M failed".
# The exit status is the verdict; every command runs under $TIMEOUT, so a hang fails.
#
# Environment (set by mk/dynamic.mk): PMIXRUN, DYN (directory of the built scenarios),
# TIMEOUT (e.g. "timeout -s KILL").
set -u
: "${PMIXRUN:?}" "${DYN:?}" "${TIMEOUT:?}"
pass=0
fail=0
PR=("$PMIXRUN" --timeout 50)
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

# check NAME WANT_STATUS PATTERN MAX_SECONDS -- COMMAND...
check() {
    local name=$1 want=$2 pattern=$3 max=$4
    shift 5
    local t0 t1 rc why=""
    t0=$(now)
    $TIMEOUT 60 "$@" >"$out" 2>&1
    rc=$?
    t1=$(now)
    if [ "$rc" -ne "$want" ]; then
        why="exit status $rc, want $want"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$out"; then
        why="no line matches /$pattern/"
    elif grep -q '^FAIL' "$out"; then
        why="a check failed"
    elif awk -v a="$t0" -v b="$t1" -v m="$max" 'BEGIN { exit !(b - a > m) }'; then
        why="took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, limit $max s"
    fi
    verdict "$name" "$why"
}

# --- connect / disconnect ---
check "connect rules within one namespace (3 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 3 "$DYN/connect_rules"
check "connect rules within one namespace (5 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 5 "$DYN/connect_rules"

check "finalize without disconnect raises PROC_TERM_WO_SYNC" 0 \
    'rank 2 got PMIX_ERR_PROC_TERM_WO_SYNC from rank 1' 30 -- \
    "${PR[@]}" -n 3 "$DYN/connect_term" finalize
check "exit without disconnect raises PROC_TERM_WO_SYNC" 1 \
    'rank 0 got PMIX_ERR_PROC_TERM_WO_SYNC from rank 1' 30 -- \
    "${PR[@]}" -n 2 "$DYN/connect_term" crash

# --- publish / lookup / unpublish ---
check "publish, lookup, unpublish: ranges, persistence, PMIX_WAIT (3 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 3 "$DYN/publish"

# --- events ---
check "event chains, directives and ranges (3 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 3 "$DYN/events"
check "event chains, directives and ranges (4 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 4 "$DYN/events"

# --- queries, process sets, resolve, log ---
check "query, psets, resolve, log (2+2 ranks)" 0 'query log line from rank 3' 40 -- \
    "${PR[@]}" -n 2 --pset alpha "$DYN/query" : -n 2 --pset beta "$DYN/query"

check "job control and abort of a subset end only their targets" 0 \
    'called PMIx_Abort\(5\) on 1 other processes: ending rank 2' 40 -- \
    "${PR[@]}" -n 4 "$DYN/control"

# --- groups ---
check "groups: construct, context ids, invite/join, leave, destruct (4 ranks)" 0 ' 0 failed' 40 -- \
    "${PR[@]}" -n 4 "$DYN/groups"

# --- spawn ---
check "spawn: children connect to their parents (1 parent, 2 children)" 0 'parent 0 done' 40 -- \
    "${PR[@]}" -n 1 "$DYN/spawn" ok 2
check "spawn: children connect to their parents (3 parents, 4 children)" 0 'child 3 of 4 done' 40 -- \
    "${PR[@]}" -n 3 "$DYN/spawn" ok 4
check "spawn: a failing spawned job is reported and fails pmixrun" 3 \
    'spawned job [^ ]+: rank [0-9] exited with status 3' 40 -- \
    "${PR[@]}" -n 2 "$DYN/spawn" fail 2

check "spawn: children dying unsynchronized raise PROC_/JOB_TERM_WO_SYNC" 1 \
    'parent heard PROC_TERM_WO_SYNC and JOB_TERM_WO_SYNC' 40 -- \
    "${PR[@]}" -n 1 "$DYN/spawn" crash 2

echo "dynamic: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
