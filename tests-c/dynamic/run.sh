#!/usr/bin/env bash
# run.sh: every dynamic-operation scenario under pmixrun (see mk/dynamic.mk). One ok/FAIL
# line per case, the output of a failing case below it, and "N passed, M failed".
# The exit status is the verdict; every case runs
# through tools/harness.sh: a hang is a failure, reported before it is killed.
#
# Environment (set by mk/dynamic.mk): PMIXRUN, DYN (directory of the built scenarios),
# TIMEOUT (e.g. "timeout -s KILL").
set -u
: "${PMIXRUN:?}" "${DYN:?}" "${TIMEOUT:?}"
AREA=dynamic
. "$(dirname "$0")/../../tools/harness.sh"
PR=("$PMIXRUN" --timeout 50)

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

# --- connect and events across two simulated nodes (pmixrun --nodes 2) ---
check "connect rules across 2 nodes (4 ranks)" 0 ' 0 failed' 50 -- \
    "${PR[@]}" --nodes 2 -n 4 "$DYN/connect_rules"
check "finalize without disconnect across 2 nodes" 0 \
    'rank 2 got PMIX_ERR_PROC_TERM_WO_SYNC from rank 1' 40 -- \
    "${PR[@]}" --nodes 2 -n 3 "$DYN/connect_term" finalize
check "exit without disconnect across 2 nodes" 1 \
    'rank 3 got PMIX_ERR_PROC_TERM_WO_SYNC from rank 1' 40 -- \
    "${PR[@]}" --nodes 2 -n 4 "$DYN/connect_term" crash
check "event chains and ranges across 2 nodes (4 ranks)" 0 ' 0 failed' 50 -- \
    "${PR[@]}" --nodes 2 -n 4 "$DYN/events"

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

# --- a C host's module (the adapter Open MPI's mpirun uses), no pmixrun ---
check "C host with NULL slots: NOT_SUPPORTED to the clients" 0 'chost.c: [0-9]+ checks, 0 failed' 40 -- \
    "$DYN/chost" null
check "C host with the slots: upcalls and their answers" 0 'chost.c: [0-9]+ checks, 0 failed' 40 -- \
    "$DYN/chost" host

harness_end
