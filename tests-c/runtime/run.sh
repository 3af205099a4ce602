#!/usr/bin/env bash
# run.sh: every runtime scenario, run under pmixrun (see mk/runtime.mk). One ok/FAIL line
# per case, the output of a failing case below it, and a closing "N passed, M failed".
# The exit status is the verdict. Every case runs through
# tools/harness.sh: a hang is a failure, reported before it is killed.
#
# Environment (set by mk/runtime.mk):
#   PMIXRUN   the launcher            RT      directory of the built scenarios
#   HELLO     the example job         BENCH   bench/pmix_bench.c, built
#   TIMEOUT   e.g. "timeout -s KILL"
set -u
: "${PMIXRUN:?}" "${RT:?}" "${HELLO:?}" "${BENCH:?}" "${TIMEOUT:?}"
AREA=runtime
. "$(dirname "$0")/../../tools/harness.sh"
# Jobs get pmixrun's own --timeout below the outer one, so a hung job is still cleaned
# up (scratch tree removed) and reported by pmixrun.
PR=("$PMIXRUN" --timeout 50)

# --- the launcher on its own (no PMIx server needed) ---
check "help documents the options" 0 '--tag-output' 5 -- "$PMIXRUN" --help
check "usage error exits 2" 2 'no program given' 5 -- "$PMIXRUN"
check "--nodes needs a rank per node" 2 "needs at least 2 processes" 5 -- "$PMIXRUN" --nodes 2 -n 1 true
check "unknown program exits 127" 127 'no-such-program-xyz: command not found' 5 -- \
    "$PMIXRUN" -n 2 no-such-program-xyz

# --- plain programs under pmixrun ---
check "exit status of the failing rank" 5 'rank 2 exited with status 5' 20 -- \
    "${PR[@]}" -n 3 sh -c 'if [ "$PMIX_RANK" = 2 ]; then exit 5; fi; sleep 30'
check "signal death is 128+signal" 139 'rank 0 was killed by SIGSEGV' 20 -- \
    "${PR[@]}" -n 2 sh -c 'if [ "$PMIX_RANK" = 0 ]; then kill -SEGV $$; fi; sleep 30'
check "--tag-output prefixes [nspace,rank]" 0 '^\[job\.[^,]+,1\] hello from 1$' 20 -- \
    "${PR[@]}" --tag-output -n 2 sh -c 'echo "hello from $PMIX_RANK"'
check "--timeout kills the job" 124 'timed out after 1 s' 15 -- \
    "$PMIXRUN" --timeout 1 -n 2 sleep 30
check "-x exports a variable" 0 '^PMIXRUN_TEST_VAR=forty two$' 20 -- \
    "${PR[@]}" -x 'PMIXRUN_TEST_VAR=forty two' -n 1 sh -c 'echo "PMIXRUN_TEST_VAR=$PMIXRUN_TEST_VAR"'

# SIGTERM to pmixrun reaches the job, and pmixrun exits 128+15.
# (job_start/job_wait: the harness's bound and hang report for a job signalled while
# it runs.)
t0=$(now)
job_start 60 -- "${PR[@]}" -n 2 sleep 30
sleep 1
kill -TERM "$HARNESS_JOB"
job_wait
t1=$(now)
why=""
if [ "$HUNG" = 1 ]; then
    why="hang: still running 60 s after SIGTERM (killed)"
elif [ "$rc" -ne 143 ]; then
    why="exit status $rc, want 143"
elif ! grep -q 'received SIGTERM' "$out"; then
    why="no 'received SIGTERM' message"
elif awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 15) }'; then
    why="too slow"
fi
verdict "SIGTERM is forwarded to the job" "$why"

# --- PMIx clients ---
check "init/finalize, nested and repeated (1 rank)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 1 "$RT/init_finalize"
check "init/finalize, nested and repeated (4 ranks)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 4 "$RT/init_finalize"
check "job info (1 rank)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 1 "$RT/job_info" 1
check "job info (4 ranks)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 4 "$RT/job_info" 4
tmpdir=$(sed -n 's/^tmpdir=//p' "$out" | head -n 1)
why=""
if [ -z "$tmpdir" ]; then
    why="the job did not report its PMIX_TMPDIR"
elif [ -e "$tmpdir" ]; then
    why="$tmpdir still exists after the job"
fi
verdict "scratch tree removed after the job" "$why"
for n in 2 4 16; do
    for mode in collect nocollect; do
        check "put/fence($mode)/get of every type, $n ranks" 0 ' 0 failed' 50 -- \
            "${PR[@]}" -n "$n" "$RT/put_get" "$mode"
    done
done
check "fences over subsets (4 ranks)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 4 "$RT/fence_subset"
check "fences over subsets (7 ranks)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 7 "$RT/fence_subset"
check "Fence_nb and Get_nb (1 rank)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 1 "$RT/fence_nb"
check "Fence_nb and Get_nb (4 ranks)" 0 ' 0 failed' 30 -- "${PR[@]}" -n 4 "$RT/fence_nb"
check "MPMD: two apps, one namespace" 0 ' 0 failed' 30 -- \
    "${PR[@]}" -n 2 "$RT/mpmd" 0 2 0 : -n 3 "$RT/mpmd" 1 3 2
check "PMIx_Abort kills the job with its status" 7 'rank 1 called PMIx_Abort with status 7' 20 -- \
    "${PR[@]}" -n 4 "$RT/abort"
check "exit without PMIx_Finalize fails the job" 1 \
    'rank 0 called PMIx_Init but exited without calling PMIx_Finalize' 20 -- \
    "${PR[@]}" -n 3 "$RT/no_finalize"
check "singleton (no launcher)" 0 ' 0 failed' 20 -- \
    env -i PATH="$PATH" HOME="${HOME:-/}" "$(harness_mark)" "$RT/singleton"
check "hello example (4 ranks)" 0 '^rank 3/4 .*neighbour 0 says "hello from rank 0' 30 -- \
    "${PR[@]}" -n 4 "$HELLO"
for n in 2 8; do
    check "pmix_bench smoke run, $n ranks, no mismatches" 0 \
        'value mismatches over all ranks: 0$' 60 -- "${PR[@]}" -n "$n" "$BENCH" -n 20 -r 2
done

harness_end
