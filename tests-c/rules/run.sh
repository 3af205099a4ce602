#!/usr/bin/env bash
# run.sh: the rule tests (see mk/rules.mk). One ok/FAIL line per case, the output of a
# failing case below it, and a closing "rules: N passed, M failed". The exit status is
# the verdict. Every case runs through tools/harness.sh: a hang is a
# failure, reported before it is killed.
#
# Environment (set by mk/rules.mk): PMIXRUN, RB (built programs), TIMEOUT.
# An optional argument (a regex) keeps only the cases whose name matches it.
set -u
: "${PMIXRUN:?}" "${RB:?}" "${TIMEOUT:?}"
AREA=rules
HARNESS_ONLY=${1:-}
. "$(dirname "$0")/../../tools/harness.sh"

# run NAME SECS -- COMMAND...: COMMAND must exit 0 and print "N checks, 0 failed".
run() {
    local name=$1 secs=$2
    shift 3
    check "$name" 0 ' checks, 0 failed$' "$secs" -- "$@"
}

# pr NAME NP SECS PROG ARGS...: PROG under pmixrun with NP ranks.
pr() {
    local name=$1 np=$2 secs=$3 prog=$4
    shift 4
    run "$name" "$secs" -- "$PMIXRUN" --timeout $((secs - 5)) -n "$np" "$RB/$prog" "$@"
}

# --- PMIx_Get
pr "get: proc NULL = self, WILDCARD = job data, key NULL = all as info array" 3 30 get_target
pr "get: self-referential PMIX_RANK, PMIX_PROCID, PMIX_VERSION_NUMERIC" 2 30 get_selfref
pr "get: every reserved key of the page, with its type, for self/peer/job" 3 30 get_reserved
pr "get: PMIX_OPTIONAL local only; PMIX_IMMEDIATE server store only" 3 30 get_optional_immediate
pr "get: a peer's value is cached; a fence does not refresh it; REFRESH_CACHE does" 3 30 get_cache
pr "get: Put scopes, PMIX_DATA_SCOPE, EXISTS_OUTSIDE_SCOPE" 2 30 get_scope
pr "get: POINTER_VALUES lifetime, STATIC_VALUES (NULL val BAD_PARAM)" 2 30 get_pointer_static
pr "get: STATIC_VALUES as written for OpenPMIx master (storage via *val, strings, NULL *val)" 2 30 get_static
pr "get: SESSION/JOB/APP/NODE_INFO levels (two apps)" 2 30 get_levels : -n 1 "$RB/get_levels"
pr "get: PMIX_TIMEOUT; unknown namespace waits (bounded), IMMEDIATE/OPTIONAL do not" 2 30 get_timeout
pr "get: a key not yet committed is waited for" 2 30 get_waits
pr "get/put/fence: INIT before init, BAD_PARAM arguments" 1 30 get_bad_args
pr "get/put/commit/fence: NOT_AVAILABLE after PMIx_Progress_thread_stop" 2 30 get_not_available
pr "get: qualified values selected by qualifiers" 2 30 get_qualified
pr "get_nb: NULL cbfunc BAD_PARAM; callback exactly once, iff SUCCESS" 2 30 get_nb_once

# --- PMIx_Put / PMIx_Commit
pr "put: DEL_* scopes, deleted key as never published, caches dropped" 2 30 put_delete
pr "commit: sends only what changed since the previous commit" 2 30 commit_delta

# --- PMIx_Fence / PMIx_Fence_nb
pr "fence: NULL procs = own nspace, BAD_PARAM, order irrelevant, NOT_A_MEMBER" 4 30 fence_args
pr "fence: WILDCARD and explicit list never match (bounded by PMIX_TIMEOUT)" 2 30 fence_mismatch
pr "fence: PMIX_TIMEOUT releases every participant" 3 30 fence_timeout
pr "fence: in shared memory, mixed with socket fences (2 ranks)" 2 30 fence_shm on timeout
pr "fence: in shared memory, mixed with socket fences (8 ranks)" 8 40 fence_shm on
run "fence: PMIX_RS_SHM_FENCE=0 keeps them on the socket (4 ranks)" 30 -- \
    env PMIX_RS_SHM_FENCE=0 "$PMIXRUN" --timeout 25 -n 4 "$RB/fence_shm" off
check "fence: a rank killed in a collecting fence in shared memory fails the others (4 ranks)" \
    137 "rank [0-2]: collecting fence failed with [A-Z_-]+ after" 20 3 -- \
    "$PMIXRUN" --enable-recovery --timeout 15 -n 4 "$RB/fence_shm" on kill
pr "fence: COLLECT_DATA makes data available to IMMEDIATE" 4 30 fence_collect
pr "fence_nb: OPERATION_SUCCEEDED at once, NULL cbfunc blocks (1 rank)" 1 30 fence_nb_rules
pr "fence_nb: OPERATION_SUCCEEDED at once, NULL cbfunc blocks (2 ranks)" 2 30 fence_nb_rules
run "fence: singleton Fence SUCCESS, Fence_nb OPERATION_SUCCEEDED" 20 -- \
    env -i PATH="$PATH" HOME="${HOME:-/}" "$(harness_mark)" "$RB/singleton_fence"

# --- rules only a host shows (tests-c/rules/rules_host.c is its own server)
for s in fabric qualified resources late exchange; do
    run "host: $s" 30 -- "$RB/rules_host" "$s"
done

# --- progress-thread rule
pr "progress thread: WOULD_BLOCK with a diagnostic, nothing done" 2 30 progress_thread

harness_end
