#!/usr/bin/env bash
# run.sh: the fault scenarios (see mk/faults.mk): ranks SIGKILLed in the middle of a
# fence, a connect and a Get, on one and on two simulated nodes; a client leaving in the
# middle of a frame; a C host whose callbacks never come. One ok/FAIL line per case, the
# output of a failing case below it, and "N passed, M failed". The exit status is the
# verdict; every case runs through tools/harness.sh: a
# hang is a failure, reported before it is killed.
#
# Environment (set by mk/faults.mk): PMIXRUN, FAULTS (directory of the built programs),
# TIMEOUT (e.g. "timeout -s KILL"); FAULTS_REPEAT runs every case that many times.
set -u
: "${PMIXRUN:?}" "${FAULTS:?}" "${TIMEOUT:?}"
AREA=faults
. "$(dirname "$0")/../../tools/harness.sh"
repeat=${FAULTS_REPEAT:-1}
PR=("$PMIXRUN" --timeout 50 --enable-recovery)

# fcheck NAME WANT_STATUS PATTERN NLINES SECS -- COMMAND...: the harness's check (PATTERN
# must match at least NLINES lines), run FAULTS_REPEAT times (each run counted).
fcheck() {
    local name=$1 want=$2 pattern=$3 nlines=$4 secs=$5 i
    shift 6
    for ((i = 1; i <= repeat; i++)); do
        check "$name" "$want" "$pattern" "$secs" "$nlines" -- "$@"
    done
}

KILLED='rank [0-9]+ was killed by SIGKILL \(9\).*continuing \(--enable-recovery\)'

# --- a rank SIGKILLed in the middle of an operation; the survivors get an error, not a hang
for op in fence connect get; do
    for how in self peer; do
        fcheck "$op: victim killed ($how), 4 ranks" 137 \
            "rank [0-2]: $op failed with [A-Z-]+ after" 3 30 -- \
            "${PR[@]}" -n 4 "$FAULTS/rankdeath" "$op" "$how"
    done
done
fcheck "pmixrun names the killed rank and goes on" 137 "$KILLED" 1 30 -- \
    "${PR[@]}" -n 3 "$FAULTS/rankdeath" fence self

# --- the same across two simulated nodes (the victim on the other node's server)
for op in fence connect get; do
    fcheck "$op across 2 nodes: victim on node 1 killed (self), 3 ranks" 137 \
        "rank [0-1]: $op failed with [A-Z-]+ after" 2 40 -- \
        "${PR[@]}" --nodes 2 -n 3 "$FAULTS/rankdeath" "$op" self
done
fcheck "fence across 2 nodes: victim killed by its peer, 4 ranks" 137 \
    "rank [0-2]: fence failed with [A-Z-]+ after" 3 40 -- \
    "${PR[@]}" --nodes 2 -n 4 "$FAULTS/rankdeath" fence peer

# --- without --enable-recovery the job still ends at the first failure
fcheck "without recovery a killed rank ends the job" 137 \
    'rank 2 was killed by SIGKILL \(9\).*; killing the job' 1 30 -- \
    "$PMIXRUN" --timeout 50 -n 3 "$FAULTS/rankdeath" fence self

# --- a client leaving in the middle of a frame
fcheck "a client leaving mid-frame costs only its connection" 1 \
    'completed after rank 1 left mid-frame' 2 30 -- \
    "${PR[@]}" -n 3 "$FAULTS/halfframe"
fcheck "a client leaving mid-frame, 2 nodes" 1 \
    'completed after rank 1 left mid-frame' 2 40 -- \
    "${PR[@]}" --nodes 2 -n 3 "$FAULTS/halfframe"

# --- host callbacks that never come (a C host, no pmixrun)
fcheck "fence and direct modex the host never answers: PMIX_TIMEOUT" 0 \
    'hostcb.c: [0-9]+ checks, 0 failed' 1 30 -- "$FAULTS/hostcb"

harness_end
