#!/usr/bin/env bash
# run.sh: tools over OpenPMIx's wire, both directions, and Debian's python3-pmix (see
# mk/v41tools.mk). One ok/FAIL line per case through tools/harness.sh (a hang is a
# failure, reported before it is killed), then "v41tools: N passed, M failed".
#
# Environment (set by mk/v41tools.mk):
#   PMIXRUN   our launcher
#   OURS      tests-c/v41tools/qtool.c built against our library
#   OPX       the same built against Debian's OpenPMIx 4.2.2 (empty: not installed)
#   OPX_HOST  tests-c/v41tools/opx_host.c, a host on Debian's server library (idem)
#   PRTERUN   the Open MPI 5 wheel's prterun (OpenPMIx 5.0.11, PRRTE 3.0.14)
#   PYRANK    tests-py/debian/pypmix_rank.py
#   PYTOOL    tests-py/debian/pypmix_tool.py
#   JCTL_OURS tests-c/v41tools/jctl.c built against our library
#   JCTL_OPX  the same built against Debian's OpenPMIx 4.2.2 (empty: not installed)
#   EV_OURS   tests-c/v41tools/evtool.c built against our library
#   EV_OPX    the same built against Debian's OpenPMIx 4.2.2 (empty: not installed)
#   WHEEL_LIB the Open MPI 5 wheel's libpmix.so.2 (OpenPMIx 5.0.11), preloaded into the
#             Debian-built tools as the 5.x reference (optional)
set -u
: "${PMIXRUN:?}" "${OURS:?}" "${PRTERUN:?}" "${PYRANK:?}" "${PYTOOL:?}" "${JCTL_OURS:?}" "${EV_OURS:?}"
OPX=${OPX:-} OPX_HOST=${OPX_HOST:-} JCTL_OPX=${JCTL_OPX:-} EV_OPX=${EV_OPX:-}
WHEEL_LIB=${WHEEL_LIB:-}
AREA=v41tools
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tools/harness.sh"
A=$HERE/attach.sh
EP=$HERE/evpair.sh
# An event code of the tests' own (below PMIX_EXTERNAL_ERR_BASE), range 5 = GLOBAL.
EV="-3042 5"

# --- OpenPMIx 4.2.2 tools attached to a pmixrun job (its v41 listener) ---
if [ -n "$OPX" ]; then
    check "OpenPMIx tool: namespaces, proc table, job size of a 3-rank job, flat answers; events" 0 \
        'qtool.c: 16 checks, 0 failed' 30 -- "$A" pmixrun "$PMIXRUN" 3 "$OPX" @PID@ @NS@ 3 flat jobsize events
    check "OpenPMIx tool that names itself (TOOL_GIVEN_ID)" 0 'qtool.c: 16 checks, 0 failed' 30 -- \
        "$A" pmixrun "$PMIXRUN" 2 "$OPX" @PID@ @NS@ 2 flat named jobsize events
    # (4.2.2's own PMIx_IOF_deregister hangs in a tool, under prterun too: not called.)
    check "OpenPMIx tool pulls the ranks' output from pmixrun (IOF pull)" 0 \
        'qtool.c: 8 checks, 0 failed' 30 -- env ATTACH_TICKS=1 \
        "$A" pmixrun "$PMIXRUN" 2 "$OPX" @PID@ @NS@ 2 noproctable iof nodereg
    # Job control from an OpenPMIx tool: pmixrun kills or signals the rank (a rank ended
    # by PMIX_JOB_CTRL_KILL does not fail the job; one a signal killed does: 128 + 15).
    check "OpenPMIx tool: PMIx_Job_control KILL of rank 1 under pmixrun; the rank is gone" 0 \
        '^ok .*rank 1 \(pid [0-9]+\) is gone' 30 -- \
        "$A" pmixrun "$PMIXRUN" 2 "$JCTL_OPX" @PID@ @NS@ 1 kill 0
    check "OpenPMIx tool: PMIx_Job_control_nb SIGNAL (SIGTERM) of rank 1; pmixrun ends the job, 143" \
        0 '(rank 1 was killed by SIGTERM|is gone|pmixrun exited 143)' 30 3 -- env ATTACH_WAIT=5 \
        "$A" pmixrun "$PMIXRUN" 2 "$JCTL_OPX" @PID@ @NS@ 1 signal 0 nb
    check "OpenPMIx tool: PMIx_Job_control_nb KILL of the whole job; pmixrun exits 0" 0 \
        '^attach.sh: pmixrun exited 0$' 30 -- env ATTACH_WAIT=5 \
        "$A" pmixrun "$PMIXRUN" 2 "$JCTL_OPX" @PID@ @NS@ all kill 0 nb
    # Events to an OpenPMIx tool: its handler sees what another tool raised (pmixrun's
    # server relays it), an OpenPMIx tool or ours.
    for n in "$EV_OPX" "$EV_OURS"; do
        who="an OpenPMIx tool"
        [ "$n" = "$EV_OURS" ] && who="our tool"
        check "OpenPMIx tool's handler under pmixrun sees the event $who raised" 0 \
            '^evtool: event -3042 from ' 30 -- "$A" pmixrun "$PMIXRUN" 1 "$EP" @PID@ "$EV_OPX" "$n" $EV
    done
else
    echo "SKIP OpenPMIx-built tool: libpmix-dev not installed"
fi
if command -v pps >/dev/null && command -v pattrs >/dev/null; then
    check "pps --pid <pmixrun pid> lists the job's namespace" 0 '^ok pps lists ' 30 -- \
        "$A" pmixrun "$PMIXRUN" 2 bash -c 'o=$(pps --pid "$1" 2>&1); echo "$o"
            case "$o" in *"Active nspaces: $2"*) echo "ok pps lists $2";; esac' _ @PID@ @NS@
    # The host has no attribute registry to offer: a clean NOT_FOUND (exit -46 & 255).
    check "pattrs --host-fns: NOT-FOUND, no hang" 210 'PMIx_Query_info returned: NOT-FOUND' 30 -- \
        "$A" pmixrun "$PMIXRUN" 1 pattrs --pid @PID@ --host-fns
    check "pevent injects an event (namespace range) and exits 0" 0 '^attach.sh: pmixrun' 30 -- \
        "$A" pmixrun "$PMIXRUN" 1 pevent --pid @PID@ --event -31 --range 3
else
    echo "SKIP pps/pattrs/pevent: libpmix-bin not installed"
fi

# --- Debian's python3-pmix (built for /usr/bin/python3 only) under pmixrun ---
if /usr/bin/python3 -c 'import sys; sys.path.insert(0, "/usr/lib/python3/dist-packages")
import pmix; assert pmix.__file__.startswith("/usr/lib/python3/dist-packages")' 2>/dev/null; then
    for n in 1 4; do
        check "python3-pmix ranks under pmixrun -n $n" 0 '^PASS python3-pmix rank' 40 "$n" -- \
            "$PMIXRUN" --timeout 30 -n "$n" /usr/bin/python3 "$PYRANK"
    done
    # What pquery does (4.2.2's own pquery dies of SIGFPE before it connects; the
    # Open MPI 5 wheel ships no pquery): tool init by pid, namespaces, job size, proc table.
    check "python3-pmix tool attached to pmixrun: namespaces, job size, proc table" 0 \
        '^PASS python3-pmix tool' 40 -- "$A" pmixrun "$PMIXRUN" 3 /usr/bin/python3 "$PYTOOL" @PID@ @NS@ 3
else
    echo "SKIP python3-pmix: /usr/bin/python3 cannot import Debian's pmix module"
fi

# --- our tool attached to OpenPMIx servers ---
if [ -x "$PRTERUN" ]; then
    check "our tool under prterun (OpenPMIx 5.0.11): namespaces, proc table, job size, events" 0 \
        'qtool.c: 13 checks, 0 failed' 40 -- "$A" prterun "$PRTERUN" 2 "$OURS" @PID@ @NS@ 2 jobsize events
    check "our tool naming itself under prterun, flat answers" 0 'qtool.c: 16 checks, 0 failed' 40 -- \
        "$A" prterun "$PRTERUN" 2 "$OURS" @PID@ @NS@ 2 flat named jobsize events
    check "our tool pulls the ranks' output under prterun (IOF pull, deregister)" 0 \
        'qtool.c: 9 checks, 0 failed' 40 -- env ATTACH_TICKS=1 \
        "$A" prterun "$PRTERUN" 2 "$OURS" @PID@ @NS@ 2 noproctable iof
    # The reference: Debian's own 4.2.2 tool library doing the same under prterun.
    if [ -n "$OPX" ]; then
        check "reference: OpenPMIx 4.2.2 tool naming itself under prterun, flat answers" 0 \
            'qtool.c: 16 checks, 0 failed' 40 -- "$A" prterun "$PRTERUN" 2 "$OPX" @PID@ @NS@ 2 flat named jobsize events
    fi
    # prterun's rendezvous file states its release (5.0.11rc1): our tool speaks 5.x's
    # forms to it. A 5.x server counts a group destruct's participants from the members
    # the request names; 4.2's form (no members) makes it log an unpack error and fail
    # the call (Debian's 4.2.2 tool: -27), OpenPMIx 5's tool answers NOT_FOUND itself.
    REJECT='^FAIL|PMIX_ERR_UNPACK' check \
        "our tool takes prterun's release (5.0) from its rendezvous file: a destruct as 5.x's" 0 \
        'its release 5\.0 \(its rendezvous file\)' 40 -- "$A" prterun "$PRTERUN" 2 \
        env PMIX_DEBUG=debug "$OURS" @PID@ @NS@ 2 jobsize nogroup
    # Job control: PRRTE kills or signals the rank; a rank a signal killed ends the job
    # (143), one PMIX_JOB_CTRL_KILL ended does not (the whole job killed: 0).
    jctl_prte() { # WHO TOOL...
        local who=$1
        shift
        check "$who under prterun: PMIx_Job_control KILL of rank 1; the rank is gone" 0 \
            '^ok .*rank 1 \(pid [0-9]+\) is gone' 40 -- \
            "$A" prterun "$PRTERUN" 2 "$@" @PID@ @NS@ 1 kill 0
        check "$who under prterun: PMIx_Job_control_nb SIGNAL of rank 1; prterun exits 143" 0 \
            '(is gone|prterun exited 143)$' 40 2 -- env ATTACH_WAIT=5 \
            "$A" prterun "$PRTERUN" 2 "$@" @PID@ @NS@ 1 signal 0 nb
        check "$who under prterun: PMIx_Job_control_nb KILL of the whole job; prterun exits 0" 0 \
            '^attach.sh: prterun exited 0$' 40 -- env ATTACH_WAIT=5 \
            "$A" prterun "$PRTERUN" 2 "$@" @PID@ @NS@ all kill 0 nb
    }
    jctl_prte "our tool" "$JCTL_OURS"
    # Events to our tool: its handler sees what another tool raised (PRRTE relays it).
    check "our tool's handler under prterun sees the event our tool raised" 0 \
        '^evtool: event -3042 from ' 40 -- "$A" prterun "$PRTERUN" 1 "$EP" @PID@ "$EV_OURS" "$EV_OURS" $EV
    # The references: OpenPMIx 5.0.11's own tool library (the wheel's, preloaded into
    # the Debian-built programs).
    if [ -n "$OPX" ] && [ -e "$WHEEL_LIB" ]; then
        check "reference: OpenPMIx 5.0.11 tool under prterun: the same destruct is NOT_FOUND" 0 \
            'qtool.c: 12 checks, 0 failed' 40 -- "$A" prterun "$PRTERUN" 2 \
            env LD_PRELOAD="$WHEEL_LIB" "$OPX" @PID@ @NS@ 2 jobsize nogroup
        jctl_prte "reference: OpenPMIx 5.0.11 tool" env LD_PRELOAD="$WHEEL_LIB" "$JCTL_OPX"
        ev5="env LD_PRELOAD=$WHEEL_LIB $EV_OPX"
        check "our tool's handler under prterun sees the event an OpenPMIx 5.0.11 tool raised" 0 \
            '^evtool: event -3042 from ' 40 -- "$A" prterun "$PRTERUN" 1 "$EP" @PID@ "$EV_OURS" "$ev5" $EV
        check "reference: an OpenPMIx 5.0.11 tool's handler under prterun sees the same" 0 \
            '^evtool: event -3042 from ' 40 -- "$A" prterun "$PRTERUN" 1 "$EP" @PID@ "$ev5" "$ev5" $EV
    else
        echo "SKIP OpenPMIx 5.0.11 tools under prterun: libpmix-dev or the wheel's library ($WHEEL_LIB) missing"
    fi
else
    echo "SKIP our tool under prterun: $PRTERUN not installed"
fi
if [ -n "$OPX_HOST" ]; then
    for tool in "$OURS" "$OPX"; do
        who="our tool"
        [ "$tool" = "$OPX" ] && who="reference: OpenPMIx 4.2.2 tool"
        check "$who under a Debian OpenPMIx 4.2.2 host: flat answers" 0 \
            'qtool.c: 16 checks, 0 failed' 40 -- bash -c 't=$(mktemp -d); trap "rm -rf $t" EXIT
                TMPDIR=$t "$0" "$t" "$1" %p opxjob 2 flat jobsize events' "$OPX_HOST" "$tool"
        check "$who naming itself under a Debian 4.2.2 host" 0 'qtool.c: 16 checks, 0 failed' 40 -- \
            bash -c 't=$(mktemp -d); trap "rm -rf $t" EXIT
                TMPDIR=$t "$0" "$t" "$1" %p opxjob 2 flat named jobsize events' "$OPX_HOST" "$tool"
    done
    # The host module has no job_control: OpenPMIx's server answers NOT_SUPPORTED (-47),
    # to Debian's own tool and to ours alike.
    for tool in "$JCTL_OURS" "$JCTL_OPX"; do
        who="our tool"
        [ "$tool" = "$JCTL_OPX" ] && who="reference: OpenPMIx 4.2.2 tool"
        for mode in "1 kill -47" "all signal -47 nb"; do
            check "$who under a Debian 4.2.2 host: job control ($mode) is NOT_SUPPORTED" 0 \
                'job control status -47 ' 40 -- bash -c 't=$(mktemp -d); trap "rm -rf $t" EXIT
                    TMPDIR=$t "$0" "$t" "$1" %p opxjob $2' "$OPX_HOST" "$tool" "$mode"
        done
    done
    # Events: the host's OpenPMIx server relays one tool's event to the other.
    for l in "$EV_OURS" "$EV_OPX"; do
        who="our tool's handler"
        [ "$l" = "$EV_OPX" ] && who="reference: an OpenPMIx 4.2.2 tool's handler"
        check "$who under a Debian 4.2.2 host sees the event an OpenPMIx tool raised" 0 \
            '^evtool: event -3042 from opxhost-tool2' 40 -- bash -c 't=$(mktemp -d); trap "rm -rf $t" EXIT
                TMPDIR=$t "$0" "$t" "$1" %p "$2" "$3" $4' "$OPX_HOST" "$EP" "$l" "$EV_OPX" "$EV"
    done
else
    echo "SKIP our tool under a Debian host: libpmix-dev not installed"
fi

harness_end
