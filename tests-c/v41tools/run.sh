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
set -u
: "${PMIXRUN:?}" "${OURS:?}" "${PRTERUN:?}" "${PYRANK:?}" "${PYTOOL:?}"
OPX=${OPX:-} OPX_HOST=${OPX_HOST:-}
AREA=v41tools
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tools/harness.sh"
A=$HERE/attach.sh

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
else
    echo "SKIP our tool under a Debian host: libpmix-dev not installed"
fi

harness_end
