#!/usr/bin/env bash
# run.sh: the harness's hang report, tested (see mk/hangdump.mk). inner.sh runs jobs that
# hang on purpose through tools/harness.sh with a short limit; its cases must fail, and
# its output must hold what a person needs to find the hang: every thread's stacks, the
# call each rank is blocked in (PMIx_Fence, PMIx_Get) from its debug dump, and the
# server's pending fence naming the rank that never arrived (or its parked Get).
#
# Environment (set by mk/hangdump.mk): PMIXRUN, HANG (the built program).
set -u
: "${PMIXRUN:?}" "${HANG:?}"
AREA=hangdump
. "$(dirname "$0")/../../tools/harness.sh"
inner_log=$HARNESS_LOG/inner

# The inner harness's own FAIL lines are expected: nothing is rejected here.
REJECT='' check "the harness counts the hung cases as failed" 1 \
    '^hangdump-inner: 0 passed, 4 failed$' 150 -- \
    env HARNESS_LOG="$inner_log" PMIXRUN="$PMIXRUN" HANG="$HANG" bash "$(dirname "$0")/inner.sh"
cp "$out" "$HARNESS_LOG/inner.out"

# has NAME N REGEX: the inner output has at least N lines matching REGEX.
has() {
    local n
    n=$(grep -Ec -- "$3" "$HARNESS_LOG/inner.out")
    if [ "$n" -ge "$2" ]; then verdict "$1" ""; else
        cp "$HARNESS_LOG/inner.out" "$out"
        verdict "$1" "$n lines match /$3/, want >= $2"
    fi
}
has "each hung case is reported as a hang" 4 '^FAIL .*: hang: still running after [0-9]+ s \(killed\)$'
has "the report lists the processes of each case" 3 '# == hang report: still running after [0-9]+ s; [0-9]+ processes$'
has "the two ranks that entered the fence are blocked in PMIx_Fence (from their dumps)" 2 \
    '#    blocked in: PMIx_Fence \(from its dump\)$'
has "the server's pending fence names the missing rank 2" 1 '#    \|       missing: job\.[^ ]*:2$'
has "the server's pending fence names who arrived" 1 '#    \|       arrived: job\.[^ ]*:0, job\.[^ ]*:1$'
has "the rank that Gets is blocked in PMIx_Get (from its dump)" 1 '#    blocked in: PMIx_Get \(from its dump\)$'
has "the server's parked Get names the key and its owner" 1 \
    '#    \|     job\.[^ ]*:0 waits for hangdump-never-put of job\.[^ ]*:1'
has "the client's pending request is listed with its age" 1 '#    \|     tag [0-9]+: get, waiting [0-9.]+ s$'
has "every thread's stack is shown" 6 '#    \| (TID [0-9]+ \(.*\):|Thread [0-9]+ .*LWP [0-9]+)'
has "stack frames are shown" 6 '#    \| #[0-9]+ +0x[0-9a-f]+ '
has "the stacks show the blocked call" 2 '#    \| #[0-9]+ +0x[0-9a-f]+ (in )?PMIx_Fence\b'
has "across 2 nodes, the rank on node 1 that never arrives is missing there" 1 \
    '#    \|       missing: job\.[^ ]*:3$'
has "no dump within 1 s of the signal is reported as a progress thread not responding" 1 \
    '#    PMIx debug dump: none within 1 s of the signal: progress thread not responding$'
has "the full reports stay in the log directory" 3 '# \(full report: .*/hang-report\)$'
why=""
left=$(grep -lzs "HARNESS_CASE=harness-hangdump-inner" /proc/[0-9]*/environ 2>/dev/null | wc -l)
[ "$left" -eq 0 ] || why="$left processes of the hung cases still run"
verdict "every process of the hung cases was killed" "$why"
harness_end
