#!/usr/bin/env bash
# run.sh: OpenPMIx clients under our server (see mk/v41server.mk). One ok/FAIL line per
# case, a failing case's output below it, and a closing "N passed, M failed"; every case
# runs through tools/harness.sh (a hang is a failure, reported before it is killed).
#
# Environment (set by mk/v41server.mk):
#   PMIXRUN   the launcher
#   OPX       tests-c/v41server/mixed.c built against Debian's OpenPMIx 4.2.2
#   OURS      the same program built against our library
#   WHEEL_LIB the Open MPI 5 wheel's libpmix.so.2 (OpenPMIx 5.0.11), optional
#   JI_OPX    tests-c/v41server/jobinfo.c built against Debian's OpenPMIx 4.2.2
#   JI_OURS   the same program built against our library
#   KG_OPX    tests-c/v41server/killget.c built against Debian's OpenPMIx 4.2.2
set -u
: "${PMIXRUN:?}" "${OPX:?}" "${OURS:?}"
AREA=v41server
. "$(dirname "$0")/../../tools/harness.sh"
PR=("$PMIXRUN" --timeout 40)

# --- the rendezvous variables ---
check "children get our URI and the v41 tcp4 URIs" 0 '^ok tcp4 127.0.0.1$' 30 -- \
    "${PR[@]}" -n 1 sh -c 'case "$PMIX_SERVER_URI41" in *";tcp4://127.0.0.1:"*) ;; *) exit 1;; esac;
        [ "$PMIX_SERVER_URI2" = "$PMIX_SERVER_URI41" ] || exit 2
        case "$PMIX_RS_SERVER_URI" in *";unix:"*) ;; *) exit 3;; esac
        [ "$PMIX_GDS_MODULE" = ds21,hash ] && [ "$PMIX_SECURITY_MODE" = native ] || exit 4
        [ -f "$PMIX_DSTORE_21_BASE_PATH/initial-pmix_shared-segment-0" ] || exit 6
        env | grep -q "^PMIX_SERVER_URI5" && exit 5; echo "ok tcp4 127.0.0.1"'
check "PMIX_RS_V41=0: only PMIX_RS_SERVER_URI" 0 '^ok v41 off$' 30 -- \
    env PMIX_RS_V41=0 "${PR[@]}" -n 1 sh -c 'env | grep -q "^PMIX_SERVER_URI" && exit 1;
        case "$PMIX_RS_SERVER_URI" in *";unix:"*) echo "ok v41 off";; esac'
check "PMIX_RS_V41=0: our clients as before (4 ranks)" 0 'PASS mixed pmix-rs' 60 4 -- \
    env PMIX_RS_V41=0 "${PR[@]}" -n 4 "$OURS"

# --- OpenPMIx 4.2.2 clients (Debian's libpmix) under pmixrun ---
for n in 1 4 16; do
    check "OpenPMIx clients, $n rank(s)" 0 "^PASS mixed openpmix .* of $n .*peers on openpmix: $n\$" \
        90 "$n" -- "${PR[@]}" -n "$n" "$OPX"
done
check "OpenPMIx clients across 2 nodes (4 ranks)" 0 \
    '^PASS mixed openpmix .* of 4 \(app 0, 2 local\): peers on openpmix: 4$' 90 4 -- \
    "${PR[@]}" --nodes 2 -n 4 "$OPX"

# --- the ds21 store: OpenPMIx 4.2.2 clients read job data from it (PMIX_RS_DS21=1) and
# the same values without it (=0); no file left behind; ours and 5.x clients on hash ---
CMP=("$(dirname "$0")/ds21-compare.sh")
check "PMIX_RS_DS21=0: hash only, no store" 0 '^ok ds21 off$' 30 -- \
    env PMIX_RS_DS21=0 "${PR[@]}" -n 1 sh -c '[ "$PMIX_GDS_MODULE" = hash ] || exit 1;
        [ -z "${PMIX_DSTORE_21_BASE_PATH:-}" ] && echo "ok ds21 off"'
for n in 1 4; do
    check "ds21 on/off: same job data, $n rank(s)" 0 "^SAME .* ds21 ranks $n\$" 120 -- \
        "${CMP[@]}" "$n" "${PR[@]}" -n "$n" "$JI_OPX"
done
check "ds21 on/off: same job data across 2 nodes (4 ranks)" 0 '^SAME .* ds21 ranks 4$' 120 -- \
    "${CMP[@]}" 4 "${PR[@]}" --nodes 2 -n 4 "$JI_OPX"
check "ds21 on/off: mixed job, 2 OpenPMIx + 2 pmix-rs ranks" 0 '^SAME .* ds21 ranks 2$' 120 -- \
    "${CMP[@]}" 2 "${PR[@]}" -n 2 "$JI_OPX" : -n 2 "$JI_OURS"
check "ds21 on/off: mixed across 2 nodes, 3 OpenPMIx + 3 pmix-rs" 0 '^SAME .* ds21 ranks 3$' \
    120 -- "${CMP[@]}" 3 "${PR[@]}" --nodes 2 -n 3 "$JI_OPX" : -n 3 "$JI_OURS"
if [ -e "${WHEEL_LIB:-}" ]; then
    check "ds21 on/off: an OpenPMIx 5.0.11 client stays on hash beside 4.2.2 and ours" 0 \
        '^SAME .* ds21 ranks 1$' 120 -- "${CMP[@]}" 1 "${PR[@]}" \
        -n 1 env LD_PRELOAD="$WHEEL_LIB" "$JI_OPX" : -n 1 "$JI_OPX" : -n 1 "$JI_OURS"
fi
# A client SIGKILLed in a tight Get loop (perhaps holding its ds21 lock for good): the
# other ranks' commits, fences and Gets stay correct and nothing hangs (pmixrun's exit
# status is the victim's 128 + 9). Three times, since the victim dies holding its lock
# only in some runs.
for i in 1 2 3; do
    check "ds21: a client killed in a Get loop, the others go on ($i)" 137 \
        '^PASS killget [0-9]+ 5$' 60 3 -- "${PR[@]}" --enable-recovery -n 4 "$KG_OPX"
done

# --- one job mixing both libraries (MPMD: app 0 OpenPMIx, app 1 ours) ---
check "mixed job: 2 OpenPMIx + 2 pmix-rs ranks" 0 'peers on openpmix: 2$' 90 4 -- \
    "${PR[@]}" -n 2 "$OPX" : -n 2 "$OURS"
check "mixed job: 3 pmix-rs + 5 OpenPMIx ranks" 0 'peers on openpmix: 5$' 90 8 -- \
    "${PR[@]}" -n 3 "$OURS" : -n 5 "$OPX"
check "mixed job across 2 nodes: 3 OpenPMIx + 3 pmix-rs ranks" 0 'peers on openpmix: 3$' 90 6 -- \
    "${PR[@]}" --nodes 2 -n 3 "$OPX" : -n 3 "$OURS"

# --- OpenPMIx 5.0.11 clients (the Open MPI 5 wheel's library, preloaded into the same
# program) beside 4.2.2's and ours: a 5.x client reads another form of the group replies
if [ -e "${WHEEL_LIB:-}" ]; then
    check "mixed job: 2 OpenPMIx 5.0.11 + 2 OpenPMIx 4.2.2 + 2 pmix-rs ranks" 0 \
        'peers on openpmix: 4$' 90 6 -- \
        "${PR[@]}" -n 2 env LD_PRELOAD="$WHEEL_LIB" "$OPX" : -n 2 "$OPX" : -n 2 "$OURS"
    check "OpenPMIx 5.0.11 clients across 2 nodes beside ours" 0 'peers on openpmix: 2$' 90 4 -- \
        "${PR[@]}" --nodes 2 -n 2 env LD_PRELOAD="$WHEEL_LIB" "$OPX" : -n 2 "$OURS"
else
    echo "SKIP OpenPMIx 5.0.11 clients: no Open MPI 5 venv (${WHEEL_LIB:-WHEEL_LIB unset})"
fi

# --- OpenPMIx's tools attach to a running job (pps --pid <pmixrun pid>) ---
if command -v pps >/dev/null; then
    check "pps --pid <pmixrun pid> attaches" 0 '^Active nspaces' 40 -- bash -c '
        t=$(mktemp -d); trap "rm -rf $t" EXIT
        TMPDIR=$t "$0" --timeout 30 -n 1 sleep 20 & pr=$!
        for i in $(seq 100); do
            [ -n "$(find "$t" -name "pmix.*.tool.$pr" 2>/dev/null)" ] && break; sleep 0.1
        done
        TMPDIR=$t timeout -s KILL 15 pps --pid "$pr"; rc=$?
        kill $pr; wait $pr 2>/dev/null; exit $rc' "$PMIXRUN"
else
    echo "SKIP pps: libpmix-bin not installed"
fi

harness_end
