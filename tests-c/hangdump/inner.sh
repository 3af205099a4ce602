#!/usr/bin/env bash
# inner.sh: two cases that hang on purpose, run through the harness with a short limit
# (tests-c/hangdump/run.sh judges this script's output). Both are counted as failed.
# Environment: PMIXRUN, HANG (the built tests-c/hangdump/hang), HARNESS_LOG.
set -u
: "${PMIXRUN:?}" "${HANG:?}"
AREA=hangdump-inner
. "$(dirname "$0")/../../tools/harness.sh"
check "a fence one rank never enters (3 ranks)" 0 '' 6 -- \
    "$PMIXRUN" --timeout 120 -n 3 "$HANG" fence
check "a Get of a key nobody puts, no timeout (2 ranks)" 0 '' 6 -- \
    "$PMIXRUN" --timeout 120 -n 2 "$HANG" get
check "a fence one rank never enters, 2 nodes (4 ranks)" 0 '' 8 -- \
    "$PMIXRUN" --timeout 120 --nodes 2 -n 4 "$HANG" fence
# Stands in for a process whose progress thread is stuck: it catches the dump signal
# (a shell trap) but never writes a dump.
check "a process that catches the dump signal but writes no dump" 0 '' 3 -- \
    bash -c 'trap "echo trapped" USR2; sleep 100 & wait; sleep 100'
harness_end
