#!/usr/bin/env bash
# run.sh: the host-lock cases (see mk/hostlock.mk): tests-c/hostlock/hostlock in its two
# modes. One ok/FAIL line per case, the output of a failing case below it, and
# "N passed, M failed". A case still running after $LIMIT seconds is a hang: the
# harness (tools/harness.sh) prints its report (debug dumps, every thread's stacks of
# the host and of its client), then kills it.
#
# Environment (set by mk/hostlock.mk): HOSTLOCK (the built program), TIMEOUT (e.g.
# "timeout -s KILL", the outer bound).
set -u
: "${HOSTLOCK:?}" "${TIMEOUT:?}"
LIMIT=${HOSTLOCK_LIMIT:-40}
AREA=hostlock
. "$(dirname "$0")/../../tools/harness.sh"

# case_ NAME COMMAND...: the host's verdict line, no FAIL or RELOCK line, within $LIMIT s
# (a hang gets the harness's report: dumps and every thread's stacks).
case_() {
    local name=$1
    shift
    REJECT='^FAIL|RELOCK' check "$name" 0 'hostlock.c: [0-9]+ checks, 0 failed' "$LIMIT" -- "$@"
}

case_ "a host completing inside its upcalls under its own lock" "$HOSTLOCK" inline
case_ "a host completing on its own thread under its own lock" "$HOSTLOCK" thread

harness_end
